#include "columnar/text_format.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace weir::columnar {

namespace {

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits at text[*pos].
bool ReadDigits(std::string_view text, size_t* pos, int n, int* out) {
  if (*pos + n > text.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = text[*pos + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

void AppendPadded(int64_t v, int width, std::string* out) {
  char buf[24];
  int n = std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(v));
  out->append(buf, n);
}

}  // namespace

Int128 MaxDecimalUnscaled(int precision) { return Pow10(precision) - 1; }

void AppendDecimal(Int128 unscaled, int scale, std::string* out) {
  bool negative = unscaled < 0;
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(-(unscaled + 1)) + 1 : unscaled;
  char digits[48];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude > 0);
  while (n <= scale) digits[n++] = '0';  // at least one digit before the point
  if (negative) out->push_back('-');
  for (int i = n - 1; i >= 0; --i) {
    out->push_back(digits[i]);
    if (i == scale && scale > 0) out->push_back('.');
  }
}

std::string FormatDecimal(Int128 unscaled, int scale) {
  std::string out;
  AppendDecimal(unscaled, scale, &out);
  return out;
}

std::optional<Int128> ParseDecimal(std::string_view text, int precision, int scale) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) negative = text[pos++] == '-';
  // Collect significant digits and the position of the decimal point.
  std::string digits;
  int fraction_digits = 0;
  bool seen_point = false, any_digit = false;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (IsDigit(c)) {
      any_digit = true;
      if (digits.empty() && c == '0') {
        if (seen_point) ++fraction_digits;
        continue;
      }
      if (digits.size() > 80) return std::nullopt;
      digits.push_back(c);
      if (seen_point) ++fraction_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) return std::nullopt;
  int exponent = 0;
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    bool exp_negative = false;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) exp_negative = text[pos++] == '-';
    if (pos >= text.size()) return std::nullopt;
    for (; pos < text.size() && IsDigit(text[pos]); ++pos) {
      exponent = exponent * 10 + (text[pos] - '0');
      if (exponent > 1000) return std::nullopt;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (pos != text.size()) return std::nullopt;
  // value = digits * 10^(exponent - fraction_digits); we need value * 10^scale.
  int shift = exponent - fraction_digits + scale;
  Int128 limit = MaxDecimalUnscaled(precision);
  Int128 v = 0;
  if (shift >= 0) {
    if (static_cast<int>(digits.size()) + shift > precision) {
      if (!digits.empty()) return std::nullopt;
    }
    for (char c : digits) v = v * 10 + (c - '0');
    v *= Pow10(std::min(shift, 38));
  } else {
    int drop = -shift;
    int keep = static_cast<int>(digits.size()) - drop;
    if (keep > precision) return std::nullopt;
    for (int i = 0; i < keep; ++i) v = v * 10 + (digits[i] - '0');
    if (keep >= 0 && keep < static_cast<int>(digits.size()) && digits[keep] >= '5') ++v;  // half up
  }
  if (v > limit) return std::nullopt;
  return negative ? -v : v;
}

int32_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  // Shift the year to start in March so the leap day is last; count 400-year eras.
  year -= month <= 2;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const unsigned year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return static_cast<int32_t>(era * 146097 + static_cast<int64_t>(day_of_era) - 719468);
}

void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned mp = (5 * day_of_year + 2) / 153;
  *day = day_of_year - (153 * mp + 2) / 5 + 1;
  *month = mp < 10 ? mp + 3 : mp - 9;
  *year = static_cast<int64_t>(year_of_era) + era * 400 + (*month <= 2);
}

void AppendDate(int32_t days, std::string* out) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  if (y < 0) {
    out->push_back('-');
    y = -y;
  }
  AppendPadded(y, 4, out);
  out->push_back('-');
  AppendPadded(m, 2, out);
  out->push_back('-');
  AppendPadded(d, 2, out);
}

std::string FormatDate(int32_t days) {
  std::string out;
  AppendDate(days, &out);
  return out;
}

