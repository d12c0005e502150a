// String, regular-expression and hash functions (Spark 3.5/4.0 non-ANSI semantics): the table
// returned by StringFunctions(). Regular expressions use Java's syntax translated to PCRE2 (JIT);
// compiled patterns are cached per thread, so a constant pattern is compiled once and a pattern
// column recompiles only when its value changes. Errors Spark raises at run time (an invalid
// pattern in a column, regexp_extract's group index, unbase64 of malformed text) mark the row in
// EvalContext::row_errors and give NULL.
#include <openssl/evp.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "columnar/text_format.h"
#include "expr/functions.h"
#include "expr/kernel.h"
#include "expr/unicode_case.h"

namespace weir::expr {

namespace {

using Args = std::vector<BoundExprPtr>;

// ------------------------------------------------------------------ UTF-8 helpers
//
// A character is a byte that is not a UTF-8 continuation byte, with the continuation bytes after
// it (the same count length() uses).

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte offset of the character after the one starting at `pos`. REQUIRES: pos < s.size().
size_t NextChar(std::string_view s, size_t pos) {
  ++pos;
  while (pos < s.size() && IsContinuation(s[pos])) ++pos;
  return pos;
}

// Byte offset of the character before byte offset `pos`. REQUIRES: pos > 0.
size_t PreviousChar(std::string_view s, size_t pos) {
  --pos;
  while (pos > 0 && IsContinuation(s[pos])) --pos;
  return pos;
}

int64_t CharCount(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += !IsContinuation(c);
  return n;
}

// Byte offset of character `k` (0-based), or s.size() when s has no more than k characters.
size_t CharOffset(std::string_view s, int64_t k) {
  size_t pos = 0;
  while (k > 0 && pos < s.size()) {
    pos = NextChar(s, pos);
    --k;
  }
  return pos;
}

// Characters [start, end) of s (0-based; clamped), as UTF8String.substring does.
std::string_view CharSubstring(std::string_view s, int64_t start, int64_t end) {
  if (start < 0) start = 0;
  if (end <= start) return {};
  size_t b = CharOffset(s, start);
  if (b >= s.size()) return {};
  std::string_view rest = s.substr(b);
  return rest.substr(0, CharOffset(rest, end - start));
}

// Spark's UTF8String.substringSQL(pos, length) (1-based, 0 is 1, negative from the end).
std::string_view SubstringSql(std::string_view s, int64_t pos, int64_t length) {
  int64_t chars = CharCount(s);
  int64_t start = pos > 0 ? pos - 1 : (pos < 0 ? chars + pos : 0);
  int64_t end = start + length;
  if (start < 0) start = 0;
  return CharSubstring(s, start, end);
}

const char* Ordinal(size_t i) {
  static constexpr const char* kOrdinals[] = {"first", "second", "third",   "fourth",
                                              "fifth", "sixth",  "seventh", "eighth"};
  return i < 8 ? kOrdinals[i] : "next";
}

std::string QuoteSql(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

// ------------------------------------------------------------------ type rules
//
// Spark's ImplicitCastInputTypes for the argument types these functions declare: any atomic
// value becomes a STRING, a STRING becomes BINARY, numbers and strings become INT / BIGINT.

enum class ArgType {
  kString,          // STRING (atomic values are cast)
  kBinary,          // BINARY (STRING is cast)
  kStringOrBinary,  // BINARY stays, anything else as kString
  kInt,             // INT (numbers and strings are cast)
  kLong,            // BIGINT (numbers and strings are cast)
};

bool IsNumeric(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
         id == TypeId::kInt64 || id == TypeId::kFloat || id == TypeId::kDouble ||
         id == TypeId::kDecimal;
}

Status TypeMismatch(std::string_view function, size_t i, std::string_view required,
                    const BoundExprPtr& arg) {
  return Status::InvalidArgument(
      "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] " + std::string(function) + "(): the " +
      Ordinal(i) + " parameter requires the " + std::string(required) + " type, however " +
      arg->sql + " has the type \"" + arg->type->ToDdl() + "\"");
}

Status Coerce(std::string_view function, Args& args, size_t i, ArgType want) {
  // An untyped NULL is a STRING literal; a typed one (CAST(NULL AS DATE)) is checked by type.
  BoundExprPtr& a = args[i];
  TypeId id = a->type->id();
  switch (want) {
    case ArgType::kBinary: {
      if (id == TypeId::kString || id == TypeId::kBinary) {
        WEIR_ASSIGN_OR_RETURN(a, CastTo(a, DataType::Binary()));
        return Status::OK();
      }
      return TypeMismatch(function, i, "\"BINARY\"", a);
    }
    case ArgType::kStringOrBinary:
      if (id == TypeId::kBinary) return Status::OK();
      [[fallthrough]];
    case ArgType::kString: {
      if (a->type->is_nested()) return TypeMismatch(function, i, "\"STRING\"", a);
      WEIR_ASSIGN_OR_RETURN(a, CastTo(a, DataType::String()));
      return Status::OK();
    }
    case ArgType::kInt:
    case ArgType::kLong: {
      TypePtr to = want == ArgType::kInt ? DataType::Int32() : DataType::Int64();
      if (IsNumeric(id) || id == TypeId::kString) {
        WEIR_ASSIGN_OR_RETURN(a, CastTo(a, to));
        return Status::OK();
      }
      return TypeMismatch(function, i, want == ArgType::kInt ? "\"INT\"" : "\"BIGINT\"", a);
    }
  }
  return Status::OK();
}

// Coerces args[i] to wants[min(i, last)] and returns `result`.
Result<TypePtr> Signature(Args& args, std::string_view function,
                          std::initializer_list<ArgType> wants, TypePtr result) {
  for (size_t i = 0; i < args.size(); ++i) {
    size_t w = std::min(i, wants.size() - 1);
    WEIR_RETURN_NOT_OK(Coerce(function, args, i, *(wants.begin() + w)));
  }
  return result;
}

// The value of a literal STRING argument (nullopt when it is not a non-NULL literal).
std::optional<std::string_view> LiteralString(const BoundExprPtr& e) {
  if (e->kind != BoundExpr::Kind::kLiteral || e->literal->IsNull(0)) return std::nullopt;
  if (!e->type->is_binary_like()) return std::nullopt;
  return e->literal->StringAt(0);
}

std::optional<int64_t> LiteralInteger(const BoundExprPtr& e) {
  if (e->kind != BoundExpr::Kind::kLiteral || e->literal->IsNull(0)) return std::nullopt;
  switch (e->type->id()) {
    case TypeId::kInt32:
      return e->literal->Value<int32_t>(0);
    case TypeId::kInt64:
      return e->literal->Value<int64_t>(0);
    default:
      return std::nullopt;
  }
}

// ------------------------------------------------------------------ kernel helpers

// Marks row i (every row when the result is constant) with a reason Spark raises as an error.
void MarkRowError(const KernelInput& in, int64_t i, std::string_view message) {
  bool constant = AllConstant(in);
  in.context.row_errors.Mark(constant ? -1 : i, message);
}

template <typename T>
T ArgValue(const KernelInput& in, size_t k, int64_t i) {
  const Vector& v = in.args[k];
  return v.column().Value<T>(v.Row(i));
}

// A STRING/BINARY kernel whose results are views into the arguments' bytes (no copy): f(row,
// &view) returns false for NULL. Any NULL argument gives NULL.
template <typename F>
Vector ViewKernel(const KernelInput& in, F f) {
  Column out(in.call.type);
  for (const Vector& v : in.args) {
    if (v.column().type()->is_binary_like()) out.ShareBuffersFrom(v.column());
  }
  std::vector<std::string_view>& strings = out.string_buffer();
  strings.assign(static_cast<size_t>(in.num_rows), std::string_view());
  std::vector<uint8_t>& validity = out.validity_buffer();
  for (int64_t i = 0; i < in.num_rows; ++i) {
    bool valid = true;
    for (const Vector& v : in.args) valid &= !v.IsNull(i);
    if (valid) valid = f(i, &strings[i]);
    if (!valid) {
      strings[i] = {};
      if (validity.empty()) validity.assign(static_cast<size_t>(in.num_rows), 1);
      validity[i] = 0;
    }
  }
  out.SetSize(in.num_rows);
  return Vector::Own(std::move(out), AllConstant(in));
}

// A fixed-width kernel: f(row, &value) returns false for NULL. Any NULL argument gives NULL.
template <typename T, typename F>
Vector FixedKernel(const KernelInput& in, F f) {
  FixedOut<T> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    bool valid = true;
    for (const Vector& v : in.args) valid &= !v.IsNull(i);
    if (!valid || !f(i, &out.values[i])) out.SetNull(i);
  }
  return out.Finish(AllConstant(in));
}

// Builds an ARRAY<STRING> column row by row: AddView()... then EndRow(), or NullRow().
class StringListBuilder {
 public:
  explicit StringListBuilder(const KernelInput& in) : in_(in), out_(in.call.type) {
    Column& child = out_.mutable_child(0);
    for (const Vector& v : in.args) {
      if (v.column().type()->is_binary_like()) child.ShareBuffersFrom(v.column());
    }
    out_.Reserve(in.num_rows);
  }
  // A value that points into an argument's bytes.
  void AddView(std::string_view s) { out_.mutable_child(0).AppendStringView(s); }
  void EndRow() { out_.AppendListEntry(); }
  void NullRow() { out_.AppendNull(); }
  Vector Finish() { return Vector::Own(std::move(out_), AllConstant(in_)); }

