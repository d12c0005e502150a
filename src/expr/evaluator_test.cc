#include "expr/evaluator.h"

#include <gtest/gtest.h>

#include "base/testing.h"
#include "expr/binder.h"
#include "expr/cast.h"
#include "expr/projection.h"
#include "sql/parser.h"

namespace weir::expr {
namespace {

using columnar::Batch;
using columnar::Column;
using columnar::DataType;
using columnar::TypeId;

constexpr int64_t kBatchTime = 1780909200LL * 1000000;  // 2026-06-08 09:00:00 UTC

// The Kafka source's schema and two records whose key/value bytes live in one shared buffer, as
// the Kafka source hands them over (zero-copy views).
Batch MakeKafkaBatch(std::shared_ptr<std::string> buffer) {
  auto schema = columnar::ParseDdlSchema(
      "key BINARY, value BINARY, topic STRING, `partition` INT, `offset` BIGINT, "
      "`timestamp` TIMESTAMP, timestampType INT");
  Batch b(*schema);
  std::string_view all(*buffer);
  b.columns[0].AppendStringView(all.substr(0, 4));
  b.columns[1].AppendStringView(all.substr(4, 17));
  b.columns[0].AppendNull();
  b.columns[1].AppendStringView(all.substr(21));
  for (int i = 0; i < 2; ++i) {
    b.columns[2].AppendString("orders");
    b.columns[3].Append<int32_t>(i);
    b.columns[4].Append<int64_t>(100 + i);
    b.columns[5].Append<int64_t>(kBatchTime - 1000000 * i);
    b.columns[6].Append<int32_t>(0);
  }
  b.columns[0].AddBufferOwner(buffer);
  b.columns[1].AddBufferOwner(buffer);
  return b;
}

Result<BoundExprPtr> BindText(const columnar::Schema& schema, std::string_view text,
                              std::vector<std::string> qualifiers = {}) {
  WEIR_ASSIGN_OR_RETURN(sql::ExprPtr e, sql::ParseExpression(text));
  return Binder(schema, std::move(qualifiers)).Bind(*e);
}

TEST(BinderTest, ResolvesColumnsCaseInsensitivelyAndTypesCalls) {
  auto schema = *columnar::ParseDdlSchema(
      "Event_Id STRING, amount DECIMAL(18,2), e STRUCT<event_id: STRING, n: INT>, ts TIMESTAMP");
  ASSERT_OK_AND_ASSIGN(BoundExprPtr col, BindText(schema, "EVENT_ID"));
  EXPECT_EQ(col->kind, BoundExpr::Kind::kColumn);
  EXPECT_EQ(col->index, 0);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr field, BindText(schema, "e.N"));
  EXPECT_EQ(field->kind, BoundExpr::Kind::kField);
  EXPECT_EQ(field->type->id(), TypeId::kInt32);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr qualified, BindText(schema, "src.e.n", {"src"}));
  EXPECT_EQ(qualified->kind, BoundExpr::Kind::kField);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr sum, BindText(schema, "amount + 1"));
  EXPECT_EQ(sum->type->ToDdl(), "DECIMAL(19,2)");
  ASSERT_OK_AND_ASSIGN(BoundExprPtr ratio, BindText(schema, "e.n / 2"));
  EXPECT_EQ(ratio->type->id(), TypeId::kDouble);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr cmp, BindText(schema, "ts > '2026-01-01'"));
  EXPECT_EQ(cmp->type->id(), TypeId::kBoolean);
  EXPECT_EQ(cmp->children[1]->kind, BoundExpr::Kind::kCast);  // the string becomes a TIMESTAMP
  EXPECT_EQ(cmp->children[1]->type->id(), TypeId::kTimestamp);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr now, BindText(schema, "current_timestamp()"));
  EXPECT_FALSE(now->nullable);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr cast, BindText(schema, "CAST(event_id AS INT)"));
  EXPECT_TRUE(cast->nullable);
  EXPECT_EQ(cast->sql, "CAST(event_id AS INT)");
}

