// Text helpers every module shares: ASCII case folding and integer parsing that reports bad
// input as a Status (never an exception), for values read from tables, checkpoints, brokers and
// users. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace weir {

// `text` with ASCII letters lowered (other bytes unchanged).
std::string AsciiLower(std::string_view text);
// True when `a` and `b` are equal ignoring ASCII case.
bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b);

// The decimal integer `text` is (an optional '-' then digits, nothing else). InvalidArgument
// naming `what` and the text when it is not one or does not fit.
Result<int64_t> ParseInt64(std::string_view text, std::string_view what);
Result<int32_t> ParseInt32(std::string_view text, std::string_view what);

}  // namespace weir
