#include <gtest/gtest.h>

#include "base/testing.h"
#include "expr/binder.h"
#include "expr/cast.h"
#include "expr/evaluator.h"
#include "sql/parser.h"

namespace weir::expr {
namespace {

using columnar::Batch;
using columnar::Column;
using columnar::TypeId;

Result<BoundExprPtr> BindText(const columnar::Schema& schema, std::string_view text) {
  WEIR_ASSIGN_OR_RETURN(sql::ExprPtr e, sql::ParseExpression(text));
  return Binder(schema).Bind(*e);
}

std::string Text(const Column& c, int64_t row) {
  if (c.IsNull(row)) return "NULL";
  std::string out;
  AppendCastString(c, row, &out);
  return out;
}

// The Kafka source's columns with includeHeaders (stream/kafka_rows.h KafkaSourceSchema(true)).
constexpr std::string_view kKafkaSchema =
    "key BINARY, value BINARY, topic STRING, `partition` INT, `offset` BIGINT, "
    "`timestamp` TIMESTAMP, timestampType INT, headers ARRAY<STRUCT<key: STRING, value: BINARY>>";

// Seed 000 step 4: F.map_from_entries(F.transform("headers",
//     lambda h: F.struct(h.key, h.value.cast("string")))).alias("properties")
constexpr std::string_view kPropertiesExpr =
    "map_from_entries(transform(headers, h -> struct(h.key, CAST(h.value AS STRING))))";

TEST(CollectionFunctionsTest, KafkaHeadersBecomeThePropertiesMap) {
  ASSERT_OK_AND_ASSIGN(columnar::Schema schema, columnar::ParseDdlSchema(kKafkaSchema));
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e, BindText(schema, kPropertiesExpr));
  EXPECT_EQ(e->type->ToDdl(), "MAP<STRING, STRING>");
  const BoundExpr& transform = *e->children[0];
  ASSERT_EQ(transform.children.size(), 2u);
  const BoundExpr& lambda = *transform.children[1];
  EXPECT_EQ(lambda.kind, BoundExpr::Kind::kLambda);
  EXPECT_EQ(lambda.index, 1);                // one parameter
  EXPECT_EQ(lambda.children.size(), 1u);     // the body; nothing captured
  EXPECT_EQ(lambda.type->ToDdl(), "STRUCT<key: STRING, col2: STRING>");

  // Header bytes live in one buffer, as librdkafka hands them over.
  auto buffer = std::make_shared<std::string>("sourcewebtraceabc-1");
  std::string_view all(*buffer);
  Batch batch(schema);
  Column& headers = batch.columns[7];
  Column& header = headers.mutable_child(0);
  header.mutable_child(0).AppendStringView(all.substr(0, 6));   // source
  header.mutable_child(1).AppendStringView(all.substr(6, 3));   // web
  header.AppendStructEntry();
  header.mutable_child(0).AppendStringView(all.substr(9, 5));   // trace
  header.mutable_child(1).AppendStringView(all.substr(14, 5));  // abc-1
  header.AppendStructEntry();
  headers.AppendListEntry();
  headers.AppendNull();  // a record without headers
  headers.AppendListEntry();  // an empty list
  headers.AddBufferOwner(buffer);
  for (int c = 0; c < 7; ++c) {
    for (int r = 0; r < 3; ++r) batch.columns[c].AppendNull();
  }
  EvalContext context;
  context.StartBatch(3, 0);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*e, batch, context));
  batch = Batch();  // the map keeps the header bytes alive
  ASSERT_EQ(out.size(), 3);
  EXPECT_EQ(Text(out, 0), "{source -> web, trace -> abc-1}");
  EXPECT_EQ(Text(out, 1), "NULL");
  EXPECT_EQ(Text(out, 2), "{}");
  EXPECT_EQ(out.child(0).StringAt(1).data(), buffer->data() + 9);   // keys are not copied
  EXPECT_EQ(out.child(1).StringAt(1).data(), buffer->data() + 14);  // nor are values
  EXPECT_EQ(context.row_errors.count(), 0);
}

TEST(CollectionFunctionsTest, DuplicateHeaderKeysKeepTheLastValueAndMarkTheRow) {
  ASSERT_OK_AND_ASSIGN(columnar::Schema schema, columnar::ParseDdlSchema(kKafkaSchema));
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e, BindText(schema, kPropertiesExpr));
  Batch batch(schema);
  Column& headers = batch.columns[7];
  Column& header = headers.mutable_child(0);
  for (const char* v : {"1", "2"}) {
    header.mutable_child(0).AppendString("k");
    header.mutable_child(1).AppendString(v);
    header.AppendStructEntry();
  }
  headers.AppendListEntry();
  for (int c = 0; c < 7; ++c) batch.columns[c].AppendNull();
  EvalContext context;
  context.StartBatch(1, 0);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*e, batch, context));
  EXPECT_EQ(Text(out, 0), "{k -> 2}");
  ASSERT_TRUE(context.row_errors.IsMarked(0));
  EXPECT_NE(context.row_errors.Reason(0).find("[DUPLICATED_MAP_KEY] Duplicate map key k was found"),
            std::string::npos);

  // spark.sql.mapKeyDedupPolicy=LAST_WIN: the same map, and the row is fine.
  EvalContext last_win;
  last_win.Apply(EvalSettings::FromConf({{"spark.sql.mapKeyDedupPolicy", "last_win"}}));
  EXPECT_EQ(last_win.map_key_dedup_policy, MapKeyDedupPolicy::kLastWin);
  last_win.StartBatch(1, 0);
  ASSERT_OK_AND_ASSIGN(out, Evaluate(*e, batch, last_win));
  EXPECT_EQ(Text(out, 0), "{k -> 2}");
  EXPECT_EQ(last_win.row_errors.count(), 0);
  EXPECT_EQ(EvalSettings::FromConf({{"spark.sql.mapKeyDedupPolicy", "EXCEPTION"}})
                .map_key_dedup_policy,
            MapKeyDedupPolicy::kException);
  EXPECT_TRUE(EvalSettings::FromConf({{"spark.sql.ansi.enabled", "TRUE"}}).ansi);
  EXPECT_FALSE(EvalSettings::FromConf({}).ansi);
}