 private:
  const KernelInput& in_;
  Column out_;
};

// ------------------------------------------------------------------ Java regular expressions
//
// Patterns use java.util.regex syntax. PCRE2 reads almost all of it the same way; the
// translation below rewrites what it does not: \uXXXX escapes, Java's POSIX classes
// (\p{Alpha}, \p{Lower}, ...) and java* classes, \p{IsXxx} names, octal \0nnn, and the
// embedded flags d, u, U (which PCRE2 does not have) are dropped. Character class unions
// ([a-c[x-z]]) are flattened; intersections (&&) are not supported (README).

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Java's \p{Name} for the POSIX classes (ASCII only, as in Java without UNICODE_CHARACTER_CLASS).
const char* PosixClassName(std::string_view name) {
  static constexpr std::pair<std::string_view, const char*> kNames[] = {
      {"Lower", "lower"}, {"Upper", "upper"}, {"ASCII", "ascii"}, {"Alpha", "alpha"},
      {"Digit", "digit"}, {"Alnum", "alnum"}, {"Punct", "punct"}, {"Graph", "graph"},
      {"Print", "print"}, {"Blank", "blank"}, {"Cntrl", "cntrl"}, {"XDigit", "xdigit"},
      {"Space", "space"}};
  for (const auto& [java, posix] : kNames) {
    if (name == java) return posix;
  }
  return nullptr;
}

// Translates one \p / \P escape whose name is `name` (negated for \P).
void TranslateProperty(std::string_view name, bool negated, bool in_class, std::string* out) {
  if (const char* posix = PosixClassName(name)) {
    if (in_class) {
      *out += negated ? "[:^" : "[:";
      *out += posix;
      *out += ":]";
    } else {
      *out += negated ? "[^[:" : "[[:";
      *out += posix;
      *out += ":]]";
    }
    return;
  }
  std::string pcre(name);
  if (name == "javaLowerCase") pcre = "Ll";
  if (name == "javaUpperCase") pcre = "Lu";
  if (name == "javaTitleCase") pcre = "Lt";
  if (name == "javaDigit") pcre = "Nd";
  if (name == "javaLetter" || name == "IsAlphabetic") pcre = "L";
  if (name.size() > 2 && name.substr(0, 2) == "Is" && pcre == name) pcre = name.substr(2);
  *out += negated ? "\\P{" : "\\p{";
  *out += pcre;
  *out += "}";
}

std::string TranslateJavaRegex(std::string_view p) {
  std::string out;
  out.reserve(p.size() + 8);
  int class_depth = 0;  // nesting of [...] (Java allows unions like [a-c[x-z]])
  size_t i = 0;
  while (i < p.size()) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      char d = p[i + 1];
      if (d == 'Q') {  // \Q...\E is the same in PCRE2
        size_t end = p.find("\\E", i + 2);
        end = end == std::string_view::npos ? p.size() : end + 2;
        out.append(p.substr(i, end - i));
        i = end;
        continue;
      }
      if (d == 'u' && i + 6 <= p.size() && IsHexDigit(p[i + 2]) && IsHexDigit(p[i + 3]) &&
          IsHexDigit(p[i + 4]) && IsHexDigit(p[i + 5])) {
        uint32_t cp = 0;
        for (int k = 2; k < 6; ++k) cp = cp * 16 + HexValue(p[i + k]);
        i += 6;
        // A surrogate pair \uD83D\uDE00 is one code point.
        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= p.size() && p[i] == '\\' && p[i + 1] == 'u') {
          uint32_t low = 0;
          bool hex = true;
          for (int k = 2; k < 6; ++k) {
            hex &= IsHexDigit(p[i + k]);
            if (hex) low = low * 16 + HexValue(p[i + k]);
          }
          if (hex && low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        char buffer[16];
        std::snprintf(buffer, sizeof(buffer), "\\x{%X}", cp);
        out += buffer;
        continue;
      }
      if (d == 'p' || d == 'P') {
        std::string_view name;
        size_t end = i + 2;
        if (end < p.size() && p[end] == '{') {
          size_t close = p.find('}', end);
          if (close != std::string_view::npos) {
            name = p.substr(end + 1, close - end - 1);
            end = close + 1;
          }
        } else if (end < p.size()) {
          name = p.substr(end, 1);
          end += 1;
        }
        if (!name.empty()) {
          TranslateProperty(name, d == 'P', class_depth > 0, &out);
          i = end;
          continue;
        }
      }
      if (d == '0') {  // Java's octal \0n, \0nn, \0mnn (m <= 3)
        size_t end = i + 2;
        int max_digits = (end < p.size() && p[end] >= '0' && p[end] <= '3') ? 3 : 2;
        while (end < p.size() && end - (i + 2) < static_cast<size_t>(max_digits) && p[end] >= '0' &&
               p[end] <= '7') {
          ++end;
        }
        if (end > i + 2) {
          out += "\\o{";
          out.append(p.substr(i + 2, end - i - 2));
          out += "}";
          i = end;
          continue;
        }
      }
      out.push_back(c);
      out.push_back(d);
      i += 2;
      continue;
    }
    if (c == '[') {
      if (class_depth > 0 && !(i + 1 < p.size() && p[i + 1] == '^')) {
        ++class_depth;  // a nested union: flatten it into the enclosing class
        ++i;
        continue;
      }
      ++class_depth;
      out.push_back(c);
      ++i;
      if (i < p.size() && p[i] == '^') {
        out.push_back('^');
        ++i;
      }
      if (i < p.size() && p[i] == ']') {  // a ']' first in a class is a literal in both
        out += "\\]";
        ++i;
      }
      continue;
    }
    if (c == ':' && class_depth > 0) {
      out += "\\:";  // Java has no [:name:] classes
      ++i;
      continue;
    }
    if (c == ']' && class_depth > 0) {
      --class_depth;
      if (class_depth == 0) out.push_back(']');
      ++i;
      continue;
    }
    if (c == '(' && class_depth == 0 && i + 2 < p.size() && p[i + 1] == '?') {
      // Embedded flags (?idmsuxU-idmsuxU) and (?flags:...): drop d, u and U.
      size_t end = i + 2;
      while (end < p.size() &&
             (std::isalpha(static_cast<unsigned char>(p[end])) || p[end] == '-')) {
        ++end;
      }
      if (end > i + 2 && end < p.size() && (p[end] == ')' || p[end] == ':')) {
        std::string flags;
        for (size_t k = i + 2; k < end; ++k) {
          if (p[k] != 'd' && p[k] != 'u' && p[k] != 'U') flags.push_back(p[k]);
        }
        bool has_letter = flags.find_first_not_of('-') != std::string::npos;
        if (p[end] == ')') {
          if (has_letter) out += "(?" + flags + ")";
        } else {
          out += has_letter ? "(?" + flags + ":" : "(?:";
        }
        i = end + 1;
        continue;
      }
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

// Java regex metacharacters: a pattern without them matches its own text.
bool IsLiteralPattern(std::string_view p) {
  return p.find_first_of("\\^$.|?*+()[]{}") == std::string_view::npos;
}

// Per-thread PCRE2 match context with a JIT stack large enough for long subjects.
class MatchContext {
 public:
  MatchContext() {
    context_ = pcre2_match_context_create(nullptr);
    stack_ = pcre2_jit_stack_create(32 * 1024, 4 * 1024 * 1024, nullptr);
    if (context_ != nullptr && stack_ != nullptr) {
      pcre2_jit_stack_assign(context_, nullptr, stack_);
    }
  }
  ~MatchContext() {
    pcre2_match_context_free(context_);
    pcre2_jit_stack_free(stack_);
  }
  MatchContext(const MatchContext&) = delete;
  MatchContext& operator=(const MatchContext&) = delete;
  pcre2_match_context* get() { return context_; }

 private:
  pcre2_match_context* context_ = nullptr;
  pcre2_jit_stack* stack_ = nullptr;
};

pcre2_match_context* ThreadMatchContext() {
  thread_local MatchContext context;
  return context.get();
}

std::string Pcre2Message(int code) {
  PCRE2_UCHAR buffer[256];
  int n = pcre2_get_error_message(code, buffer, sizeof(buffer));
  if (n < 0) return "error " + std::to_string(code);
  return std::string(reinterpret_cast<const char*>(buffer), static_cast<size_t>(n));
}

// A compiled Java regular expression with its match data. Used by one thread at a time.
class Regex {
 public:
  ~Regex() {
    pcre2_match_data_free(match_data_);
    pcre2_code_free(code_);
  }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // The compiled pattern, or PCRE2's reason why it does not compile.
  static Result<std::unique_ptr<Regex>> Compile(std::string_view java_pattern) {
    std::string pattern = TranslateJavaRegex(java_pattern);
    pcre2_compile_context* compile_context = pcre2_compile_context_create(nullptr);
    // Java's line terminators are \n, \r\n and \r (and U+0085, U+2028, U+2029).
    pcre2_set_newline(compile_context, PCRE2_NEWLINE_ANYCRLF);
    int error = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                     PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C,
                                     &error, &offset, compile_context);
    pcre2_compile_context_free(compile_context);
    if (code == nullptr) {
      return Status::InvalidArgument(Pcre2Message(error) + " near index " + std::to_string(offset));
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter on failure
    auto regex = std::unique_ptr<Regex>(new Regex(code));
    if (regex->match_data_ == nullptr) return Status::Internal("PCRE2 is out of memory");
    uint32_t groups = 0;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &groups);
    regex->group_count_ = static_cast<int>(groups);
    if (IsLiteralPattern(java_pattern)) regex->literal_ = std::string(java_pattern);
    return regex;
  }

  // Finds the leftmost match at or after byte `start`: 1 found, 0 none, < 0 a PCRE2 error (the
  // match limit on pathological patterns).
  int Find(std::string_view subject, size_t start) {
    if (literal_) {
      size_t at = subject.find(*literal_, start);
      if (at == std::string_view::npos) return 0;
      literal_match_[0] = at;
      literal_match_[1] = at + literal_->size();
      return 1;
    }
    const char* data = subject.data() == nullptr ? "" : subject.data();
    int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(data), subject.size(), start, 0,
                         match_data_, ThreadMatchContext());
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    if (rc < 0) return rc;
    ovector_ = pcre2_get_ovector_pointer(match_data_);
    return 1;
  }

  int group_count() const { return group_count_; }
  // Byte range of group g of the last match; npos when the group did not take part.
  size_t Begin(int g) const { return literal_ ? literal_match_[0] : ovector_[2 * g]; }
  size_t End(int g) const { return literal_ ? literal_match_[1] : ovector_[2 * g + 1]; }
  bool Matched(int g) const { return Begin(g) != PCRE2_UNSET; }
  std::string_view Group(std::string_view subject, int g) const {
    return subject.substr(Begin(g), End(g) - Begin(g));
  }
  // The number of the group named `name`, or -1.
  int GroupNumber(std::string_view name) const {
    std::string n(name);
    int number = pcre2_substring_number_from_name(code_, reinterpret_cast<PCRE2_SPTR>(n.c_str()));
    return number > 0 ? number : -1;
  }

 private:
  explicit Regex(pcre2_code* code)
      : code_(code), match_data_(pcre2_match_data_create_from_pattern(code, nullptr)) {}

  pcre2_code* code_;
  pcre2_match_data* match_data_;
  PCRE2_SIZE* ovector_ = nullptr;
  int group_count_ = 0;
  std::optional<std::string> literal_;  // a pattern without metacharacters: plain search
  size_t literal_match_[2] = {0, 0};
};

// Compiled patterns of this thread, most recently used last.
class RegexCache {
 public:
  // The compiled `pattern`; valid until the next call on this thread. The error is PCRE2's.
  Result<Regex*> Get(std::string_view pattern) {
    for (size_t i = entries_.size(); i-- > 0;) {
      if (entries_[i].first == pattern) {
        if (i + 1 != entries_.size()) std::swap(entries_[i], entries_.back());
        return entries_.back().second.get();
      }
    }
    WEIR_ASSIGN_OR_RETURN(std::unique_ptr<Regex> regex, Regex::Compile(pattern));
    if (entries_.size() >= kCapacity) entries_.erase(entries_.begin());
    entries_.emplace_back(std::string(pattern), std::move(regex));
    return entries_.back().second.get();
  }

 private:
  static constexpr size_t kCapacity = 32;
  std::vector<std::pair<std::string, std::unique_ptr<Regex>>> entries_;
};

Result<Regex*> CachedRegex(std::string_view pattern) {
  thread_local RegexCache cache;
  return cache.Get(pattern);
}

std::string InvalidPatternMessage(std::string_view function, std::string_view pattern,
                                  std::string_view reason) {
  return "[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) `regexp` in `" +
         std::string(function) + "` is invalid: " + QuoteSql(pattern) + " (" + std::string(reason) +
         ")";
}

// Calls on_match() for each match in the order Java's Matcher.find() loop finds them (after an
// empty match the search resumes one character later). on_match returns false to stop.
// Returns false when matching failed (PCRE2's limits), with the reason in *error.
template <typename F>
bool ForEachMatch(Regex& re, std::string_view s, F on_match, std::string* error) {
  size_t from = 0;
  while (from <= s.size()) {
    int rc = re.Find(s, from);
    if (rc == 0) return true;
    if (rc < 0) {
      *error = "regular expression matching failed: " + Pcre2Message(rc);
      return false;
    }
    size_t begin = re.Begin(0), end = re.End(0);
    if (!on_match()) return true;
    if (end > begin) {
      from = end;
    } else {
      from = end < s.size() ? NextChar(s, end) : s.size() + 1;
    }
  }
  return true;
}

// The pattern argument k of a regex kernel: compiled once when constant, else again whenever the
// row's pattern differs from the previous row's.
class PatternArg {
 public:
  PatternArg(const KernelInput& in, size_t k, std::string_view function)
      : in_(in), k_(k), function_(function) {}

  // The compiled pattern of row i, or nullptr when it does not compile (the row is marked).
  Regex* Get(int64_t i) {
    if (!has_last_ || !in_.args[k_].constant()) {
      std::string_view pattern = StringArg(in_, k_, i);
      if (!has_last_ || pattern != last_) {
        last_.assign(pattern);
        has_last_ = true;
        Result<Regex*> r = CachedRegex(pattern);
        regex_ = r.ok() ? *r : nullptr;
        error_ = r.ok() ? std::string()
                        : InvalidPatternMessage(function_, pattern, r.status().message());
      }
    }
    if (regex_ == nullptr) MarkRowError(in_, i, error_);
    return regex_;
  }

 private:
  const KernelInput& in_;
  size_t k_;
  std::string_view function_;
  std::string last_;
  bool has_last_ = false;
  Regex* regex_ = nullptr;
  std::string error_;
};

// Fails binding when a literal pattern does not compile (Spark fails the query too).
Status CheckLiteralPattern(const BoundExprPtr& arg, std::string_view function) {
  std::optional<std::string_view> pattern = LiteralString(arg);
  if (!pattern) return Status::OK();
  Result<Regex*> r = CachedRegex(*pattern);
  if (!r.ok()) {
    return Status::InvalidArgument(InvalidPatternMessage(function, *pattern, r.status().message()));
  }
  return Status::OK();
}

// ------------------------------------------------------------------ LIKE
//
// Spark's LIKE (StringUtils.escapeLikeRegex): '_' is one character, '%' any sequence, the escape
// character may only precede '_', '%' or itself. Matched without regular expressions: the
// pattern is split at '%' into segments of literal bytes and '_'; the first segment is anchored
// at the start, the last at the end, the others are found leftmost in between.

class LikePattern {
 public:
  static Result<LikePattern> Parse(std::string_view pattern, uint32_t escape) {
    LikePattern p;
    p.segments_.emplace_back();
    size_t pos = 0;
    while (pos < pattern.size()) {
      size_t start = pos;
      uint32_t cp = DecodeUtf8(pattern, &pos);
      std::string_view raw = pattern.substr(start, pos - start);
      if (cp == escape) {
        if (pos >= pattern.size()) {
          return Status::InvalidArgument(
              "[INVALID_FORMAT.ESC_AT_THE_END] The format is invalid: " + QuoteSql(pattern) +
              ". The escape character is not allowed to end with.");
        }
        size_t next_start = pos;
        uint32_t next = DecodeUtf8(pattern, &pos);
        if (next != '_' && next != '%' && next != escape) {
          return Status::InvalidArgument(
              "[INVALID_FORMAT.ESC_IN_THE_MIDDLE] The format is invalid: " + QuoteSql(pattern) +
              ". The escape character is not allowed to precede " +
              QuoteSql(pattern.substr(next_start, pos - next_start)) + ".");
        }
        p.AddLiteral(pattern.substr(next_start, pos - next_start));
      } else if (cp == '%') {
        p.segments_.emplace_back();
      } else if (cp == '_') {
        p.segments_.back().push_back(Piece{true, {}});
      } else {
        p.AddLiteral(raw);
      }
    }
    return p;
  }

  bool Matches(std::string_view s) const {
    if (segments_.size() == 1) {
      size_t end = MatchForward(segments_[0], s, 0);
      return end == s.size();
    }
    size_t pos = MatchForward(segments_.front(), s, 0);
    if (pos == std::string_view::npos) return false;
    size_t limit = MatchBackward(segments_.back(), s, s.size());
    if (limit == std::string_view::npos || limit < pos) return false;
    for (size_t k = 1; k + 1 < segments_.size(); ++k) {
      pos = FindSegment(segments_[k], s, pos, limit);
      if (pos == std::string_view::npos) return false;
    }
    return true;
  }

 private:
  struct Piece {
    bool any_char;     // '_'
    std::string text;  // literal bytes
  };
  using Segment = std::vector<Piece>;

  void AddLiteral(std::string_view bytes) {
    Segment& seg = segments_.back();
    if (seg.empty() || seg.back().any_char) seg.push_back(Piece{false, {}});
    seg.back().text.append(bytes);
  }

