#include "expr/datetime_format.h"

#include <array>

#include "columnar/text_format.h"

namespace weir::expr {

namespace {

using Element = DateTimePattern::Element;
using Kind = Element::Kind;
using Sign = Element::Sign;

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kSecondsPerDay = 86400;
constexpr int64_t kMicrosPerDay = kSecondsPerDay * kMicrosPerSecond;
// Years whose instants fit Spark's microsecond timestamps (and a little margin).
constexpr int64_t kMaxYear = 300000;

enum Field : uint8_t {
  kEra,
  kYear,  // proleptic year ('y' without 'G', which Spark turns into 'u')
  kYearOfEra,
  kMonth,
  kDayOfMonth,
  kDayOfYear,
  kHourOfDay,       // H
  kClockHourOfDay,  // k
  kHourOfAmPm,      // K
  kClockHourOfAmPm, // h
  kAmPm,
  kMinute,
  kSecond,
  kNano,
  kOffsetSeconds,
  kDayOfWeek,  // formatting only (1 = Monday)
  kQuarter,    // formatting only
  kFieldCount,
};

constexpr std::array<std::string_view, 12> kShortMonths = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<std::string_view, 12> kFullMonths = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<std::string_view, 7> kShortDays = {"Mon", "Tue", "Wed", "Thu",
                                                        "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kFullDays = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 4> kFullQuarters = {"1st quarter", "2nd quarter",
                                                           "3rd quarter", "4th quarter"};

// Offset layouts of X, x and Z: +HHmm, +HHMM, +HH:MM, +HHMMss, +HH:MM:ss (lower case optional).
struct OffsetLayout {
  bool colon;
  bool minutes_required;
  bool seconds;
};
constexpr OffsetLayout kOffsetLayouts[] = {
    {false, false, false}, {false, true, false}, {true, true, false},
    {false, true, true},   {true, true, true},
};

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Case-insensitive match of `word` at text[pos].
bool MatchAt(std::string_view text, size_t pos, std::string_view word) {
  if (pos > text.size() || text.size() - pos < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (Lower(text[pos + i]) != Lower(word[i])) return false;
  }
  return true;
}

bool IsLeap(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int64_t year, int64_t month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

void AppendDigits(int64_t v, int width, std::string* out) {
  char buf[24];
  int n = 0;
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  do {
    buf[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  for (int i = n; i < width; ++i) out->push_back('0');
  while (n > 0) out->push_back(buf[--n]);
}

int DigitCount(int64_t v) {
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int n = 1;
  while (u >= 10) {
    u /= 10;
    ++n;
  }
  return n;
}

// ------------------------------------------------------------------ compiling

class Compiler {
 public:
  Compiler(std::string_view pattern, bool parsing) : pattern_(pattern), parsing_(parsing) {}

  Result<std::vector<Element>> Run(bool* has_era) {
    WEIR_RETURN_NOT_OK(CheckSparkRules());
    *has_era = has_era_;
    size_t pos = 0;
    while (pos < pattern_.size()) {
      char c = pattern_[pos];
      if (IsLetter(c)) {
        size_t start = pos;
        while (pos < pattern_.size() && pattern_[pos] == c) ++pos;
        WEIR_RETURN_NOT_OK(AddField(c, static_cast<int>(pos - start)));
      } else if (c == '\'') {
        size_t start = ++pos;
        std::string literal;
        while (true) {
          if (pos >= pattern_.size()) {
            return Error("Pattern ends with an incomplete string literal: " +
                         std::string(pattern_));
          }
          if (pattern_[pos] == '\'') {
            if (pos + 1 < pattern_.size() && pattern_[pos + 1] == '\'') {
              literal.push_back('\'');
              pos += 2;
              continue;
            }
            break;
          }
          literal.push_back(pattern_[pos++]);
        }
        ++pos;
        if (pos - start == 1) literal = "'";  // '' is a quote
        AddLiteral(literal);
      } else if (c == '[') {
        Element e;
        e.kind = Kind::kOptionalStart;
        open_.push_back(elements_.size());
        AppendInternal(std::move(e));
        ++pos;
      } else if (c == ']') {
        if (open_.empty()) {
          return Error("Pattern invalid as it contains ] without previous [");
        }
        CloseOptional();
        ++pos;
      } else if (c == '{' || c == '}' || c == '#') {
        return Error(std::string("Pattern includes reserved character: '") + c + "'");
      } else {
        AddLiteral(std::string(1, c));
        ++pos;
      }
    }
    while (!open_.empty()) CloseOptional();
    return std::move(elements_);
  }

 private:
  static Status Error(std::string message) { return Status::InvalidArgument(std::move(message)); }

  // Spark's own checks (DateTimeFormatterHelper.convertIncompatiblePattern) on unquoted text.
  Status CheckSparkRules() {
    bool quoted = false;
    for (size_t i = 0; i < pattern_.size(); ++i) {
      char c = pattern_[i];
      if (c == '\'') {
        quoted = !quoted;
        continue;
      }
      if (quoted) continue;
      if (c == 'G') has_era_ = true;
    }
    quoted = false;
    for (size_t i = 0; i < pattern_.size(); ++i) {
      char c = pattern_[i];
      if (c == '\'') {
        quoted = !quoted;
        continue;
      }
      if (quoted) continue;
      if (c == 'u') {
        return Error("Pattern letter 'u'(Day number of week) is not supported since Spark 3.0. "
                     "Please use 'e' or 'E'(day-of-week) instead");
      }
      std::string_view illegal = parsing_ ? "AcnNpYWwEeFqQ" : "AcnNp";
      if (illegal.find(c) != std::string_view::npos) {
        return Error(std::string("Illegal pattern character: ") + c);
      }
    }
    quoted = false;
    for (size_t i = 0; i < pattern_.size();) {
      char c = pattern_[i];
      if (c == '\'') {
        quoted = !quoted;
        ++i;
        continue;
      }
      size_t run = 1;
      while (i + run < pattern_.size() && pattern_[i + run] == c) ++run;
      if (!quoted) {
        bool text = std::string_view("GMLEeQq").find(c) != std::string_view::npos;
        if ((text && run >= 5) || ((c == 'y' || c == 'Y') && run >= 11)) {
          return Error(std::string("Too many pattern letters: ") + c);
        }
      }
      i += run;
    }
    return Status::OK();
  }

  void AppendInternal(Element e) {
    elements_.push_back(std::move(e));
    active_value_ = -1;
  }

  // DateTimeFormatterBuilder.appendValue: consecutive numbers parse as adjacent values.
  void AppendValue(Element e) {
    bool fixed = e.min_width == e.max_width && e.sign == Sign::kNotNegative;
    if (active_value_ >= 0) {
      if (fixed) {
        elements_[active_value_].subsequent_width =
            static_cast<int8_t>(elements_[active_value_].subsequent_width + e.max_width);
        elements_.push_back(std::move(e));
        return;
      }
      elements_[active_value_].subsequent_width = 0;
    }
    elements_.push_back(std::move(e));
    active_value_ = static_cast<int>(elements_.size()) - 1;
  }

  void AddLiteral(std::string text) {
    Element e;
    e.kind = Kind::kLiteral;
    e.text = std::move(text);
    AppendInternal(std::move(e));
  }

  void CloseOptional() {
    Element e;
    e.kind = Kind::kOptionalEnd;
    elements_[open_.back()].end = static_cast<int32_t>(elements_.size());
    open_.pop_back();
    AppendInternal(std::move(e));
  }

  void AddNumber(Field field, int count, int min, int max, Sign sign) {
    Element e;
    e.kind = Kind::kNumber;
    e.field = field;
    e.count = static_cast<uint8_t>(count);
    e.min_width = static_cast<int8_t>(min);
    e.max_width = static_cast<int8_t>(max);
    e.sign = sign;
    AppendValue(std::move(e));
  }

  void AddText(Field field, int count) {
    Element e;
    e.kind = Kind::kText;
    e.field = field;
    e.count = static_cast<uint8_t>(count);
    AppendInternal(std::move(e));
  }

  void AddOffset(int type, std::string zero_text) {
    Element e;
    e.kind = Kind::kOffset;
    e.offset_type = static_cast<uint8_t>(type);
    e.text = std::move(zero_text);
    AppendInternal(std::move(e));
  }

  void AddSimple(Kind kind, int count) {
    Element e;
    e.kind = kind;
    e.count = static_cast<uint8_t>(count);
    AppendInternal(std::move(e));
  }

  Status TooMany(char c) { return Error(std::string("Too many pattern letters: ") + c); }

  Status AddField(char c, int count) {
    switch (c) {
      case 'G':
        AddText(kEra, count);
        return Status::OK();
      case 'y': {
        Field field = has_era_ ? kYearOfEra : kYear;
        if (count == 2) {
          Element e;
          e.kind = Kind::kReducedYear;
          e.field = field;
          e.count = 2;
          e.min_width = e.max_width = 2;
          e.sign = Sign::kNotNegative;
          AppendValue(std::move(e));
        } else if (count < 4) {
          AddNumber(field, count, count, 19, Sign::kNormal);
        } else {
          AddNumber(field, count, count, 19, Sign::kExceedsPad);
        }
        return Status::OK();
      }
      case 'M':
      case 'L':
        if (count == 1) {
          AddNumber(kMonth, 1, 1, 19, Sign::kNormal);
        } else if (count == 2) {
          AddNumber(kMonth, 2, 2, 2, Sign::kNotNegative);
        } else {
          AddText(kMonth, count);
        }
        return Status::OK();
      case 'Q':
      case 'q':
        if (count == 1) {
          AddNumber(kQuarter, 1, 1, 19, Sign::kNormal);
        } else if (count == 2) {
          AddNumber(kQuarter, 2, 2, 2, Sign::kNotNegative);
        } else {
          AddText(kQuarter, count);
        }
        return Status::OK();
      case 'E':
        AddText(kDayOfWeek, count);
        return Status::OK();
      case 'a':
        if (count > 1) return TooMany(c);
        AddText(kAmPm, 1);
        return Status::OK();
      case 'd':
      case 'H':
      case 'h':
      case 'K':
      case 'k':
      case 'm':
      case 's': {
        Field field = c == 'd'   ? kDayOfMonth
                      : c == 'H' ? kHourOfDay
                      : c == 'h' ? kClockHourOfAmPm
                      : c == 'K' ? kHourOfAmPm
                      : c == 'k' ? kClockHourOfDay
                      : c == 'm' ? kMinute
                                 : kSecond;
        if (count == 1) {
          AddNumber(field, 1, 1, 19, Sign::kNormal);
        } else if (count == 2) {
          AddNumber(field, 2, 2, 2, Sign::kNotNegative);
        } else {
          return TooMany(c);
        }
        return Status::OK();
      }
      case 'D':
        if (count == 1) {
          AddNumber(kDayOfYear, 1, 1, 19, Sign::kNormal);
        } else if (count <= 3) {
          AddNumber(kDayOfYear, count, count, 3, Sign::kNotNegative);
        } else {
          return TooMany(c);
        }
        return Status::OK();
      case 'S': {
        if (count > 9) return TooMany(c);
        Element e;
        e.kind = Kind::kFraction;
        e.field = kNano;
        e.count = static_cast<uint8_t>(count);
        e.min_width = static_cast<int8_t>(parsing_ ? 1 : count);
        e.max_width = static_cast<int8_t>(count);
        e.sign = Sign::kNotNegative;
        if (e.min_width == e.max_width) {
          AppendValue(std::move(e));
        } else {
          AppendInternal(std::move(e));
        }
        return Status::OK();
      }
      case 'V':
        if (count != 2) return Error("Pattern letter count must be 2: V");
        AddSimple(Kind::kZoneId, count);
        return Status::OK();
      case 'z':
        if (count > 4) return TooMany(c);
        AddSimple(Kind::kZoneName, count);
        return Status::OK();
      case 'O':
        if (count != 1 && count != 4) return Error("Pattern letter count must be 1 or 4: O");
        AddSimple(Kind::kLocalizedOffset, count);
        return Status::OK();
      case 'X':
        if (count > 5) return TooMany(c);
        AddOffset(count - 1, "Z");
        return Status::OK();
      case 'x': {
        if (count > 5) return TooMany(c);
        static constexpr std::string_view kZero[] = {"+00", "+0000", "+00:00", "+0000", "+00:00"};
        AddOffset(count - 1, std::string(kZero[count - 1]));
        return Status::OK();
      }
      case 'Z':
        if (count > 5) return TooMany(c);
        if (count == 4) {
          AddSimple(Kind::kLocalizedOffset, 4);
        } else if (count == 5) {
          AddOffset(4, "Z");
        } else {
          AddOffset(1, "+0000");
        }
        return Status::OK();
      case 'Y':
      case 'w':
      case 'W':
      case 'F':
      case 'e':
      case 'v':
      case 'B':
      case 'g':
        return Error(std::string("pattern letter '") + c + "' is not supported by weir");
      default:
        return Error(std::string("Unknown pattern letter: ") + c);
    }
  }

  std::string_view pattern_;
  bool parsing_;
  bool has_era_ = false;
  std::vector<Element> elements_;
  std::vector<size_t> open_;
  int active_value_ = -1;
};

// ------------------------------------------------------------------ parsing

struct Parsed {
  std::array<int64_t, kFieldCount> value{};
  uint32_t present = 0;

  bool Has(Field f) const { return (present >> f) & 1; }
  // A field parsed twice must agree (DateTimeParseContext's conflict check).
  bool Set(Field f, int64_t v) {
    if (Has(f)) return value[f] == v;
    value[f] = v;
    present |= 1u << f;
    return true;
  }
};

bool ParseNumber(const Element& e, std::string_view text, size_t* pos, int64_t* out) {
  size_t p = *pos;
  bool negative = false, positive = false;
  if (p < text.size() && (text[p] == '+' || text[p] == '-')) {
    bool plus = text[p] == '+';
    if (e.sign == Sign::kNotNegative || (plus && e.sign == Sign::kNormal)) return false;
    negative = !plus;
    positive = plus;
    ++p;
  }
  size_t min = static_cast<size_t>(e.min_width);
  size_t max = static_cast<size_t>(e.max_width) + static_cast<size_t>(e.subsequent_width);
  size_t q = p;
  while (q < text.size() && q - p < max && IsDigit(text[q])) ++q;
  size_t len = q - p;
  if (len < min) return false;
  if (e.subsequent_width > 0) {
    size_t keep = len > static_cast<size_t>(e.subsequent_width) ? len - e.subsequent_width : 0;
    len = keep < min ? min : keep;
  }
  if (len > 18) return false;  // beyond any valid field value
  int64_t v = 0;
  for (size_t i = 0; i < len; ++i) v = v * 10 + (text[p + i] - '0');
  if (negative) {
    if (v == 0) return false;  // strict parsing refuses "-0"
    v = -v;
  } else if (e.sign == Sign::kExceedsPad) {
    if (positive ? len <= min : len > min) return false;
  }
  *out = v;
  *pos = p + len;
  return true;
}

// The longest of `names` matching at text[*pos] (case-insensitive); its index or -1.
template <size_t N>
int MatchName(const std::array<std::string_view, N>& names, std::string_view text, size_t* pos) {
  int best = -1;
  size_t best_len = 0;
  for (size_t i = 0; i < N; ++i) {
    if (names[i].size() > best_len && MatchAt(text, *pos, names[i])) {
      best = static_cast<int>(i);
      best_len = names[i].size();
    }
  }
  if (best >= 0) *pos += best_len;
  return best;
}

bool ParseTwoDigits(std::string_view text, size_t* pos, int64_t* out) {
  if (*pos + 2 > text.size() || !IsDigit(text[*pos]) || !IsDigit(text[*pos + 1])) return false;
  *out = (text[*pos] - '0') * 10 + (text[*pos + 1] - '0');
  *pos += 2;
  return true;
}

// OffsetIdPrinterParser.parse: the zero text first, then +HH, minutes, seconds per layout.
bool ParseOffset(const OffsetLayout& layout, std::string_view zero_text, std::string_view text,
                 size_t* pos, int64_t* offset) {
  if (*pos >= text.size()) return false;
  if (!zero_text.empty() && MatchAt(text, *pos, zero_text)) {
    *pos += zero_text.size();
    *offset = 0;
    return true;
  }
  char sign = text[*pos];
  if (sign != '+' && sign != '-') return false;
  size_t p = *pos + 1;
  int64_t h = 0, m = 0, s = 0;
  if (!ParseTwoDigits(text, &p, &h)) return false;
  auto part = [&](int64_t* v) {
    size_t q = p;
    if (layout.colon) {
      if (q >= text.size() || text[q] != ':') return false;
      ++q;
    }
    if (!ParseTwoDigits(text, &q, v) || *v > 59) return false;
    p = q;
    return true;
  };
  if (!part(&m) && layout.minutes_required) return false;
  if (layout.seconds) part(&s);
  if (h > 23) return false;
  *offset = (sign == '-' ? -1 : 1) * (h * 3600 + m * 60 + s);
  *pos = p;
  return true;
}

// GMT[+h[:mm[:ss]]] (short, 'O') or GMT[+hh:mm[:ss]] (full, 'OOOO' / 'ZZZZ').
bool ParseLocalizedOffset(bool full, std::string_view text, size_t* pos, int64_t* offset) {
  if (!MatchAt(text, *pos, "GMT")) return false;
  size_t p = *pos + 3;
  *offset = 0;
  if (p >= text.size() || (text[p] != '+' && text[p] != '-')) {
    *pos = p;
    return true;
  }
  int sign = text[p] == '-' ? -1 : 1;
  ++p;
  int64_t h = 0, m = 0, s = 0;
  // ":dd" at p, if present.
  auto colon_part = [&](int64_t* value) {
    if (p + 3 > text.size() || text[p] != ':' || !IsDigit(text[p + 1])) return false;
    size_t q = p + 1;
    if (!ParseTwoDigits(text, &q, value)) return false;
    p = q;
    return true;
  };
  if (full) {
    if (!ParseTwoDigits(text, &p, &h) || !colon_part(&m)) return false;
  } else {
    if (p >= text.size() || !IsDigit(text[p])) return false;
    h = text[p++] - '0';
    if (p < text.size() && IsDigit(text[p])) h = h * 10 + (text[p++] - '0');
    colon_part(&m);
  }
  colon_part(&s);
  if (h > 23 || m > 59 || s > 59) return false;
  *offset = sign * (h * 3600 + m * 60 + s);
  *pos = p;
  return true;
}

// ZoneIdPrinterParser.parse, limited to fixed offsets: +hh:mm[:ss], UTC/GMT/UT[+hh:mm[:ss]], Z;
// zone names (for 'z') Coordinated Universal Time / Greenwich Mean Time. Region ids fail.
bool ParseZone(bool names, std::string_view text, size_t* pos, int64_t* offset) {
  static constexpr OffsetLayout kIdLayout = {true, true, true};
  if (*pos >= text.size()) return false;
  char c = text[*pos];
  if (c == '+' || c == '-') return ParseOffset(kIdLayout, "", text, pos, offset);
  if (names) {
    for (std::string_view name : {"Coordinated Universal Time", "Greenwich Mean Time"}) {
      if (MatchAt(text, *pos, name)) {
        *pos += name.size();
        *offset = 0;
        return true;
      }
    }
  }
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (!MatchAt(text, *pos, prefix)) continue;
    size_t p = *pos + prefix.size();
    *offset = 0;
    if (p < text.size() && (text[p] == '+' || text[p] == '-')) {
      size_t q = p;
      int64_t o;
      if (ParseOffset(kIdLayout, "", text, &q, &o)) {
        *offset = o;
        p = q;
      }
    }
    *pos = p;
    return true;
  }
  if (Lower(c) == 'z') {
    ++*pos;
    *offset = 0;
    return true;
  }
  return false;
}

class Parser {
 public:
  Parser(const std::vector<Element>& elements, std::string_view text)
      : elements_(elements), text_(text) {}

  bool Run(Parsed* parsed) {
    size_t pos = 0;
    if (!ParseRange(0, elements_.size(), &pos, parsed)) return false;
    return pos == text_.size();
  }

 private:
  bool ParseRange(size_t begin, size_t end, size_t* pos, Parsed* parsed) {
    for (size_t i = begin; i < end; ++i) {
      const Element& e = elements_[i];
      switch (e.kind) {
        case Kind::kOptionalStart: {
          Parsed saved = *parsed;
          size_t saved_pos = *pos;
          if (!ParseRange(i + 1, static_cast<size_t>(e.end), pos, parsed)) {
            *parsed = saved;
            *pos = saved_pos;
          }
          i = static_cast<size_t>(e.end);
          break;
        }
        case Kind::kOptionalEnd: break;
        case Kind::kLiteral:
          if (!MatchAt(text_, *pos, e.text)) return false;
          *pos += e.text.size();
          break;
        case Kind::kNumber: {
          int64_t v;
          if (!ParseNumber(e, text_, pos, &v) || !parsed->Set(static_cast<Field>(e.field), v)) {
            return false;
          }
          break;
        }
        case Kind::kReducedYear: {
          int64_t v;
          if (!ParseNumber(e, text_, pos, &v) ||
              !parsed->Set(static_cast<Field>(e.field), 2000 + v)) {
            return false;
          }
          break;
        }
        case Kind::kFraction: {
          size_t p = *pos;
          int64_t nanos = 0;
          int digits = 0;
          size_t max = static_cast<size_t>(e.max_width) + static_cast<size_t>(e.subsequent_width);
          while (p < text_.size() && IsDigit(text_[p]) && p - *pos < max) {
            nanos = nanos * 10 + (text_[p++] - '0');
            ++digits;
          }
          if (digits < e.min_width) return false;
          if (digits > 9) return false;
          for (int d = digits; d < 9; ++d) nanos *= 10;
          if (!parsed->Set(kNano, nanos)) return false;
          *pos = p;
          break;
        }
        case Kind::kText:
          if (!ParseText(e, pos, parsed)) return false;
          break;
        case Kind::kOffset: {
          int64_t offset;
          if (!ParseOffset(kOffsetLayouts[e.offset_type], e.text, text_, pos, &offset) ||
              !parsed->Set(kOffsetSeconds, offset)) {
            return false;
          }
          break;
        }
        case Kind::kLocalizedOffset: {
          int64_t offset;
          if (!ParseLocalizedOffset(e.count == 4, text_, pos, &offset) ||
              !parsed->Set(kOffsetSeconds, offset)) {
            return false;
          }
          break;
        }
        case Kind::kZoneId:
        case Kind::kZoneName: {
          int64_t offset;
          if (!ParseZone(e.kind == Kind::kZoneName, text_, pos, &offset) ||
              !parsed->Set(kOffsetSeconds, offset)) {
            return false;
          }
          break;
        }
      }
    }
    return true;
  }

  bool ParseText(const Element& e, size_t* pos, Parsed* parsed) {
    int index = -1;
    switch (e.field) {
      case kMonth:
        index = e.count == 4 ? MatchName(kFullMonths, text_, pos) : MatchName(kShortMonths, text_, pos);
        return index >= 0 && parsed->Set(kMonth, index + 1);
      case kAmPm: {
        static constexpr std::array<std::string_view, 2> kAmPmNames = {"AM", "PM"};
        index = MatchName(kAmPmNames, text_, pos);
        return index >= 0 && parsed->Set(kAmPm, index);
      }
      case kEra: {
        static constexpr std::array<std::string_view, 2> kShortEras = {"BC", "AD"};
        static constexpr std::array<std::string_view, 2> kFullEras = {"Before Christ",
                                                                     "Anno Domini"};
        index = e.count == 4 ? MatchName(kFullEras, text_, pos) : MatchName(kShortEras, text_, pos);
        return index >= 0 && parsed->Set(kEra, index);
      }
      default: return false;  // day-of-week and quarter text are refused when compiling
    }
  }

  const std::vector<Element>& elements_;
  std::string_view text_;
};

// Spark's resolution (STRICT resolver + DateTimeFormatterHelper.toLocalDate/toLocalTime):
// missing date fields default to 1970-01-01, missing time fields to 0; out-of-range values fail.
std::optional<int64_t> Resolve(const Parsed& p) {
  auto has = [&](Field f) { return p.Has(f); };
  auto v = [&](Field f) { return p.value[f]; };
  int64_t year = 1970;
  if (has(kYearOfEra) && has(kEra)) {
    if (v(kYearOfEra) < 1) return std::nullopt;
    year = v(kEra) == 1 ? v(kYearOfEra) : 1 - v(kYearOfEra);
    if (has(kYear) && v(kYear) != year) return std::nullopt;
  } else if (has(kYear)) {
    year = v(kYear);
  }
  if (year > kMaxYear || year < -kMaxYear) return std::nullopt;
  if (has(kMonth) && (v(kMonth) < 1 || v(kMonth) > 12)) return std::nullopt;
  if (has(kDayOfMonth) && (v(kDayOfMonth) < 1 || v(kDayOfMonth) > 31)) return std::nullopt;
  int64_t days;
  if (has(kDayOfYear)) {
    int64_t doy = v(kDayOfYear);
    if (doy < 1 || doy > (IsLeap(year) ? 366 : 365)) return std::nullopt;
    days = columnar::DaysFromCivil(year, 1, 1) + doy - 1;
    int64_t y;
    unsigned m, d;
    columnar::CivilFromDays(days, &y, &m, &d);
    if ((has(kMonth) && v(kMonth) != m) || (has(kDayOfMonth) && v(kDayOfMonth) != d)) {
      return std::nullopt;
    }
  } else {
    int64_t month = has(kMonth) ? v(kMonth) : 1;
    int64_t day = has(kDayOfMonth) ? v(kDayOfMonth) : 1;
    if (day > DaysInMonth(year, month)) return std::nullopt;
    days = columnar::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  }

  // Hours: H, k -> hour of day; h, K -> hour of am/pm; with a/p -> hour of day.
  std::optional<int64_t> hour_of_day, hour_of_ampm;
  if (has(kHourOfDay)) {
    if (v(kHourOfDay) < 0 || v(kHourOfDay) > 23) return std::nullopt;
    hour_of_day = v(kHourOfDay);
  }
  if (has(kClockHourOfDay)) {
    int64_t k = v(kClockHourOfDay);
    if (k < 1 || k > 24) return std::nullopt;
    int64_t h = k == 24 ? 0 : k;
    if (hour_of_day && *hour_of_day != h) return std::nullopt;
    hour_of_day = h;
  }
  if (has(kClockHourOfAmPm)) {
    int64_t h = v(kClockHourOfAmPm);
    if (h < 1 || h > 12) return std::nullopt;
    hour_of_ampm = h == 12 ? 0 : h;
  }
  if (has(kHourOfAmPm)) {
    int64_t h = v(kHourOfAmPm);
    if (h < 0 || h > 11) return std::nullopt;
    if (hour_of_ampm && *hour_of_ampm != h) return std::nullopt;
    hour_of_ampm = h;
  }
  int64_t hour = 0;
  if (has(kAmPm) && hour_of_ampm) {
    int64_t h = v(kAmPm) * 12 + *hour_of_ampm;
    if (hour_of_day && *hour_of_day != h) return std::nullopt;
    hour_of_day = h;
  } else if (has(kAmPm) && hour_of_day) {
    if ((*hour_of_day >= 12) != (v(kAmPm) == 1)) return std::nullopt;
  }
  if (hour_of_day) {
    hour = *hour_of_day;
  } else if (hour_of_ampm) {
    hour = *hour_of_ampm;  // no am/pm: Spark assumes AM
  } else if (has(kAmPm) && v(kAmPm) == 1) {
    hour = 12;
  }
  int64_t minute = has(kMinute) ? v(kMinute) : 0;
  int64_t second = has(kSecond) ? v(kSecond) : 0;
  if (minute < 0 || minute > 59 || second < 0 || second > 59) return std::nullopt;
  int64_t nanos = has(kNano) ? v(kNano) : 0;
  int64_t offset = has(kOffsetSeconds) ? v(kOffsetSeconds) : 0;
  int64_t seconds = days * kSecondsPerDay + hour * 3600 + minute * 60 + second - offset;
  return seconds * kMicrosPerSecond + nanos / 1000;
}

// ------------------------------------------------------------------ formatting

struct Civil {
  int64_t year;
  int64_t month;
  int64_t day;
  int64_t day_of_year;
  int64_t day_of_week;  // 1 = Monday
  int64_t hour;
  int64_t minute;
  int64_t second;
  int64_t nanos;
};

Civil ToCivil(int64_t micros) {
  Civil c;
  int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t tod = micros - days * kMicrosPerDay;
  unsigned m, d;
  columnar::CivilFromDays(days, &c.year, &m, &d);
  c.month = m;
  c.day = d;
  c.day_of_year = days - columnar::DaysFromCivil(c.year, 1, 1) + 1;
  int64_t dow = (days + 3) % 7;  // 1970-01-01 was a Thursday (3 days after Monday)
  if (dow < 0) dow += 7;
  c.day_of_week = dow + 1;
  int64_t secs = tod / kMicrosPerSecond;
  c.hour = secs / 3600;
  c.minute = secs / 60 % 60;
  c.second = secs % 60;
  c.nanos = tod % kMicrosPerSecond * 1000;
  return c;
}

int64_t FieldValue(const Civil& c, uint8_t field) {
  switch (field) {
    case kEra: return c.year >= 1 ? 1 : 0;
    case kYear: return c.year;
    case kYearOfEra: return c.year >= 1 ? c.year : 1 - c.year;
    case kMonth: return c.month;
    case kDayOfMonth: return c.day;
    case kDayOfYear: return c.day_of_year;
    case kHourOfDay: return c.hour;
    case kClockHourOfDay: return c.hour == 0 ? 24 : c.hour;
    case kHourOfAmPm: return c.hour % 12;
    case kClockHourOfAmPm: return c.hour % 12 == 0 ? 12 : c.hour % 12;
    case kAmPm: return c.hour >= 12 ? 1 : 0;
    case kMinute: return c.minute;
    case kSecond: return c.second;
    case kNano: return c.nanos;
    case kDayOfWeek: return c.day_of_week;
    case kQuarter: return (c.month - 1) / 3 + 1;
    default: return 0;
  }
}

void FormatNumber(const Element& e, int64_t v, std::string* out) {
  int digits = DigitCount(v);
  if (v < 0) {
    out->push_back('-');
  } else if (e.sign == Sign::kExceedsPad && digits > e.min_width) {
    out->push_back('+');
  }
  AppendDigits(v, e.min_width, out);
}

void FormatText(const Element& e, const Civil& c, std::string* out) {
  bool full = e.count == 4;
  switch (e.field) {
    case kMonth:
      out->append(full ? kFullMonths[c.month - 1] : kShortMonths[c.month - 1]);
      return;
    case kDayOfWeek:
      out->append(full ? kFullDays[c.day_of_week - 1] : kShortDays[c.day_of_week - 1]);
      return;
    case kAmPm: out->append(c.hour >= 12 ? "PM" : "AM"); return;
    case kEra:
      if (c.year >= 1) {
        out->append(full ? "Anno Domini" : "AD");
      } else {
        out->append(full ? "Before Christ" : "BC");
      }
      return;
    case kQuarter: {
      int64_t q = (c.month - 1) / 3;
      if (full) {
        out->append(kFullQuarters[q]);
      } else {
        out->push_back('Q');
        out->push_back(static_cast<char>('1' + q));
      }
      return;
    }
    default: return;
  }
}

}  // namespace

Result<DateTimePattern> DateTimePattern::Compile(std::string_view pattern, Use use) {
  DateTimePattern out;
  Compiler compiler(pattern, use == Use::kParse);
  WEIR_ASSIGN_OR_RETURN(out.elements_, compiler.Run(&out.has_era_));
  return out;
}

std::optional<int64_t> DateTimePattern::Parse(std::string_view text) const {
  Parsed parsed;
  Parser parser(elements_, text);
  if (!parser.Run(&parsed)) return std::nullopt;
  return Resolve(parsed);
}

void DateTimePattern::Format(int64_t micros, std::string* out) const {
  Civil c = ToCivil(micros);
  for (const Element& e : elements_) {
    switch (e.kind) {
      case Kind::kLiteral: out->append(e.text); break;
      case Kind::kNumber: FormatNumber(e, FieldValue(c, e.field), out); break;
      case Kind::kReducedYear: {
        int64_t y = FieldValue(c, e.field);
        AppendDigits((y < 0 ? -y : y) % 100, 2, out);
        break;
      }
      case Kind::kFraction: {
        char digits[9];
        int64_t n = c.nanos;
        for (int i = 8; i >= 0; --i) {
          digits[i] = static_cast<char>('0' + n % 10);
          n /= 10;
        }
        out->append(digits, e.count);
        break;
      }
      case Kind::kText: FormatText(e, c, out); break;
      case Kind::kOffset: out->append(e.text); break;  // UTC: the zero-offset text
      case Kind::kLocalizedOffset: out->append("GMT"); break;
      case Kind::kZoneId: out->append("UTC"); break;
      case Kind::kZoneName: out->append(e.count == 4 ? "Coordinated Universal Time" : "UTC"); break;
      case Kind::kOptionalStart:
      case Kind::kOptionalEnd: break;
    }
  }
}

}  // namespace weir::expr
