// Random (version 4) UUIDs for table ids, data file names and commit txnIds.
// Thread-safe: each thread draws from its own generator, seeded from the OS.
#pragma once

#include <string>

namespace weir::delta {

// "0c6cbaaf-5e04-4c9d-8959-1088814f58ef".
std::string NewUuid();

}  // namespace weir::delta
