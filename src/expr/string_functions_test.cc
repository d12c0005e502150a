// Tests of string_functions.cc beyond the SQL logic tests (tests/sql/strings.test, regex.test,
// hash.test): LIKE against a regular-expression oracle on random inputs, pattern columns that
// change from row to row, the column-at-a-time hash paths, and uuid() over many rows.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "base/testing.h"
#include "expr/binder.h"
#include "expr/functions.h"
#include "sql/parser.h"

namespace weir::expr {
namespace {

using columnar::Batch;
using columnar::Column;
using columnar::DataType;

constexpr int64_t kBatchTime = 1780909200LL * 1000000;

Result<Column> EvaluateText(const Batch& batch, std::string_view text) {
  WEIR_ASSIGN_OR_RETURN(sql::ExprPtr e, sql::ParseExpression(text));
  WEIR_ASSIGN_OR_RETURN(BoundExprPtr bound, Binder(batch.schema, {}).Bind(*e));
  EvalContext context;
  context.StartBatch(batch.num_rows(), kBatchTime);
  WEIR_ASSIGN_OR_RETURN(Column out, Evaluate(*bound, batch, context));
  if (context.row_errors.count() > 0) {
    return Status::InvalidArgument(std::string(context.row_errors.first_message()));
  }
  return out;
}

Batch StringBatch(const std::vector<std::string>& s, const std::vector<std::string>& p) {
  Batch batch(*columnar::ParseDdlSchema("s STRING, p STRING"));
  for (size_t i = 0; i < s.size(); ++i) {
    batch.columns[0].AppendString(s[i]);
    batch.columns[1].AppendString(p[i]);
  }
  return batch;
}

// A LIKE pattern (escape '\') as an anchored, dot-all regular expression.
std::string LikeToRegex(std::string_view like) {
  std::string out = "(?s)\\A";
  for (size_t i = 0; i < like.size(); ++i) {
    char c = like[i];
    if (c == '\\' && i + 1 < like.size()) {
      out += "\\Q";
      out += like[++i];
      out += "\\E";
    } else if (c == '%') {
      out += ".*";
    } else if (c == '_') {
      out += ".";
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      out.push_back(c);  // part of a multi-byte character, never a metacharacter
    } else {
      out += "\\Q";
      out.push_back(c);
      out += "\\E";
    }
  }
  return out + "\\z";
}

TEST(LikeTest, AgreesWithARegularExpressionOnRandomInputs) {
  std::mt19937 random(7);
  const std::vector<std::string> text_pieces = {"a", "b", "é", "%", "_", "\n", "ab"};
  const std::vector<std::string> pattern_pieces = {"a", "b", "é", "%", "_", "\\%", "\\_", "ab"};
  auto make = [&](const std::vector<std::string>& pieces, int max_length) {
    std::string out;
    int n = static_cast<int>(random() % (max_length + 1));
    for (int k = 0; k < n; ++k) out += pieces[random() % pieces.size()];
    return out;
  };
  std::vector<std::string> texts, patterns;
  for (int i = 0; i < 4000; ++i) {
    texts.push_back(make(text_pieces, 8));
    patterns.push_back(make(pattern_pieces, 6));
  }
  Batch batch(*columnar::ParseDdlSchema("s STRING, p STRING, r STRING"));
  for (size_t i = 0; i < texts.size(); ++i) {
    batch.columns[0].AppendString(texts[i]);
    batch.columns[1].AppendString(patterns[i]);
    batch.columns[2].AppendString(LikeToRegex(patterns[i]));
  }

  ASSERT_OK_AND_ASSIGN(Column like, EvaluateText(batch, "s LIKE p"));
  ASSERT_OK_AND_ASSIGN(Column regex, EvaluateText(batch, "s RLIKE r"));
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    ASSERT_EQ(like.Value<bool>(i), regex.Value<bool>(i))
        << "'" << texts[i] << "' LIKE '" << patterns[i] << "' (regex " << LikeToRegex(patterns[i])
        << ")";
  }
  // The same patterns as constants.
  auto quote = [](std::string_view text) {
    std::string out = "'";
    for (char c : text) {
      if (c == '\\' || c == '\'') out.push_back('\\');
      out.push_back(c);
    }
    return out + "'";
  };
  for (int k = 0; k < 40; ++k) {
    const std::string& p = patterns[k];
    ASSERT_OK_AND_ASSIGN(Column constant, EvaluateText(batch, "s LIKE " + quote(p)));
    ASSERT_OK_AND_ASSIGN(Column oracle, EvaluateText(batch, "s RLIKE " + quote(LikeToRegex(p))));
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      ASSERT_EQ(constant.Value<bool>(i), oracle.Value<bool>(i)) << texts[i] << " LIKE " << p;
    }
  }
}

