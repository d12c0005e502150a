// JSON functions with Spark's semantics: from_json (JsonToStructs: JacksonParser behind a
// FailureSafeParser, PERMISSIVE or FAILFAST, partial results, the corrupt-record column),
// get_json_object (GetJsonObject: Hive's path language and output styles) and the internal
// "JSON PATH" behind Databricks' `raw:a.b[0]` (the same evaluation with case-insensitive
// `.field` steps). Parsing uses simdjson On Demand: one parser per thread, each input copied into
// a padded buffer; as in Jackson only the first JSON value is read, and every token Jackson would
// read is checked (values the schema or path skips too). Syntax Jackson accepts by default but
// simdjson does not (single quotes, NaN, unescaped control characters in get_json_object) is
// rewritten to standard JSON and parsed again. Kernels are thread-safe.
#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "columnar/text_format.h"
#include "expr/kernel.h"
#include "expr/spark_text.h"

namespace weir::expr {

namespace {

namespace od = simdjson::ondemand;
using columnar::AppendUtf8;
using columnar::EqualsIgnoreAsciiCase;
using columnar::Field;
using columnar::StringArena;

// Jackson's default maximum nesting depth (StreamReadConstraints): deeper input is malformed.
constexpr int kMaxJsonDepth = 1000;

// ------------------------------------------------------------------ JSON text helpers

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view TrimJsonSpaceRight(std::string_view s) {
  while (!s.empty() && IsJsonSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (!IsJsonSpace(c)) return false;
  }
  return true;
}

// Jackson skips a UTF-8 byte order mark at the start of byte input.
std::string_view StripByteOrderMark(std::string_view s) {
  if (s.size() >= 3 && s[0] == '\xEF' && s[1] == '\xBB' && s[2] == '\xBF') s.remove_prefix(3);
  return s;
}

enum class NumberKind : uint8_t { kInvalid, kInteger, kFloat };

// JSON number grammar (Jackson's, strict unless leading zeros are allowed).
NumberKind ClassifyNumber(std::string_view t, bool allow_leading_zeros) {
  size_t i = 0, n = t.size();
  if (i < n && t[i] == '-') ++i;
  if (i >= n || !IsDigit(t[i])) return NumberKind::kInvalid;
  if (t[i] == '0' && i + 1 < n && IsDigit(t[i + 1]) && !allow_leading_zeros) {
    return NumberKind::kInvalid;
  }
  while (i < n && IsDigit(t[i])) ++i;
  NumberKind kind = NumberKind::kInteger;
  if (i < n && t[i] == '.') {
    ++i;
    if (i >= n || !IsDigit(t[i])) return NumberKind::kInvalid;
    while (i < n && IsDigit(t[i])) ++i;
    kind = NumberKind::kFloat;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (i >= n || !IsDigit(t[i])) return NumberKind::kInvalid;
    while (i < n && IsDigit(t[i])) ++i;
    kind = NumberKind::kFloat;
  }
  return i == n ? kind : NumberKind::kInvalid;
}

// A validated JSON integer (optional '-', digits) as int64; false when it does not fit.
bool ParseJsonInteger(std::string_view t, int64_t* out) {
  bool negative = t[0] == '-';
  uint64_t v = 0;
  for (size_t i = negative ? 1 : 0; i < t.size(); ++i) {
    auto d = static_cast<uint64_t>(t[i] - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;
  if (negative) {
    if (v > kMinMagnitude) return false;
    *out = v == kMinMagnitude ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(v);
  } else {
    if (v >= kMinMagnitude) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

// A validated JSON number as Java's Double.parseDouble / Float.parseFloat read it (correctly
// rounded; out of range gives infinity or zero).
template <typename T>
T ParseJsonFloating(std::string_view t) {
  T v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range) {
    bool negative = t[0] == '-';
    size_t e = t.find_first_of("eE");
    bool tiny = e != std::string_view::npos && e + 1 < t.size() && t[e + 1] == '-';
    T magnitude = tiny ? T{0} : std::numeric_limits<T>::infinity();
    return negative ? -magnitude : magnitude;
  }
  return v;
}

bool ReadHex4(const char* p, const char* end, uint32_t* out) {
  if (end - p < 4) return false;
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') {
      v |= static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      v |= static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      v |= static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return false;
    }
  }
  *out = v;
  return true;
}

// Decodes the JSON string content starting at `p` (just after the opening quote) into `out`,
// up to the closing quote, which must come before `end`. Returns the closing quote, or nullptr
// for an invalid escape. An unpaired surrogate becomes '?', as Java's UTF-8 encoder writes it.
const char* DecodeJsonString(const char* p, const char* end, std::string* out) {
  while (p < end) {
    char c = *p;
    if (c == '"') return p;
    if (c != '\\') {
      const char* run = p;
      while (p < end && *p != '"' && *p != '\\') ++p;
      out->append(run, p);
      continue;
    }
    if (++p >= end) return nullptr;
    switch (*p++) {
      case '"':
        out->push_back('"');
        break;
      case '\\':
        out->push_back('\\');
        break;
      case '/':
        out->push_back('/');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'u': {
        uint32_t cp;
        if (!ReadHex4(p, end, &cp)) return nullptr;
        p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t low;
          if (end - p >= 6 && p[0] == '\\' && p[1] == 'u' && ReadHex4(p + 2, end, &low) &&
              low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            p += 6;
          } else {
            out->push_back('?');
            break;
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          out->push_back('?');
          break;
        }
        AppendUtf8(cp, out);
        break;
      }
      default:
        return nullptr;
    }
  }
  return nullptr;
}

// A string token (quote to quote, as simdjson delimits it, trailing spaces removed): its content
// as a view of the token when it has no escapes (`*borrowed` = true), else decoded into
// `scratch`. False when the token is not exactly one valid JSON string.
bool ReadStringToken(std::string_view token, std::string* scratch, std::string_view* out,
                     bool* borrowed) {
  if (token.size() < 2 || token.front() != '"') return false;
  const char* begin = token.data() + 1;
  const char* last = token.data() + token.size() - 1;
  const char* special = begin;
  while (special < last && *special != '"' && *special != '\\') ++special;
  if (special == last && *last == '"') {
    *out = std::string_view(begin, static_cast<size_t>(last - begin));
    *borrowed = true;
    return true;
  }
  scratch->clear();
  const char* close = DecodeJsonString(begin, last + 1, scratch);
  if (close != last) return false;
  *out = *scratch;
  *borrowed = false;
  return true;
}

// The first '"' or '\\' in [p, limit); `limit` may reach into the parser's padding, so whole
// 16-byte blocks are read.
[[gnu::always_inline]] inline const char* FindQuoteOrBackslash(const char* p, const char* limit) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (limit - p >= 16) {
    __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int mask = _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < limit && *p != '"' && *p != '\\') ++p;
  return p;
}

// The string whose content starts at `raw` (just after its opening quote; the parser has checked
// that it is closed before `text_end`, after which `padded_end` bytes may be read): a view of the
// content when it has no escapes (`*borrowed`), else decoded into `scratch`. The value must end
// at its closing quote: only spaces may come before the next ',', '}' or ']' (Jackson rejects
// `"ab"cd`). False when the string or its end is invalid.
[[gnu::always_inline]] inline bool ReadRawString(const char* raw, const char* text_end,
                                                 const char* padded_end, std::string* scratch,
                                                 std::string_view* out, bool* borrowed) {
  const char* limit = text_end;
  if (raw > limit) return false;
  const char* q = std::min(FindQuoteOrBackslash(raw, padded_end), limit);
  const char* close;
  if (q < limit && *q == '"') {
    *out = std::string_view(raw, static_cast<size_t>(q - raw));
    *borrowed = true;
    close = q;
  } else {
    scratch->assign(raw, q);
    close = DecodeJsonString(q, limit, scratch);
    if (close == nullptr) return false;
    *out = *scratch;
    *borrowed = false;
  }
  const char* next = close + 1;
  if (next < limit && (*next == ',' || *next == '}')) return true;  // the common case
  while (next < limit && IsJsonSpace(*next)) ++next;
  return next < limit && (*next == ',' || *next == '}' || *next == ']');
}

// Powers of ten up to 10^38.
const Int128* PowersOfTen() {
  static const auto* table = [] {
    auto* t = new Int128[39];
    t[0] = 1;
    for (int i = 1; i < 39; ++i) t[i] = t[i - 1] * 10;
    return t;
  }();
  return table;
}

enum class DecimalParse : uint8_t { kValue, kOverflow, kGeneral };

// Plain decimal text ("-1234.50", ".5", "7.") of at most 18 digits, rounded HALF_UP to `scale`
// without allocating; kGeneral for anything else (exponents, more digits, other characters),
// which columnar::ParseDecimal then reads. kOverflow when it does not fit `max_unscaled`.
DecimalParse ParsePlainDecimal(std::string_view t, int scale, Int128 max_unscaled, Int128* out) {
  size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) negative = t[i++] == '-';
  uint64_t mantissa = 0;
  int digits = 0, fraction = 0;
  bool point = false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (IsDigit(c)) {
      if (++digits > 18) return DecimalParse::kGeneral;
      mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
      fraction += point ? 1 : 0;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      return DecimalParse::kGeneral;
    }
  }
  if (digits == 0) return DecimalParse::kGeneral;
  const Int128* pow10 = PowersOfTen();
  Int128 v = mantissa;
  if (scale >= fraction) {
    if (digits + scale - fraction > 38) return DecimalParse::kGeneral;
    v *= pow10[scale - fraction];
  } else {
    Int128 d = pow10[fraction - scale];
    Int128 q = v / d;
    if ((v % d) * 2 >= d) ++q;
    v = q;
  }
  if (v > max_unscaled) return DecimalParse::kOverflow;
  *out = negative ? -v : v;
  return DecimalParse::kValue;
}

// Jackson's Base64Variants.MIME_NO_LINEFEEDS decoding (what getBinaryValue reads): standard
// alphabet, padding required, whitespace between quads skipped.
bool DecodeBase64(std::string_view in, std::string* out) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out->clear();
  size_t i = 0;
  while (true) {
    while (i < in.size() && static_cast<unsigned char>(in[i]) <= ' ') ++i;
    if (i == in.size()) return true;
    if (in.size() - i < 4) return false;
    int a = value(in[i]), b = value(in[i + 1]);
    if (a < 0 || b < 0) return false;
    out->push_back(static_cast<char>((a << 2) | (b >> 4)));
    if (in[i + 2] == '=') {
      if (in[i + 3] != '=') return false;
      i += 4;
      break;
    }
    int c = value(in[i + 2]);
    if (c < 0) return false;
    out->push_back(static_cast<char>(((b & 0xF) << 4) | (c >> 2)));
    if (in[i + 3] == '=') {
      i += 4;
      break;
    }
    int d = value(in[i + 3]);
    if (d < 0) return false;
    out->push_back(static_cast<char>(((c & 0x3) << 6) | d));
    i += 4;
  }
  while (i < in.size() && static_cast<unsigned char>(in[i]) <= ' ') ++i;
  return i == in.size();
}