namespace {
constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

void SplitMicros(int64_t micros, int64_t* days, int64_t* micros_of_day) {
  *days = micros / kMicrosPerDay;
  *micros_of_day = micros % kMicrosPerDay;
  if (*micros_of_day < 0) {
    *micros_of_day += kMicrosPerDay;
    *days -= 1;
  }
}

void AppendTimeOfDay(int64_t micros_of_day, std::string* out) {
  int64_t secs = micros_of_day / 1000000;
  AppendPadded(secs / 3600, 2, out);
  out->push_back(':');
  AppendPadded(secs / 60 % 60, 2, out);
  out->push_back(':');
  AppendPadded(secs % 60, 2, out);
}
}  // namespace

void AppendTimestampMicros(int64_t micros, std::string* out) {
  int64_t days, tod;
  SplitMicros(micros, &days, &tod);
  AppendDate(static_cast<int32_t>(days), out);
  out->push_back('T');
  AppendTimeOfDay(tod, out);
  out->push_back('.');
  AppendPadded(tod % 1000000, 6, out);
  out->push_back('Z');
}

std::string FormatTimestampMicros(int64_t micros) {
  std::string out;
  AppendTimestampMicros(micros, &out);
  return out;
}

std::string FormatTimestampForPartition(int64_t micros) {
  int64_t days, tod;
  SplitMicros(micros, &days, &tod);
  std::string out;
  AppendDate(static_cast<int32_t>(days), &out);
  out.push_back(' ');
  AppendTimeOfDay(tod, &out);
  if (tod % 1000000 != 0) {
    out.push_back('.');
    AppendPadded(tod % 1000000, 6, &out);
  }
  return out;
}

std::string FormatTimestampMillis(int64_t micros) {
  int64_t days, tod;
  SplitMicros(micros, &days, &tod);
  std::string out;
  AppendDate(static_cast<int32_t>(days), &out);
  out.push_back('T');
  AppendTimeOfDay(tod, &out);
  out.push_back('.');
  AppendPadded(tod % 1000000 / 1000, 3, &out);
  out.push_back('Z');
  return out;
}

namespace {
// Parses "YYYY-MM-DD" at text[*pos]; year may have 4+ digits and a sign.
bool ParseDatePart(std::string_view text, size_t* pos, int64_t* days) {
  size_t p = *pos;
  bool negative = false;
  if (p < text.size() && (text[p] == '-' || text[p] == '+')) negative = text[p++] == '-';
  int64_t year = 0;
  size_t year_start = p;
  while (p < text.size() && IsDigit(text[p]) && p - year_start < 6) year = year * 10 + (text[p++] - '0');
  if (p - year_start < 4) return false;
  if (negative) year = -year;
  int month = 0, day = 0;
  if (p >= text.size() || text[p] != '-') return false;
  ++p;
  if (!ReadDigits(text, &p, 2, &month)) return false;
  if (p >= text.size() || text[p] != '-') return false;
  ++p;
  if (!ReadDigits(text, &p, 2, &day)) return false;
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  int32_t d = DaysFromCivil(year, month, day);
  int64_t y2;
  unsigned m2, d2;
  CivilFromDays(d, &y2, &m2, &d2);
  if (static_cast<int>(m2) != month || static_cast<int>(d2) != day) return false;  // e.g. Feb 30
  *days = d;
  *pos = p;
  return true;
}
}  // namespace

std::optional<int32_t> ParseDate(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  size_t pos = 0;
  int64_t days;
  if (!ParseDatePart(text, &pos, &days)) return std::nullopt;
  if (pos < text.size() && text[pos] != ' ' && text[pos] != 'T') return std::nullopt;
  return static_cast<int32_t>(days);
}