  // End of the segment matched at `pos`, or npos.
  static size_t MatchForward(const Segment& seg, std::string_view s, size_t pos) {
    for (const Piece& piece : seg) {
      if (piece.any_char) {
        if (pos >= s.size()) return std::string_view::npos;
        pos = NextChar(s, pos);
      } else {
        if (s.size() - pos < piece.text.size() ||
            std::memcmp(s.data() + pos, piece.text.data(), piece.text.size()) != 0) {
          return std::string_view::npos;
        }
        pos += piece.text.size();
      }
    }
    return pos;
  }

  // Start of the segment matched so that it ends at `end`, or npos.
  static size_t MatchBackward(const Segment& seg, std::string_view s, size_t end) {
    for (size_t k = seg.size(); k-- > 0;) {
      const Piece& piece = seg[k];
      if (piece.any_char) {
        if (end == 0) return std::string_view::npos;
        end = PreviousChar(s, end);
      } else {
        if (end < piece.text.size() || std::memcmp(s.data() + end - piece.text.size(),
                                                   piece.text.data(), piece.text.size()) != 0) {
          return std::string_view::npos;
        }
        end -= piece.text.size();
      }
    }
    return end;
  }

  // End of the leftmost match of the segment starting in [pos, limit] and ending by `limit`.
  // Candidates come from searching the segment's first literal piece.
  static size_t FindSegment(const Segment& seg, std::string_view s, size_t pos, size_t limit) {
    std::string_view window = s.substr(0, limit);
    size_t anchor = 0;  // index of the first literal piece; the pieces before it are '_'
    while (anchor < seg.size() && seg[anchor].any_char) ++anchor;
    if (anchor == seg.size()) return MatchForward(seg, window, pos);  // only '_': leftmost fits
    const std::string& literal = seg[anchor].text;
    size_t from = pos;
    while (true) {
      size_t at = window.find(literal, from);
      if (at == std::string_view::npos) return at;
      // The segment starts `anchor` characters before the literal.
      size_t start = at;
      bool fits = true;
      for (size_t k = 0; k < anchor; ++k) {
        if (start <= pos) {
          fits = false;
          break;
        }
        start = PreviousChar(window, start);
      }
      if (fits && start >= pos) {
        size_t end = MatchForward(seg, window, start);
        if (end != std::string_view::npos) return end;
      }
      from = at + 1;
    }
  }

  std::vector<Segment> segments_;  // separated by '%'
};

// ------------------------------------------------------------------ case and trimming

template <bool kUpper>
Result<Vector> CaseKernel(const KernelInput& in) {
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i);
    s->reserve(v.size());
    if (kUpper) {
      AppendUpperCase(v, s);
    } else {
      AppendLowerCase(v, s);
    }
    return true;
  });
}

// initcap: lower-case, then title-case every character that starts the string or follows ' '.
Result<Vector> InitCapKernel(const KernelInput& in) {
  std::string lower;
  return StringKernel(in, [&](int64_t i, std::string* s) {
    lower.clear();
    AppendLowerCase(StringArg(in, 0, i), &lower);
    s->reserve(lower.size());
    size_t pos = 0;
    bool word_start = true;
    while (pos < lower.size()) {
      size_t start = pos;
      uint32_t cp = DecodeUtf8(lower, &pos);
      if (word_start && !(cp == 0xFFFD && pos == start + 1)) {
        columnar::AppendUtf8(TitleCase(cp), s);
      } else {
        s->append(lower, start, pos - start);
      }
      word_start = cp == ' ';
    }
    return true;
  });
}

// The characters of a trim string, for membership tests.
class CharSet {
 public:
  void Assign(std::string_view chars) {
    ascii_.fill(false);
    others_.clear();
    size_t pos = 0;
    while (pos < chars.size()) {
      size_t start = pos;
      uint32_t cp = DecodeUtf8(chars, &pos);
      if (cp < 0x80) {
        ascii_[cp] = true;
      } else {
        others_.emplace_back(chars.substr(start, pos - start));
      }
    }
  }
  // Whether the character s[pos, end) is in the set.
  bool Contains(std::string_view ch) const {
    if (ch.size() == 1 && static_cast<unsigned char>(ch[0]) < 0x80) {
      return ascii_[static_cast<unsigned char>(ch[0])];
    }
    return std::find(others_.begin(), others_.end(), ch) != others_.end();
  }

 private:
  std::array<bool, 128> ascii_{};
  std::vector<std::string_view> others_;
};

// trim / ltrim / rtrim (1 argument: spaces; 2 arguments: trim(trimStr, str)) and btrim(str[,
// trimStr]): the result is a view of the source string.
template <bool kLeft, bool kRight, bool kSourceFirst>
Result<Vector> TrimKernel(const KernelInput& in) {
  bool custom = in.args.size() == 2;
  size_t src = (custom && !kSourceFirst) ? 1 : 0;
  size_t chars = 1 - src;
  CharSet set;
  std::string_view last_chars;
  bool have_set = false;
  return ViewKernel(in, [&](int64_t i, std::string_view* out) {
    std::string_view v = StringArg(in, src, i);
    if (!custom) {
      if (kLeft) {
        while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      }
      if (kRight) {
        while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
      }
      *out = v;
      return true;
    }
    std::string_view c = StringArg(in, chars, i);
    if (!have_set || c.data() != last_chars.data() || c.size() != last_chars.size()) {
      set.Assign(c);
      last_chars = c;
      have_set = true;
    }
    size_t begin = 0, end = v.size();
    if (kLeft) {
      while (begin < end) {
        size_t next = NextChar(v, begin);
        if (!set.Contains(v.substr(begin, next - begin))) break;
        begin = next;
      }
    }
    if (kRight) {
      while (end > begin) {
        size_t previous = PreviousChar(v, end);
        if (previous < begin || !set.Contains(v.substr(previous, end - previous))) break;
        end = previous;
      }
    }
    *out = v.substr(begin, end - begin);
    return true;
  });
}

// ------------------------------------------------------------------ characters and codes

Result<Vector> AsciiKernel(const KernelInput& in) {
  return FixedKernel<int32_t>(in, [&](int64_t i, int32_t* r) {
    std::string_view v = StringArg(in, 0, i);
    size_t pos = 0;
    *r = v.empty() ? 0 : static_cast<int32_t>(DecodeUtf8(v, &pos));
    return true;
  });
}

// chr(n): the character (n & 0xFF) as a code point; '' for negative n.
Result<Vector> ChrKernel(const KernelInput& in) {
  return StringKernel(in, [&](int64_t i, std::string* s) {
    int64_t n = ArgValue<int64_t>(in, 0, i);
    if (n >= 0) columnar::AppendUtf8(static_cast<uint32_t>(n & 0xFF), s);
    return true;
  });
}

Result<Vector> Base64Kernel(const KernelInput& in) {
  return StringKernel(in, [&](int64_t i, std::string* s) {
    columnar::AppendBase64(StringArg(in, 0, i), s);
    return true;
  });
}

// java.util.Base64's MIME decoder, as Spark's unbase64 uses it: characters outside the alphabet
// are skipped; bad padding or a dangling character is an error (the reason in *error).
bool DecodeMimeBase64(std::string_view text, std::string* out, std::string* error) {
  auto value = [](unsigned char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    if (c == '=') return -2;
    return -1;
  };
  uint32_t bits = 0;
  int shift = 18;
  size_t pos = 0;
  while (pos < text.size()) {
    int v = value(static_cast<unsigned char>(text[pos++]));
    if (v == -1) continue;
    if (v == -2) {
      if ((shift == 6 && (pos == text.size() || text[pos++] != '=')) || shift == 18) {
        *error = "Input byte array has wrong ending byte at " + std::to_string(pos);
        return false;
      }
      break;
    }
    bits |= static_cast<uint32_t>(v) << shift;
    shift -= 6;
    if (shift < 0) {
      out->push_back(static_cast<char>(bits >> 16));
      out->push_back(static_cast<char>(bits >> 8));
      out->push_back(static_cast<char>(bits));
      shift = 18;
      bits = 0;
    }
  }
  if (shift == 6) {
    out->push_back(static_cast<char>(bits >> 16));
  } else if (shift == 0) {
    out->push_back(static_cast<char>(bits >> 16));
    out->push_back(static_cast<char>(bits >> 8));
  } else if (shift == 12) {
    *error = "Last unit does not have enough valid bits";
    return false;
  }
  while (pos < text.size()) {
    if (value(static_cast<unsigned char>(text[pos++])) < 0) continue;
    *error = "Input byte array has incorrect ending byte at " + std::to_string(pos);
    return false;
  }
  return true;
}

Result<Vector> UnBase64Kernel(const KernelInput& in) {
  std::string error;
  return StringKernel(in, [&](int64_t i, std::string* s) {
    if (DecodeMimeBase64(StringArg(in, 0, i), s, &error)) return true;
    MarkRowError(in, i, "unbase64(): " + error);
    return false;
  });
}

constexpr char kHexUpper[] = "0123456789ABCDEF";
constexpr char kHexLower[] = "0123456789abcdef";

void AppendHexBytes(std::string_view bytes, const char* digits, std::string* out) {
  size_t at = out->size();
  out->resize(at + 2 * bytes.size());
  char* p = out->data() + at;
  for (char c : bytes) {
    auto b = static_cast<unsigned char>(c);
    *p++ = digits[b >> 4];
    *p++ = digits[b & 15];
  }
}

// hex(BIGINT) prints the two's complement digits; hex(STRING | BINARY) two digits per byte.
Result<Vector> HexKernel(const KernelInput& in) {
  bool integral = in.call.children[0]->type->id() == TypeId::kInt64;
  return StringKernel(in, [&](int64_t i, std::string* s) {
    if (integral) {
      auto v = static_cast<uint64_t>(ArgValue<int64_t>(in, 0, i));
      char buffer[16];
      int n = 0;
      do {
        buffer[15 - n++] = kHexUpper[v & 15];
        v >>= 4;
      } while (v != 0);
      s->append(buffer + 16 - n, n);
    } else {
      AppendHexBytes(StringArg(in, 0, i), kHexUpper, s);
    }
    return true;
  });
}

// unhex: NULL when a character is not a hex digit; an odd length reads the first one alone.
Result<Vector> UnhexKernel(const KernelInput& in) {
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i);
    size_t pos = 0;
    if (v.size() % 2 == 1) {
      int d = HexValue(v[0]);
      if (d < 0) return false;
      s->push_back(static_cast<char>(d));
      pos = 1;
    }
    for (; pos < v.size(); pos += 2) {
      int hi = HexValue(v[pos]), lo = HexValue(v[pos + 1]);
      if (hi < 0 || lo < 0) return false;
      s->push_back(static_cast<char>(hi * 16 + lo));
    }
    return true;
  });
}

// ------------------------------------------------------------------ searching

enum class Predicate { kStartsWith, kEndsWith, kContains };

template <Predicate kWhich>
Result<Vector> PredicateKernel(const KernelInput& in) {
  return BinaryKernel<std::string_view, bool>(
      in, [](std::string_view a, std::string_view b, bool* r) {
        switch (kWhich) {
          case Predicate::kStartsWith:
            *r = a.substr(0, b.size()) == b;
            break;
          case Predicate::kEndsWith:
            *r = a.size() >= b.size() && a.substr(a.size() - b.size()) == b;
            break;
          case Predicate::kContains:
            *r = a.find(b) != std::string_view::npos;
            break;
        }
        return true;
      });
}

// UTF8String.indexOf(v, start): character index of the first occurrence at or after character
// `start` (0 for an empty v), or -1.
int64_t IndexOf(std::string_view s, std::string_view v, int64_t start) {
  if (v.empty()) return 0;
  size_t from = CharOffset(s, start);
  size_t at = s.find(v, from);
  if (at == std::string_view::npos) return -1;
  return start + CharCount(s.substr(from, at - from));
}

// instr(str, substr)
Result<Vector> InstrKernel(const KernelInput& in) {
  return FixedKernel<int32_t>(in, [&](int64_t i, int32_t* r) {
    *r = static_cast<int32_t>(IndexOf(StringArg(in, 0, i), StringArg(in, 1, i), 0) + 1);
    return true;
  });
}

// locate(substr, str[, pos]) / position(...): a NULL pos gives 0, pos < 1 gives 0.
Result<Vector> LocateKernel(const KernelInput& in) {
  bool has_pos = in.args.size() > 2;
  FixedOut<int32_t> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (has_pos && in.args[2].IsNull(i)) {
      out.values[i] = 0;
      continue;
    }
    if (in.args[0].IsNull(i) || in.args[1].IsNull(i)) {
      out.SetNull(i);
      continue;
    }
    int64_t pos = has_pos ? ArgValue<int32_t>(in, 2, i) : 1;
    out.values[i] =
        pos < 1
            ? 0
            : static_cast<int32_t>(IndexOf(StringArg(in, 1, i), StringArg(in, 0, i), pos - 1) + 1);
  }
  return out.Finish(AllConstant(in));
}

// find_in_set(str, list): 1-based position of str in the comma-separated list, 0 if absent or
// if str contains a comma.
Result<Vector> FindInSetKernel(const KernelInput& in) {
  return FixedKernel<int32_t>(in, [&](int64_t i, int32_t* r) {
    std::string_view word = StringArg(in, 0, i), list = StringArg(in, 1, i);
    *r = 0;
    if (word.find(',') != std::string_view::npos) return true;
    int32_t n = 1;
    size_t begin = 0;
    while (true) {
      size_t comma = list.find(',', begin);
      std::string_view item =
          list.substr(begin, comma == std::string_view::npos ? comma : comma - begin);
      if (item == word) {
        *r = n;
        return true;
      }
      if (comma == std::string_view::npos) return true;
      begin = comma + 1;
      ++n;
    }
  });
}