// Java's Integer.parseInt: optional sign, decimal digits, int range.
std::optional<int32_t> ParseJavaInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (!IsDigit(s[i])) return std::nullopt;
    v = v * 10 + (s[i] - '0');
    if (v > (int64_t{1} << 31)) return std::nullopt;
  }
  if (s[0] == '-') v = -v;
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(v);
}

// ------------------------------------------------------------------ lenient syntax

// Syntax Jackson accepts (when enabled) that simdjson rejects.
struct LenientSyntax {
  bool single_quotes = false;        // 'text' strings and names
  bool non_numeric_numbers = false;  // NaN, Infinity, -Infinity, +Infinity, +INF, -INF
  bool control_characters = false;   // raw bytes < 0x20 inside strings
  bool comments = false;             // /* ... */ and // ...
  bool any() const {
    return single_quotes || non_numeric_numbers || control_characters || comments;
  }
};

bool IsTokenEnd(std::string_view s, size_t i) {
  return i >= s.size() || IsJsonSpace(s[i]) || s[i] == ',' || s[i] == ']' || s[i] == '}' ||
         s[i] == ':';
}

// Rewrites the lenient syntax into standard JSON with the same values: single-quoted strings
// become double-quoted, NaN/Infinity tokens become the strings Spark accepts for them in FLOAT and
// DOUBLE fields (every other type rejects both forms alike), control characters are escaped and
// comments become spaces. Returns false when nothing was rewritten.
bool RewriteLenientJson(std::string_view in, const LenientSyntax& lenient, std::string* out) {
  static constexpr std::string_view kNonNumeric[] = {"NaN",       "Infinity", "+Infinity",
                                                     "-Infinity", "+INF",     "-INF"};
  out->clear();
  out->reserve(in.size() + 16);
  bool changed = false;
  size_t i = 0, n = in.size();
  while (i < n) {
    char c = in[i];
    if (c == '"' || (c == '\'' && lenient.single_quotes)) {
      char quote = c;
      changed |= quote == '\'';
      out->push_back('"');
      ++i;
      bool closed = false;
      while (i < n) {
        char d = in[i];
        if (d == quote) {
          closed = true;
          ++i;
          break;
        }
        if (d == '\\' && i + 1 < n) {
          if (lenient.single_quotes && in[i + 1] == '\'') {  // Jackson allows \' then
            out->push_back('\'');
            changed = true;
          } else {
            out->append(in.substr(i, 2));
          }
          i += 2;
          continue;
        }
        if (d == '"') {  // only inside a single-quoted string
          out->append("\\\"");
        } else if (static_cast<unsigned char>(d) < 0x20 && lenient.control_characters) {
          static constexpr char kHex[] = "0123456789ABCDEF";
          out->append("\\u00");
          out->push_back(kHex[(d >> 4) & 0xF]);
          out->push_back(kHex[d & 0xF]);
          changed = true;
        } else {
          out->push_back(d);
        }
        ++i;
      }
      if (closed) out->push_back('"');  // an unterminated string stays malformed
      continue;
    }
    if (lenient.comments && c == '/' && i + 1 < n && (in[i + 1] == '/' || in[i + 1] == '*')) {
      size_t end = in[i + 1] == '/' ? in.find('\n', i + 2) : in.find("*/", i + 2);
      if (end == std::string_view::npos && in[i + 1] == '*') {
        out->append(in.substr(i));  // unterminated: stays malformed
        break;
      }
      i = end == std::string_view::npos ? n : end + (in[i + 1] == '/' ? 0 : 2);
      out->push_back(' ');
      changed = true;
      continue;
    }
    if (lenient.non_numeric_numbers && (c == 'N' || c == 'I' || c == '+' || c == '-')) {
      bool matched = false;
      for (std::string_view token : kNonNumeric) {
        if (in.substr(i, token.size()) == token && IsTokenEnd(in, i + token.size())) {
          out->push_back('"');
          out->append(token);
          out->push_back('"');
          i += token.size();
          matched = changed = true;
          break;
        }
      }
      if (matched) continue;
    }
    out->push_back(c);
    ++i;
  }
  return changed;
}

// ------------------------------------------------------------------ the parser

// A simdjson On Demand parser with its padded input buffer, reused by every kernel call on a
// thread. After Load(), the first JSON value of the text is root() (an object or an array) or
// root_token() (a scalar); like Jackson, nothing after that value is read.
class JsonReader {
 public:
  simdjson::error_code Load(std::string_view text) {
    if (buffer_.size() < text.size() + simdjson::SIMDJSON_PADDING) {
      buffer_.resize(text.size() + simdjson::SIMDJSON_PADDING + text.size() / 2);
    }
    if (!text.empty()) std::memcpy(buffer_.data(), text.data(), text.size());
    // Zeros, not what earlier inputs left: On Demand peeks at the byte after the text when
    // brackets are unbalanced, and must see no token there.
    std::memset(buffer_.data() + text.size(), 0, simdjson::SIMDJSON_PADDING);
    end_ = buffer_.data() + text.size() + simdjson::SIMDJSON_PADDING;
    text_ = text;
    iterating_ = false;
    if (auto e = parser_.iterate(buffer_.data(), text.size(), buffer_.size()).get(document_)) {
      return e;  // e.g. an unclosed string or invalid UTF-8, found before any value is read
    }
    iterating_ = true;
    if (auto e = document_.type().get(root_type_)) return e;
    if (root_type_ == od::json_type::object || root_type_ == od::json_type::array) {
      return document_.get_value().get(root_);
    }
    root_token_ = TrimJsonSpaceRight(document_.raw_json_token());
    return simdjson::SUCCESS;
  }

  od::json_type root_type() const { return root_type_; }
  od::value& root() { return root_; }
  std::string_view root_token() const { return root_token_; }
  // Start of the text in the buffer: buffer positions minus base() are offsets into the text.
  const char* base() const { return buffer_.data(); }
  // End of readable bytes (the padding included), and of the text.
  const char* end() const { return end_; }
  const char* text_end() const { return buffer_.data() + text_.size(); }
  // The position of the next token, as an offset into the text (-1 when unknown).
  int64_t Position() {
    const char* location;
    if (!iterating_ || document_.current_location().get(location)) return -1;
    return std::max<int64_t>(0, location - base());
  }
  // Where the value just consumed ends: the next token's position, spaces before it removed.
  const char* EndOfConsumedValue() {
    const char* location;
    if (!iterating_ || document_.current_location().get(location)) location = text_end();
    while (location > base() && IsJsonSpace(location[-1])) --location;
    return location;
  }

 private:
  od::parser parser_;
  std::vector<char> buffer_;
  const char* end_ = nullptr;
  std::string_view text_;
  od::document document_;
  bool iterating_ = false;  // document_ belongs to the current text
  od::json_type root_type_ = od::json_type::null;
  od::value root_;
  std::string_view root_token_;
};

JsonReader& ThreadJsonReader() {
  thread_local JsonReader reader;
  return reader;
}

// Why a JSON text is malformed: a static description and a byte offset (-1 when unknown).
struct SyntaxError {
  const char* what = nullptr;
  int64_t position = -1;

  std::string Describe() const {
    std::string s = "malformed JSON: ";
    s += what;
    if (position >= 0) s += " at byte " + std::to_string(position);
    return s;
  }
};

// Walks a value the way Jackson's skipChildren tokenizes it: every token is checked, nothing is
// kept. Used for values the schema or the path does not need.
class JsonValidator {
 public:
  JsonValidator(JsonReader& reader, bool allow_leading_zeros)
      : reader_(reader), allow_leading_zeros_(allow_leading_zeros) {}

  bool allow_leading_zeros() const { return allow_leading_zeros_; }
  const SyntaxError& error() const { return error_; }

  bool Fail(simdjson::error_code e) {
    error_ = {simdjson::error_message(e), reader_.Position()};
    return false;
  }
  bool FailAt(const char* what, const char* at) {
    error_ = {what, at ? std::max<int64_t>(0, at - reader_.base()) : reader_.Position()};
    return false;
  }

  // Checks that the key at `raw` (just after its opening quote) is a valid string; decodes it
  // into `scratch` and returns it in `*key`.
  bool ReadKey(const char* raw, std::string* scratch, std::string_view* key) {
    scratch->clear();
    if (DecodeJsonString(raw, reader_.text_end(), scratch) == nullptr) {
      return FailAt("invalid escape in a field name", raw);
    }
    *key = *scratch;
    return true;
  }

  bool Skip(od::value& v, int depth) {
    if (depth > kMaxJsonDepth) return FailAt("nesting deeper than 1000 levels", nullptr);
    od::json_type type;
    if (auto e = v.type().get(type)) return Fail(e);
    std::string_view token = TrimJsonSpaceRight(v.raw_json_token());
    switch (type) {
      case od::json_type::object: {
        od::object object;
        if (auto e = v.get_object().get(object)) return Fail(e);
        for (auto field_result : object) {
          if (auto e = field_result.error()) return Fail(e);
          od::field& field = field_result.value_unsafe();  // no copy
          std::string_view key;
          if (!ReadKey(reinterpret_cast<const char*>(field.key().raw()), &scratch_, &key)) {
            return false;
          }
          if (!Skip(field.value(), depth + 1)) return false;
        }
        return true;
      }
      case od::json_type::array: {
        od::array array;
        if (auto e = v.get_array().get(array)) return Fail(e);
        for (auto element_result : array) {
          if (auto e = element_result.error()) return Fail(e);
          od::value& element = element_result.value_unsafe();
          if (!Skip(element, depth + 1)) return false;
        }
        return true;
      }
      case od::json_type::string: {
        od::raw_json_string raw;
        if (auto e = v.get_raw_json_string().get(raw)) return Fail(e);
        std::string_view text;
        bool borrowed;
        const char* p = reinterpret_cast<const char*>(raw.raw());
        if (!ReadRawString(p, reader_.text_end(), reader_.end(), &scratch_, &text, &borrowed)) {
          return FailAt("invalid string", p - 1);
        }
        return true;
      }
      case od::json_type::number:
        if (ClassifyNumber(token, allow_leading_zeros_) == NumberKind::kInvalid) {
          return FailAt("invalid number", token.data());
        }
        return true;
      case od::json_type::boolean:
        if (token != "true" && token != "false") return FailAt("invalid literal", token.data());
        return true;
      case od::json_type::null:
        if (token != "null") return FailAt("invalid literal", token.data());
        return true;
    }
    return FailAt("unexpected token", token.data());
  }

 private:
  JsonReader& reader_;
  bool allow_leading_zeros_;
  SyntaxError error_;
  std::string scratch_;
};

// ------------------------------------------------------------------ from_json: options

enum class ParseMode : uint8_t { kPermissive, kFailFast };

