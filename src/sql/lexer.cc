#include "sql/lexer.h"

#include "columnar/text_format.h"

#include <algorithm>

namespace weir::sql {

namespace {

bool IsIdentifierStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsIdentifierChar(unsigned char c) { return IsIdentifierStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<size_t> LineStarts(std::string_view text) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  return starts;
}

Location LocateWithStarts(std::string_view text, const std::vector<size_t>& starts, size_t offset) {
  offset = std::min(offset, text.size());
  auto it = std::upper_bound(starts.begin(), starts.end(), offset);
  size_t line_index = static_cast<size_t>(it - starts.begin()) - 1;
  int column = 1;
  for (size_t i = starts[line_index]; i < offset; ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
  }
  return Location{static_cast<int>(line_index) + 1, column};
}


class Lexer {
 public:
  Lexer(std::string_view text, const SourceMap* map)
      : text_(text), map_(map), line_starts_(map ? std::vector<size_t>() : LineStarts(text)) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    while (true) {
      WEIR_RETURN_NOT_OK(SkipSpaceAndComments());
      Token token;
      token.offset = pos_;
      token.location = Locate(pos_);
      if (pos_ >= text_.size()) {
        token.kind = TokenKind::kEnd;
        tokens.push_back(std::move(token));
        return tokens;
      }
      WEIR_RETURN_NOT_OK(Next(&token));
      token.length = pos_ - token.offset;
      tokens.push_back(std::move(token));
    }
  }

 private:
  Location Locate(size_t offset) const {
    return map_ ? map_->Locate(offset) : LocateWithStarts(text_, line_starts_, offset);
  }