// ------------------------------------------------------------------ building strings

// lpad / rpad (STRING, or BINARY when both str and pad are BINARY).
template <bool kLeft>
Result<Vector> PadKernel(const KernelInput& in) {
  bool binary = in.call.type->id() == TypeId::kBinary;
  bool has_pad = in.args.size() > 2;
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i);
    int64_t len = ArgValue<int32_t>(in, 1, i);
    std::string_view pad = has_pad ? StringArg(in, 2, i)
                                   : (binary ? std::string_view("\0", 1) : std::string_view(" "));
    if (len <= 0) return true;
    if (binary) {
      int64_t missing = len - static_cast<int64_t>(v.size());
      if (missing <= 0 || pad.empty()) {
        s->assign(v.substr(0, static_cast<size_t>(len)));
        return true;
      }
      if (!kLeft) s->append(v);
      for (int64_t k = 0; k < missing; ++k) s->push_back(pad[k % pad.size()]);
      if (kLeft) s->append(v);
      return true;
    }
    int64_t chars = CharCount(v);
    int64_t missing = len - chars;
    if (missing <= 0 || pad.empty()) {
      s->assign(CharSubstring(v, 0, len));
      return true;
    }
    int64_t pad_chars = CharCount(pad);
    int64_t count = missing / pad_chars;
    std::string_view rest = CharSubstring(pad, 0, missing - pad_chars * count);
    if (!kLeft) s->append(v);
    for (int64_t k = 0; k < count; ++k) s->append(pad);
    s->append(rest);
    if (kLeft) s->append(v);
    return true;
  });
}

constexpr int64_t kMaxResultBytes = std::numeric_limits<int32_t>::max();

Result<Vector> RepeatKernel(const KernelInput& in) {
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i);
    int64_t n = ArgValue<int32_t>(in, 1, i);
    if (n <= 0 || v.empty()) return true;
    if (static_cast<int64_t>(v.size()) * n > kMaxResultBytes) {
      MarkRowError(in, i, "repeat(): the result would exceed 2147483647 bytes");
      return false;
    }
    s->reserve(v.size() * n);
    for (int64_t k = 0; k < n; ++k) s->append(v);
    return true;
  });
}

Result<Vector> SpaceKernel(const KernelInput& in) {
  return StringKernel(in, [&](int64_t i, std::string* s) {
    int64_t n = ArgValue<int32_t>(in, 0, i);
    if (n > 0) s->assign(static_cast<size_t>(n), ' ');
    return true;
  });
}

// reverse(str) reverses characters; reverse(array) its elements.
Result<Vector> ReverseKernel(const KernelInput& in) {
  if (in.call.type->id() == TypeId::kList) {
    const Vector& a = in.args[0];
    const Column& list = a.column();
    Column out(in.call.type);
    out.Reserve(in.num_rows);
    Column& child = out.mutable_child(0);
    for (int64_t i = 0; i < in.num_rows; ++i) {
      int64_t row = a.Row(i);
      if (list.IsNull(row)) {
        out.AppendNull();
        continue;
      }
      for (int32_t k = list.offsets()[row + 1]; k-- > list.offsets()[row];) {
        child.AppendFrom(list.child(0), k);
      }
      out.AppendListEntry();
    }
    return Vector::Own(std::move(out), AllConstant(in));
  }
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i);
    s->resize(v.size());
    size_t end = v.size();
    char* p = s->data();
    while (end > 0) {
      size_t start = PreviousChar(v, end);
      std::memcpy(p, v.data() + start, end - start);
      p += end - start;
      end = start;
    }
    return true;
  });
}

// left(str, len) = substring(str, 1, len); right(str, len) the last len characters ('' for
// len <= 0). Bytes for BINARY.
template <bool kLeft>
Result<Vector> LeftRightKernel(const KernelInput& in) {
  bool binary = in.call.type->id() == TypeId::kBinary;
  return ViewKernel(in, [&](int64_t i, std::string_view* out) {
    std::string_view v = StringArg(in, 0, i);
    int64_t len = ArgValue<int32_t>(in, 1, i);
    if (len <= 0) {
      *out = {};
    } else if (binary) {
      auto n = static_cast<size_t>(len);
      *out = kLeft ? v.substr(0, n) : v.substr(v.size() > n ? v.size() - n : 0);
    } else {
      *out = kLeft ? CharSubstring(v, 0, len) : SubstringSql(v, -len, kMaxResultBytes);
    }
    return true;
  });
}

// replace(str, search[, replace]): every occurrence, left to right.
Result<Vector> ReplaceKernel(const KernelInput& in) {
  bool has_replace = in.args.size() > 2;
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i), search = StringArg(in, 1, i);
    std::string_view replace = has_replace ? StringArg(in, 2, i) : std::string_view();
    if (v.empty() || search.empty()) {
      s->assign(v);
      return true;
    }
    size_t pos = 0;
    while (true) {
      size_t at = v.find(search, pos);
      if (at == std::string_view::npos) break;
      s->append(v.substr(pos, at - pos));
      s->append(replace);
      pos = at + search.size();
    }
    s->append(v.substr(pos));
    return true;
  });
}

// translate(str, from, to): each character of `from` becomes the character of `to` at the same
// position, or is removed when `to` is shorter; the first occurrence in `from` wins.
Result<Vector> TranslateKernel(const KernelInput& in) {
  std::unordered_map<uint32_t, int64_t> dict;  // code point -> replacement, -1 removes
  std::string last_from, last_to;
  bool built = false;
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i), from = StringArg(in, 1, i), to = StringArg(in, 2, i);
    if (!built || from != last_from || to != last_to) {
      dict.clear();
      size_t fp = 0, tp = 0;
      while (fp < from.size()) {
        uint32_t key = DecodeUtf8(from, &fp);
        int64_t value = -1;
        if (tp < to.size()) {
          uint32_t r = DecodeUtf8(to, &tp);
          if (r != 0) value = r;
        }
        dict.emplace(key, value);
      }
      last_from.assign(from);
      last_to.assign(to);
      built = true;
    }
    size_t pos = 0;
    while (pos < v.size()) {
      size_t start = pos;
      uint32_t cp = DecodeUtf8(v, &pos);
      auto it = dict.find(cp);
      if (it == dict.end() || (cp == 0xFFFD && pos == start + 1)) {
        s->append(v.substr(start, pos - start));
      } else if (it->second >= 0) {
        columnar::AppendUtf8(static_cast<uint32_t>(it->second), s);
      }
    }
    return true;
  });
}

// overlay(input, replace, pos[, len])
Result<Vector> OverlayKernel(const KernelInput& in) {
  bool has_len = in.args.size() > 3;
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i), replace = StringArg(in, 1, i);
    int64_t pos = ArgValue<int32_t>(in, 2, i);
    int64_t len = has_len ? ArgValue<int32_t>(in, 3, i) : -1;
    s->append(SubstringSql(v, 1, pos - 1));
    s->append(replace);
    int64_t next = len < 0 ? pos + CharCount(replace) : pos + len;
    s->append(SubstringSql(v, next, kMaxResultBytes));
    return true;
  });
}

// substring_index(str, delim, count): before the count-th delimiter (after it, counting from the
// end, for a negative count).
Result<Vector> SubstringIndexKernel(const KernelInput& in) {
  return ViewKernel(in, [&](int64_t i, std::string_view* out) {
    std::string_view v = StringArg(in, 0, i), delim = StringArg(in, 1, i);
    int64_t count = ArgValue<int32_t>(in, 2, i);
    *out = {};
    if (delim.empty() || count == 0) return true;
    if (count > 0) {
      size_t idx = std::string_view::npos;
      while (count > 0) {
        idx = v.find(delim, idx == std::string_view::npos ? 0 : idx + 1);
        if (idx == std::string_view::npos) {
          *out = v;
          return true;
        }
        --count;
      }
      *out = v.substr(0, idx);
      return true;
    }
    if (delim.size() > v.size()) {
      *out = v;
      return true;
    }
    int64_t idx = static_cast<int64_t>(v.size() - delim.size()) + 1;
    for (count = -count; count > 0; --count) {
      if (idx - 1 < 0) {
        *out = v;
        return true;
      }
      size_t found = v.rfind(delim, static_cast<size_t>(idx - 1));
      if (found == std::string_view::npos) {
        *out = v;
        return true;
      }
      idx = static_cast<int64_t>(found);
    }
    *out = v.substr(static_cast<size_t>(idx) + delim.size());
    return true;
  });
}

// concat_ws(sep, str | array<str>, ...): NULL only when sep is NULL; NULL values are skipped.
Result<Vector> ConcatWsKernel(const KernelInput& in) {
  Column out(in.call.type);
  std::vector<std::string_view>& strings = out.string_buffer();
  strings.assign(static_cast<size_t>(in.num_rows), std::string_view());
  std::vector<uint8_t>& validity = out.validity_buffer();
  std::string scratch;
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (in.args[0].IsNull(i)) {
      if (validity.empty()) validity.assign(static_cast<size_t>(in.num_rows), 1);
      validity[i] = 0;
      continue;
    }
    std::string_view sep = StringArg(in, 0, i);
    scratch.clear();
    bool first = true;
    auto add = [&](std::string_view value) {
      if (!first) scratch.append(sep);
      scratch.append(value);
      first = false;
    };
    for (size_t k = 1; k < in.args.size(); ++k) {
      const Vector& a = in.args[k];
      if (a.IsNull(i)) continue;
      const Column& c = a.column();
      if (c.type_id() == TypeId::kList) {
        int64_t row = a.Row(i);
        const Column& elements = c.child(0);
        for (int32_t e = c.offsets()[row]; e < c.offsets()[row + 1]; ++e) {
          if (!elements.IsNull(e)) add(elements.StringAt(e));
        }
      } else {
        add(c.StringAt(a.Row(i)));
      }
    }
    strings[i] = out.arena().Copy(scratch);
  }
  out.SetSize(in.num_rows);
  return Vector::Own(std::move(out), AllConstant(in));
}

// split_part(str, delim, part): the part-th piece (1-based; negative from the end) of str split
// at every occurrence of delim; '' when out of range; part 0 is an error.
Result<Vector> SplitPartKernel(const KernelInput& in) {
  std::vector<std::string_view> parts;
  return ViewKernel(in, [&](int64_t i, std::string_view* out) {
    std::string_view v = StringArg(in, 0, i), delim = StringArg(in, 1, i);
    int64_t part = ArgValue<int32_t>(in, 2, i);
    if (part == 0) {
      MarkRowError(in, i,
                   "[INVALID_INDEX_OF_ZERO] The index 0 is invalid. An index shall be either < 0 "
                   "or > 0 (the first element has index 1).");
      return false;
    }
    parts.clear();
    if (delim.empty()) {
      parts.push_back(v);
    } else {
      size_t pos = 0;
      while (true) {
        size_t at = v.find(delim, pos);
        if (at == std::string_view::npos) break;
        parts.push_back(v.substr(pos, at - pos));
        pos = at + delim.size();
      }
      parts.push_back(v.substr(pos));
    }
    auto n = static_cast<int64_t>(parts.size());
    int64_t index = part > 0 ? part - 1 : n + part;
    *out = (index >= 0 && index < n) ? parts[index] : std::string_view();
    return true;
  });
}

Result<Vector> OctetLengthKernel(const KernelInput& in) {
  return FixedKernel<int32_t>(in, [&](int64_t i, int32_t* r) {
    *r = static_cast<int32_t>(StringArg(in, 0, i).size());
    return true;
  });
}

Result<Vector> BitLengthKernel(const KernelInput& in) {
  return FixedKernel<int32_t>(in, [&](int64_t i, int32_t* r) {
    *r = static_cast<int32_t>(StringArg(in, 0, i).size() * 8);
    return true;
  });
}