struct FromJsonOptions {
  ParseMode mode = ParseMode::kPermissive;
  std::string corrupt_column = "_corrupt_record";  // spark.sql.columnNameOfCorruptRecord
  bool allow_numeric_leading_zeros = false;
  bool allow_non_numeric_numbers = true;
  bool allow_single_quotes = true;
  bool allow_comments = false;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

Result<bool> OptionBoolean(std::string_view key, std::string_view value) {
  std::string v = Lower(value);
  if (v == "true") return true;
  if (v == "false") return false;
  return Status::InvalidArgument("from_json option " + std::string(key) +
                                 " must be true or false, got '" + std::string(value) + "'");
}

// Options from a constant MAP<STRING,STRING> (keys case-insensitive, as Spark's
// CaseInsensitiveMap). Options that would change results and that weir does not implement are
// errors rather than being ignored; unknown options are ignored, as Spark ignores them.
Result<FromJsonOptions> ReadFromJsonOptions(const Column* map) {
  FromJsonOptions options;
  if (map == nullptr || map->IsNull(0)) return options;
  const Column& keys = map->child(0);
  const Column& values = map->child(1);
  for (int32_t j = map->offsets()[0]; j < map->offsets()[1]; ++j) {
    if (values.IsNull(j)) {
      return Status::InvalidArgument("from_json options must not be NULL (option " +
                                     std::string(keys.StringAt(j)) + ")");
    }
    std::string_view key = keys.StringAt(j), value = values.StringAt(j);
    std::string k = Lower(key);
    if (k == "mode") {
      std::string mode = Lower(value);
      if (mode == "failfast") {
        options.mode = ParseMode::kFailFast;
      } else if (mode == "dropmalformed") {
        return Status::InvalidArgument(
            "from_json() doesn't support the DROPMALFORMED mode. Acceptable modes are PERMISSIVE "
            "and FAILFAST.");
      } else {
        options.mode = ParseMode::kPermissive;  // Spark falls back to PERMISSIVE for others
      }
    } else if (k == "columnnameofcorruptrecord") {
      options.corrupt_column = std::string(value);
    } else if (k == "allownumericleadingzeros") {
      WEIR_ASSIGN_OR_RETURN(options.allow_numeric_leading_zeros, OptionBoolean(key, value));
    } else if (k == "allownonnumericnumbers") {
      WEIR_ASSIGN_OR_RETURN(options.allow_non_numeric_numbers, OptionBoolean(key, value));
    } else if (k == "allowsinglequotes") {
      WEIR_ASSIGN_OR_RETURN(options.allow_single_quotes, OptionBoolean(key, value));
    } else if (k == "allowcomments") {
      WEIR_ASSIGN_OR_RETURN(options.allow_comments, OptionBoolean(key, value));
    } else if (k == "allowunquotedfieldnames" || k == "allowbackslashescapinganycharacter" ||
               k == "allowunquotedcontrolchars") {
      WEIR_ASSIGN_OR_RETURN(bool enabled, OptionBoolean(key, value));
      if (enabled) {
        return Status::InvalidArgument("from_json option " + std::string(key) +
                                       "=true is not supported by weir; remove it");
      }
    } else if (k == "timestampformat" || k == "timestampntzformat" || k == "dateformat" ||
               k == "singlevariantcolumn") {
      return Status::InvalidArgument(
          "from_json option " + std::string(key) +
          " is not supported by weir: dates and timestamps are read with Spark's default "
          "rules (as CAST reads them); parse a STRING field with to_timestamp instead");
    } else if (k == "locale") {
      if (value != "en-US") {
        return Status::InvalidArgument("from_json option locale must be en-US in weir, got '" +
                                       std::string(value) + "'");
      }
    } else if (k == "timezone") {
      std::string zone = Lower(value);
      if (zone != "utc" && zone != "z" && zone != "gmt" && zone != "+00:00" && zone != "etc/utc") {
        return Status::InvalidArgument("from_json option timeZone must be UTC in weir, got '" +
                                       std::string(value) + "'");
      }
    }
  }
  return options;
}

// ------------------------------------------------------------------ from_json: conversion

// How converting one value went. Ordered by severity.
enum class Outcome : uint8_t {
  kOk,
  kPartial,    // a value was produced but part of it failed to convert: the record is bad
  kFailed,     // NULL was produced because the value does not fit the type: the record is bad
  kMalformed,  // the JSON text is invalid: the row is abandoned
};

Outcome Worse(Outcome a, Outcome b) { return a > b ? a : b; }

// One output column being built (a node of the result type). Values are appended per row; a
// row is undone with Truncate().
struct ColumnBuilder {
  TypePtr type;
  TypeId id = TypeId::kString;
  int width = 0;
  int64_t size = 0;
  std::vector<int64_t> nulls;  // the entries that are NULL, ascending (validity built at Finish)
  std::vector<uint8_t> fixed;
  std::vector<std::string_view> strings;
  std::vector<int32_t> offsets;  // list and map: size + 1 entries
  std::vector<int> children;     // node indices
  std::string path;              // "items[].qty", for messages
  // Structs: field names, whether a name can be compared with a raw (escaped) key, and which
  // fields the current entry has seen.
  std::vector<std::string_view> names;
  std::vector<uint8_t> plain;
  // Plain names of at most 15 bytes: the name and its closing quote, compared 16 bytes at once.
  std::vector<std::array<char, 16>> key_patterns;
  std::vector<uint8_t> key_pattern_length;  // 0: compare with memcmp
  std::vector<uint32_t> seen;               // == generation: the field is set in this entry
  uint32_t generation = 0;
  std::unordered_map<std::string_view, int> lookup;  // for structs with many fields
  // Structs without `lookup`: bit s of [n] is set when field s has a plain name of n bytes.
  std::array<uint8_t, 32> plain_slots_by_length{};
  int corrupt_slot = -1;    // the root's corrupt-record field
  Int128 max_unscaled = 0;  // decimals: 10^precision - 1
};

// The first reason a record is bad (conversion failures; syntax errors are SyntaxError).
struct ConversionFailure {
  const char* what = nullptr;  // static text
  int node = -1;
  const char* json_kind = nullptr;
};

class FromJsonConverter {
 public:
  FromJsonConverter(const TypePtr& type, const FromJsonOptions& options)
      : options_(options),
        reader_(ThreadJsonReader()),
        validator_(reader_, options.allow_numeric_leading_zeros),
        arena_(std::make_shared<StringArena>()) {
    lenient_.single_quotes = options.allow_single_quotes;
    lenient_.non_numeric_numbers = options.allow_non_numeric_numbers;
    lenient_.comments = options.allow_comments;
    AddNode(type, "");
    if (type->id() == TypeId::kStruct) {
      ColumnBuilder& root = nodes_[0];
      for (size_t s = 0; s < root.names.size(); ++s) {
        if (root.names[s] == options.corrupt_column) {
          root.corrupt_slot = static_cast<int>(s);
          root.plain[s] = 0;
          if (root.names[s].size() < root.plain_slots_by_length.size() && s < 8) {
            root.plain_slots_by_length[root.names[s].size()] &= static_cast<uint8_t>(~(1u << s));
          }
          auto it = root.lookup.find(root.names[s]);
          if (it != root.lookup.end() && it->second == static_cast<int>(s)) root.lookup.erase(it);
        }
      }
    }
  }

  Result<Vector> Run(const KernelInput& in) {
    const Vector& input = in.args[0];
    Reader<std::string_view> json(input);
    bool constant = AllConstant(in);
    ReserveRoot(in.num_rows);
    for (int64_t row = 0; row < in.num_rows; ++row) {
      if (json.IsNull(row)) {
        AppendNull(0);
        continue;
      }
      std::string_view record = json[row];
      std::string_view text = StripByteOrderMark(record);
      if (IsBlank(text)) {  // Jackson finds no token: no row, a NULL result
        AppendNull(0);
        continue;
      }
      syntax_ = SyntaxError();
      failure_ = ConversionFailure();
      Outcome outcome = ParseRecord(text, /*rewritten=*/false);
      if (outcome == Outcome::kMalformed && lenient_.any() &&
          RewriteLenientJson(text, lenient_, &rewritten_)) {
        Truncate(0, row);
        SyntaxError first = syntax_;
        syntax_ = SyntaxError();
        failure_ = ConversionFailure();
        outcome = ParseRecord(rewritten_, /*rewritten=*/true);
        if (outcome == Outcome::kMalformed) syntax_ = first;
      }
      if (outcome == Outcome::kMalformed) {
        Truncate(0, row);
        AppendAllNullRecord();
      }
      bool bad = outcome != Outcome::kOk;
      ColumnBuilder& root = nodes_[0];
      if (root.corrupt_slot >= 0) {
        int corrupt = root.children[root.corrupt_slot];
        if (bad) {
          AppendString(corrupt, record);  // the input's own bytes (shared, not copied)
        } else {
          AppendNull(corrupt);
        }
      }
      if (!bad) continue;
      int64_t mark_row = constant ? -1 : row;
      std::string reason = Reason(outcome);
      if (options_.mode == ParseMode::kFailFast) {
        Truncate(0, row);
        AppendNull(0);
        in.context.row_errors.Mark(
            mark_row,
            "[MALFORMED_RECORD_IN_PARSING] Malformed records are detected in record parsing. "
            "Parse Mode: FAILFAST. To process malformed records as null result, try setting the "
            "option 'mode' as 'PERMISSIVE'. (" +
                reason + ")");
      } else {
        in.context.malformed.Mark(mark_row, reason);
      }
    }
    Column out = Finish(0, input.column());
    return Vector::Own(std::move(out), constant);
  }

 private:
  // ---- Building the plan

  int AddNode(const TypePtr& type, std::string path) {
    int index = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
    {
      ColumnBuilder& b = nodes_[index];
      b.type = type;
      b.id = type->id();
      b.width = type->byte_width();
      b.path = path;
      if (b.id == TypeId::kList || b.id == TypeId::kMap) b.offsets.push_back(0);
      if (b.id == TypeId::kDecimal) {
        b.max_unscaled = columnar::MaxDecimalUnscaled(type->precision());
      }
    }
    std::vector<int> children;
    if (type->id() == TypeId::kStruct) {
      for (const Field& f : type->children()) {
        children.push_back(AddNode(f.type, path.empty() ? f.name : path + "." + f.name));
      }
      ColumnBuilder& b = nodes_[index];
      for (const Field& f : type->children()) {
        b.names.push_back(f.name);
        bool plain = f.name.find_first_of("\"\\") == std::string::npos;
        b.plain.push_back(plain ? 1 : 0);
        std::array<char, 16> pattern{};
        bool short_name = plain && f.name.size() < pattern.size();
        if (short_name) {
          std::memcpy(pattern.data(), f.name.data(), f.name.size());
          pattern[f.name.size()] = '"';
        }
        b.key_patterns.push_back(pattern);
        b.key_pattern_length.push_back(short_name ? static_cast<uint8_t>(f.name.size() + 1) : 0);
      }
      b.seen.assign(b.names.size(), 0);
      if (b.names.size() > 8) {
        for (size_t s = 0; s < b.names.size(); ++s) {
          b.lookup.emplace(b.names[s], static_cast<int>(s));  // the first of equal names wins
        }
      } else {
        for (size_t s = 0; s < b.names.size(); ++s) {
          if (b.plain[s] && b.names[s].size() < b.plain_slots_by_length.size()) {
            b.plain_slots_by_length[b.names[s].size()] |= static_cast<uint8_t>(1u << s);
          }
        }
      }
    } else if (type->id() == TypeId::kList) {
      children.push_back(AddNode(type->element().type, path + "[]"));
    } else if (type->id() == TypeId::kMap) {
      children.push_back(AddNode(type->key().type, path + "{key}"));
      children.push_back(AddNode(type->value().type, path + "{}"));
    }
    nodes_[index].children = std::move(children);
    return index;
  }