TEST(CollectionFunctionsTest, LambdasCaptureOuterColumns) {
  ASSERT_OK_AND_ASSIGN(columnar::Schema schema,
                       columnar::ParseDdlSchema("a ARRAY<INT>, n INT, s STRUCT<k: INT>"));
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e, BindText(schema, "transform(a, (x, i) -> x * n + s.k + i)"));
  const BoundExpr& lambda = *e->children[1];
  ASSERT_EQ(lambda.children.size(), 3u);  // body, n, s.k
  EXPECT_EQ(lambda.children[1]->sql, "n");
  EXPECT_EQ(lambda.children[2]->sql, "s.k");
  Batch batch(schema);
  int32_t values[][3] = {{1, 2, 3}, {4, 5, 0}};
  for (int r = 0; r < 2; ++r) {
    for (int k = 0; k < (r == 0 ? 3 : 2); ++k) {
      batch.columns[0].mutable_child(0).Append<int32_t>(values[r][k]);
    }
    batch.columns[0].AppendListEntry();
    batch.columns[1].Append<int32_t>(10 * (r + 1));
    batch.columns[2].mutable_child(0).Append<int32_t>(100 * (r + 1));
    batch.columns[2].AppendStructEntry();
  }
  EvalContext context;
  context.StartBatch(2, 0);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*e, batch, context));
  EXPECT_EQ(Text(out, 0), "[110, 121, 132]");
  EXPECT_EQ(Text(out, 1), "[280, 301]");
}

TEST(CollectionFunctionsTest, RowErrorsInALambdaMarkTheElementsRow) {
  ASSERT_OK_AND_ASSIGN(columnar::Schema schema, columnar::ParseDdlSchema("w ARRAY<STRING>"));
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e, BindText(schema, "transform(w, x -> CAST(x AS INT))"));
  Batch batch(schema);
  std::vector<std::vector<std::string>> rows = {{"1"}, {"2", "x"}, {}, {"y"}};
  for (const auto& row : rows) {
    for (const std::string& v : row) batch.columns[0].mutable_child(0).AppendString(v);
    batch.columns[0].AppendListEntry();
  }
  EvalContext context;
  context.ansi = true;
  context.StartBatch(4, 0);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*e, batch, context));
  EXPECT_EQ(Text(out, 1), "[2, null]");
  EXPECT_EQ(context.row_errors.count(), 2);
  EXPECT_FALSE(context.row_errors.IsMarked(0));
  EXPECT_TRUE(context.row_errors.IsMarked(1));
  EXPECT_FALSE(context.row_errors.IsMarked(2));
  EXPECT_TRUE(context.row_errors.IsMarked(3));
  EXPECT_NE(context.row_errors.Reason(3).find("'y'"), std::string::npos);
}

TEST(CollectionFunctionsTest, ConstantArraysWithColumnCaptures) {
  ASSERT_OK_AND_ASSIGN(columnar::Schema schema, columnar::ParseDdlSchema("n INT"));
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e,
                       BindText(schema, "filter(array(1, 2, 3, 4), x -> x > n)"));
  Batch batch(schema);
  for (int v : {0, 2, 9}) batch.columns[0].Append<int32_t>(v);
  EvalContext context;
  context.StartBatch(3, 0);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*e, batch, context));
  EXPECT_EQ(Text(out, 0), "[1, 2, 3, 4]");
  EXPECT_EQ(Text(out, 1), "[3, 4]");
  EXPECT_EQ(Text(out, 2), "[]");
}

TEST(CollectionFunctionsTest, SubscriptsAndLambdaErrorsNameTheLocation) {
  ASSERT_OK_AND_ASSIGN(columnar::Schema schema, columnar::ParseDdlSchema("a ARRAY<INT>, n INT"));
  auto r = BindText(schema, "transform(a,\n  x -> x + nope)");
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(), "line 2, column 12: column nope does not exist; the input has a, n");
  r = BindText(schema, "n[0]");
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  r = BindText(schema, "x -> x");
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr sub, BindText(schema, "a[n]"));
  EXPECT_EQ(sub->type->id(), TypeId::kInt32);
  EXPECT_TRUE(sub->nullable);
}

}  // namespace
}  // namespace weir::expr
