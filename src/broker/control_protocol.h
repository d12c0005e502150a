// The embedded broker's control language: one command per line, words separated by spaces, each
// answered by one line, "ok" (possibly followed by a value) or "error: <reason>". Tests use it,
// through `weir broker ctl`, to inject faults into a running `weir broker`. ControlHelp() lists
// the commands. Thread-safe as EmbeddedBroker is.
#pragma once

#include <string>
#include <string_view>

#include "broker/embedded_broker.h"

namespace weir::broker {

// Runs one command line against `broker`; returns the answer line without its newline.
std::string ExecuteControlCommand(EmbeddedBroker& broker, std::string_view line);

// One line per command, for --help and the "help" command.
std::string ControlHelp();

}  // namespace weir::broker