  void ReserveRoot(int64_t n) {
    ColumnBuilder& root = nodes_[0];
    std::vector<int> level = {0};
    if (root.id == TypeId::kStruct) {
      level.insert(level.end(), root.children.begin(), root.children.end());
    }
    for (int index : level) {
      ColumnBuilder& b = nodes_[index];
      if (b.width > 0) b.fixed.reserve(n * b.width);
      if (b.type->is_binary_like()) b.strings.reserve(n);
      if (!b.offsets.empty()) b.offsets.reserve(n + 1);
    }
  }

  // ---- Appending and undoing

  void AppendNull(int index) {
    ColumnBuilder& b = nodes_[index];
    if (b.width > 0) {
      b.fixed.resize(b.fixed.size() + b.width, 0);
    } else if (b.type->is_binary_like()) {
      b.strings.emplace_back();
    } else if (b.id == TypeId::kStruct) {
      for (int child : b.children) AppendNull(child);
    } else {
      b.offsets.push_back(b.offsets.back());
    }
    b.nulls.push_back(b.size);
    ++b.size;
  }

  template <typename T>
  void AppendValue(int index, T v) {
    ColumnBuilder& b = nodes_[index];
    size_t at = b.fixed.size();
    b.fixed.resize(at + sizeof(T));
    std::memcpy(b.fixed.data() + at, &v, sizeof(T));
    ++b.size;
  }

  // REQUIRES: `s` points into the input (or is empty) — its bytes are shared, not copied.
  void AppendString(int index, std::string_view s) {
    ColumnBuilder& b = nodes_[index];
    b.strings.push_back(s);
    ++b.size;
  }

  // A string read from the parser's buffer: the input's own bytes when `borrowed` (no escapes,
  // not rewritten), else a copy in the output's arena.
  void AppendParsedString(int index, std::string_view s, bool borrowed) {
    AppendString(index, borrowed && !rewritten_input_ ? InInput(s) : arena_->Copy(s));
  }

  // The same bytes in the input (`s` is in the parser's copy of it).
  std::string_view InInput(std::string_view s) const {
    return std::string_view(input_text_.data() + (s.data() - reader_.base()), s.size());
  }

  void CloseEntry(int index) {  // a struct entry whose children are appended, or a list entry
    ColumnBuilder& b = nodes_[index];
    if (b.id == TypeId::kList || b.id == TypeId::kMap) {
      b.offsets.push_back(static_cast<int32_t>(nodes_[b.children[0]].size));
    }
    ++b.size;
  }

  // Drops every entry from `n` on, and every child value beyond what the kept entries own (an
  // abandoned entry may have appended to its children before failing).
  void Truncate(int index, int64_t n) {
    ColumnBuilder& b = nodes_[index];
    if (b.size > n) {
      b.size = n;
      while (!b.nulls.empty() && b.nulls.back() >= n) b.nulls.pop_back();
      if (b.width > 0) {
        b.fixed.resize(n * b.width);
      } else if (b.type->is_binary_like()) {
        b.strings.resize(n);
      } else if (!b.offsets.empty()) {
        b.offsets.resize(n + 1);
      }
    }
    if (b.id == TypeId::kStruct) {
      for (int child : b.children) Truncate(child, b.size);
    } else if (b.id == TypeId::kList || b.id == TypeId::kMap) {
      for (int child : b.children) Truncate(child, b.offsets[b.size]);
    }
  }

  // A bad record that produced nothing: a struct of NULL fields (Spark's PERMISSIVE row), or a
  // NULL array or map.
  void AppendAllNullRecord() {
    ColumnBuilder& root = nodes_[0];
    if (root.id != TypeId::kStruct) {
      AppendNull(0);
      return;
    }
    for (size_t s = 0; s < root.children.size(); ++s) {
      if (static_cast<int>(s) != root.corrupt_slot) AppendNull(root.children[s]);
    }
    CloseEntry(0);
  }

  Column Finish(int index, const Column& input) {
    ColumnBuilder& b = nodes_[index];
    Column c(b.type);
    if (!b.nulls.empty()) {
      std::vector<uint8_t> validity(static_cast<size_t>(b.size), 1);
      for (int64_t i : b.nulls) validity[static_cast<size_t>(i)] = 0;
      c.validity_buffer() = std::move(validity);
    }
    c.fixed_buffer() = std::move(b.fixed);
    c.string_buffer() = std::move(b.strings);
    if (!b.offsets.empty()) c.offsets_buffer() = std::move(b.offsets);
    for (size_t k = 0; k < b.children.size(); ++k) {
      c.mutable_child(static_cast<int>(k)) = Finish(b.children[k], input);
    }
    if (b.type->is_binary_like()) {
      c.ShareBuffersFrom(input);
      c.AddBufferOwner(arena_);
    }
    c.SetSize(b.size);
    return c;
  }

  // ---- Parsing one record

  Outcome ParseRecord(std::string_view text, bool rewritten) {
    rewritten_input_ = rewritten;
    input_text_ = text;
    if (auto e = reader_.Load(text)) return Malformed(e);
    return ConvertRoot();
  }

  Outcome ConvertRoot() {
    ColumnBuilder& b = nodes_[0];
    od::json_type type = reader_.root_type();
    bool scalar = type != od::json_type::object && type != od::json_type::array;
    if (scalar) {
      // A scalar where Jackson expects START_OBJECT/START_ARRAY: tokenized, then rejected.
      std::string_view token = reader_.root_token(), text;
      bool borrowed;
      bool valid =
          type == od::json_type::string ? ReadStringToken(token, &string_scratch_, &text, &borrowed)
          : type == od::json_type::number
              ? ClassifyNumber(token, options_.allow_numeric_leading_zeros) != NumberKind::kInvalid
              : token == "true" || token == "false" || token == "null";
      if (!valid) return Malformed("invalid scalar", token.data());
    }
    switch (b.id) {
      case TypeId::kStruct: {
        if (type != od::json_type::object) {
          // Spark: JSON arrays as structs are forbidden; scalars and null fail to convert.
          failure_ = {type == od::json_type::array  ? "JSON arrays cannot be parsed as a struct"
                      : type == od::json_type::null ? "the JSON value is null"
                                                    : "the JSON value is not an object",
                      0, nullptr};
          AppendAllNullRecord();
          return Outcome::kFailed;
        }
        od::object object;
        if (auto e = reader_.root().get_object().get(object)) return Malformed(e);
        return ConvertStruct(object, 0, 0);
      }
      case TypeId::kList: {
        int element = b.children[0];
        if (type == od::json_type::object && nodes_[element].id == TypeId::kStruct) {
          // An object for an array of structs is an array of that one struct.
          od::object object;
          if (auto e = reader_.root().get_object().get(object)) return Malformed(e);
          Outcome o = ConvertStruct(object, element, 0);
          if (o == Outcome::kMalformed) return o;
          CloseEntry(0);
          return o;
        }
        if (type == od::json_type::array) return Convert(reader_.root(), 0, 0);
        failure_ = {"the JSON value is not an array", 0, nullptr};
        AppendNull(0);
        return Outcome::kFailed;
      }
      default: {  // map
        if (type == od::json_type::object) return Convert(reader_.root(), 0, 0);
        failure_ = {"the JSON value is not an object", 0, nullptr};
        AppendNull(0);
        return Outcome::kFailed;
      }
    }
  }

  Outcome Malformed(simdjson::error_code e) {
    validator_.Fail(e);
    syntax_ = validator_.error();
    return Outcome::kMalformed;
  }
  Outcome Malformed(const char* what, const char* at) {
    validator_.FailAt(what, at);
    syntax_ = validator_.error();
    return Outcome::kMalformed;
  }
  Outcome MalformedFromValidator() {
    syntax_ = validator_.error();
    return Outcome::kMalformed;
  }

  Outcome Fail(int index, const char* json_kind) {
    if (failure_.what == nullptr) failure_ = {"cannot convert", index, json_kind};
    AppendNull(index);
    return Outcome::kFailed;
  }

  // Skips (validating) a value that does not fit `index`, which becomes NULL.
  Outcome FailAndSkip(od::value& v, int index, const char* json_kind, int depth) {
    if (!validator_.Skip(v, depth)) return MalformedFromValidator();
    return Fail(index, json_kind);
  }

  // Reads the string value whose raw bytes start at `raw`: nullptr when it is valid, else where
  // it went wrong (its opening quote).
  const char* ReadValueString(const od::raw_json_string& raw, std::string_view* text,
                              bool* borrowed) {
    const char* p = reinterpret_cast<const char*>(raw.raw());
    if (ReadRawString(p, reader_.text_end(), reader_.end(), &string_scratch_, text, borrowed)) {
      return nullptr;
    }
    return p - 1;
  }

  Outcome Convert(od::value& v, int index, int depth) {
    if (depth > kMaxJsonDepth) return Malformed("nesting deeper than 1000 levels", nullptr);
    od::json_type type;
    if (auto e = v.type().get(type)) return Malformed(e);
    if (type == od::json_type::string) {  // the common case: consumed without a token copy
      od::raw_json_string raw;
      if (auto e = v.get_raw_json_string().get(raw)) return Malformed(e);
      std::string_view text;
      bool borrowed;
      if (const char* bad = ReadValueString(raw, &text, &borrowed)) {
        return Malformed("invalid string", bad);
      }
      return ConvertString(index, text, borrowed);
    }
    std::string_view token = TrimJsonSpaceRight(v.raw_json_token());
    switch (type) {
      case od::json_type::null:
        if (token != "null") return Malformed("invalid literal", token.data());
        AppendNull(index);
        return Outcome::kOk;
      case od::json_type::boolean: {
        bool value = token == "true";
        if (!value && token != "false") return Malformed("invalid literal", token.data());
        return ConvertBoolean(index, value, token);
      }
      case od::json_type::number: {
        NumberKind kind = ClassifyNumber(token, options_.allow_numeric_leading_zeros);
        if (kind == NumberKind::kInvalid) return Malformed("invalid number", token.data());
        return ConvertNumber(index, token, kind);
      }
      case od::json_type::object:
      case od::json_type::array:
        return ConvertNested(v, type, index, depth, token.data());
      default:
        break;
    }
    return Malformed("unexpected token", token.data());
  }

  Outcome ConvertBoolean(int index, bool value, std::string_view token) {
    switch (nodes_[index].id) {
      case TypeId::kBoolean:
        AppendValue<uint8_t>(index, value ? 1 : 0);
        return Outcome::kOk;
      case TypeId::kString:
        AppendParsedString(index, token, true);
        return Outcome::kOk;
      default:
        return Fail(index, "boolean");
    }
  }

