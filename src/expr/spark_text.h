// Spark's text forms of values: how CAST(string AS type) reads a string and how
// CAST(x AS STRING) writes a value, with Spark's non-ANSI rules (Cast.scala, UTF8String.toLong,
// DateTimeUtils.stringToDate / stringToTimestamp, java.lang.Double.toString). The session time
// zone is UTC. Parsers return nullopt for text Spark would turn into NULL. Pure functions,
// thread-safe, no allocation except where a std::string is returned or appended to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "columnar/column.h"

namespace weir::expr {

// Removes leading and trailing bytes <= 0x20 and 0x7F (UTF8String.trimAll: whitespace and ISO
// control characters).
std::string_view TrimSparkWhitespace(std::string_view s);

// Integral: optional sign, digits, and an optional '.' plus digits that are checked and dropped
// ("1.9" -> 1, ".5" -> 0); no exponent; nullopt on overflow of int64.
std::optional<int64_t> ParseSparkInteger(std::string_view s);
// Boolean: t, true, y, yes, 1 / f, false, n, no, 0 (case-insensitive, trimmed).
std::optional<bool> ParseSparkBoolean(std::string_view s);
// Double as java.lang.Double.parseDouble after Spark's special cases: "1e3", ".5", "5.", "+1",
// a trailing d/D/f/F, "NaN", "Infinity", and (case-insensitive) "inf", "+inf", "-infinity", "nan".
// Hexadecimal floats ("0x1p3") are not supported (nullopt).
std::optional<double> ParseSparkDouble(std::string_view s);
// Decimal: java.math.BigDecimal syntax (sign, digits, point, exponent) rounded HALF_UP to
// `scale`; nullopt when it does not fit DECIMAL(precision, scale).
std::optional<columnar::Int128> ParseSparkDecimal(std::string_view s, int precision, int scale);
// Date: [+-]yyyy[y..], yyyy-[m]m, yyyy-[m]m-[d]d, optionally followed by ' ' or 'T' and anything.
std::optional<int32_t> ParseSparkDate(std::string_view s);
// Timestamp: a date as above, then [ |T][h]h:[m]m[:[s]s[.fraction]] and an optional zone:
// Z, UTC, GMT, UT, +h, +hh, +hh:mm, +hhmm, +hh:mm:ss, UTC+hh:mm, GMT-h (region names like
// America/New_York are not supported: nullopt). Digits past microseconds are dropped. Without a
// zone the time is UTC (weir's session time zone). `ignore_zone` drops a given zone instead of
// applying it (TIMESTAMP_NTZ).
std::optional<int64_t> ParseSparkTimestamp(std::string_view s, bool ignore_zone = false);

// java.lang.Double.toString / Float.toString: "1.0", "0.001", "1.0E7", "1.234E-5", "NaN",
// "Infinity", "-0.0"; digits are the shortest that round-trip (as JDK 19+ prints them).
void AppendSparkDouble(double v, std::string* out);
void AppendSparkFloat(float v, std::string* out);
// "2026-06-08 09:00:00", "2026-06-08 09:00:00.5": Spark's timestamp text (trailing fraction
// zeros dropped), in UTC.
void AppendSparkTimestamp(int64_t micros, std::string* out);

}  // namespace weir::expr
