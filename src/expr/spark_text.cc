#include "expr/spark_text.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "columnar/text_format.h"

namespace weir::expr {

namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

using columnar::EqualsIgnoreAsciiCase;

bool IsSparkWhitespace(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u <= 0x20 || u == 0x7F;
}

// Reads 1..max_digits digits at s[*pos].
bool ReadNumber(std::string_view s, size_t* pos, int min_digits, int max_digits, int64_t* out) {
  size_t start = *pos;
  int64_t v = 0;
  while (*pos < s.size() && IsDigit(s[*pos]) && static_cast<int>(*pos - start) < max_digits) {
    v = v * 10 + (s[*pos] - '0');
    ++*pos;
  }
  int n = static_cast<int>(*pos - start);
  if (n < min_digits) return false;
  if (*pos < s.size() && IsDigit(s[*pos])) return false;  // too many digits
  *out = v;
  return true;
}

// The date part: [+-]yyyy*[-[m]m[-[d]d]]. Sets *pos past it.
bool ParseDatePart(std::string_view s, size_t* pos, int32_t* days) {
  size_t p = *pos;
  bool negative = false;
  if (p < s.size() && (s[p] == '-' || s[p] == '+')) negative = s[p++] == '-';
  int64_t year = 0, month = 1, day = 1;
  if (!ReadNumber(s, &p, 4, 7, &year)) return false;
  if (negative) year = -year;
  if (p < s.size() && s[p] == '-') {
    ++p;
    if (!ReadNumber(s, &p, 1, 2, &month)) return false;
    if (p < s.size() && s[p] == '-') {
      ++p;
      if (!ReadNumber(s, &p, 1, 2, &day)) return false;
    }
  }
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  int32_t d =
      columnar::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t y2;
  unsigned m2, d2;
  columnar::CivilFromDays(d, &y2, &m2, &d2);
  if (static_cast<int64_t>(m2) != month || static_cast<int64_t>(d2) != day) return false;
  *days = d;
  *pos = p;
  return true;
}

// A zone suffix: returns the offset in seconds to subtract.
bool ParseZone(std::string_view z, int64_t* offset_seconds) {
  *offset_seconds = 0;
  if (z.empty()) return true;
  if (z == "Z" || z == "z") return true;
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (z.size() >= prefix.size() && EqualsIgnoreAsciiCase(z.substr(0, prefix.size()), prefix)) {
      std::string_view rest = z.substr(prefix.size());
      if (rest.empty()) return true;
      if (rest[0] != '+' && rest[0] != '-') break;
      z = rest;
      break;
    }
  }
  if (z[0] != '+' && z[0] != '-') return false;  // region ids are not supported
  int sign = z[0] == '-' ? -1 : 1;
  size_t p = 1;
  int64_t h = 0, m = 0, sec = 0;
  size_t start = p;
  while (p < z.size() && IsDigit(z[p]) && p - start < 2) h = h * 10 + (z[p++] - '0');
  if (p == start) return false;
  if (p < z.size() && z[p] == ':') {
    ++p;
    if (!ReadNumber(z, &p, 2, 2, &m)) return false;
    if (p < z.size() && z[p] == ':') {
      ++p;
      if (!ReadNumber(z, &p, 2, 2, &sec)) return false;
    }
  } else if (p + 2 <= z.size() && p - start == 2) {
    if (!ReadNumber(z, &p, 2, 2, &m)) return false;
  }
  if (p != z.size() || h > 18 || m > 59 || sec > 59) return false;
  *offset_seconds = sign * (h * 3600 + m * 60 + sec);
  return true;
}

void AppendPadded(int64_t v, int width, std::string* out) {
  char buf[24];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  size_t len = static_cast<size_t>(ptr - buf);
  if (len < static_cast<size_t>(width)) out->append(static_cast<size_t>(width) - len, '0');
  out->append(buf, len);
}