TEST(BinderTest, ErrorsNameTheLocation) {
  auto schema = *columnar::ParseDdlSchema("a INT, s STRUCT<x: INT>");
  auto r = BindText(schema, "a + \n  nope");
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(), "line 2, column 3: column nope does not exist; the input has a, s");
  r = BindText(schema, "s.y");
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(), "line 1, column 1: field y does not exist in s; it has x");
  r = BindText(schema, "a.b");
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(),
            "line 1, column 1: cannot read field b of a, which is INT, not a STRUCT");
  ASSERT_STATUS_CODE(kInvalidArgument, BindText(schema, "secret('a', 'b')"));
}

TEST(BinderTest, SelectListExpandsStars) {
  auto schema = *columnar::ParseDdlSchema("raw STRING, e STRUCT<event_id: STRING, amount: DOUBLE>");
  ASSERT_OK_AND_ASSIGN(sql::Query q, sql::ParseQuery("SELECT e.*, raw AS r, * FROM t"));
  ASSERT_OK_AND_ASSIGN(std::vector<NamedExpr> items, Binder(schema, {"t"}).BindSelectList(q.select_list));
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[0].name, "event_id");
  EXPECT_EQ(items[1].name, "amount");
  EXPECT_EQ(items[1].expr->type->id(), TypeId::kDouble);
  EXPECT_EQ(items[2].name, "r");
  EXPECT_EQ(items[3].name, "raw");
  EXPECT_EQ(items[4].name, "e");
  ASSERT_OK_AND_ASSIGN(q, sql::ParseQuery("SELECT t.* FROM t"));
  ASSERT_OK_AND_ASSIGN(items, Binder(schema, {"t"}).BindSelectList(q.select_list));
  EXPECT_EQ(items.size(), 2u);
  ASSERT_OK_AND_ASSIGN(q, sql::ParseQuery("SELECT raw.* FROM t"));
  ASSERT_STATUS_CODE(kInvalidArgument, Binder(schema).BindSelectList(q.select_list));
}

TEST(EvaluatorTest, ColumnReferencesAreZeroCopy) {
  auto buffer = std::make_shared<std::string>("SO-1{\"event_id\":\"e1\"}{\"event_id\":\"e2\"}");
  Batch batch = MakeKafkaBatch(buffer);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e, BindText(batch.schema, "`offset`"));
  EvalContext context;
  context.StartBatch(batch.num_rows(), kBatchTime);
  ASSERT_OK_AND_ASSIGN(Vector v, EvaluateVector(*e, batch, context));
  EXPECT_EQ(&v.column(), &batch.columns[4]);  // borrowed, not copied
  EXPECT_FALSE(v.constant());
}

TEST(EvaluatorTest, BinaryToStringSharesTheBytes) {
  auto buffer = std::make_shared<std::string>("SO-1{\"event_id\":\"e1\"}{\"event_id\":\"e2\"}");
  Batch batch = MakeKafkaBatch(buffer);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e, BindText(batch.schema, "CAST(value AS STRING)"));
  EvalContext context;
  context.StartBatch(batch.num_rows(), kBatchTime);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*e, batch, context));
  batch = Batch();  // the output keeps the bytes alive on its own
  ASSERT_EQ(out.size(), 2);
  EXPECT_EQ(out.type_id(), TypeId::kString);
  EXPECT_EQ(out.StringAt(0), "{\"event_id\":\"e1\"}");
  EXPECT_EQ(out.StringAt(0).data(), buffer->data() + 4);  // same bytes, no copy
  EXPECT_EQ(out.StringAt(1).data(), buffer->data() + 21);
}

TEST(EvaluatorTest, LiteralsStayConstantUntilMaterialised) {
  auto schema = *columnar::ParseDdlSchema("a INT");
  Batch batch(schema);
  for (int i = 0; i < 3; ++i) batch.columns[0].Append<int32_t>(i);
  EvalContext context;
  context.StartBatch(3, kBatchTime);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e, BindText(schema, "CAST('7' AS INT) + 1"));
  ASSERT_OK_AND_ASSIGN(Vector v, EvaluateVector(*e, batch, context));
  EXPECT_TRUE(v.constant());
  EXPECT_EQ(v.column().size(), 1);
  ASSERT_OK_AND_ASSIGN(Column c, Evaluate(*e, batch, context));
  ASSERT_EQ(c.size(), 3);
  EXPECT_EQ(c.Value<int32_t>(2), 8);
  ASSERT_OK_AND_ASSIGN(e, BindText(schema, "current_timestamp()"));
  ASSERT_OK_AND_ASSIGN(c, Evaluate(*e, batch, context));
  EXPECT_EQ(c.Value<int64_t>(0), kBatchTime);
  EXPECT_EQ(c.Value<int64_t>(2), kBatchTime);
}