// levenshtein(a, b[, threshold]): edit distance over characters; -1 when above the threshold.
Result<Vector> LevenshteinKernel(const KernelInput& in) {
  bool has_threshold = in.args.size() > 2;
  std::vector<uint32_t> a, b;
  std::vector<int32_t> row;
  auto decode = [](std::string_view s, std::vector<uint32_t>* out) {
    out->clear();
    size_t pos = 0;
    while (pos < s.size()) out->push_back(DecodeUtf8(s, &pos));
  };
  return FixedKernel<int32_t>(in, [&](int64_t i, int32_t* r) {
    decode(StringArg(in, 0, i), &a);
    decode(StringArg(in, 1, i), &b);
    row.resize(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int32_t>(j);
    for (size_t x = 1; x <= a.size(); ++x) {
      int32_t diagonal = row[0];
      row[0] = static_cast<int32_t>(x);
      for (size_t j = 1; j <= b.size(); ++j) {
        int32_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[x - 1] == b[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    *r = row[b.size()];
    if (has_threshold && *r > ArgValue<int32_t>(in, 2, i)) *r = -1;
    return true;
  });
}

// soundex(str): American Soundex of the ASCII letters; str itself when it does not start with a
// letter.
Result<Vector> SoundexKernel(const KernelInput& in) {
  static constexpr char kCodes[] = "01230127022455012623017202";  // A..Z, '7' = H and W
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i);
    if (v.empty()) return true;
    auto upper = [](char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; };
    char first = upper(v[0]);
    if (first < 'A' || first > 'Z') {
      s->assign(v);
      return true;
    }
    char code[4] = {first, '0', '0', '0'};
    int n = 1;
    char last = kCodes[first - 'A'];
    for (size_t k = 1; k < v.size() && n < 4; ++k) {
      char c = upper(v[k]);
      if (c < 'A' || c > 'Z') {
        last = '0';
        continue;
      }
      char digit = kCodes[c - 'A'];
      if (digit == '7') continue;
      if (digit != '0' && digit != last) code[n++] = digit;
      last = digit;
    }
    s->assign(code, 4);
    return true;
  });
}

// ------------------------------------------------------------------ LIKE and regex kernels

// The escape character of like/ilike: the third argument, a one-character literal ('\' when
// absent).
Result<uint32_t> LikeEscape(const Args& args, std::string_view function) {
  if (args.size() < 3) return static_cast<uint32_t>('\\');
  std::optional<std::string_view> escape = LiteralString(args[2]);
  size_t pos = 0;
  if (!escape || escape->empty() || (DecodeUtf8(*escape, &pos), pos != escape->size())) {
    return Status::InvalidArgument(
        "[INVALID_ESCAPE_CHAR] " + std::string(function) +
        "(): the escape character must be a string literal of length one, got " + args[2]->sql);
  }
  pos = 0;
  return DecodeUtf8(*escape, &pos);
}

template <bool kIgnoreCase>
Result<TypePtr> LikeRule(Args& args) {
  std::string_view function = kIgnoreCase ? "ilike" : "like";
  WEIR_RETURN_NOT_OK(Signature(args, function, {ArgType::kString}, DataType::Boolean()).status());
  WEIR_ASSIGN_OR_RETURN(uint32_t escape, LikeEscape(args, function));
  if (std::optional<std::string_view> pattern = LiteralString(args[1])) {
    std::string lowered;
    if (kIgnoreCase) AppendLowerCase(*pattern, &lowered);
    WEIR_RETURN_NOT_OK(
        LikePattern::Parse(kIgnoreCase ? std::string_view(lowered) : *pattern, escape).status());
  }
  return DataType::Boolean();
}

// like(str, pattern[, escape]) / ilike: ilike lower-cases both sides, as Spark does.
template <bool kIgnoreCase>
Result<Vector> LikeKernel(const KernelInput& in) {
  uint32_t escape = '\\';
  if (in.args.size() > 2) {
    std::string_view e = StringArg(in, 2, 0);
    size_t pos = 0;
    if (!e.empty()) escape = DecodeUtf8(e, &pos);
  }
  std::optional<LikePattern> pattern;
  std::string last_pattern, error, lowered, text;
  bool parsed = false;
  bool constant_pattern = in.args[1].constant();
  return FixedKernel<bool>(in, [&](int64_t i, bool* r) {
    std::string_view p = StringArg(in, 1, i);
    if (!parsed || (!constant_pattern && p != last_pattern)) {
      last_pattern.assign(p);
      parsed = true;
      std::string_view source = p;
      if (kIgnoreCase) {
        lowered.clear();
        AppendLowerCase(p, &lowered);
        source = lowered;
      }
      Result<LikePattern> result = LikePattern::Parse(source, escape);
      pattern.reset();
      if (result.ok()) {
        pattern.emplace(std::move(*result));
      } else {
        error = result.status().message();
      }
    }
    if (!pattern) {
      MarkRowError(in, i, error);
      return false;
    }
    std::string_view v = StringArg(in, 0, i);
    if (kIgnoreCase) {
      text.clear();
      AppendLowerCase(v, &text);
      v = text;
    }
    *r = pattern->Matches(v);
    return true;
  });
}

template <const char* kName>
Result<TypePtr> RegexBoolRule(Args& args) {
  WEIR_RETURN_NOT_OK(Signature(args, kName, {ArgType::kString}, DataType::Boolean()).status());
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(args[1], kName));
  return DataType::Boolean();
}

// rlike / regexp / regexp_like(str, regex): a match anywhere (Matcher.find).
Result<Vector> RLikeKernel(const KernelInput& in) {
  PatternArg pattern(in, 1, "rlike");
  return FixedKernel<bool>(in, [&](int64_t i, bool* r) {
    Regex* re = pattern.Get(i);
    if (re == nullptr) return false;
    int rc = re->Find(StringArg(in, 0, i), 0);
    if (rc < 0) {
      MarkRowError(in, i, "rlike(): regular expression matching failed: " + Pcre2Message(rc));
      return false;
    }
    *r = rc == 1;
    return true;
  });
}

std::string GroupIndexMessage(std::string_view function, int group_count, int64_t index) {
  return "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` in `" +
         std::string(function) + "` is invalid: Expects group index between 0 and " +
         std::to_string(group_count) + ", but got " + std::to_string(index) + ".";
}

Result<TypePtr> RegexpExtractRule(Args& args) {
  WEIR_RETURN_NOT_OK(Signature(args, "regexp_extract",
                               {ArgType::kString, ArgType::kString, ArgType::kInt},
                               DataType::String())
                         .status());
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(args[1], "regexp_extract"));
  return DataType::String();
}

Result<TypePtr> RegexpExtractAllRule(Args& args) {
  WEIR_RETURN_NOT_OK(Signature(args, "regexp_extract_all",
                               {ArgType::kString, ArgType::kString, ArgType::kInt},
                               DataType::String())
                         .status());
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(args[1], "regexp_extract_all"));
  return DataType::List(DataType::String());
}

// Checks group `index` against the pattern (only once a match is found, as Spark does).
bool CheckGroup(const KernelInput& in, int64_t i, std::string_view function, const Regex& re,
                int64_t index) {
  if (index >= 0 && index <= re.group_count()) return true;
  if (index < 0) {
    MarkRowError(in, i,
                 "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` "
                 "in `" +
                     std::string(function) +
                     "` is invalid: The specified group index "
                     "cannot be less than zero.");
  } else {
    MarkRowError(in, i, GroupIndexMessage(function, re.group_count(), index));
  }
  return false;
}

// regexp_extract(str, regex[, idx = 1]): group idx of the first match; '' without a match or
// when the group did not take part. regexp_substr(str, regex): the whole first match, NULL when
// there is none or it is empty.
template <bool kSubstr>
Result<Vector> RegexpExtractKernel(const KernelInput& in) {
  std::string_view function = kSubstr ? "regexp_substr" : "regexp_extract";
  PatternArg pattern(in, 1, function);
  bool has_index = in.args.size() > 2;
  return ViewKernel(in, [&](int64_t i, std::string_view* out) {
    Regex* re = pattern.Get(i);
    if (re == nullptr) return false;
    std::string_view v = StringArg(in, 0, i);
    int rc = re->Find(v, 0);
    if (rc < 0) {
      MarkRowError(
          in, i,
          std::string(function) + "(): regular expression matching failed: " + Pcre2Message(rc));
      return false;
    }
    *out = {};
    if (rc == 0) return !kSubstr;
    int64_t index = kSubstr ? 0 : (has_index ? ArgValue<int32_t>(in, 2, i) : 1);
    if (!CheckGroup(in, i, function, *re, index)) return false;
    int g = static_cast<int>(index);
    if (re->Matched(g)) *out = re->Group(v, g);
    return !kSubstr || !out->empty();
  });
}

// regexp_extract_all(str, regex[, idx = 1]): group idx of every match.
Result<Vector> RegexpExtractAllKernel(const KernelInput& in) {
  PatternArg pattern(in, 1, "regexp_extract_all");
  bool has_index = in.args.size() > 2;
  StringListBuilder out(in);
  std::vector<std::string_view> values;
  std::string error;
  for (int64_t i = 0; i < in.num_rows; ++i) {
    bool valid =
        !in.args[0].IsNull(i) && !in.args[1].IsNull(i) && !(has_index && in.args[2].IsNull(i));
    Regex* re = valid ? pattern.Get(i) : nullptr;
    if (re == nullptr) {
      out.NullRow();
      continue;
    }
    std::string_view v = StringArg(in, 0, i);
    int64_t index = has_index ? ArgValue<int32_t>(in, 2, i) : 1;
    values.clear();
    bool bad_group = false;
    bool ok = ForEachMatch(
        *re, v,
        [&] {
          if (!CheckGroup(in, i, "regexp_extract_all", *re, index)) {
            bad_group = true;
            return false;
          }
          int g = static_cast<int>(index);
          values.push_back(re->Matched(g) ? re->Group(v, g) : std::string_view());
          return true;
        },
        &error);
    if (!ok) MarkRowError(in, i, "regexp_extract_all(): " + error);
    if (!ok || bad_group) {
      out.NullRow();
      continue;
    }
    for (std::string_view value : values) out.AddView(value);
    out.EndRow();
  }
  return out.Finish();
}

// regexp_count(str, regex): the number of matches.
Result<Vector> RegexpCountKernel(const KernelInput& in) {
  PatternArg pattern(in, 1, "regexp_count");
  std::string error;
  return FixedKernel<int32_t>(in, [&](int64_t i, int32_t* r) {
    Regex* re = pattern.Get(i);
    if (re == nullptr) return false;
    int32_t n = 0;
    if (!ForEachMatch(
            *re, StringArg(in, 0, i), [&] { return ++n, true; }, &error)) {
      MarkRowError(in, i, "regexp_count(): " + error);
      return false;
    }
    *r = n;
    return true;
  });
}

// regexp_instr(str, regex[, idx = 0]): 1-based character position of group idx of the first
// match, 0 without a match.
Result<Vector> RegexpInstrKernel(const KernelInput& in) {
  PatternArg pattern(in, 1, "regexp_instr");
  bool has_index = in.args.size() > 2;
  return FixedKernel<int32_t>(in, [&](int64_t i, int32_t* r) {
    Regex* re = pattern.Get(i);
    if (re == nullptr) return false;
    std::string_view v = StringArg(in, 0, i);
    int rc = re->Find(v, 0);
    if (rc < 0) {
      MarkRowError(in, i,
                   "regexp_instr(): regular expression matching failed: " + Pcre2Message(rc));
      return false;
    }
    *r = 0;
    if (rc == 0) return true;
    int64_t index = has_index ? ArgValue<int32_t>(in, 2, i) : 0;
    if (!CheckGroup(in, i, "regexp_instr", *re, index)) return false;
    int g = static_cast<int>(index);
    if (re->Matched(g)) *r = static_cast<int32_t>(CharCount(v.substr(0, re->Begin(g))) + 1);
    return true;
  });
}

// A parsed Java replacement string (Matcher.appendReplacement): literal text, $n and ${name}
// group references, \x escapes. Group numbers take as many digits as form an existing group.
class Replacement {
 public:
  // Parses `text` for `re`; the error is Java's message.
  static Result<Replacement> Parse(std::string_view text, const Regex& re) {
    Replacement r;
    size_t pos = 0;
    while (pos < text.size()) {
      char c = text[pos];
      if (c == '\\') {
        ++pos;
        if (pos == text.size())
          return Status::InvalidArgument("character to be escaped is missing");
        r.AddLiteral(text.substr(pos, 1));
        ++pos;
      } else if (c == '$') {
        ++pos;
        if (pos == text.size()) {
          return Status::InvalidArgument("Illegal group reference: group index is missing");
        }
        int group;
        if (text[pos] == '{') {
          ++pos;
          size_t start = pos;
          while (pos < text.size() && std::isalnum(static_cast<unsigned char>(text[pos])) &&
                 static_cast<unsigned char>(text[pos]) < 0x80) {
            ++pos;
          }
          std::string_view name = text.substr(start, pos - start);
          if (name.empty())
            return Status::InvalidArgument("named capturing group has 0 length name");
          if (pos == text.size() || text[pos] != '}') {
            return Status::InvalidArgument("named capturing group is missing trailing '}'");
          }
          ++pos;
          if (name[0] >= '0' && name[0] <= '9') {
            return Status::InvalidArgument("capturing group name {" + std::string(name) +
                                           "} starts with digit character");
          }
          group = re.GroupNumber(name);
          if (group < 0) {
            return Status::InvalidArgument("No group with name {" + std::string(name) + "}");
          }
        } else {
          if (text[pos] < '0' || text[pos] > '9') {
            return Status::InvalidArgument("Illegal group reference");
          }
          group = text[pos++] - '0';
          while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
            int next = group * 10 + (text[pos] - '0');
            if (next > re.group_count()) break;
            group = next;
            ++pos;
          }
          if (group > re.group_count()) {
            return Status::InvalidArgument("No group " + std::to_string(group));
          }
        }
        r.pieces_.push_back(Piece{group, {}});
      } else {
        size_t end = text.find_first_of("\\$", pos);
        if (end == std::string_view::npos) end = text.size();
        r.AddLiteral(text.substr(pos, end - pos));
        pos = end;
      }
    }
    return r;
  }

  // Appends the replacement for the current match of `re` in `subject`.
  void Append(const Regex& re, std::string_view subject, std::string* out) const {
    for (const Piece& piece : pieces_) {
      if (piece.group < 0) {
        out->append(piece.text);
      } else if (re.Matched(piece.group)) {
        out->append(re.Group(subject, piece.group));
      }
    }
  }

 private:
  struct Piece {
    int group;  // -1: literal text
    std::string text;
  };
  void AddLiteral(std::string_view text) {
    if (pieces_.empty() || pieces_.back().group >= 0) pieces_.push_back(Piece{-1, {}});
    pieces_.back().text.append(text);
  }
  std::vector<Piece> pieces_;
};

Result<TypePtr> RegexpReplaceRule(Args& args) {
  WEIR_RETURN_NOT_OK(
      Signature(args, "regexp_replace",
                {ArgType::kString, ArgType::kString, ArgType::kString, ArgType::kInt},
                DataType::String())
          .status());
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(args[1], "regexp_replace"));
  if (args.size() > 3) {
    // Spark requires a constant position > 0.
    std::optional<int64_t> pos = LiteralInteger(args[3]);
    if (args[3]->kind != BoundExpr::Kind::kLiteral) {
      return Status::InvalidArgument(
          "[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] regexp_replace(): the input `position` should "
          "be a foldable \"INT\" expression; however, got " +
          args[3]->sql);
    }
    if (pos && *pos <= 0) {
      return Status::InvalidArgument(
          "[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] regexp_replace(): the `position` must be "
          "between (0, 2147483647], got " +
          std::to_string(*pos));
    }
  }
  return DataType::String();
}

