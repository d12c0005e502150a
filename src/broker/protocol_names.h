// Kafka protocol names for the embedded broker's fault injection: request types ("Fetch",
// "ListOffsets", ...) and error codes ("NOT_LEADER_FOR_PARTITION", "_TRANSPORT", ...), so tests and
// the control channel can say what to break by name. Lookups are case-insensitive. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace weir::broker {

// "Fetch" -> 1, "listoffsets" -> 2; a decimal number is accepted as is.
// InvalidArgument naming the known names for anything else.
Result<int16_t> ApiKeyFromName(std::string_view name);
// 1 -> "Fetch"; unknown keys print as their number.
std::string ApiKeyName(int16_t api_key);

// An error code by librdkafka's name, with or without the "RD_KAFKA_RESP_ERR_" prefix:
// "NOT_LEADER_FOR_PARTITION" -> 6, "_TRANSPORT" -> -195 (the mock broker drops the connection),
// "OFFSET_OUT_OF_RANGE" -> 1. "NOT_LEADER_OR_FOLLOWER" (Kafka's newer name) -> 6. Numbers accepted.
Result<int> ErrorCodeFromName(std::string_view name);
// 6 -> "NOT_LEADER_FOR_PARTITION"; 0 -> "NO_ERROR".
std::string ErrorCodeName(int code);

}  // namespace weir::broker