  Outcome ConvertNumber(int index, std::string_view token, NumberKind kind) {
    ColumnBuilder& b = nodes_[index];
    bool integer = kind == NumberKind::kInteger;
    int64_t v = 0;
    switch (b.id) {
      case TypeId::kInt8:
        // Jackson's getByteValue accepts -128..255 and wraps (255 is -1).
        if (!integer || !ParseJsonInteger(token, &v) || v < -128 || v > 255) {
          return Fail(index, "number");
        }
        AppendValue<int8_t>(index, static_cast<int8_t>(static_cast<uint8_t>(v & 0xFF)));
        return Outcome::kOk;
      case TypeId::kInt16:
        if (!integer || !ParseJsonInteger(token, &v) || v < -32768 || v > 32767) {
          return Fail(index, "number");
        }
        AppendValue<int16_t>(index, static_cast<int16_t>(v));
        return Outcome::kOk;
      case TypeId::kInt32:
        if (!integer || !ParseJsonInteger(token, &v) || v < std::numeric_limits<int32_t>::min() ||
            v > std::numeric_limits<int32_t>::max()) {
          return Fail(index, "number");
        }
        AppendValue<int32_t>(index, static_cast<int32_t>(v));
        return Outcome::kOk;
      case TypeId::kInt64:
        if (!integer || !ParseJsonInteger(token, &v)) return Fail(index, "number");
        AppendValue<int64_t>(index, v);
        return Outcome::kOk;
      case TypeId::kFloat:
        AppendValue<float>(index, ParseJsonFloating<float>(token));
        return Outcome::kOk;
      case TypeId::kDouble:
        AppendValue<double>(index, ParseJsonFloating<double>(token));
        return Outcome::kOk;
      case TypeId::kDecimal: {
        Int128 d;
        if (!ParseDecimalText(b, token, &d)) return Fail(index, "number");
        AppendValue<Int128>(index, d);
        return Outcome::kOk;
      }
      case TypeId::kString:  // the number's text exactly as written (Spark 4.0)
        AppendParsedString(index, token, true);
        return Outcome::kOk;
      case TypeId::kTimestamp: {
        // Seconds since the epoch; Java's long multiplication wraps.
        if (!integer || !ParseJsonInteger(token, &v)) return Fail(index, "number");
        auto micros = static_cast<int64_t>(static_cast<uint64_t>(v) * uint64_t{1000000});
        AppendValue<int64_t>(index, micros);
        return Outcome::kOk;
      }
      default:
        return Fail(index, "number");
    }
  }

  Outcome ConvertString(int index, std::string_view text, bool borrowed) {
    ColumnBuilder& b = nodes_[index];
    switch (b.id) {
      case TypeId::kString:
        AppendParsedString(index, text, borrowed);
        return Outcome::kOk;
      case TypeId::kBinary:
        if (!DecodeBase64(text, &binary_scratch_)) return Fail(index, "string");
        AppendString(index, arena_->Copy(binary_scratch_));
        return Outcome::kOk;
      default:
        break;
    }
    if (text.empty()) return Fail(index, "empty string");  // SPARK-25040
    switch (b.id) {
      case TypeId::kFloat:
      case TypeId::kDouble: {
        double d;
        if (!options_.allow_non_numeric_numbers) return Fail(index, "string");
        if (text == "NaN") {
          d = std::numeric_limits<double>::quiet_NaN();
        } else if (text == "+INF" || text == "+Infinity" || text == "Infinity") {
          d = std::numeric_limits<double>::infinity();
        } else if (text == "-INF" || text == "-Infinity") {
          d = -std::numeric_limits<double>::infinity();
        } else {
          return Fail(index, "string");
        }
        if (b.id == TypeId::kFloat) {
          AppendValue<float>(index, static_cast<float>(d));
        } else {
          AppendValue<double>(index, d);
        }
        return Outcome::kOk;
      }
      case TypeId::kDecimal: {
        // java.math.BigDecimal of the text with ',' removed (the en-US decimal parser): no spaces.
        if (IsJsonSpace(text.front()) || IsJsonSpace(text.back())) return Fail(index, "string");
        std::string_view digits = text;
        if (text.find(',') != std::string_view::npos) {
          binary_scratch_.clear();
          for (char c : text) {
            if (c != ',') binary_scratch_.push_back(c);
          }
          digits = binary_scratch_;
        }
        Int128 d;
        if (!ParseDecimalText(b, digits, &d)) return Fail(index, "string");
        AppendValue<Int128>(index, d);
        return Outcome::kOk;
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz: {
        std::optional<int64_t> t = ParseSparkTimestamp(text, b.id == TypeId::kTimestampNtz);
        if (!t) return Fail(index, "string");
        AppendValue<int64_t>(index, *t);
        return Outcome::kOk;
      }
      case TypeId::kDate: {
        std::optional<int32_t> d = ParseSparkDate(text);
        if (!d) d = ParseJavaInt(text);  // Spark 1.5 wrote days since the epoch as a string
        if (!d) return Fail(index, "string");
        AppendValue<int32_t>(index, *d);
        return Outcome::kOk;
      }
      default:
        return Fail(index, "string");
    }
  }

  // java.math.BigDecimal's syntax rounded HALF_UP to the decimal's scale (Spark's Decimal.set).
  static bool ParseDecimalText(const ColumnBuilder& b, std::string_view text, Int128* out) {
    switch (ParsePlainDecimal(text, b.type->scale(), b.max_unscaled, out)) {
      case DecimalParse::kValue:
        return true;
      case DecimalParse::kOverflow:
        return false;
      case DecimalParse::kGeneral:
        break;
    }
    std::optional<Int128> d = columnar::ParseDecimal(text, b.type->precision(), b.type->scale());
    if (!d) return false;
    *out = *d;
    return true;
  }

  Outcome ConvertNested(od::value& v, od::json_type type, int index, int depth, const char* start) {
    ColumnBuilder& b = nodes_[index];
    bool object = type == od::json_type::object;
    const char* kind = object ? "object" : "array";
    if (b.id == TypeId::kString) {
      // The value's text exactly as written (Spark 4.0's spark.sql.json.enableExactStringParsing).
      if (!validator_.Skip(v, depth)) return MalformedFromValidator();
      const char* end = reader_.EndOfConsumedValue();
      AppendParsedString(index, std::string_view(start, static_cast<size_t>(end - start)), true);
      return Outcome::kOk;
    }
    if (object && b.id == TypeId::kStruct) {
      od::object o;
      if (auto e = v.get_object().get(o)) return Malformed(e);
      return ConvertStruct(o, index, depth);
    }
    if (object && b.id == TypeId::kMap) {
      od::object o;
      if (auto e = v.get_object().get(o)) return Malformed(e);
      return ConvertMap(o, index, depth);
    }
    if (!object && b.id == TypeId::kList) {
      od::array a;
      if (auto e = v.get_array().get(a)) return Malformed(e);
      return ConvertList(a, index, depth);
    }
    return FailAndSkip(v, index, kind, depth);
  }

  // Whether the raw key at `raw` is exactly the plain name of field `slot`.
  bool KeyIs(const ColumnBuilder& b, size_t slot, const char* raw) const {
#if defined(__SSE2__)
    unsigned length = b.key_pattern_length[slot];
    if (length > 0 && reader_.end() - raw >= 16) {
      __m128i key = _mm_loadu_si128(reinterpret_cast<const __m128i*>(raw));
      __m128i pattern =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.key_patterns[slot].data()));
      unsigned equal = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(key, pattern)));
      unsigned wanted = (1u << length) - 1;
      return (equal & wanted) == wanted;
    }
