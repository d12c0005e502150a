#include "sql/lexer.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::sql {
namespace {

std::vector<Token> Lex(std::string_view text) {
  auto r = Tokenize(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<Token>{};
}

TEST(LexerTest, IdentifiersKeepCaseAndBackquotes) {
  auto t = Lex("SELECT `kafka.sasl.mechanism`, e.event_id, `a``b` FROM x");
  ASSERT_EQ(t.size(), 11u);
  EXPECT_TRUE(t[0].IsKeyword("select"));
  EXPECT_EQ(t[1].kind, TokenKind::kIdentifier);
  EXPECT_EQ(t[1].text, "kafka.sasl.mechanism");
  EXPECT_TRUE(t[1].quoted);
  EXPECT_FALSE(t[1].IsKeyword("kafka.sasl.mechanism"));
  EXPECT_EQ(t[3].text, "e");
  EXPECT_TRUE(t[4].IsOperator("."));
  EXPECT_EQ(t[5].text, "event_id");
  EXPECT_EQ(t[7].text, "a`b");
  EXPECT_EQ(t[10].kind, TokenKind::kEnd);
}

TEST(LexerTest, StringEscapesFollowSpark) {
  auto t = Lex(R"('it\'s' "dq\n" '\u00e9\t' '\101' r'C:\raw' X'0aFF' 'a\%b')");
  ASSERT_EQ(t.size(), 8u);
  EXPECT_EQ(t[0].text, "it's");
  EXPECT_EQ(t[1].text, "dq\n");
  EXPECT_EQ(t[2].text, "\xC3\xA9\t");
  EXPECT_EQ(t[3].text, "A");
  EXPECT_EQ(t[4].text, "C:\\raw");
  EXPECT_EQ(t[5].kind, TokenKind::kBinaryString);
  EXPECT_EQ(t[5].text, std::string("\x0a\xff", 2));
  EXPECT_EQ(t[6].text, "a\\%b");  // kept for LIKE
}

TEST(LexerTest, NumbersAndSuffixes) {
  auto t = Lex("1 2L 3.50 .5 1e3 1.5D 2f 7BD 10S 1Y 2024_orders");
  ASSERT_EQ(t.size(), 12u);
  EXPECT_EQ(t[0].kind, TokenKind::kNumber);
  EXPECT_EQ(t[1].suffix, "L");
  EXPECT_EQ(t[1].text, "2");
  EXPECT_TRUE(t[2].has_point);
  EXPECT_EQ(t[2].text, "3.50");
  EXPECT_EQ(t[3].text, ".5");
  EXPECT_TRUE(t[4].has_exponent);
  EXPECT_EQ(t[5].suffix, "D");
  EXPECT_EQ(t[6].suffix, "F");
  EXPECT_EQ(t[7].suffix, "BD");
  EXPECT_EQ(t[8].suffix, "S");
  EXPECT_EQ(t[9].suffix, "Y");
  EXPECT_EQ(t[10].kind, TokenKind::kIdentifier);  // identifiers may start with digits
  EXPECT_EQ(t[10].text, "2024_orders");
}

TEST(LexerTest, OperatorsLongestFirst) {
  auto t = Lex("a=>b::int<=>c||d<>e!=f>=g->h:i");
  std::vector<std::string> ops;
  for (const Token& tok : t) {
    if (tok.kind == TokenKind::kOperator) ops.push_back(tok.text);
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"=>", "::", "<=>", "||", "<>", "!=", ">=", "->", ":"}));
}

TEST(LexerTest, CommentsAndLocations) {
  auto t = Lex("-- header\nSELECT /* a /* nested */ comment */ x,\n  é_col");
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].location.line, 2);
  EXPECT_EQ(t[0].location.column, 1);
  EXPECT_EQ(t[1].text, "x");
  EXPECT_EQ(t[1].location.column, 37);
  EXPECT_EQ(t[3].location.line, 3);
  EXPECT_EQ(t[3].location.column, 3);
  EXPECT_EQ(t[3].text, "é_col");
}

TEST(LexerTest, ErrorsCarryLineAndColumn) {
  auto r = Tokenize("SELECT\n  'abc");
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(), "line 2, column 3: unterminated string literal");
  r = Tokenize("x /* open");
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(), "line 1, column 3: unterminated /* comment");
  ASSERT_STATUS_CODE(kInvalidArgument, Tokenize("`abc"));
  ASSERT_STATUS_CODE(kInvalidArgument, Tokenize("X'0g'"));
  ASSERT_STATUS_CODE(kInvalidArgument, Tokenize("'\\u12'"));
  ASSERT_STATUS_CODE(kInvalidArgument, Tokenize("1.5x"));
  // Characters that start no token are left to the parser.
  auto t = Lex("a @ b");
  EXPECT_TRUE(t[1].IsOperator("@"));
}

TEST(LexerTest, SourceMapPointsIntoTheOriginal) {
  std::string original = "SELECT ${col}\nFROM t";
  SourceMap map(original);
  // Lexed text: "SELECT abc\nFROM t": "SELECT " copied, "abc" from ${col}, rest copied.
  map.AddSegment(0, 7, 0, true);
  map.AddSegment(7, 3, 7, false);
  map.AddSegment(10, 7, 13, true);
  EXPECT_EQ(map.Locate(8).ToString(), "line 1, column 8");  // inside the value: at ${
  EXPECT_EQ(map.Locate(11).ToString(), "line 2, column 1");
  EXPECT_EQ(map.Locate(16).ToString(), "line 2, column 6");
}

TEST(LexerTest, Quoting) {
  EXPECT_EQ(QuoteIdentifier("event_id"), "event_id");
  EXPECT_EQ(QuoteIdentifier("kafka.bootstrap"), "`kafka.bootstrap`");
  EXPECT_EQ(QuoteIdentifier("a`b"), "`a``b`");
  EXPECT_EQ(QuoteString("it's\n"), "'it\\'s\\n'");
}

}  // namespace
}  // namespace weir::sql