// regexp_replace(str, regex, rep[, pos = 1]): every match from character pos on replaced, with
// Java's $n / ${name} / \x replacement syntax. The text before pos is kept; the search sees only
// the text from pos (^ matches there, as with Java's Matcher.region).
Result<Vector> RegexpReplaceKernel(const KernelInput& in) {
  PatternArg pattern(in, 1, "regexp_replace");
  bool has_pos = in.args.size() > 3;
  std::optional<Replacement> replacement;
  std::string last_replacement, replacement_error, error;
  const Regex* replacement_regex = nullptr;
  return StringKernel(in, [&](int64_t i, std::string* s) {
    Regex* re = pattern.Get(i);
    if (re == nullptr) return false;
    std::string_view v = StringArg(in, 0, i), rep = StringArg(in, 2, i);
    if (re != replacement_regex || rep != last_replacement) {
      Result<Replacement> parsed = Replacement::Parse(rep, *re);
      replacement.reset();
      if (parsed.ok()) {
        replacement.emplace(std::move(*parsed));
      } else {
        replacement_error = parsed.status().message();
      }
      last_replacement.assign(rep);
      replacement_regex = re;
    }
    int64_t position = has_pos ? ArgValue<int32_t>(in, 3, i) : 1;
    size_t start = CharOffset(v, position - 1);
    if (position > 1 && start >= v.size()) {
      s->assign(v);
      return true;
    }
    std::string_view region = v.substr(start);
    s->append(v.substr(0, start));
    size_t copied = 0;
    bool ok = ForEachMatch(
        *re, region,
        [&] {
          if (!replacement) return false;
          s->append(region.substr(copied, re->Begin(0) - copied));
          replacement->Append(*re, region, s);
          copied = re->End(0);
          return true;
        },
        &error);
    if (!ok) {
      MarkRowError(in, i, "regexp_replace(): " + error);
      return false;
    }
    if (!replacement && re->Find(region, 0) == 1) {
      MarkRowError(in, i,
                   "regexp_replace(): the replacement " + QuoteSql(rep) +
                       " is invalid: " + replacement_error);
      return false;
    }
    s->append(region.substr(copied));
    return true;
  });
}

// `v` split at the matches of `regex` (`re`, compiled) as Spark's UTF8String.split(regex,
// limit): Java's String.split, except that limit 0 keeps trailing empty strings like -1 and an
// empty regex splits into characters. False (with `error`) when matching fails.
bool JavaSplit(std::string_view v, std::string_view regex, Regex* re, int64_t limit,
               std::vector<std::string_view>* parts, std::string* error) {
  if (limit == 0) limit = -1;
  parts->clear();
  if (!v.empty() && regex.empty()) {
    int64_t chars = CharCount(v);
    int64_t n = (limit > chars || limit <= 0) ? chars : limit;
    size_t pos = 0;
    for (int64_t k = 0; k + 1 < n; ++k) {
      size_t next = NextChar(v, pos);
      parts->push_back(v.substr(pos, next - pos));
      pos = next;
    }
    parts->push_back(v.substr(pos));
    return true;
  }
  size_t index = 0;
  bool matched = false;
  bool ok = ForEachMatch(
      *re, v,
      [&] {
        size_t b = re->Begin(0), e = re->End(0);
        if (limit <= 0 || static_cast<int64_t>(parts->size()) < limit - 1) {
          if (index == 0 && b == 0 && e == 0) return true;  // no leading empty string
          parts->push_back(v.substr(index, b - index));
          index = e;
          matched = true;
          return true;
        }
        return false;  // limit reached: the rest is the last part
      },
      error);
  if (!ok) return false;
  if (!matched) {
    parts->assign(1, v);
  } else {
    parts->push_back(v.substr(index));
  }
  return true;
}

// split(str, regex[, limit = -1]) (JavaSplit).
Result<Vector> SplitKernel(const KernelInput& in) {
  PatternArg pattern(in, 1, "split");
  bool has_limit = in.args.size() > 2;
  StringListBuilder out(in);
  std::vector<std::string_view> parts;
  std::string error;
  for (int64_t i = 0; i < in.num_rows; ++i) {
    bool valid =
        !in.args[0].IsNull(i) && !in.args[1].IsNull(i) && !(has_limit && in.args[2].IsNull(i));
    if (!valid) {
      out.NullRow();
      continue;
    }
    std::string_view v = StringArg(in, 0, i), regex = StringArg(in, 1, i);
    int64_t limit = has_limit ? ArgValue<int32_t>(in, 2, i) : -1;
    Regex* re = nullptr;
    if (v.empty() || !regex.empty()) {
      re = pattern.Get(i);
      if (re == nullptr) {
        out.NullRow();
        continue;
      }
    }
    if (!JavaSplit(v, regex, re, limit, &parts, &error)) {
      MarkRowError(in, i, "split(): " + error);
      out.NullRow();
      continue;
    }
    for (std::string_view part : parts) out.AddView(part);
    out.EndRow();
  }
  return out.Finish();
}

// str_to_map(text[, pairDelim = ',' [, keyValueDelim = ':']]) as Spark's StringToMap: text split
// at pairDelim, each part at its first keyValueDelim (both regular expressions, JavaSplit) into
// key and value (NULL without a delimiter); repeated keys follow spark.sql.mapKeyDedupPolicy
// (MapBuilder). NULL when an argument is.
Result<Vector> StrToMapKernel(const KernelInput& in) {
  PatternArg pair_pattern(in, 1, "str_to_map");
  PatternArg kv_pattern(in, 2, "str_to_map");
  // Every key and value of the batch, as views of the text's bytes; then the maps.
  Column keys(DataType::String()), values(DataType::String());
  keys.ShareBuffersFrom(in.args[0].column());
  values.ShareBuffersFrom(in.args[0].column());
  std::vector<int64_t> starts(static_cast<size_t>(in.num_rows) + 1, 0);
  std::vector<uint8_t> null_row(static_cast<size_t>(in.num_rows), 0);
  std::vector<std::string_view> pairs, kv;
  std::vector<std::pair<std::string_view, std::optional<std::string_view>>> entries;
  std::string error;
  for (int64_t i = 0; i < in.num_rows; ++i) {
    starts[i] = keys.size();
    if (in.args[0].IsNull(i) || in.args[1].IsNull(i) || in.args[2].IsNull(i)) {
      null_row[i] = 1;
      continue;
    }
    std::string_view text = StringArg(in, 0, i), pair_delim = StringArg(in, 1, i),
                     kv_delim = StringArg(in, 2, i);
    Regex* pair_re = text.empty() || !pair_delim.empty() ? pair_pattern.Get(i) : nullptr;
    if ((text.empty() || !pair_delim.empty()) && pair_re == nullptr) {
      null_row[i] = 1;
      continue;
    }
    if (!JavaSplit(text, pair_delim, pair_re, -1, &pairs, &error)) {
      MarkRowError(in, i, "str_to_map(): " + error);
      null_row[i] = 1;
      continue;
    }
    bool failed = false;
    entries.clear();
    for (std::string_view pair : pairs) {
      Regex* kv_re = pair.empty() || !kv_delim.empty() ? kv_pattern.Get(i) : nullptr;
      if ((pair.empty() || !kv_delim.empty()) && kv_re == nullptr) {
        failed = true;
        break;
      }
      if (!JavaSplit(pair, kv_delim, kv_re, 2, &kv, &error)) {
        MarkRowError(in, i, "str_to_map(): " + error);
        failed = true;
        break;
      }
      entries.push_back({kv[0], kv.size() > 1 ? std::optional<std::string_view>(kv[1])
                                              : std::nullopt});
    }
    if (failed) {
      null_row[i] = 1;
      continue;
    }
    for (const auto& [key, value] : entries) {
      keys.AppendStringView(key);
      if (value) {
        values.AppendStringView(*value);
      } else {
        values.AppendNull();
      }
    }
  }
  starts[in.num_rows] = keys.size();
  MapBuilder builder(in.call.type, in.num_rows, in.context, AllConstant(in));
  builder.ShareBuffersFrom(keys, values);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (null_row[i]) {
      builder.NullRow();
      continue;
    }
    for (int64_t k = starts[i]; k < starts[i + 1]; ++k) builder.Add(i, keys, k, values, k);
    builder.EndRow();
  }
  return builder.Finish();
}

Result<TypePtr> StrToMapRule(Args& args) {
  // Spark's defaults for the delimiters.
  while (args.size() < 3) {
    std::string_view d = args.size() == 1 ? "," : ":";
    Column c(DataType::String());
    c.AppendString(d);
    args.push_back(MakeLiteral(std::move(c), sql::QuoteString(d)));
  }
  // STRING arguments only: Spark's StringToMap casts nothing.
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]->type->id() != TypeId::kString) {
      return TypeMismatch("str_to_map", i, "\"STRING\"", args[i]);
    }
  }
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(args[1], "str_to_map"));
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(args[2], "str_to_map"));
  return DataType::Map(DataType::String(), DataType::String(), /*value_nullable=*/true);
}

Result<TypePtr> SplitRule(Args& args) {
  WEIR_RETURN_NOT_OK(Signature(args, "split", {ArgType::kString, ArgType::kString, ArgType::kInt},
                               DataType::String())
                         .status());
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(args[1], "split"));
  return DataType::List(DataType::String(), /*contains_null=*/false);
}

// ------------------------------------------------------------------ digests

// md5 / sha1 / sha2 with OpenSSL: one digest context per kernel call.
class Digester {
 public:
  Digester() : context_(EVP_MD_CTX_new()) {}
  ~Digester() {
    EVP_MD_CTX_free(context_);
    for (EVP_MD* md : fetched_) EVP_MD_free(md);
  }
  Digester(const Digester&) = delete;
  Digester& operator=(const Digester&) = delete;

  // The algorithm named `name` ("MD5", "SHA256", ...), fetched once.
  const EVP_MD* Algorithm(const char* name) {
    for (size_t k = 0; k < names_.size(); ++k) {
      if (std::strcmp(names_[k], name) == 0) return fetched_[k];
    }
    EVP_MD* md = EVP_MD_fetch(nullptr, name, nullptr);
    if (md == nullptr) return nullptr;
    names_.push_back(name);
    fetched_.push_back(md);
    return md;
  }

  // Appends the lower-case hex digest of `data`; false when OpenSSL fails.
  bool AppendHex(const EVP_MD* md, std::string_view data, std::string* out) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (context_ == nullptr || md == nullptr || EVP_DigestInit_ex(context_, md, nullptr) != 1 ||
        EVP_DigestUpdate(context_, data.data(), data.size()) != 1 ||
        EVP_DigestFinal_ex(context_, digest, &size) != 1) {
      return false;
    }
    AppendHexBytes(std::string_view(reinterpret_cast<const char*>(digest), size), kHexLower, out);
    return true;
  }

 private:
  EVP_MD_CTX* context_;
  std::vector<const char*> names_;
  std::vector<EVP_MD*> fetched_;
};

template <const char* kAlgorithm>
Result<Vector> DigestKernel(const KernelInput& in) {
  Digester digester;
  const EVP_MD* md = digester.Algorithm(kAlgorithm);
  if (md == nullptr) return Status::Internal(std::string("OpenSSL has no ") + kAlgorithm);
  bool failed = false;
  Vector out = StringKernel(in, [&](int64_t i, std::string* s) {
    failed |= !digester.AppendHex(md, StringArg(in, 0, i), s);
    return true;
  });
  if (failed) return Status::Internal(std::string("OpenSSL failed to compute ") + kAlgorithm);
  return out;
}

constexpr char kMd5[] = "MD5";
constexpr char kSha1[] = "SHA1";

// sha2(bin, bits): 224, 256 (or 0), 384, 512; NULL for any other length.
Result<Vector> Sha2Kernel(const KernelInput& in) {
  Digester digester;
  bool failed = false;
  Vector out = StringKernel(in, [&](int64_t i, std::string* s) {
    const char* name = nullptr;
    switch (ArgValue<int32_t>(in, 1, i)) {
      case 224:
        name = "SHA224";
        break;
      case 0:
      case 256:
        name = "SHA256";
        break;
      case 384:
        name = "SHA384";
        break;
      case 512:
        name = "SHA512";
        break;
      default:
        return false;
    }
    failed |= !digester.AppendHex(digester.Algorithm(name), StringArg(in, 0, i), s);
    return true;
  });
  if (failed) return Status::Internal("OpenSSL failed to compute a SHA-2 digest");
  return out;
}

// CRC-32 (zlib's polynomial) by slicing 4 bytes at a time.
using Crc32Tables = std::array<std::array<uint32_t, 256>, 4>;

constexpr Crc32Tables MakeCrc32Tables() {
  Crc32Tables t{};
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][n] = c;
  }
  for (uint32_t n = 0; n < 256; ++n) {
    for (int k = 1; k < 4; ++k) t[k][n] = (t[k - 1][n] >> 8) ^ t[0][t[k - 1][n] & 0xFF];
  }
  return t;
}

constexpr Crc32Tables kCrc32 = MakeCrc32Tables();