#endif
    std::string_view name = b.names[slot];
    return raw + name.size() < reader_.end() && std::memcmp(raw, name.data(), name.size()) == 0 &&
           raw[name.size()] == '"';
  }

  // The struct field a key names: the field after the previous one is tried first, on the raw
  // key bytes; otherwise the key is looked up (case-sensitively, as Spark's
  // StructType.getFieldIndex), as its raw bytes when it has no escapes, else decoded. -1 for an
  // unknown key, -2 for an invalid one.
  int FindSlot(ColumnBuilder& b, const char* raw, size_t* expected) {
    size_t n = b.names.size();
    if (*expected < n && b.plain[*expected] && KeyIs(b, *expected, raw)) {
      return static_cast<int>((*expected)++);
    }
    // A key without escapes is its own bytes: compared where it lies, nothing decoded. (Only
    // plain names can equal it: a name with '"' or '\\' is written with escapes.)
    const char* close = FindQuoteOrBackslash(raw, reader_.end());
    if (close < reader_.text_end() && *close == '"') {
      std::string_view key(raw, static_cast<size_t>(close - raw));
      int slot = -1;
      if (!b.lookup.empty()) {
        auto it = b.lookup.find(key);
        if (it != b.lookup.end()) slot = it->second;
      } else if (key.size() < b.plain_slots_by_length.size()) {
        // The fields whose names have the key's length, first to last (the first equal wins).
        for (unsigned m = b.plain_slots_by_length[key.size()]; m != 0; m &= m - 1) {
          auto s = static_cast<size_t>(__builtin_ctz(m));
          if (KeyIs(b, s, raw)) {
            slot = static_cast<int>(s);
            break;
          }
        }
      } else {
        for (size_t s = 0; s < n; ++s) {
          if (b.plain[s] && b.names[s].size() == key.size() && KeyIs(b, s, raw)) {
            slot = static_cast<int>(s);
            break;
          }
        }
      }
      if (slot >= 0) *expected = static_cast<size_t>(slot) + 1;
      return slot;
    }
    std::string_view key;
    if (!validator_.ReadKey(raw, &key_scratch_, &key)) return -2;
    int slot = -1;
    if (!b.lookup.empty()) {
      auto it = b.lookup.find(key);
      if (it != b.lookup.end()) slot = it->second;
    } else {
      for (size_t s = 0; s < n; ++s) {
        if (static_cast<int>(s) != b.corrupt_slot && b.names[s] == key) {
          slot = static_cast<int>(s);
          break;
        }
      }
    }
    if (slot >= 0) *expected = static_cast<size_t>(slot) + 1;
    return slot;
  }

  Outcome ConvertStruct(od::object& object, int index, int depth) {
    int64_t entry = nodes_[index].size;
    uint32_t generation = ++nodes_[index].generation;
    if (generation == 0) {  // wrapped: reset
      std::fill(nodes_[index].seen.begin(), nodes_[index].seen.end(), 0);
      generation = nodes_[index].generation = 1;
    }
    Outcome result = Outcome::kOk;
    size_t expected = 0;
    for (auto field_result : object) {
      if (auto e = field_result.error()) return Malformed(e);
      od::field& field = field_result.value_unsafe();  // no copy
      ColumnBuilder& b = nodes_[index];
      int slot = FindSlot(b, reinterpret_cast<const char*>(field.key().raw()), &expected);
      if (slot == -2) return MalformedFromValidator();
      if (slot < 0) {
        // An unknown key's value is only checked. A string (the common case) is checked here, as
        // JsonValidator::Skip would, without its dispatch; a failed get_raw_json_string consumes
        // nothing.
        od::raw_json_string raw;
        if (depth < kMaxJsonDepth &&
            field.value().get_raw_json_string().get(raw) == simdjson::SUCCESS) {
          std::string_view text;
          bool borrowed;
          if (const char* bad = ReadValueString(raw, &text, &borrowed)) {
            return Malformed("invalid string", bad);
          }
          continue;
        }
        if (!validator_.Skip(field.value(), depth + 1)) return MalformedFromValidator();
        continue;
      }
      int child = b.children[slot];
      if (b.seen[slot] == generation) Truncate(child, entry);  // repeated: the last one wins
      b.seen[slot] = generation;
      if (nodes_[child].id == TypeId::kString) {  // the common case, without the generic dispatch
        od::raw_json_string raw;
        if (field.value().get_raw_json_string().get(raw) == simdjson::SUCCESS) {
          const char* p = reinterpret_cast<const char*>(raw.raw());
          std::string_view text;
          bool borrowed;
          if (!ReadRawString(p, reader_.text_end(), reader_.end(), &string_scratch_, &text,
                             &borrowed)) {
            return Malformed("invalid string", p - 1);
          }
          ColumnBuilder& c = nodes_[child];
          c.strings.push_back(borrowed && !rewritten_input_ ? InInput(text) : arena_->Copy(text));
          ++c.size;
          continue;
        }
      }
      Outcome o = Convert(field.value(), child, depth + 1);
      if (o == Outcome::kMalformed) return o;
      if (o != Outcome::kOk) result = Outcome::kPartial;  // the field is NULL or partial
    }
    ColumnBuilder& b = nodes_[index];
    for (size_t s = 0; s < b.children.size(); ++s) {
      if (b.seen[s] != generation && static_cast<int>(s) != b.corrupt_slot) {
        AppendNull(b.children[s]);
      }
    }
    CloseEntry(index);
    return result;
  }

  // A bad element fails the whole array (Spark's convertArray lets the error through); partial
  // structs inside are kept.
  Outcome ConvertList(od::array& array, int index, int depth) {
    int element = nodes_[index].children[0];
    int64_t start = nodes_[element].size;
    Outcome result = Outcome::kOk;
    for (auto element_result : array) {
      if (auto e = element_result.error()) return Malformed(e);
      od::value& value = element_result.value_unsafe();
      Outcome o = result == Outcome::kFailed ? Skipped(value, depth + 1)
                                             : Convert(value, element, depth + 1);
      if (o == Outcome::kMalformed) return o;
      result = Worse(result, o);
    }
    if (result == Outcome::kFailed) {
      Truncate(element, start);
      AppendNull(index);
      return Outcome::kFailed;
    }
    CloseEntry(index);
    return result;
  }

  // A bad value fails the whole map, as in Spark 3.5/4.0.
  Outcome ConvertMap(od::object& object, int index, int depth) {
    int keys = nodes_[index].children[0], values = nodes_[index].children[1];
    int64_t start = nodes_[keys].size;
    Outcome result = Outcome::kOk;
    for (auto field_result : object) {
      if (auto e = field_result.error()) return Malformed(e);
      od::field& field = field_result.value_unsafe();  // no copy
      const char* raw = reinterpret_cast<const char*>(field.key().raw());
      std::string_view key;
      if (!validator_.ReadKey(raw, &key_scratch_, &key)) return MalformedFromValidator();
      bool borrowed = raw + key.size() < reader_.end() && raw[key.size()] == '"' &&
                      std::memcmp(raw, key.data(), key.size()) == 0;
      AppendParsedString(keys, borrowed ? std::string_view(raw, key.size()) : key, borrowed);
      Outcome o = result == Outcome::kFailed ? Skipped(field.value(), depth + 1)
                                             : Convert(field.value(), values, depth + 1);
      if (o == Outcome::kMalformed) return o;
      result = Worse(result, o);
    }
    if (result == Outcome::kFailed) {
      Truncate(keys, start);
      Truncate(values, start);
      AppendNull(index);
      return Outcome::kFailed;
    }
    CloseEntry(index);
    return result;
  }

  Outcome Skipped(od::value& v, int depth) {
    if (!validator_.Skip(v, depth)) return MalformedFromValidator();
    return Outcome::kFailed;
  }

  std::string Reason(Outcome outcome) const {
    if (outcome == Outcome::kMalformed) return syntax_.Describe();
    if (failure_.what == nullptr) return "the JSON record does not fit the schema";
    if (failure_.json_kind == nullptr) return failure_.what;  // a root-level failure
    const ColumnBuilder& b = nodes_[failure_.node];
    std::string s = "cannot convert a JSON ";
    s += failure_.json_kind;
    s += " to " + b.type->ToDdl();
    if (!b.path.empty()) s += " in field '" + b.path + "'";
    return s;
  }

  FromJsonOptions options_;
  LenientSyntax lenient_;
  JsonReader& reader_;
  JsonValidator validator_;
  std::shared_ptr<StringArena> arena_;
  std::vector<ColumnBuilder> nodes_;
  // The record being parsed: its text (after a byte order mark) or the rewritten text.
  std::string_view input_text_;
  bool rewritten_input_ = false;
  std::string rewritten_;
  SyntaxError syntax_;
  ConversionFailure failure_;
  std::string string_scratch_, key_scratch_, binary_scratch_;
};

// ------------------------------------------------------------------ JSON paths

// Spark's JsonPathParser instructions (Hive's path language).
struct PathInstruction {
  enum class Kind : uint8_t { kSubscript, kWildcard, kKey, kIndex, kNamed };
  PathInstruction(Kind k, int64_t i = 0, std::string n = std::string(), bool ci = false)
      : kind(k), index(i), name(std::move(n)), case_insensitive(ci) {}
  Kind kind;
  int64_t index;
  std::string name;
  bool case_insensitive;  // Databricks' `raw:field` steps
};
using JsonPath = std::vector<PathInstruction>;

bool IsJavaSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\x0B' || c == '\f' || c == '\r';
}

// get_json_object's path: '$' then .name, ['name'], [n], [*], .* or ['*'] (Scala's RegexParsers,
// which skip whitespace before every token). nullopt for an invalid path.
std::optional<JsonPath> ParseSparkJsonPath(std::string_view s) {
  using K = PathInstruction::Kind;
  size_t pos = 0;
  auto skip = [&](size_t p) {
    while (p < s.size() && IsJavaSpace(s[p])) ++p;
    return p;
  };
  pos = skip(pos);
  if (pos >= s.size() || s[pos] != '$') return std::nullopt;
  ++pos;
  JsonPath path;
  while (true) {
    size_t p = skip(pos);
    if (s.substr(p, 2) == ".*") {
      path.emplace_back(K::kWildcard);
      pos = p + 2;
      continue;
    }
    if (s.substr(p, 5) == "['*']") {
      path.emplace_back(K::kWildcard);
      pos = p + 5;
      continue;
    }
    if (p < s.size() && s[p] == '.') {
      size_t q = skip(p + 1), r = q;
      while (r < s.size() && s[r] != '.' && s[r] != '[') ++r;
      if (r == q) break;
      path.emplace_back(K::kKey);
      path.emplace_back(K::kNamed, 0, std::string(s.substr(q, r - q)));
      pos = r;
      continue;
    }
    if (s.substr(p, 2) == "['") {
      size_t q = skip(p + 2), r = q;
      while (r < s.size() && s[r] != '\'') ++r;
      if (r == q || s.substr(r, 2) != "']") break;
      path.emplace_back(K::kKey);
      path.emplace_back(K::kNamed, 0, std::string(s.substr(q, r - q)));
      pos = r + 2;
      continue;
    }
    if (p < s.size() && s[p] == '[') {
      size_t q = skip(p + 1);
      PathInstruction operand(K::kWildcard);
      size_t r = q;
      if (q < s.size() && s[q] == '*') {
        r = q + 1;
      } else {
        while (r < s.size() && IsDigit(s[r])) ++r;
        if (r == q) break;
        int64_t index = 0;
        auto [end, ec] = std::from_chars(s.data() + q, s.data() + r, index);
        if (ec != std::errc()) return std::nullopt;  // Spark fails on an index beyond a long
        operand = PathInstruction(K::kIndex, index);
      }
      r = skip(r);
      if (r >= s.size() || s[r] != ']') break;
      path.emplace_back(K::kSubscript);
      path.push_back(operand);
      pos = r + 1;
      continue;
    }
    break;
  }
  if (skip(pos) != s.size()) return std::nullopt;
  return path;
}

// The parser's normal form of Databricks' `raw:path` (sql::JsonPath): "$" then .name
// (case-insensitive), ['name'] (case-sensitive), [n] and [*].
std::optional<JsonPath> ParseDatabricksJsonPath(std::string_view s) {
  using K = PathInstruction::Kind;
  if (s.empty() || s[0] != '$') return std::nullopt;
  size_t pos = 1;
  JsonPath path;
  while (pos < s.size()) {
    if (s[pos] == '.') {
      size_t r = pos + 1;
      while (r < s.size() && s[r] != '.' && s[r] != '[') ++r;
      if (r == pos + 1) return std::nullopt;
      path.emplace_back(K::kKey);
      path.emplace_back(K::kNamed, 0, std::string(s.substr(pos + 1, r - pos - 1)), true);
      pos = r;
    } else if (s.substr(pos, 2) == "['") {
      size_t close = s.find("']", pos + 2);
      if (close == std::string_view::npos) return std::nullopt;
      path.emplace_back(K::kKey);
      path.emplace_back(K::kNamed, 0, std::string(s.substr(pos + 2, close - pos - 2)), false);
      pos = close + 2;
    } else if (s.substr(pos, 3) == "[*]") {
      path.emplace_back(K::kSubscript);
      path.emplace_back(K::kWildcard);
      pos += 3;
    } else if (s[pos] == '[') {
      size_t r = pos + 1;
      while (r < s.size() && IsDigit(s[r])) ++r;
      if (r == pos + 1 || r >= s.size() || s[r] != ']') return std::nullopt;
      int64_t index = 0;
      auto [end, ec] = std::from_chars(s.data() + pos + 1, s.data() + r, index);
      if (ec != std::errc()) return std::nullopt;
      path.emplace_back(K::kSubscript);
      path.emplace_back(K::kIndex, index);
      pos = r + 1;
    } else {
      return std::nullopt;
    }
  }
  return path;
}

// Writes JSON as Jackson's generator does with Spark's settings: compact, strings escaped with
// \" \\ \b \f \n \r \t and \u00XX for other control characters, non-ASCII kept as UTF-8.
class JacksonWriter {
 public:
  explicit JacksonWriter(std::string* out) : out_(out) {}

  void StartObject() {
    Separator();
    out_->push_back('{');
    levels_.push_back({true, 0, false});
  }
  void EndObject() {
    out_->push_back('}');
    levels_.pop_back();
  }
  void StartArray() {
    Separator();
    out_->push_back('[');
    levels_.push_back({false, 0, false});
  }
  void EndArray() {
    out_->push_back(']');
    levels_.pop_back();
  }
  void FieldName(std::string_view name) {
    Level& level = levels_.back();
    if (level.count++ > 0) out_->push_back(',');
    AppendQuoted(name);
    out_->push_back(':');
    level.after_name = true;
  }
  void String(std::string_view s) {
    Separator();
    AppendQuoted(s);
  }
  // A value written as is (numbers, literals, buffered JSON), after the separator.
  void RawValue(std::string_view s) {
    Separator();
    out_->append(s);
  }
  // Text written without a separator (an unquoted string result).
  void Raw(std::string_view s) { out_->append(s); }

