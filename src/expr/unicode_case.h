// Unicode case mapping of UTF-8 text, as Java's String.toUpperCase / toLowerCase (Locale.ROOT)
// do it and therefore as Spark's upper(), lower() and initcap() do: full mappings (ß -> SS,
// İ -> i̇), the final-sigma rule, and Character.toTitleCase for one code point. Tables come from
// the Unicode Character Database (generated, see unicode_case.cc). Bytes that are not valid UTF-8
// are copied unchanged. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace weir::expr {

void AppendUpperCase(std::string_view text, std::string* out);
void AppendLowerCase(std::string_view text, std::string* out);

// The simple title-case mapping of one code point (the code point itself when it has none).
uint32_t TitleCase(uint32_t code_point);
// The simple lower-case mapping of one code point.
uint32_t LowerCase(uint32_t code_point);

// Decodes the code point starting at byte `*pos` of `s` and advances `*pos` past it. An invalid
// or truncated sequence yields one byte as U+FFFD-like value 0xFFFD (and advances one byte).
// REQUIRES: *pos < s.size().
uint32_t DecodeUtf8(std::string_view s, size_t* pos);

}  // namespace weir::expr