std::optional<int64_t> ParseTimestamp(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  size_t pos = 0;
  int64_t days;
  if (!ParseDatePart(text, &pos, &days)) return std::nullopt;
  int64_t micros = days * kMicrosPerDay;
  if (pos == text.size()) return micros;
  if (text[pos] != 'T' && text[pos] != ' ') return std::nullopt;
  ++pos;
  int hour = 0, minute = 0, second = 0;
  if (!ReadDigits(text, &pos, 2, &hour)) return std::nullopt;
  if (pos >= text.size() || text[pos] != ':') return std::nullopt;
  ++pos;
  if (!ReadDigits(text, &pos, 2, &minute)) return std::nullopt;
  int64_t fraction = 0;
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    if (!ReadDigits(text, &pos, 2, &second)) return std::nullopt;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      int n = 0;
      while (pos < text.size() && IsDigit(text[pos])) {
        if (n < 6) fraction = fraction * 10 + (text[pos] - '0');
        ++n;
        ++pos;
      }
      if (n == 0) return std::nullopt;
      for (int i = n; i < 6; ++i) fraction *= 10;
    }
  }
  if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
  micros += ((hour * 60LL + minute) * 60 + second) * 1000000 + fraction;
  if (pos == text.size()) return micros;
  if (text[pos] == 'Z' && pos + 1 == text.size()) return micros;
  if (text.substr(pos) == " UTC") return micros;
  if (text[pos] == '+' || text[pos] == '-') {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!ReadDigits(text, &pos, 2, &oh)) return std::nullopt;
    if (pos < text.size() && text[pos] == ':') ++pos;
    if (pos < text.size() && !ReadDigits(text, &pos, 2, &om)) return std::nullopt;
    if (pos != text.size() || oh > 18 || om > 59) return std::nullopt;
    return micros - sign * (oh * 60LL + om) * 60 * 1000000;
  }
  return std::nullopt;
}

void AppendBase64(std::string_view bytes, std::string* out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(kAlphabet[(v >> 6) & 63]);
    out->push_back(kAlphabet[v & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    if (rest == 2) v |= uint8_t(bytes[i + 1]) << 8;
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out->push_back('=');
  }
}

std::optional<std::string> DecodeBase64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    int v = value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  uint32_t cp = c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    unsigned char cc = s[i + k];
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

bool IsValidUtf8(std::string_view s) {
  constexpr uint64_t kHighBits = 0x8080808080808080ULL;
  const char* const p = s.data();
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    // 32 bytes per step while they are all ASCII: with SSE2 (every x86-64) two loads and one
    // byte-mask test, in registers (the portable four-word version went through the stack).
#if defined(__SSE2__)
    while (i + 32 <= n) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16));
      if (_mm_movemask_epi8(_mm_or_si128(a, b)) != 0) break;
      i += 32;
    }
#else
    while (i + 32 <= n) {
      uint64_t w[4];
      std::memcpy(w, p + i, sizeof(w));
      if (((w[0] | w[1] | w[2] | w[3]) & kHighBits) != 0) break;
      i += 32;
    }
#endif
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, sizeof(w));
      if ((w & kHighBits) != 0) break;
      i += 8;
    }
    if (i == n) return true;
    // One character (ASCII or a multi-byte sequence), then back to whole words.
    const size_t len = Utf8SequenceLength(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

void AppendValidUtf8(std::string_view s, std::string* out) {
  size_t i = 0;
  while (i < s.size()) {
    size_t len = Utf8SequenceLength(s, i);
    if (len > 0) {
      out->append(s.data() + i, len);
      i += len;
    } else {
      out->append("\xEF\xBF\xBD");
      ++i;
    }
  }
}

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      size_t start = i;
      while (i < s.size() && static_cast<unsigned char>(s[i]) >= 0x20 &&
             static_cast<unsigned char>(s[i]) < 0x80 && s[i] != '"' && s[i] != '\\') {
        ++i;
      }
      out->append(s.data() + start, i - start);
      continue;
    }
    if (c < 0x80) {
      switch (c) {
        case '"': out->append("\\\""); break;
        case '\\': out->append("\\\\"); break;
        case '\n': out->append("\\n"); break;
        case '\r': out->append("\\r"); break;
        case '\t': out->append("\\t"); break;
        case '\b': out->append("\\b"); break;
        case '\f': out->append("\\f"); break;
        default:
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
      }
      ++i;
      continue;
    }
    size_t len = Utf8SequenceLength(s, i);
    if (len > 0) {
      out->append(s.data() + i, len);
      i += len;
    } else {
      out->append("\xEF\xBF\xBD");
      ++i;
    }
  }
  out->push_back('"');
}

}  // namespace weir::columnar