 private:
  struct Level {
    bool object;
    int count;
    bool after_name;
  };

  void Separator() {
    if (levels_.empty()) {
      if (root_values_++ > 0) out_->push_back(' ');  // Jackson's root value separator
      return;
    }
    Level& level = levels_.back();
    if (level.object) {
      level.after_name = false;
    } else if (level.count++ > 0) {
      out_->push_back(',');
    }
  }

  void AppendQuoted(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    out_->push_back('"');
    for (char c : s) {
      auto u = static_cast<unsigned char>(c);
      switch (c) {
        case '"':
          out_->append("\\\"");
          break;
        case '\\':
          out_->append("\\\\");
          break;
        case '\b':
          out_->append("\\b");
          break;
        case '\f':
          out_->append("\\f");
          break;
        case '\n':
          out_->append("\\n");
          break;
        case '\r':
          out_->append("\\r");
          break;
        case '\t':
          out_->append("\\t");
          break;
        default:
          if (u < 0x20) {
            out_->append("\\u00");
            out_->push_back(kHex[u >> 4]);
            out_->push_back(kHex[u & 0xF]);
          } else {
            out_->push_back(c);
          }
      }
    }
    out_->push_back('"');
  }

  std::string* out_;
  std::vector<Level> levels_;
  int root_values_ = 0;
};

// Spark's GetJsonObjectEvaluator.evaluatePath over a simdjson value, plus Databricks' variant.
class PathEvaluator {
 public:
  enum class Style : uint8_t { kRaw, kQuoted, kFlatten };

  PathEvaluator(JsonReader& reader, bool databricks)
      : validator_(reader, false), databricks_(databricks) {}

  bool ambiguous() const { return ambiguous_; }

  // The path over a scalar document: only "$" matches it.
  bool EvaluateScalar(od::json_type type, std::string_view token, JacksonWriter& g,
                      std::span<const PathInstruction> path, bool* dirty) {
    *dirty = false;
    if (!path.empty()) {
      std::string discard;
      JacksonWriter check(&discard);
      return CopyScalar(type, token, check);  // Jackson still reads (checks) the token
    }
    if (type == od::json_type::string) {
      std::string_view text;
      bool borrowed;
      if (!ReadStringToken(token, &scratch_, &text, &borrowed)) return false;
      g.Raw(text);
    } else if (!CopyScalar(type, token, g)) {
      return false;
    }
    *dirty = true;
    return true;
  }

  // False when the JSON is malformed or (Databricks) a field is ambiguous.
  bool Evaluate(od::value& v, JacksonWriter& g, Style style, std::span<const PathInstruction> path,
                int depth, bool* dirty) {
    using K = PathInstruction::Kind;
    *dirty = false;
    if (depth > kMaxJsonDepth) return false;
    od::json_type type;
    if (v.type().get(type)) return false;
    if (path.empty()) {
      if (type == od::json_type::string && style == Style::kRaw) {
        std::string_view text;
        bool borrowed;
        if (!ReadStringToken(TrimJsonSpaceRight(v.raw_json_token()), &scratch_, &text, &borrowed)) {
          return false;
        }
        g.Raw(text);
        *dirty = true;
        return true;
      }
      if (type == od::json_type::array && style == Style::kFlatten) {
        od::array array;
        if (v.get_array().get(array)) return false;
        for (auto element_result : array) {
          if (element_result.error()) return false;
          od::value& element = element_result.value_unsafe();
          bool d;
          if (!Evaluate(element, g, style, path, depth + 1, &d)) return false;
          *dirty |= d;
        }
        return true;
      }
      *dirty = true;
      return Copy(v, g, depth);
    }
    if (type == od::json_type::object && path[0].kind == K::kKey) {
      return EvaluateObject(v, g, style, path.subspan(1), depth, dirty);
    }
    if (type == od::json_type::array && path.size() >= 2 && path[0].kind == K::kSubscript) {
      od::array array;
      if (v.get_array().get(array)) return false;
      std::span<const PathInstruction> xs = path.subspan(2);
      bool xs_wildcard =
          xs.size() >= 2 && xs[0].kind == K::kSubscript && xs[1].kind == K::kWildcard;
      if (path[1].kind == K::kWildcard) {
        if (xs_wildcard) {
          // Hive's non-structure-preserving double wildcard: flatten into one array.
          g.StartArray();
          for (auto element_result : array) {
            if (element_result.error()) return false;
            od::value& element = element_result.value_unsafe();
            bool d;
            if (!Evaluate(element, g, Style::kFlatten, xs.subspan(2), depth + 1, &d)) return false;
            *dirty |= d;
          }
          g.EndArray();
          return true;
        }
        if (style != Style::kQuoted) {
          // Buffer the matches: a single match is written without the enclosing array.
          Style next = style == Style::kRaw ? Style::kQuoted : Style::kFlatten;
          std::string buffer;
          JacksonWriter fg(&buffer);
          fg.StartArray();
          int matches = 0, elements = 0;
          for (auto element_result : array) {
            if (element_result.error()) return false;
            od::value& element = element_result.value_unsafe();
            bool d;
            if (!Evaluate(element, fg, next, xs, depth + 1, &d)) return false;
            if (!d && databricks_) fg.RawValue("null");
            matches += d ? 1 : 0;
            ++elements;
          }
          fg.EndArray();
          if (databricks_) {
            if (elements > 0) g.RawValue(buffer);
            *dirty = elements > 0;
          } else if (matches > 1) {
            g.RawValue(buffer);
          } else if (matches == 1) {
            g.RawValue(std::string_view(buffer).substr(1, buffer.size() - 2));
          }
          if (!databricks_) *dirty = matches > 0;
          return true;
        }
        g.StartArray();
        for (auto element_result : array) {
          if (element_result.error()) return false;
          od::value& element = element_result.value_unsafe();
          bool d;
          if (!Evaluate(element, g, Style::kQuoted, xs, depth + 1, &d)) return false;
          if (!d && databricks_) g.RawValue("null");
          *dirty |= d || databricks_;
        }
        g.EndArray();
        return true;
      }
      if (path[1].kind == K::kIndex) {
        Style next = xs_wildcard ? Style::kQuoted : style;
        int64_t i = 0;
        for (auto element_result : array) {
          if (element_result.error()) return false;
          od::value& element = element_result.value_unsafe();
          if (i++ == path[1].index) {
            if (!Evaluate(element, g, next, xs, depth + 1, dirty)) return false;
          } else if (!validator_.Skip(element, depth + 1)) {
            return false;
          }
        }
        return true;
      }
    }
    return validator_.Skip(v, depth);
  }

 private:
  bool EvaluateObject(od::value& v, JacksonWriter& g, Style style,
                      std::span<const PathInstruction> xs, int depth, bool* dirty) {
    using K = PathInstruction::Kind;
    od::object object;
    if (v.get_object().get(object)) return false;
    const PathInstruction* named = !xs.empty() && xs[0].kind == K::kNamed ? &xs[0] : nullptr;
    bool wildcard = !xs.empty() && xs[0].kind == K::kWildcard;
    std::string first_spelling;  // Databricks: the key a case-insensitive step matched
    for (auto field_result : object) {
      if (field_result.error()) return false;
      od::field& field = field_result.value_unsafe();
      std::string_view key;
      if (!validator_.ReadKey(reinterpret_cast<const char*>(field.key().raw()), &key_scratch_,
                              &key)) {
        return false;
      }
      bool matches = false;
      if (named != nullptr) {
        if (named->case_insensitive) {
          matches = EqualsIgnoreAsciiCase(key, named->name);
          if (matches) {
            if (first_spelling.empty()) {
              first_spelling = std::string(key);
            } else if (key != first_spelling) {
              ambiguous_ = true;  // two keys differing only in case: Databricks fails
              return false;
            }
          }
        } else {
          matches = key == named->name;
        }
      }
      if (*dirty || (!matches && !wildcard)) {
        if (!validator_.Skip(field.value(), depth + 1)) return false;
        continue;
      }
      od::value& value = field.value();
      if (named != nullptr) {
        od::json_type type;
        if (value.type().get(type)) return false;
        if (type == od::json_type::null) {  // a JSON null field is no match
          if (!validator_.Skip(value, depth + 1)) return false;
          continue;
        }
      }
      if (!Evaluate(value, g, style, xs.subspan(1), depth + 1, dirty)) return false;
    }
    return true;
  }

  // Jackson's copyCurrentStructure: integers keep their digits, other numbers are read as a
  // double and printed as Java's Double.toString.
  bool Copy(od::value& v, JacksonWriter& g, int depth) {
    if (depth > kMaxJsonDepth) return false;
    od::json_type type;
    if (v.type().get(type)) return false;
    std::string_view token = TrimJsonSpaceRight(v.raw_json_token());
    switch (type) {
      case od::json_type::object: {
        od::object object;
        if (v.get_object().get(object)) return false;
        g.StartObject();
        for (auto field_result : object) {
          if (field_result.error()) return false;
          od::field& field = field_result.value_unsafe();
          std::string_view key;
          if (!validator_.ReadKey(reinterpret_cast<const char*>(field.key().raw()), &key_scratch_,
                                  &key)) {
            return false;
          }
          g.FieldName(key);
          if (!Copy(field.value(), g, depth + 1)) return false;
        }
        g.EndObject();
        return true;
      }
      case od::json_type::array: {
        od::array array;
        if (v.get_array().get(array)) return false;
        g.StartArray();
        for (auto element_result : array) {
          if (element_result.error()) return false;
          od::value& element = element_result.value_unsafe();
          if (!Copy(element, g, depth + 1)) return false;
        }
        g.EndArray();
        return true;
      }
      default:
        return CopyScalar(type, token, g);
    }
  }

  bool CopyScalar(od::json_type type, std::string_view token, JacksonWriter& g) {
    switch (type) {
      case od::json_type::string: {
        std::string_view text;
        bool borrowed;
        if (!ReadStringToken(token, &scratch_, &text, &borrowed)) return false;
        g.String(text);
        return true;
      }
      case od::json_type::number: {
        NumberKind kind = ClassifyNumber(token, false);
        if (kind == NumberKind::kInvalid) return false;
        if (kind == NumberKind::kInteger) {
          g.RawValue(token == "-0" ? std::string_view("0") : token);
          return true;
        }
        double d = ParseJsonFloating<double>(token);
        if (std::isinf(d)) {
          g.String(d > 0 ? "Infinity" : "-Infinity");  // QUOTE_NON_NUMERIC_NUMBERS
        } else {
          number_.clear();
          AppendSparkDouble(d, &number_);
          g.RawValue(number_);
        }
        return true;
      }
      case od::json_type::boolean:
      case od::json_type::null:
        if (token != "true" && token != "false" && token != "null") return false;
        g.RawValue(token);
        return true;
      default:
        return false;
    }
  }

  JsonValidator validator_;
  bool databricks_;
  bool ambiguous_ = false;
  std::string scratch_, key_scratch_, number_;
};