// Lays out shortest digits as Java's Double.toString does. `sci` is to_chars' scientific output
// ("1.2345e+02", "-5e-324").
void AppendJavaLayout(std::string_view sci, std::string* out) {
  size_t e_pos = sci.find('e');
  std::string_view mantissa = sci.substr(0, e_pos);
  int exponent = 0;
  std::from_chars(sci.data() + e_pos + 1 + (sci[e_pos + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exponent);
  bool negative = !mantissa.empty() && mantissa[0] == '-';
  if (negative) {
    out->push_back('-');
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  // value = 0.d1d2...dn * 10^(exponent + 1)
  if (exponent >= -3 && exponent < 7) {
    if (exponent >= 0) {
      size_t int_digits = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_digits) {
        out->append(digits);
        out->append(int_digits - digits.size(), '0');
        out->append(".0");
      } else {
        out->append(digits, 0, int_digits);
        out->push_back('.');
        out->append(digits, int_digits, std::string::npos);
      }
    } else {
      out->append("0.");
      out->append(static_cast<size_t>(-exponent - 1), '0');
      out->append(digits);
    }
    return;
  }
  out->push_back(digits[0]);
  out->push_back('.');
  if (digits.size() > 1) {
    out->append(digits, 1, std::string::npos);
  } else {
    out->push_back('0');
  }
  out->push_back('E');
  out->append(std::to_string(exponent));
}

// The digits of s[at, at + count) as a number; false when one is not a digit.
bool FixedDigits(std::string_view s, size_t at, size_t count, int64_t* out) {
  int64_t v = 0;
  for (size_t i = at; i < at + count; ++i) {
    auto d = static_cast<unsigned>(static_cast<unsigned char>(s[i])) - unsigned{'0'};
    if (d > 9) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool IsLeapYear(int64_t y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

int64_t DaysInMonth(int64_t year, int64_t month) {
  static constexpr int8_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// The layout producers write, yyyy-MM-dd[T ]HH:mm:ss[.fraction] with 1-9 fraction digits and
// no zone, 'Z' or +hh:mm / -hh:mm, read at fixed positions. True with *micros set when `s` is a
// valid timestamp in that layout: then ParseSparkTimestamp's general reading gives the same
// value. False for anything else (the general reading decides, invalid values included).
bool ParseIsoTimestamp(std::string_view s, bool ignore_zone, int64_t* micros) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') ||
      s[13] != ':' || s[16] != ':') {
    return false;
  }
  int64_t year, month, day, hour, minute, second;
  if (!FixedDigits(s, 0, 4, &year) || !FixedDigits(s, 5, 2, &month) ||
      !FixedDigits(s, 8, 2, &day) || !FixedDigits(s, 11, 2, &hour) ||
      !FixedDigits(s, 14, 2, &minute) || !FixedDigits(s, 17, 2, &second)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return false;
  }
  size_t pos = 19;
  int64_t fraction = 0;
  if (pos < s.size() && s[pos] == '.') {
    size_t start = ++pos;
    while (pos < s.size() && IsDigit(s[pos])) {
      if (pos - start < 6) fraction = fraction * 10 + (s[pos] - '0');
      ++pos;
    }
    size_t digits = pos - start;
    if (digits == 0 || digits > 9) return false;
    for (size_t i = digits; i < 6; ++i) fraction *= 10;
  }
  std::string_view zone = s.substr(pos);
  int64_t offset_seconds = 0;
  if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    int64_t h, m;
    if (!FixedDigits(zone, 1, 2, &h) || !FixedDigits(zone, 4, 2, &m) || h > 18 || m > 59) {
      return false;
    }
    offset_seconds = (zone[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
  } else if (!zone.empty() && zone != "Z") {
    return false;
  }
  int64_t days =
      columnar::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  *micros = days * kMicrosPerDay + ((hour * 60 + minute) * 60 + second) * kMicrosPerSecond +
            fraction - (ignore_zone ? 0 : offset_seconds * kMicrosPerSecond);
  return true;
}

}  // namespace

std::string_view TrimSparkWhitespace(std::string_view s) {
  while (!s.empty() && IsSparkWhitespace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSparkWhitespace(s.back())) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> ParseSparkInteger(std::string_view s) {
  s = TrimSparkWhitespace(s);
  if (s.empty()) return std::nullopt;
  size_t p = 0;
  bool negative = s[0] == '-';
  if (negative || s[0] == '+') {
    if (s.size() == 1) return std::nullopt;
    ++p;
  }
  // Accumulate negatively so that INT64_MIN parses (as UTF8String.toLong does).
  int64_t result = 0;
  constexpr int64_t kStop = std::numeric_limits<int64_t>::min() / 10;
  for (; p < s.size(); ++p) {
    char c = s[p];
    if (c == '.') {
      ++p;
      break;
    }
    if (!IsDigit(c)) return std::nullopt;
    int digit = c - '0';
    if (result < kStop || (result == kStop && digit > 8)) return std::nullopt;  // below INT64_MIN
    result = result * 10 - digit;
  }
  for (; p < s.size(); ++p) {
    if (!IsDigit(s[p])) return std::nullopt;
  }
  if (!negative) {
    if (result == std::numeric_limits<int64_t>::min()) return std::nullopt;
    result = -result;
  }
  return result;
}

std::optional<bool> ParseSparkBoolean(std::string_view s) {
  s = TrimSparkWhitespace(s);
  for (std::string_view t : {"t", "true", "y", "yes", "1"}) {
    if (EqualsIgnoreAsciiCase(s, t)) return true;
  }
  for (std::string_view f : {"f", "false", "n", "no", "0"}) {
    if (EqualsIgnoreAsciiCase(s, f)) return false;
  }
  return std::nullopt;
}

std::optional<double> ParseSparkDouble(std::string_view s) {
  s = TrimSparkWhitespace(s);
  if (s.empty()) return std::nullopt;
  // Spark's special literals (case-insensitive) and Java's own.
  for (std::string_view inf : {"inf", "+inf", "infinity", "+infinity"}) {
    if (EqualsIgnoreAsciiCase(s, inf)) return std::numeric_limits<double>::infinity();
  }
  for (std::string_view inf : {"-inf", "-infinity"}) {
    if (EqualsIgnoreAsciiCase(s, inf)) return -std::numeric_limits<double>::infinity();
  }
  if (EqualsIgnoreAsciiCase(s, "nan") || s == "+NaN" || s == "-NaN") {
    return std::numeric_limits<double>::quiet_NaN();
  }
  char last = s.back();
  if (last == 'd' || last == 'D' || last == 'f' || last == 'F') s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  // Java's grammar: digits [. digits] | . digits, then [eE][+-]digits.
  size_t p = 0, int_digits = 0, frac_digits = 0;
  while (p < s.size() && IsDigit(s[p])) ++p, ++int_digits;
  if (p < s.size() && s[p] == '.') {
    ++p;
    while (p < s.size() && IsDigit(s[p])) ++p, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return std::nullopt;
  if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
    ++p;
    if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
    size_t exp_start = p;
    while (p < s.size() && IsDigit(s[p])) ++p;
    if (p == exp_start) return std::nullopt;
  }
  if (p != s.size()) return std::nullopt;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    // Overflow gives infinity, underflow zero, as Java does.
    size_t e = s.find_first_of("eE");
    bool tiny = e != std::string_view::npos && s.find('-', e) != std::string_view::npos;
    v = tiny ? 0.0 : std::numeric_limits<double>::infinity();
  } else if (ec != std::errc() || ptr != s.data() + s.size()) {
    return std::nullopt;
  }
  return negative ? -v : v;
}

std::optional<columnar::Int128> ParseSparkDecimal(std::string_view s, int precision, int scale) {
  s = TrimSparkWhitespace(s);
  if (s.empty()) return std::nullopt;
  // columnar::ParseDecimal reads BigDecimal's syntax (".5", "5.", "1e3") and rejects "NaN".
  return columnar::ParseDecimal(s, precision, scale);
}

std::optional<int32_t> ParseSparkDate(std::string_view s) {
  s = TrimSparkWhitespace(s);
  size_t pos = 0;
  int32_t days;
  if (!ParseDatePart(s, &pos, &days)) return std::nullopt;
  if (pos < s.size() && s[pos] != ' ' && s[pos] != 'T') return std::nullopt;
  return days;
}

std::optional<int64_t> ParseSparkTimestamp(std::string_view s, bool ignore_zone) {
  int64_t micros;
  if (ParseIsoTimestamp(s, ignore_zone, &micros)) return micros;
  s = TrimSparkWhitespace(s);
  size_t pos = 0;
  int32_t days;
  if (!ParseDatePart(s, &pos, &days)) return std::nullopt;
  int64_t seconds = static_cast<int64_t>(days) * 86400;
  int64_t hour = 0, minute = 0, second = 0, fraction = 0, offset = 0;
  if (pos < s.size()) {
    if (s[pos] != ' ' && s[pos] != 'T') return std::nullopt;
    ++pos;
  }
  if (pos < s.size()) {  // not "2026-06-08T"
    if (!ReadNumber(s, &pos, 1, 2, &hour)) return std::nullopt;
    if (pos >= s.size() || s[pos] != ':') return std::nullopt;
    ++pos;
    if (!ReadNumber(s, &pos, 1, 2, &minute)) return std::nullopt;
    if (pos < s.size() && s[pos] == ':') {
      ++pos;
      if (!ReadNumber(s, &pos, 1, 2, &second)) return std::nullopt;
      if (pos < s.size() && s[pos] == '.') {
        ++pos;
        int n = 0;
        while (pos < s.size() && IsDigit(s[pos])) {
          if (n < 6) fraction = fraction * 10 + (s[pos] - '0');
          ++n;
          ++pos;
        }
        if (n > 9) return std::nullopt;
        for (int i = std::min(n, 6); i < 6; ++i) fraction *= 10;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    std::string_view zone = s.substr(pos);
    if (!zone.empty() && zone[0] == ' ') zone.remove_prefix(1);
    if (!ParseZone(zone, &offset)) return std::nullopt;
  }
  seconds += (hour * 60 + minute) * 60 + second - (ignore_zone ? 0 : offset);
  // Past the microseconds a long holds (years beyond about 294,000): NULL, as Spark's
  // Math.multiplyExact / addExact of the instant's seconds and micros fail.
  if (__builtin_mul_overflow(seconds, kMicrosPerSecond, &micros) ||
      __builtin_add_overflow(micros, fraction, &micros)) {
    return std::nullopt;
  }
  return micros;
}

void AppendSparkDouble(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (v == 0) {
    out->append(std::signbit(v) ? "-0.0" : "0.0");
    return;
  }
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  AppendJavaLayout(std::string_view(buf, ptr - buf), out);
}

void AppendSparkFloat(float v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (v == 0) {
    out->append(std::signbit(v) ? "-0.0" : "0.0");
    return;
  }
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  AppendJavaLayout(std::string_view(buf, ptr - buf), out);
}

void AppendSparkTimestamp(int64_t micros, std::string* out) {
  int64_t days = micros / kMicrosPerDay;
  int64_t tod = micros % kMicrosPerDay;
  if (tod < 0) {
    tod += kMicrosPerDay;
    --days;
  }
  columnar::AppendDate(static_cast<int32_t>(days), out);
  out->push_back(' ');
  int64_t secs = tod / kMicrosPerSecond;
  AppendPadded(secs / 3600, 2, out);
  out->push_back(':');
  AppendPadded(secs / 60 % 60, 2, out);
  out->push_back(':');
  AppendPadded(secs % 60, 2, out);
  int64_t fraction = tod % kMicrosPerSecond;
  if (fraction != 0) {
    char digits[7];
    for (int i = 5; i >= 0; --i) {
      digits[i] = static_cast<char>('0' + fraction % 10);
      fraction /= 10;
    }
    int len = 6;
    while (len > 0 && digits[len - 1] == '0') --len;
    out->push_back('.');
    out->append(digits, len);
  }
}

}  // namespace weir::expr
