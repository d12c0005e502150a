// Text forms of typed values, shared by every reader and writer of text (JSON lines, CSV, Delta
// partition values and stats): decimals, dates, timestamps, base64. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "columnar/column.h"

namespace weir::columnar {

// "-12.50" for unscaled -1250 and scale 2.
void AppendDecimal(Int128 unscaled, int scale, std::string* out);
std::string FormatDecimal(Int128 unscaled, int scale);
// Parses "12.5", "-0.001", "1e3" into an unscaled value at `scale`, rounding half up as Spark's
// cast does. nullopt when the text is not a number or does not fit DECIMAL(precision, scale).
std::optional<Int128> ParseDecimal(std::string_view text, int precision, int scale);
// Largest unscaled magnitude for a precision: 10^precision - 1.
Int128 MaxDecimalUnscaled(int precision);

// Days since 1970-01-01 <-> civil date (proleptic Gregorian).
int32_t DaysFromCivil(int64_t year, unsigned month, unsigned day);
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day);

// "2026-06-08".
void AppendDate(int32_t days, std::string* out);
std::string FormatDate(int32_t days);
// "2026-06-08T09:00:00.000000Z" (always 6 fractional digits, UTC).
void AppendTimestampMicros(int64_t micros, std::string* out);
std::string FormatTimestampMicros(int64_t micros);
// "2026-06-08 09:00:00.123456" (Delta partition value form; fraction omitted when zero).
std::string FormatTimestampForPartition(int64_t micros);
// "2026-06-08T09:00:00.123Z": milliseconds, as Delta stats are written.
std::string FormatTimestampMillis(int64_t micros);

// Parses "YYYY-MM-DD" (optionally followed by a time part, which is ignored, as Spark's to_date).
std::optional<int32_t> ParseDate(std::string_view text);
// Parses ISO-8601-like timestamps: "YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z|+HH:MM|-HH:MM|+HHMM]".
// Without a zone the time is taken as UTC. Returns microseconds since the epoch.
std::optional<int64_t> ParseTimestamp(std::string_view text);

void AppendBase64(std::string_view bytes, std::string* out);
std::optional<std::string> DecodeBase64(std::string_view text);

// Appends the UTF-8 encoding of a Unicode code point (REQUIRES: <= 0x10FFFF).
void AppendUtf8(uint32_t code_point, std::string* out);

// The length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 if the bytes there are not
// one (overlong, surrogate, beyond U+10FFFF, truncated or a stray continuation byte).
size_t Utf8SequenceLength(std::string_view s, size_t i);
// Whether all of `s` is valid UTF-8 in the sense of Utf8SequenceLength. Runs of ASCII are checked
// 32 bytes at a time (payloads are mostly ASCII: this is on the path of every
// CAST(value AS STRING)).
bool IsValidUtf8(std::string_view s);
// Appends `s` with each byte that starts no valid UTF-8 sequence replaced by U+FFFD.
void AppendValidUtf8(std::string_view s, std::string* out);

// Whether `a` and `b` are equal ignoring the case of ASCII letters (how Spark matches names).
bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b);

// Appends `s` as a JSON string literal with quotes, escaping as JSON requires. Invalid UTF-8 bytes
// are replaced with U+FFFD so the output is always valid JSON.
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace weir::columnar