uint32_t Crc32(std::string_view data) {
  uint32_t c = 0xFFFFFFFFu;
  size_t i = 0;
  for (; i + 4 <= data.size(); i += 4) {
    uint32_t word;
    std::memcpy(&word, data.data() + i, 4);  // little-endian hosts
    c ^= word;
    c = kCrc32[3][c & 0xFF] ^ kCrc32[2][(c >> 8) & 0xFF] ^ kCrc32[1][(c >> 16) & 0xFF] ^
        kCrc32[0][c >> 24];
  }
  for (; i < data.size(); ++i) {
    c = kCrc32[0][(c ^ static_cast<unsigned char>(data[i])) & 0xFF] ^ (c >> 8);
  }
  return c ^ 0xFFFFFFFFu;
}

Result<Vector> Crc32Kernel(const KernelInput& in) {
  return FixedKernel<int64_t>(in, [&](int64_t i, int64_t* r) {
    *r = Crc32(StringArg(in, 0, i));
    return true;
  });
}

// ------------------------------------------------------------------ hash() and xxhash64()

uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // little-endian hosts only (x86-64, arm64), as Spark's Platform reads
}

uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Spark's Murmur3_x86_32 (org.apache.spark.unsafe.hash), seed carried between values.
struct Murmur3 {
  using Seed = uint32_t;
  static uint32_t MixK1(uint32_t k1) { return Rotl32(k1 * 0xcc9e2d51u, 15) * 0x1b873593u; }
  static uint32_t MixH1(uint32_t h1, uint32_t k1) { return Rotl32(h1 ^ k1, 13) * 5 + 0xe6546b64u; }
  static uint32_t Finish(uint32_t h1, uint32_t length) {
    h1 ^= length;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    h1 ^= h1 >> 16;
    return h1;
  }
  static Seed Int(int32_t v, Seed seed) {
    return Finish(MixH1(seed, MixK1(static_cast<uint32_t>(v))), 4);
  }
  static Seed Long(int64_t v, Seed seed) {
    auto u = static_cast<uint64_t>(v);
    uint32_t h1 = MixH1(seed, MixK1(static_cast<uint32_t>(u)));
    h1 = MixH1(h1, MixK1(static_cast<uint32_t>(u >> 32)));
    return Finish(h1, 8);
  }
  // hashUnsafeBytes: whole 4-byte words, then each remaining (signed) byte as a word of its own.
  static Seed Bytes(std::string_view b, Seed seed) {
    uint32_t h1 = seed;
    size_t aligned = b.size() - b.size() % 4;
    for (size_t i = 0; i < aligned; i += 4) h1 = MixH1(h1, MixK1(Load32(b.data() + i)));
    for (size_t i = aligned; i < b.size(); ++i) {
      auto word = static_cast<uint32_t>(static_cast<int32_t>(static_cast<signed char>(b[i])));
      h1 = MixH1(h1, MixK1(word));
    }
    return Finish(h1, static_cast<uint32_t>(b.size()));
  }
};

// Spark's XXH64 (the reference xxHash64), seed carried between values.
struct XxHash64 {
  using Seed = uint64_t;
  static constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull;
  static constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4Full;
  static constexpr uint64_t kP3 = 0x165667B19E3779F9ull;
  static constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ull;
  static constexpr uint64_t kP5 = 0x27D4EB2F165667C5ull;
  static uint64_t Mix(uint64_t h) {
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
  }
  static uint64_t Round(uint64_t acc, uint64_t input) {
    return Rotl64(acc + input * kP2, 31) * kP1;
  }
  static uint64_t MergeRound(uint64_t acc, uint64_t v) { return (acc ^ Round(0, v)) * kP1 + kP4; }
  static Seed Int(int32_t v, Seed seed) {
    uint64_t h = seed + kP5 + 4;
    h ^= static_cast<uint64_t>(static_cast<uint32_t>(v)) * kP1;
    h = Rotl64(h, 23) * kP2 + kP3;
    return Mix(h);
  }
  static Seed Long(int64_t v, Seed seed) {
    uint64_t h = seed + kP5 + 8;
    h ^= Round(0, static_cast<uint64_t>(v));
    h = Rotl64(h, 27) * kP1 + kP4;
    return Mix(h);
  }
  static Seed Bytes(std::string_view b, Seed seed) {
    // Offsets rather than pointers: an empty view may have no data pointer at all.
    size_t n = b.size(), i = 0;
    uint64_t h;
    if (n >= 32) {
      uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
      for (; i + 32 <= n; i += 32) {
        v1 = Round(v1, Load64(b.data() + i));
        v2 = Round(v2, Load64(b.data() + i + 8));
        v3 = Round(v3, Load64(b.data() + i + 16));
        v4 = Round(v4, Load64(b.data() + i + 24));
      }
      h = Rotl64(v1, 1) + Rotl64(v2, 7) + Rotl64(v3, 12) + Rotl64(v4, 18);
      h = MergeRound(h, v1);
      h = MergeRound(h, v2);
      h = MergeRound(h, v3);
      h = MergeRound(h, v4);
    } else {
      h = seed + kP5;
    }
    h += n;
    for (; i + 8 <= n; i += 8) h = Rotl64(h ^ Round(0, Load64(b.data() + i)), 27) * kP1 + kP4;
    if (i + 4 <= n) {
      h = Rotl64(h ^ (static_cast<uint64_t>(Load32(b.data() + i)) * kP1), 23) * kP2 + kP3;
      i += 4;
    }
    for (; i < n; ++i) {
      h = Rotl64(h ^ (static_cast<uint64_t>(static_cast<unsigned char>(b[i])) * kP5), 11) * kP1;
    }
    return Mix(h);
  }
};

// BigInteger.toByteArray of an unscaled decimal: minimal big-endian two's complement.
std::string_view DecimalBytes(Int128 v, char (&buffer)[16]) {
  auto u = static_cast<unsigned __int128>(v);
  for (int k = 15; k >= 0; --k) {
    buffer[k] = static_cast<char>(static_cast<uint8_t>(u));
    u >>= 8;
  }
  size_t start = 0;
  while (start < 15) {
    auto b0 = static_cast<uint8_t>(buffer[start]), b1 = static_cast<uint8_t>(buffer[start + 1]);
    if ((b0 == 0x00 && b1 < 0x80) || (b0 == 0xFF && b1 >= 0x80)) {
      ++start;
    } else {
      break;
    }
  }
  return std::string_view(buffer + start, 16 - start);
}

// Spark's HashExpression.computeHash: NULL keeps the seed; booleans and small integers (and
// dates) hash as an int, longs and timestamps as a long; -0.0 as 0 and NaN canonical; decimals
// of precision <= 18 as their unscaled long, larger ones as the unscaled value's bytes; arrays
// and structs element by element.
template <typename H>
typename H::Seed HashValue(const Column& c, int64_t row, typename H::Seed seed) {
  if (c.IsNull(row)) return seed;
  switch (c.type_id()) {
    case TypeId::kBoolean:
      return H::Int(c.Value<uint8_t>(row) != 0 ? 1 : 0, seed);
    case TypeId::kInt8:
      return H::Int(c.Value<int8_t>(row), seed);
    case TypeId::kInt16:
      return H::Int(c.Value<int16_t>(row), seed);
    case TypeId::kInt32:
    case TypeId::kDate:
      return H::Int(c.Value<int32_t>(row), seed);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return H::Long(c.Value<int64_t>(row), seed);
    case TypeId::kFloat: {
      float f = c.Value<float>(row);
      int32_t bits = 0;
      if (std::isnan(f)) {
        bits = 0x7fc00000;
      } else if (f != 0.0f) {
        std::memcpy(&bits, &f, 4);
      }
      return H::Int(bits, seed);
    }
    case TypeId::kDouble: {
      double d = c.Value<double>(row);
      int64_t bits = 0;
      if (std::isnan(d)) {
        bits = 0x7ff8000000000000LL;
      } else if (d != 0.0) {
        std::memcpy(&bits, &d, 8);
      }
      return H::Long(bits, seed);
    }
    case TypeId::kDecimal: {
      Int128 v = c.Value<Int128>(row);
      if (c.type()->precision() <= 18) return H::Long(static_cast<int64_t>(v), seed);
      char buffer[16];
      return H::Bytes(DecimalBytes(v, buffer), seed);
    }
    case TypeId::kString:
    case TypeId::kBinary:
      return H::Bytes(c.StringAt(row), seed);
    case TypeId::kList: {
      const Column& elements = c.child(0);
      for (int32_t k = c.offsets()[row]; k < c.offsets()[row + 1]; ++k) {
        seed = HashValue<H>(elements, k, seed);
      }
      return seed;
    }
    case TypeId::kMap: {  // rejected by the type rule; Spark's legacy order: key, value, ...
      for (int32_t k = c.offsets()[row]; k < c.offsets()[row + 1]; ++k) {
        seed = HashValue<H>(c.child(0), k, seed);
        seed = HashValue<H>(c.child(1), k, seed);
      }
      return seed;
    }
    case TypeId::kStruct:
      for (int f = 0; f < c.num_children(); ++f) seed = HashValue<H>(c.child(f), row, seed);
      return seed;
  }
  return seed;
}

bool ContainsMap(const DataType& t) {
  if (t.id() == TypeId::kMap) return true;
  for (const columnar::Field& f : t.children()) {
    if (ContainsMap(*f.type)) return true;
  }
  return false;
}

template <bool kXxHash>
Result<TypePtr> HashRule(Args& args) {
  std::string_view function = kXxHash ? "xxhash64" : "hash";
  for (const BoundExprPtr& a : args) {
    if (ContainsMap(*a->type)) {
      return Status::InvalidArgument(
          "[DATATYPE_MISMATCH.HASH_MAP_TYPE] Input to the function `" + std::string(function) +
          "` cannot contain elements of the \"MAP\" type. In Spark, same maps may have different "
          "hashcode, thus hash expressions are prohibited on \"MAP\" elements; got " +
          a->sql + " of type \"" + a->type->ToDdl() + "\"");
    }
  }
  return kXxHash ? DataType::Int64() : DataType::Int32();
}

// hash(...) (Murmur3, INT) and xxhash64(...) (BIGINT) with seed 42: each argument's hash is the
// seed of the next; never NULL.
template <typename H, typename R>
Result<Vector> HashKernel(const KernelInput& in) {
  std::vector<typename H::Seed> seeds(static_cast<size_t>(in.num_rows), 42);
  for (const Vector& v : in.args) {
    const Column& c = v.column();
    TypeId id = c.type_id();
    if (!v.constant() && c.null_count() == 0 && (id == TypeId::kInt32 || id == TypeId::kDate)) {
      const int32_t* values = c.values<int32_t>();
      for (int64_t i = 0; i < in.num_rows; ++i) seeds[i] = H::Int(values[i], seeds[i]);
    } else if (!v.constant() && c.null_count() == 0 &&
               (id == TypeId::kInt64 || id == TypeId::kTimestamp)) {
      const int64_t* values = c.values<int64_t>();
      for (int64_t i = 0; i < in.num_rows; ++i) seeds[i] = H::Long(values[i], seeds[i]);
    } else if (c.type()->is_binary_like()) {
      for (int64_t i = 0; i < in.num_rows; ++i) {
        int64_t row = v.Row(i);
        if (!c.IsNull(row)) seeds[i] = H::Bytes(c.StringAt(row), seeds[i]);
      }
    } else {
      for (int64_t i = 0; i < in.num_rows; ++i) seeds[i] = HashValue<H>(c, v.Row(i), seeds[i]);
    }
  }
  FixedOut<R> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) out.values[i] = static_cast<R>(seeds[i]);
  return out.Finish(AllConstant(in));
}

// ------------------------------------------------------------------ uuid()

// A per-thread SplitMix64 generator, seeded once from std::random_device; each call draws a new
// stream, so rows get distinct version-4 UUIDs without a system call per row.
uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Result<Vector> UuidKernel(const KernelInput& in) {
  thread_local uint64_t state = [] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }();
  uint64_t stream = SplitMix64(&state);
  Column out(in.call.type);
  std::vector<std::string_view>& strings = out.string_buffer();
  strings.resize(static_cast<size_t>(in.num_rows));
  char* text = out.arena().Allocate(static_cast<size_t>(in.num_rows) * 36);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    uint64_t hi = SplitMix64(&stream), lo = SplitMix64(&stream);
    hi = (hi & ~0xF000ull) | 0x4000ull;                         // version 4
    lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // IETF variant
    char* p = text + i * 36;
    int n = 0;
    for (int k = 0; k < 32; ++k) {
      if (k == 8 || k == 12 || k == 16 || k == 20) p[n++] = '-';
      uint64_t word = k < 16 ? hi : lo;
      p[n++] = kHexLower[(word >> (60 - 4 * (k % 16))) & 15];
    }
    strings[i] = std::string_view(p, 36);
  }
  out.SetSize(in.num_rows);
  // With no arguments the evaluator asks for one row; that row stands for the batch only when
  // it was asked for exactly one (see the report on zero-argument functions).
  return Vector::Own(std::move(out), in.num_rows == 1);
}

// ------------------------------------------------------------------ type rules per function

using A = ArgType;

TypePtr String() { return DataType::String(); }
TypePtr Int() { return DataType::Int32(); }

// Function names for rules shared by aliases.
constexpr char kNameUpper[] = "upper";
constexpr char kNameUcase[] = "ucase";
constexpr char kNameLower[] = "lower";
constexpr char kNameLcase[] = "lcase";
constexpr char kNameInitCap[] = "initcap";
constexpr char kNameTrim[] = "trim";
constexpr char kNameLtrim[] = "ltrim";
constexpr char kNameRtrim[] = "rtrim";
constexpr char kNameBtrim[] = "btrim";
constexpr char kNameStartsWith[] = "startswith";
constexpr char kNameEndsWith[] = "endswith";
constexpr char kNameContains[] = "contains";
constexpr char kNameLocate[] = "locate";
constexpr char kNamePosition[] = "position";
constexpr char kNameOctetLength[] = "octet_length";
constexpr char kNameBitLength[] = "bit_length";
constexpr char kNameLeft[] = "left";
constexpr char kNameRight[] = "right";
constexpr char kNameRlike[] = "rlike";
constexpr char kNameRegexp[] = "regexp";
constexpr char kNameRegexpLike[] = "regexp_like";
constexpr char kNameChr[] = "chr";
constexpr char kNameChar[] = "char";
constexpr char kNameSha1[] = "sha1";
constexpr char kNameSha[] = "sha";

