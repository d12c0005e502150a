// Lexer for weir's pipeline SQL with Spark's lexical rules: identifiers (plain, `backquoted`),
// strings ('..' / ".." with backslash escapes, r'raw', X'hex'), numbers with Spark's suffixes,
// operators, -- and nested /* */ comments. Tokens carry byte offset, line and column (UTF-8
// characters). Keywords are identifiers the parser matches case-insensitively, so Spark's
// non-reserved words (partition, offset, timestamp) stay usable as names. Pure, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace weir::sql {

// A 1-based position in the source text; line 0 means unknown.
struct Location {
  int line = 0;
  int column = 0;

  // "line 3, column 14".
  std::string ToString() const;
};

enum class TokenKind : uint8_t {
  kIdentifier,      // text = the name (unescaped for backquoted ones)
  kString,          // text = the value, escapes processed
  kBinaryString,    // X'..': text = the decoded bytes
  kNumber,          // text = the digits as written, without suffix; see suffix
  kOperator,        // text = the operator: ( ) [ ] , ; . * + - / % = == != <> < <= > >= <=> || | & ^
                    // ~ ! : :: => -> { }, or any other single character
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  // kIdentifier: written in backquotes (never a keyword). kString: raw r'..' literal.
  bool quoted = false;
  // kNumber: upper-cased suffix ("", "L", "S", "Y", "D", "F", "BD"); has_point / has_exponent say
  // whether the digits contain '.' or an exponent.
  std::string suffix;
  bool has_point = false;
  bool has_exponent = false;
  size_t offset = 0;  // byte offset of the first character
  size_t length = 0;  // bytes in the source, quotes included
  Location location;

  bool IsOperator(std::string_view op) const { return kind == TokenKind::kOperator && text == op; }
  // True for an unquoted identifier equal to `keyword`, ignoring case.
  bool IsKeyword(std::string_view keyword) const;
};

// Maps byte offsets of the text being lexed back to a location a user can find. By default the
// text is the user's; the pipeline parser supplies a map when `${var}` substitution changed it.
class SourceMap {
 public:
  SourceMap() = default;
  // `text` is the source exactly as the user wrote it.
  explicit SourceMap(std::string_view text) : original_(text) {}

  // Records that bytes [from, from + length) of the lexed text came from the original text at
  // `original_offset` (substituted values: all bytes map to the `${` that produced them; pass
  // copied = false). Segments must be added in increasing `from` order.
  void AddSegment(size_t from, size_t length, size_t original_offset, bool copied);
  // Location of byte `offset` of the lexed text in the original text (identity when no segment
  // was added).
  Location Locate(size_t offset) const;

 private:
  struct Segment {
    size_t from;
    size_t length;
    size_t original_offset;
    bool copied;
  };
  std::string_view original_;
  std::vector<Segment> segments_;
  // Line starts of original_, computed on first use.
  mutable std::vector<size_t> line_starts_;
};

// Location of byte `offset` in `text` (1-based line and UTF-8 character column).
Location LocateOffset(std::string_view text, size_t offset);

// Splits `text` into tokens ending with a kEnd token. `map` (optional, must outlive the call)
// translates offsets for locations. Errors: InvalidArgument "line L, column C: <what>" for an
// unterminated string, comment or backquote, or a bad escape. A character that starts no token
// ('@', '$', '?') becomes a one-character kOperator token for the parser to reject in context.
Result<std::vector<Token>> Tokenize(std::string_view text, const SourceMap* map = nullptr);

// `name` quoted for SQL when needed: plain identifiers as is, others in backquotes.
std::string QuoteIdentifier(std::string_view name);
// `value` as a SQL string literal: 'it\'s'.
std::string QuoteString(std::string_view value);

}  // namespace weir::sql