TEST(EvaluatorTest, AnsiModeMarksBadRowsInsteadOfFailing) {
  auto schema = *columnar::ParseDdlSchema("s STRING");
  Batch batch(schema);
  for (const char* v : {"1", "x", "3", "y"}) batch.columns[0].AppendString(v);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e, BindText(schema, "CAST(s AS INT)"));
  EvalContext context;
  context.ansi = true;
  context.StartBatch(4, kBatchTime);
  ASSERT_OK_AND_ASSIGN(Column c, Evaluate(*e, batch, context));
  EXPECT_EQ(c.null_count(), 2);
  EXPECT_EQ(context.row_errors.count(), 2);
  EXPECT_FALSE(context.row_errors.IsMarked(0));
  EXPECT_TRUE(context.row_errors.IsMarked(1));
  EXPECT_TRUE(context.row_errors.IsMarked(3));
  EXPECT_NE(context.row_errors.first_message().find("'x'"), std::string::npos);
  // Non-ANSI: the same values are just NULL.
  context.ansi = false;
  context.StartBatch(4, kBatchTime);
  ASSERT_OK_AND_ASSIGN(c, Evaluate(*e, batch, context));
  EXPECT_EQ(c.null_count(), 2);
  EXPECT_EQ(context.row_errors.count(), 0);
}

TEST(ProjectionTest, SeedBronzeProjection) {
  auto buffer = std::make_shared<std::string>("SO-1{\"event_id\":\"e1\"}{\"event_id\":\"e2\"}");
  Batch batch = MakeKafkaBatch(buffer);
  ASSERT_OK_AND_ASSIGN(sql::Query q, sql::ParseQuery(
      "SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value, "
      "partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time, "
      "current_timestamp() AS ingested_at FROM kafka"));
  ASSERT_OK_AND_ASSIGN(Projection p, Projection::Make(q.select_list, batch.schema));
  EXPECT_EQ(p.output_schema().ToDdl(),
            "partition_key STRING, raw_value STRING, eh_partition INT, eh_offset BIGINT, "
            "enqueued_time TIMESTAMP, ingested_at TIMESTAMP NOT NULL");
  EvalContext context;
  context.StartBatch(batch.num_rows(), kBatchTime);
  const int64_t* offsets_before = batch.columns[4].values<int64_t>();
  ASSERT_OK_AND_ASSIGN(Batch out, p.Evaluate(std::move(batch), context));
  ASSERT_EQ(out.num_rows(), 2);
  EXPECT_EQ(out.columns[0].StringAt(0), "SO-1");
  EXPECT_TRUE(out.columns[0].IsNull(1));
  EXPECT_EQ(out.columns[1].StringAt(1), "{\"event_id\":\"e2\"}");
  EXPECT_EQ(out.columns[3].values<int64_t>(), offsets_before);  // moved, not copied
  EXPECT_EQ(out.columns[3].Value<int64_t>(1), 101);
  EXPECT_EQ(out.columns[5].Value<int64_t>(1), kBatchTime);
}