// One STRING argument (or several), STRING result.
template <const char* kName>
Result<TypePtr> StringToStringRule(Args& a) {
  return Signature(a, kName, {A::kString}, String());
}
Result<TypePtr> AsciiRule(Args& a) { return Signature(a, "ascii", {A::kString}, Int()); }
template <const char* kName>
Result<TypePtr> ChrRule(Args& a) {
  return Signature(a, kName, {A::kLong}, String());
}
Result<TypePtr> Base64Rule(Args& a) { return Signature(a, "base64", {A::kBinary}, String()); }
Result<TypePtr> UnBase64Rule(Args& a) {
  return Signature(a, "unbase64", {A::kString}, DataType::Binary());
}
Result<TypePtr> UnhexRule(Args& a) {
  return Signature(a, "unhex", {A::kString}, DataType::Binary());
}
template <const char* kName>
Result<TypePtr> PredicateRule(Args& a) {
  return Signature(a, kName, {A::kStringOrBinary}, DataType::Boolean());
}
Result<TypePtr> InstrRule(Args& a) { return Signature(a, "instr", {A::kString}, Int()); }
template <const char* kName>
Result<TypePtr> LocateRule(Args& a) {
  return Signature(a, kName, {A::kString, A::kString, A::kInt}, Int());
}
Result<TypePtr> FindInSetRule(Args& a) { return Signature(a, "find_in_set", {A::kString}, Int()); }
Result<TypePtr> RepeatRule(Args& a) {
  return Signature(a, "repeat", {A::kString, A::kInt}, String());
}
Result<TypePtr> SpaceRule(Args& a) { return Signature(a, "space", {A::kInt}, String()); }
Result<TypePtr> ReplaceRule(Args& a) { return Signature(a, "replace", {A::kString}, String()); }
Result<TypePtr> TranslateRule(Args& a) { return Signature(a, "translate", {A::kString}, String()); }
Result<TypePtr> OverlayRule(Args& a) {
  return Signature(a, "overlay", {A::kString, A::kString, A::kInt}, String());
}
Result<TypePtr> SubstringIndexRule(Args& a) {
  return Signature(a, "substring_index", {A::kString, A::kString, A::kInt}, String());
}
Result<TypePtr> SplitPartRule(Args& a) {
  return Signature(a, "split_part", {A::kString, A::kString, A::kInt}, String());
}
template <const char* kName>
Result<TypePtr> LengthRule(Args& a) {
  return Signature(a, kName, {A::kStringOrBinary}, Int());
}
Result<TypePtr> LevenshteinRule(Args& a) {
  return Signature(a, "levenshtein", {A::kString, A::kString, A::kInt}, Int());
}
Result<TypePtr> SoundexRule(Args& a) { return Signature(a, "soundex", {A::kString}, String()); }
Result<TypePtr> RegexpCountRule(Args& a) {
  WEIR_RETURN_NOT_OK(Signature(a, "regexp_count", {A::kString}, Int()).status());
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(a[1], "regexp_count"));
  return Int();
}
Result<TypePtr> RegexpSubstrRule(Args& a) {
  WEIR_RETURN_NOT_OK(Signature(a, "regexp_substr", {A::kString}, String()).status());
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(a[1], "regexp_substr"));
  return String();
}
Result<TypePtr> RegexpInstrRule(Args& a) {
  WEIR_RETURN_NOT_OK(
      Signature(a, "regexp_instr", {A::kString, A::kString, A::kInt}, Int()).status());
  WEIR_RETURN_NOT_OK(CheckLiteralPattern(a[1], "regexp_instr"));
  return Int();
}
Result<TypePtr> Md5Rule(Args& a) { return Signature(a, "md5", {A::kBinary}, String()); }
template <const char* kName>
Result<TypePtr> Sha1Rule(Args& a) {
  return Signature(a, kName, {A::kBinary}, String());
}
Result<TypePtr> Sha2Rule(Args& a) { return Signature(a, "sha2", {A::kBinary, A::kInt}, String()); }
Result<TypePtr> Crc32Rule(Args& a) {
  return Signature(a, "crc32", {A::kBinary}, DataType::Int64());
}
Result<TypePtr> UuidRule(Args&) { return String(); }

// lpad / rpad: BINARY when str (and pad, if given) are BINARY, else STRING.
template <bool kNameLeft>
Result<TypePtr> PadRule(Args& a) {
  std::string_view function = kNameLeft ? "lpad" : "rpad";
  auto is_binary = [](const BoundExprPtr& e) { return e->type->id() == TypeId::kBinary; };
  if (is_binary(a[0]) && (a.size() < 3 || is_binary(a[2]))) {
    return Signature(a, function, {A::kBinary, A::kInt, A::kBinary}, DataType::Binary());
  }
  return Signature(a, function, {A::kString, A::kInt, A::kString}, String());
}

// left / right: STRING or BINARY, as the first argument.
template <const char* kName>
Result<TypePtr> LeftRightRule(Args& a) {
  WEIR_RETURN_NOT_OK(Signature(a, kName, {A::kStringOrBinary, A::kInt}, String()).status());
  return a[0]->type;
}

// reverse: an ARRAY keeps its type; anything else is a STRING.
Result<TypePtr> ReverseRule(Args& a) {
  if (a[0]->type->id() == TypeId::kList) return a[0]->type;
  return Signature(a, "reverse", {A::kString}, String());
}

// hex: numbers as BIGINT, BINARY and STRING as bytes, other values as their STRING form.
Result<TypePtr> HexRule(Args& a) {
  BoundExprPtr& arg = a[0];
  TypeId id = arg->type->id();
  if (IsNumeric(id)) return Signature(a, "hex", {A::kLong}, String());
  if (id == TypeId::kBinary) return String();
  return Signature(a, "hex", {A::kString}, String());
}

// concat_ws(sep, (STRING | ARRAY<STRING>)...): arrays of atomic values are cast element-wise.
Result<TypePtr> ConcatWsRule(Args& a) {
  WEIR_RETURN_NOT_OK(Coerce("concat_ws", a, 0, A::kString));
  for (size_t i = 1; i < a.size(); ++i) {
    if (a[i]->type->id() == TypeId::kList) {
      if (a[i]->type->element().type->is_nested()) {
        return TypeMismatch("concat_ws", i, "(\"ARRAY<STRING>\" or \"STRING\")", a[i]);
      }
      WEIR_ASSIGN_OR_RETURN(a[i], CastTo(a[i], DataType::List(DataType::String())));
    } else if (a[i]->type->is_nested()) {
      return TypeMismatch("concat_ws", i, "(\"ARRAY<STRING>\" or \"STRING\")", a[i]);
    } else {
      WEIR_RETURN_NOT_OK(Coerce("concat_ws", a, i, A::kString));
    }
  }
  return String();
}

// ------------------------------------------------------------------ the registry

constexpr Function kFunctions[] = {
    // Case.
    {"upper", 1, 1, &StringToStringRule<kNameUpper>, &CaseKernel<true>, false},
    {"ucase", 1, 1, &StringToStringRule<kNameUcase>, &CaseKernel<true>, false},
    {"lower", 1, 1, &StringToStringRule<kNameLower>, &CaseKernel<false>, false},
    {"lcase", 1, 1, &StringToStringRule<kNameLcase>, &CaseKernel<false>, false},
    {"initcap", 1, 1, &StringToStringRule<kNameInitCap>, &InitCapKernel, false},
    // Trimming: trim(str) / trim(trimStr, str); btrim(str[, trimStr]).
    {"trim", 1, 2, &StringToStringRule<kNameTrim>, &TrimKernel<true, true, false>, false},
    {"ltrim", 1, 2, &StringToStringRule<kNameLtrim>, &TrimKernel<true, false, false>, false},
    {"rtrim", 1, 2, &StringToStringRule<kNameRtrim>, &TrimKernel<false, true, false>, false},
    {"btrim", 1, 2, &StringToStringRule<kNameBtrim>, &TrimKernel<true, true, true>, false},
    // Characters and encodings.
    {"ascii", 1, 1, &AsciiRule, &AsciiKernel, false},
    {"chr", 1, 1, &ChrRule<kNameChr>, &ChrKernel, false},
    {"char", 1, 1, &ChrRule<kNameChar>, &ChrKernel, false},
    {"base64", 1, 1, &Base64Rule, &Base64Kernel, false},
    {"unbase64", 1, 1, &UnBase64Rule, &UnBase64Kernel, true},
    {"hex", 1, 1, &HexRule, &HexKernel, false},
    {"unhex", 1, 1, &UnhexRule, &UnhexKernel, true},
    {"octet_length", 1, 1, &LengthRule<kNameOctetLength>, &OctetLengthKernel, false},
    {"bit_length", 1, 1, &LengthRule<kNameBitLength>, &BitLengthKernel, false},
    // Searching.
    {"startswith", 2, 2, &PredicateRule<kNameStartsWith>, &PredicateKernel<Predicate::kStartsWith>,
     false},
    {"endswith", 2, 2, &PredicateRule<kNameEndsWith>, &PredicateKernel<Predicate::kEndsWith>,
     false},
    {"contains", 2, 2, &PredicateRule<kNameContains>, &PredicateKernel<Predicate::kContains>,
     false},
    {"instr", 2, 2, &InstrRule, &InstrKernel, false},
    {"locate", 2, 3, &LocateRule<kNameLocate>, &LocateKernel, false},
    {"position", 2, 3, &LocateRule<kNamePosition>, &LocateKernel, false},
    {"find_in_set", 2, 2, &FindInSetRule, &FindInSetKernel, false},
    {"levenshtein", 2, 3, &LevenshteinRule, &LevenshteinKernel, false},
    {"soundex", 1, 1, &SoundexRule, &SoundexKernel, false},
    // Building strings.
    {"lpad", 2, 3, &PadRule<true>, &PadKernel<true>, false},
    {"rpad", 2, 3, &PadRule<false>, &PadKernel<false>, false},
    {"repeat", 2, 2, &RepeatRule, &RepeatKernel, true},
    {"space", 1, 1, &SpaceRule, &SpaceKernel, false},
    {"reverse", 1, 1, &ReverseRule, &ReverseKernel, false},
    {"left", 2, 2, &LeftRightRule<kNameLeft>, &LeftRightKernel<true>, false},
    {"right", 2, 2, &LeftRightRule<kNameRight>, &LeftRightKernel<false>, false},
    {"replace", 2, 3, &ReplaceRule, &ReplaceKernel, false},
    {"translate", 3, 3, &TranslateRule, &TranslateKernel, false},
    {"overlay", 3, 4, &OverlayRule, &OverlayKernel, false},
    {"substring_index", 3, 3, &SubstringIndexRule, &SubstringIndexKernel, false},
    {"concat_ws", 1, -1, &ConcatWsRule, &ConcatWsKernel, false},
    {"split_part", 3, 3, &SplitPartRule, &SplitPartKernel, true},
    // LIKE and regular expressions (the binder maps LIKE / ILIKE / RLIKE here).
    {"like", 2, 3, &LikeRule<false>, &LikeKernel<false>, true},
    {"ilike", 2, 3, &LikeRule<true>, &LikeKernel<true>, true},
    {"rlike", 2, 2, &RegexBoolRule<kNameRlike>, &RLikeKernel, true},
    {"regexp", 2, 2, &RegexBoolRule<kNameRegexp>, &RLikeKernel, true},
    {"regexp_like", 2, 2, &RegexBoolRule<kNameRegexpLike>, &RLikeKernel, true},
    {"regexp_extract", 2, 3, &RegexpExtractRule, &RegexpExtractKernel<false>, true},
    {"regexp_extract_all", 2, 3, &RegexpExtractAllRule, &RegexpExtractAllKernel, true},
    {"regexp_replace", 3, 4, &RegexpReplaceRule, &RegexpReplaceKernel, true},
    {"regexp_count", 2, 2, &RegexpCountRule, &RegexpCountKernel, true},
    {"regexp_substr", 2, 2, &RegexpSubstrRule, &RegexpExtractKernel<true>, true},
    {"regexp_instr", 2, 3, &RegexpInstrRule, &RegexpInstrKernel, true},
    {"split", 2, 3, &SplitRule, &SplitKernel, true},
    {"str_to_map", 1, 3, &StrToMapRule, &StrToMapKernel, false},
    // Hashes.
    {"md5", 1, 1, &Md5Rule, &DigestKernel<kMd5>, false},
    {"sha1", 1, 1, &Sha1Rule<kNameSha1>, &DigestKernel<kSha1>, false},
    {"sha", 1, 1, &Sha1Rule<kNameSha>, &DigestKernel<kSha1>, false},
    {"sha2", 2, 2, &Sha2Rule, &Sha2Kernel, true},
    {"crc32", 1, 1, &Crc32Rule, &Crc32Kernel, false},
    {"hash", 1, -1, &HashRule<false>, &HashKernel<Murmur3, int32_t>, false},
    {"xxhash64", 1, -1, &HashRule<true>, &HashKernel<XxHash64, int64_t>, false},
    {"uuid", 0, 0, &UuidRule, &UuidKernel, false},
};

}  // namespace

std::span<const Function> StringFunctions() { return kFunctions; }

}  // namespace weir::expr