  Status Error(size_t offset, std::string_view what) const {
    return Status::InvalidArgument(Locate(offset).ToString() + ": " + std::string(what));
  }

  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  Status SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '-' && Peek(1) == '-') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && Peek(1) == '*') {
        size_t start = pos_;
        pos_ += 2;
        int depth = 1;  // Spark allows nested bracketed comments
        while (depth > 0) {
          if (pos_ + 1 >= text_.size()) {
            return Error(start, "unterminated /* comment");
          }
          if (text_[pos_] == '*' && text_[pos_ + 1] == '/') {
            --depth;
            pos_ += 2;
          } else if (text_[pos_] == '/' && text_[pos_ + 1] == '*') {
            ++depth;
            pos_ += 2;
          } else {
            ++pos_;
          }
        }
      } else {
        break;
      }
    }
    return Status::OK();
  }

  Status Next(Token* token) {
    char c = text_[pos_];
    // r'raw' and X'hex' prefixes.
    if ((c == 'r' || c == 'R') && (Peek(1) == '\'' || Peek(1) == '"')) {
      ++pos_;
      token->quoted = true;
      return LexString(token, /*raw=*/true);
    }
    if ((c == 'x' || c == 'X') && Peek(1) == '\'') {
      ++pos_;
      return LexHex(token);
    }
    if (c == '\'' || c == '"') return LexString(token, /*raw=*/false);
    if (c == '`') return LexBackquoted(token);
    if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) return LexNumber(token);
    if (IsIdentifierStart(static_cast<unsigned char>(c))) {
      size_t start = pos_;
      while (pos_ < text_.size() && IsIdentifierChar(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      token->kind = TokenKind::kIdentifier;
      token->text = std::string(text_.substr(start, pos_ - start));
      return Status::OK();
    }
    return LexOperator(token);
  }

  Status LexOperator(Token* token) {
    static constexpr std::string_view kThree[] = {"<=>"};
    static constexpr std::string_view kTwo[] = {"==", "!=", "<>", "<=", ">=", "||", "::", "=>", "->"};
    static constexpr std::string_view kOne = "()[],;.*+-/%=<>|&^~!:{}";
    std::string_view rest = text_.substr(pos_);
    token->kind = TokenKind::kOperator;
    for (std::string_view op : kThree) {
      if (rest.substr(0, op.size()) == op) {
        token->text = std::string(op);
        pos_ += op.size();
        return Status::OK();
      }
    }
    for (std::string_view op : kTwo) {
      if (rest.substr(0, op.size()) == op) {
        token->text = std::string(op);
        pos_ += op.size();
        return Status::OK();
      }
    }
    if (kOne.find(rest[0]) != std::string_view::npos) {
      token->text = std::string(1, rest[0]);
      ++pos_;
      return Status::OK();
    }
    // Anything else is a one-character token the parser rejects with its location ("near '@'").
    token->text = std::string(1, rest[0]);
    ++pos_;
    return Status::OK();
  }

  Status LexNumber(Token* token) {
    size_t start = pos_;
    token->kind = TokenKind::kNumber;
    while (IsDigit(Peek())) ++pos_;
    if (Peek() == '.' && (IsDigit(Peek(1)) || !IsIdentifierStart(static_cast<unsigned char>(Peek(1))) ||
                          Peek(1) == 'e' || Peek(1) == 'E' || Peek(1) == 'd' || Peek(1) == 'D' ||
                          Peek(1) == 'f' || Peek(1) == 'F' || Peek(1) == 'b' || Peek(1) == 'B')) {
      token->has_point = true;
      ++pos_;
      while (IsDigit(Peek())) ++pos_;
    }
    if ((Peek() == 'e' || Peek() == 'E') &&
        (IsDigit(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigit(Peek(2))))) {
      token->has_exponent = true;
      pos_ += 2;
      while (IsDigit(Peek())) ++pos_;
    }
    size_t digits_end = pos_;
    // Suffixes.
    char s = Peek();
    if ((s == 'b' || s == 'B') && (Peek(1) == 'd' || Peek(1) == 'D')) {
      token->suffix = "BD";
      pos_ += 2;
    } else if (s == 'l' || s == 'L' || s == 's' || s == 'S' || s == 'y' || s == 'Y' || s == 'd' ||
               s == 'D' || s == 'f' || s == 'F') {
      token->suffix = std::string(1, static_cast<char>(s & ~0x20));
      ++pos_;
    }
    if (pos_ < text_.size() && IsIdentifierChar(static_cast<unsigned char>(text_[pos_])) &&
        !token->has_point && !token->has_exponent) {
      // Spark identifiers may start with digits: "1a", "2024_orders".
      while (pos_ < text_.size() && IsIdentifierChar(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      token->kind = TokenKind::kIdentifier;
      token->text = std::string(text_.substr(start, pos_ - start));
      token->suffix.clear();
      return Status::OK();
    }
    if (pos_ < text_.size() && IsIdentifierChar(static_cast<unsigned char>(text_[pos_]))) {
      return Error(start, "malformed number '" +
                              std::string(text_.substr(start, pos_ + 1 - start)) + "'");
    }
    bool integral_suffix = token->suffix == "L" || token->suffix == "S" || token->suffix == "Y";
    if (integral_suffix && (token->has_point || token->has_exponent)) {
      return Error(start, "malformed number '" + std::string(text_.substr(start, pos_ - start)) +
                              "': the " + token->suffix + " suffix needs an integer");
    }
    token->text = std::string(text_.substr(start, digits_end - start));
    return Status::OK();
  }

  Status LexBackquoted(Token* token) {
    size_t start = pos_;
    ++pos_;
    token->kind = TokenKind::kIdentifier;
    token->quoted = true;
    while (true) {
      if (pos_ >= text_.size()) return Error(start, "unterminated `quoted identifier`");
      char c = text_[pos_++];
      if (c == '`') {
        if (Peek() == '`') {  // `` is a literal backquote
          token->text.push_back('`');
          ++pos_;
          continue;
        }
        break;
      }
      token->text.push_back(c);
    }
    if (token->text.empty()) return Error(start, "empty `quoted identifier`");
    return Status::OK();
  }

  Status LexHex(Token* token) {
    size_t start = pos_ - 1;
    ++pos_;  // the quote
    token->kind = TokenKind::kBinaryString;
    std::string digits;
    while (true) {
      if (pos_ >= text_.size()) return Error(start, "unterminated X'...' literal");
      char c = text_[pos_++];
      if (c == '\'') break;
      if (HexValue(c) < 0) return Error(pos_ - 1, "X'...' literal holds a non-hex character");
      digits.push_back(c);
    }
    if (digits.size() % 2 == 1) digits.insert(digits.begin(), '0');  // Spark pads on the left
    for (size_t i = 0; i < digits.size(); i += 2) {
      token->text.push_back(static_cast<char>(HexValue(digits[i]) * 16 + HexValue(digits[i + 1])));
    }
    return Status::OK();
  }

  // Spark's unescapeSQLString rules: \' \" \\ \n \t \r \b \0 \Z, \uXXXX, octal \ooo; \% and \_
  // keep their backslash (for LIKE); any other \c is c.
  Status LexString(Token* token, bool raw) {
    size_t start = raw ? pos_ - 1 : pos_;
    char quote = text_[pos_++];
    token->kind = TokenKind::kString;
    std::string& out = token->text;
    while (true) {
      if (pos_ >= text_.size()) return Error(start, "unterminated string literal");
      char c = text_[pos_++];
      if (c == quote) break;
      if (c != '\\' || raw) {  // raw strings keep every character as written
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return Error(start, "unterminated string literal");
      char e = text_[pos_++];
      switch (e) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'b': out.push_back('\b'); break;
        case 'Z': out.push_back('\x1A'); break;
        case '%': out.append("\\%"); break;
        case '_': out.append("\\_"); break;
        case 'u': {
          uint32_t cp = 0;
          for (int i = 0; i < 4; ++i) {
            int h = HexValue(Peek());
            if (h < 0) return Error(pos_, "\\u escape needs four hex digits");
            cp = cp * 16 + h;
            ++pos_;
          }
          columnar::AppendUtf8(cp, &out);
          break;
        }
        default:
          if (e >= '0' && e <= '3' && Peek() >= '0' && Peek() <= '7' && Peek(1) >= '0' &&
              Peek(1) <= '7') {
            out.push_back(static_cast<char>((e - '0') * 64 + (Peek() - '0') * 8 + (Peek(1) - '0')));
            pos_ += 2;
          } else if (e == '0') {
            out.push_back('\0');
          } else {
            out.push_back(e);
          }
      }
    }
    return Status::OK();
  }

  std::string_view text_;
  const SourceMap* map_;
  std::vector<size_t> line_starts_;
  size_t pos_ = 0;
};

}  // namespace

std::string Location::ToString() const {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

bool Token::IsKeyword(std::string_view keyword) const {
  if (kind != TokenKind::kIdentifier || quoted || text.size() != keyword.size()) return false;
  for (size_t i = 0; i < keyword.size(); ++i) {
    char a = text[i], b = keyword[i];
    if (a >= 'a' && a <= 'z') a = static_cast<char>(a - 32);
    if (b >= 'a' && b <= 'z') b = static_cast<char>(b - 32);
    if (a != b) return false;
  }
  return true;
}

void SourceMap::AddSegment(size_t from, size_t length, size_t original_offset, bool copied) {
  segments_.push_back(Segment{from, length, original_offset, copied});
}

Location SourceMap::Locate(size_t offset) const {
  if (line_starts_.empty()) line_starts_ = LineStarts(original_);
  size_t original_offset = offset;
  if (!segments_.empty()) {
    auto it = std::upper_bound(segments_.begin(), segments_.end(), offset,
                               [](size_t o, const Segment& s) { return o < s.from; });
    if (it == segments_.begin()) {
      original_offset = offset;
    } else {
      const Segment& s = *(it - 1);
      size_t delta = offset - s.from;
      if (!s.copied) {
        original_offset = s.original_offset;
      } else {
        original_offset = s.original_offset + delta;  // also covers offsets past the last segment
      }
    }
  }
  return LocateWithStarts(original_, line_starts_, original_offset);
}

Location LocateOffset(std::string_view text, size_t offset) {
  return LocateWithStarts(text, LineStarts(text), offset);
}

Result<std::vector<Token>> Tokenize(std::string_view text, const SourceMap* map) {
  return Lexer(text, map).Run();
}

std::string QuoteIdentifier(std::string_view name) {
  bool plain = !name.empty() && IsIdentifierStart(static_cast<unsigned char>(name[0]));
  for (char c : name) {
    if (!IsIdentifierChar(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) {
      plain = false;
    }
  }
  if (plain) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  out.push_back('`');
  return out;
}

std::string QuoteString(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    switch (c) {
      case '\'': out.append("\\'"); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\t': out.append("\\t"); break;
      case '\r': out.append("\\r"); break;
      default: out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

}  // namespace weir::sql