TEST(RegexTest, PatternColumnsCycleThroughMoreThanTheCacheHolds) {
  std::vector<std::string> texts, patterns;
  for (int i = 0; i < 300; ++i) {
    int k = i % 50;  // 50 distinct patterns, more than the per-thread cache keeps
    std::string number = std::to_string(k);
    texts.push_back(std::string("x").append(number).append("y"));
    patterns.push_back(std::string("^x").append(number).append("y$"));
  }
  patterns[7] = "^x1y$";  // a row whose pattern does not match its text
  Batch batch = StringBatch(texts, patterns);
  ASSERT_OK_AND_ASSIGN(Column match, EvaluateText(batch, "s RLIKE p"));
  ASSERT_OK_AND_ASSIGN(Column replaced, EvaluateText(batch, "regexp_replace(s, p, 'ok')"));
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    EXPECT_EQ(match.Value<bool>(i), i != 7) << i;
    EXPECT_EQ(replaced.StringAt(i), i != 7 ? "ok" : texts[i]) << i;
  }
}

TEST(RegexTest, InvalidPatternInAColumnMarksOnlyThatRow) {
  Batch batch = StringBatch({"abc", "abc", "abc"}, {"b", "(b", "c$"});
  ASSERT_OK_AND_ASSIGN(sql::ExprPtr e, sql::ParseExpression("regexp_extract(s, p, 0)"));
  ASSERT_OK_AND_ASSIGN(BoundExprPtr bound, Binder(batch.schema, {}).Bind(*e));
  EvalContext context;
  context.StartBatch(batch.num_rows(), kBatchTime);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*bound, batch, context));
  EXPECT_EQ(out.StringAt(0), "b");
  EXPECT_TRUE(out.IsNull(1));
  EXPECT_EQ(out.StringAt(2), "c");
  EXPECT_EQ(context.row_errors.count(), 1);
  EXPECT_TRUE(context.row_errors.IsMarked(1));
  EXPECT_NE(context.row_errors.Reason(1).find("`regexp_extract` is invalid: '(b'"),
            std::string_view::npos);
}

TEST(HashTest, ColumnPathsAgreeWithConstants) {
  Batch batch(*columnar::ParseDdlSchema("i INT, l BIGINT, s STRING, d DOUBLE"));
  std::vector<int32_t> ints = {0, 1, -1, 123, 2147483647};
  for (size_t k = 0; k < ints.size(); ++k) {
    batch.columns[0].Append<int32_t>(ints[k]);
    batch.columns[1].Append<int64_t>(static_cast<int64_t>(ints[k]) * 1000003);
    batch.columns[2].AppendString(std::string(k * 3, 'x'));
    batch.columns[3].Append<double>(ints[k] / 7.0);
  }
  ASSERT_OK_AND_ASSIGN(Column column_hash, EvaluateText(batch, "hash(i, l, s, d)"));
  ASSERT_OK_AND_ASSIGN(Column column_xx, EvaluateText(batch, "xxhash64(i, l, s, d)"));
  for (size_t k = 0; k < ints.size(); ++k) {
    Batch one(*columnar::ParseDdlSchema("d DOUBLE"));
    one.columns[0].Append<double>(ints[k] / 7.0);
    std::string args = std::to_string(ints[k]) + ", " +
                       std::to_string(static_cast<int64_t>(ints[k]) * 1000003) + "L, '" +
                       std::string(k * 3, 'x') + "', d";
    ASSERT_OK_AND_ASSIGN(Column h, EvaluateText(one, "hash(" + args + ")"));
    ASSERT_OK_AND_ASSIGN(Column x, EvaluateText(one, "xxhash64(" + args + ")"));
    EXPECT_EQ(column_hash.Value<int32_t>(k), h.Value<int32_t>(0)) << k;
    EXPECT_EQ(column_xx.Value<int64_t>(k), x.Value<int64_t>(0)) << k;
  }
}

TEST(UuidTest, EveryRowGetsADistinctVersion4Uuid) {
  const Function* uuid = FindFunction("uuid");
  ASSERT_NE(uuid, nullptr);
  BoundExpr call;
  call.kind = BoundExpr::Kind::kCall;
  call.type = DataType::String();
  call.function = uuid;
  EvalContext context;
  context.StartBatch(1000, kBatchTime);
  std::vector<Vector> no_args;
  KernelInput input{call, std::span<Vector>(no_args), 1000, context};
  ASSERT_OK_AND_ASSIGN(Vector out, uuid->kernel(input));
  EXPECT_FALSE(out.constant());
  std::set<std::string> seen;
  for (int64_t i = 0; i < 1000; ++i) {
    std::string_view u = out.column().StringAt(i);
    ASSERT_EQ(u.size(), 36u);
    EXPECT_EQ(u[8], '-');
    EXPECT_EQ(u[14], '4');
    EXPECT_NE(std::string_view("89ab").find(u[19]), std::string_view::npos) << u;
    for (char c : u) EXPECT_TRUE(c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    seen.emplace(u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace weir::expr