TEST(ProjectionTest, EqualSubexpressionsAreSharedAndEvaluatedOnce) {
  auto buffer = std::make_shared<std::string>("SO-1{\"event_id\":\"e1\"}{\"event_id\":\"e2\"}");
  Batch batch = MakeKafkaBatch(buffer);
  ASSERT_OK_AND_ASSIGN(sql::Query q, sql::ParseQuery(
      "SELECT upper(CAST(value AS STRING)) AS a, length(upper(CAST(value AS STRING))) AS b, "
      "uuid() AS u1, uuid() AS u2, upper(CAST(key AS STRING)) AS c FROM kafka"));
  ASSERT_OK_AND_ASSIGN(Projection p, Projection::Make(q.select_list, batch.schema));
  const auto& cols = p.columns();
  // b's argument is a's node, evaluated once per batch.
  EXPECT_EQ(cols[1].expr->children[0].get(), cols[0].expr.get());
  EXPECT_TRUE(cols[0].expr->shared);
  EXPECT_FALSE(cols[4].expr->shared);
  EXPECT_NE(cols[2].expr.get(), cols[3].expr.get());  // uuid() is never shared
  EvalContext context;
  context.StartBatch(batch.num_rows(), kBatchTime);
  ASSERT_OK_AND_ASSIGN(Batch out, p.Evaluate(batch, context));
  EXPECT_EQ(out.columns[0].StringAt(1), "{\"EVENT_ID\":\"E2\"}");
  EXPECT_EQ(out.columns[1].Value<int32_t>(1), 17);
  EXPECT_NE(out.columns[2].StringAt(0), out.columns[3].StringAt(0));
  EXPECT_TRUE(context.shared_results.empty());  // nothing outlives the evaluation
}

TEST(ProjectionTest, FilterKeepsTrueRowsAndTakeRowsGathers) {
  auto schema = *columnar::ParseDdlSchema("id STRING, n INT, tags ARRAY<STRING>");
  Batch batch(schema);
  const char* ids[] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; ++i) {
    batch.columns[0].AppendString(ids[i]);
    if (i == 2) {
      batch.columns[1].AppendNull();
    } else {
      batch.columns[1].Append<int32_t>(i * 10);
    }
    Column& tags = batch.columns[2];
    for (int t = 0; t < i; ++t) tags.mutable_child(0).AppendString(std::string(1, 'x' + t));
    tags.AppendListEntry();
  }
  ASSERT_OK_AND_ASSIGN(sql::ExprPtr where, sql::ParseExpression("n >= 10 OR id = 'a'"));
  ASSERT_OK_AND_ASSIGN(Filter f, Filter::Make(*where, schema));
  EvalContext context;
  context.StartBatch(4, kBatchTime);
  ASSERT_OK_AND_ASSIGN(std::vector<int32_t> rows, f.Select(batch, context));
  EXPECT_EQ(rows, (std::vector<int32_t>{0, 1, 3}));
  ASSERT_OK_AND_ASSIGN(Batch out, f.Apply(batch, context));
  ASSERT_EQ(out.num_rows(), 3);
  EXPECT_EQ(out.columns[0].StringAt(2), "d");
  EXPECT_EQ(out.columns[1].Value<int32_t>(2), 30);
  std::string text;
  AppendCastString(out.columns[2], 2, &text);
  EXPECT_EQ(text, "[x, y, z]");
  text.clear();
  AppendCastString(out.columns[2], 0, &text);
  EXPECT_EQ(text, "[]");
  ASSERT_OK_AND_ASSIGN(sql::ExprPtr not_bool, sql::ParseExpression("n + 1"));
  ASSERT_STATUS_CODE(kInvalidArgument, Filter::Make(*not_bool, schema));
}

TEST(CastTest, CanCastMatrix) {
  auto s = DataType::String();
  EXPECT_TRUE(CanCast(*DataType::Binary(), *s));
  EXPECT_TRUE(CanCast(*DataType::Timestamp(), *DataType::Date()));
  EXPECT_TRUE(CanCast(*DataType::Date(), *DataType::Int32()));
  EXPECT_FALSE(CanCast(*DataType::Int32(), *DataType::Date()));
  EXPECT_FALSE(CanCast(*DataType::Boolean(), *DataType::Date()));
  EXPECT_FALSE(CanCast(*DataType::List(s), *DataType::Int32()));
  EXPECT_TRUE(CanCast(*DataType::List(DataType::Int32()), *DataType::List(s)));
  EXPECT_TRUE(CanCast(*DataType::List(DataType::Int32()), *s));
}

}  // namespace
}  // namespace weir::expr