enum class PathResult : uint8_t { kNull, kValue, kAmbiguous };

// Evaluates `path` over `json` into `out`. Jackson's parser for get_json_object accepts single
// quotes and unescaped control characters; such input is rewritten and parsed again.
PathResult EvaluateJsonPath(std::string_view json, const JsonPath& path, bool databricks,
                            std::string* out, std::string* rewritten) {
  std::string_view text = StripByteOrderMark(json);
  if (IsBlank(text)) return PathResult::kNull;
  JsonReader& reader = ThreadJsonReader();
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt == 1) {
      LenientSyntax lenient;
      lenient.single_quotes = lenient.control_characters = true;
      if (!RewriteLenientJson(text, lenient, rewritten)) break;
      text = *rewritten;
    }
    out->clear();
    if (reader.Load(text)) continue;
    PathEvaluator evaluator(reader, databricks);
    JacksonWriter writer(out);
    bool dirty = false;
    od::json_type type = reader.root_type();
    bool ok =
        type == od::json_type::object || type == od::json_type::array
            ? evaluator.Evaluate(reader.root(), writer, PathEvaluator::Style::kRaw, path, 0, &dirty)
            : evaluator.EvaluateScalar(type, reader.root_token(), writer, path, &dirty);
    if (ok) {
      return dirty ? PathResult::kValue : PathResult::kNull;
    }
    if (evaluator.ambiguous()) return PathResult::kAmbiguous;
  }
  return PathResult::kNull;
}

// ------------------------------------------------------------------ type rules

// Spark's JSON functions take STRING only (ExpectsInputTypes: no implicit cast, so a Kafka value
// needs CAST(value AS STRING)); an untyped NULL is accepted as a NULL STRING.
Result<TypePtr> JsonStringArgument(std::vector<BoundExprPtr>& args, size_t i,
                                   std::string_view function) {
  const BoundExprPtr& a = args[i];
  if (a->IsNullLiteral() && a->type->id() != TypeId::kString) {
    WEIR_ASSIGN_OR_RETURN(args[i], CastTo(a, DataType::String()));
  } else if (a->type->id() != TypeId::kString) {
    return Status::InvalidArgument(std::string(function) + " needs a STRING argument, got " +
                                   a->type->ToDdl() + " (" + a->sql + "); cast it with CAST(" +
                                   a->sql + " AS STRING)");
  }
  return DataType::String();
}

TypePtr AsNullable(const TypePtr& type) {
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& f : type->children()) {
        Field copy = f;
        copy.type = AsNullable(f.type);
        copy.nullable = true;
        fields.push_back(std::move(copy));
      }
      return DataType::Struct(std::move(fields));
    }
    case TypeId::kList:
      return DataType::List(AsNullable(type->element().type), true);
    case TypeId::kMap:
      return DataType::Map(AsNullable(type->key().type), AsNullable(type->value().type), true);
    default:
      return type;
  }
}

Status CheckMapKeys(const DataType& type) {
  if (type.id() == TypeId::kMap && type.key().type->id() != TypeId::kString) {
    return Status::InvalidArgument(
        "from_json reads JSON objects into maps with STRING keys only, got " + type.ToDdl());
  }
  for (const Field& f : type.children()) WEIR_RETURN_NOT_OK(CheckMapKeys(*f.type));
  return Status::OK();
}

// The schema argument: a DDL column list ('a INT, b STRING'), one DDL type ('ARRAY<INT>',
// 'MAP<STRING, INT>', 'STRUCT<a: INT>') or a Spark/Delta JSON struct schema.
Result<TypePtr> ParseFromJsonSchema(std::string_view text) {
  std::string_view trimmed = TrimSparkWhitespace(text);
  TypePtr type;
  if (!trimmed.empty() && trimmed.front() == '{') {
    WEIR_ASSIGN_OR_RETURN(columnar::Schema schema, columnar::SchemaFromDeltaJson(trimmed));
    type = DataType::Struct(schema.fields);
  } else if (auto t = columnar::ParseDdlType(trimmed); t.ok()) {
    type = *t;
  } else {
    auto schema = columnar::ParseDdlSchema(trimmed);
    if (!schema.ok()) {
      return Status::InvalidArgument("from_json: invalid schema '" + std::string(text) +
                                     "': " + schema.status().message());
    }
    type = DataType::Struct(schema->fields);
  }
  if (!type->is_nested()) {
    return Status::InvalidArgument("from_json: the schema '" + std::string(text) +
                                   "' must be a struct (a column list), an ARRAY or a MAP, not " +
                                   type->ToDdl());
  }
  WEIR_RETURN_NOT_OK(CheckMapKeys(*type));
  return AsNullable(type);
}

bool IsFoldable(const BoundExpr& e) {
  switch (e.kind) {
    case BoundExpr::Kind::kLiteral:
      return true;
    case BoundExpr::Kind::kColumn:
      return false;
    case BoundExpr::Kind::kCall:
      if (e.function->constant_per_batch) return false;
      [[fallthrough]];
    default:
      for (const BoundExprPtr& c : e.children) {
        if (!IsFoldable(*c)) return false;
      }
      return true;
  }
}

// Evaluates a constant expression (e.g. map('mode', 'FAILFAST')) at bind time.
Result<Column> FoldConstant(const BoundExpr& e) {
  columnar::Batch no_rows;
  EvalContext context;
  context.StartBatch(1, 0);  // one row, so that row errors of the constant are kept
  WEIR_ASSIGN_OR_RETURN(Vector v, EvaluateVector(e, no_rows, context));
  if (context.row_errors.count() > 0) {  // e.g. map() with a repeated key
    return Status::InvalidArgument(std::string(context.row_errors.first_message()));
  }
  return std::move(v).Materialize(1);
}

Result<TypePtr> FromJsonRule(std::vector<BoundExprPtr>& args) {
  WEIR_RETURN_NOT_OK(JsonStringArgument(args, 0, "from_json").status());
  const BoundExprPtr& schema = args[1];
  if (schema->kind != BoundExpr::Kind::kLiteral || schema->type->id() != TypeId::kString ||
      schema->literal->IsNull(0)) {
    return Status::InvalidArgument(
        "from_json needs its schema as a string literal, e.g. from_json(value, 'id STRING, "
        "amount DECIMAL(18,2)')");
  }
  WEIR_ASSIGN_OR_RETURN(TypePtr type, ParseFromJsonSchema(schema->literal->StringAt(0)));
  FromJsonOptions options;
  if (args.size() > 2) {
    const BoundExprPtr& map = args[2];
    if (map->IsNullLiteral()) {
      WEIR_ASSIGN_OR_RETURN(args[2],
                            CastTo(map, DataType::Map(DataType::String(), DataType::String())));
    } else if (map->type->id() != TypeId::kMap || !IsFoldable(*map)) {
      return Status::InvalidArgument(
          "from_json options must be a constant map(), e.g. "
          "map('mode', 'FAILFAST'), got " +
          map->sql);
    } else if (map->type->key().type->id() != TypeId::kString ||
               map->type->value().type->id() != TypeId::kString) {
      return Status::InvalidArgument("from_json options must be a MAP<STRING, STRING>, got " +
                                     map->type->ToDdl());
    } else {
      WEIR_ASSIGN_OR_RETURN(Column value, FoldConstant(*map));
      WEIR_ASSIGN_OR_RETURN(options, ReadFromJsonOptions(&value));
      args[2] = MakeLiteral(std::move(value), map->sql);
    }
  }
  if (type->id() == TypeId::kStruct) {
    for (const Field& f : type->children()) {
      if (f.name == options.corrupt_column && f.type->id() != TypeId::kString) {
        return Status::InvalidArgument("from_json: the field for corrupt records (" + f.name +
                                       ") must be STRING, not " + f.type->ToDdl());
      }
    }
  }
  return type;
}

Result<TypePtr> GetJsonObjectRule(std::vector<BoundExprPtr>& args) {
  WEIR_RETURN_NOT_OK(JsonStringArgument(args, 0, "get_json_object").status());
  return JsonStringArgument(args, 1, "get_json_object");
}

Result<TypePtr> JsonPathRule(std::vector<BoundExprPtr>& args) {
  WEIR_RETURN_NOT_OK(JsonStringArgument(args, 0, "a JSON path (:)").status());
  return JsonStringArgument(args, 1, "a JSON path (:)");
}

// ------------------------------------------------------------------ kernels

Result<Vector> FromJsonKernel(const KernelInput& in) {
  const Column* options_map = in.args.size() > 2 ? &in.args[2].column() : nullptr;
  WEIR_ASSIGN_OR_RETURN(FromJsonOptions options, ReadFromJsonOptions(options_map));
  FromJsonConverter converter(in.call.type, options);
  return converter.Run(in);
}

Result<Vector> PathKernel(const KernelInput& in, bool databricks) {
  Reader<std::string_view> json(in.args[0]), path_text(in.args[1]);
  Column out(in.call.type);
  std::vector<std::string_view>& strings = out.string_buffer();
  strings.assign(static_cast<size_t>(in.num_rows), std::string_view());
  std::vector<uint8_t>& validity = out.validity_buffer();
  validity.assign(static_cast<size_t>(in.num_rows), 1);
  std::optional<JsonPath> path;
  std::string cached_path;
  bool have_path = false;
  std::string result, rewritten;
  bool constant = AllConstant(in);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (json.IsNull(i) || path_text.IsNull(i)) {
      validity[i] = 0;
      continue;
    }
    std::string_view p = path_text[i];
    if (!have_path || p != cached_path) {
      path = databricks ? ParseDatabricksJsonPath(p) : ParseSparkJsonPath(p);
      cached_path.assign(p);
      have_path = true;
    }
    PathResult r = path ? EvaluateJsonPath(json[i], *path, databricks, &result, &rewritten)
                        : PathResult::kNull;
    if (r == PathResult::kValue) {
      strings[i] = out.arena().Copy(result);
      continue;
    }
    validity[i] = 0;
    if (r == PathResult::kAmbiguous) {
      in.context.row_errors.Mark(
          constant ? -1 : i,
          "[AMBIGUOUS_REFERENCE_TO_FIELDS] the JSON path " + cached_path +
              " matches several fields that differ only in case; use the case-sensitive form "
              "raw:['Field'] instead");
    }
  }
  out.SetSize(in.num_rows);
  return Vector::Own(std::move(out), constant);
}

Result<Vector> GetJsonObjectKernel(const KernelInput& in) { return PathKernel(in, false); }
Result<Vector> JsonPathKernel(const KernelInput& in) { return PathKernel(in, true); }

constexpr Function kFunctions[] = {
    {"from_json", 2, 3, &FromJsonRule, &FromJsonKernel, true},
    {"get_json_object", 2, 2, &GetJsonObjectRule, &GetJsonObjectKernel, true},
    // Databricks' `raw:a.b[0]` (the binder calls it with the parser's normal form of the path).
    {"JSON PATH", 2, 2, &JsonPathRule, &JsonPathKernel, true},
};

}  // namespace

std::span<const Function> JsonFunctions() { return kFunctions; }

}  // namespace weir::expr
