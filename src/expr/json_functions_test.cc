// from_json, get_json_object and `raw:path` through the binder and the evaluator, with the
// results Spark 3.5/4.0 give (JsonExpressionsSuite, JacksonParser, FailureSafeParser).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/testing.h"
#include "expr/binder.h"
#include "expr/cast.h"
#include "expr/evaluator.h"
#include "expr/functions.h"
#include "sql/parser.h"

namespace weir::expr {
namespace {

using columnar::Batch;
using columnar::Column;
using columnar::DataType;
using columnar::TypeId;
using Options = std::vector<std::pair<std::string, std::string>>;

// A batch with one STRING column `raw` whose values are views into one shared buffer, as the
// Kafka source hands them over (NULL for nullopt).
Batch RawBatch(const std::vector<std::optional<std::string>>& values) {
  auto buffer = std::make_shared<std::string>();
  std::vector<std::pair<size_t, size_t>> spans;
  for (const auto& v : values) {
    spans.emplace_back(buffer->size(), v ? v->size() : 0);
    if (v) buffer->append(*v);
  }
  Batch b(*columnar::ParseDdlSchema("raw STRING"));
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]) {
      b.columns[0].AppendStringView(
          std::string_view(*buffer).substr(spans[i].first, spans[i].second));
    } else {
      b.columns[0].AppendNull();
    }
  }
  b.columns[0].AddBufferOwner(buffer);
  return b;
}

Column MapLiteral(const Options& options) {
  Column map(DataType::Map(DataType::String(), DataType::String()));
  for (const auto& [k, v] : options) {
    map.mutable_child(0).AppendString(k);
    map.mutable_child(1).AppendString(v);
  }
  map.AppendListEntry();
  return map;
}

Result<BoundExprPtr> Bind(const columnar::Schema& schema, std::string_view text) {
  WEIR_ASSIGN_OR_RETURN(sql::ExprPtr e, sql::ParseExpression(text));
  return Binder(schema).Bind(*e);
}

// from_json(raw, schema[, options]) bound through the function's type rule, the options as a
// constant MAP<STRING, STRING> argument (what map('k', 'v', ...) evaluates to).
Result<BoundExprPtr> FromJsonCall(const columnar::Schema& schema, std::string_view ddl,
                                  const std::optional<Options>& options) {
  WEIR_ASSIGN_OR_RETURN(BoundExprPtr call,
                        Bind(schema, "from_json(raw, '" + std::string(ddl) + "')"));
  if (!options) return call;
  std::vector<BoundExprPtr> args = call->children;
  args.push_back(MakeLiteral(MapLiteral(*options), "map(...)"));
  WEIR_ASSIGN_OR_RETURN(columnar::TypePtr type, call->function->type_rule(args));
  auto with_options = std::make_shared<BoundExpr>(*call);
  with_options->children = std::move(args);
  with_options->type = type;
  return BoundExprPtr(with_options);
}

std::string Render(const Column& c, int64_t row) {
  if (c.IsNull(row)) return "NULL";
  std::string out;
  AppendCastString(c, row, &out);
  return out;
}

struct Evaluated {
  std::vector<std::string> rows;
  Column column{DataType::String()};
  EvalContext context;
};

// Evaluates from_json over `inputs` and renders each row as CAST(... AS STRING) prints it.
Evaluated FromJson(const std::vector<std::optional<std::string>>& inputs, std::string_view ddl,
                   const std::optional<Options>& options = std::nullopt) {
  Evaluated out;
  Batch batch = RawBatch(inputs);
  auto call = FromJsonCall(batch.schema, ddl, options);
  EXPECT_TRUE(call.ok()) << call.status().ToString();
  if (!call.ok()) return out;
  out.context.StartBatch(batch.num_rows(), 0);
  auto column = Evaluate(**call, batch, out.context);
  EXPECT_TRUE(column.ok()) << column.status().ToString();
  if (!column.ok()) return out;
  out.column = std::move(*column);
  for (int64_t i = 0; i < out.column.size(); ++i) out.rows.push_back(Render(out.column, i));
  return out;
}

std::string FromJsonOne(const std::string& json, std::string_view ddl,
                        const std::optional<Options>& options = std::nullopt) {
  Evaluated e = FromJson({json}, ddl, options);
  return e.rows.empty() ? "<error>" : e.rows[0];
}

// Evaluates an expression over `raw` and renders each row.
std::vector<std::string> EvalOverRaw(const std::vector<std::optional<std::string>>& inputs,
                                     std::string_view expression, EvalContext* context = nullptr) {
  Batch batch = RawBatch(inputs);
  auto bound = Bind(batch.schema, expression);
  EXPECT_TRUE(bound.ok()) << bound.status().ToString();
  if (!bound.ok()) return {};
  EvalContext local;
  EvalContext& ctx = context ? *context : local;
  ctx.StartBatch(batch.num_rows(), 0);
  auto column = Evaluate(**bound, batch, ctx);
  EXPECT_TRUE(column.ok()) << column.status().ToString();
  if (!column.ok()) return {};
  std::vector<std::string> rows;
  for (int64_t i = 0; i < column->size(); ++i) rows.push_back(Render(*column, i));
  return rows;
}

std::string GetJsonObject(std::string_view json, std::string_view path);

constexpr std::string_view kOrderSchema =
    "event_id STRING, order_id STRING, status STRING, amount DECIMAL(18,2), event_time STRING";

// ------------------------------------------------------------------ from_json

TEST(FromJsonTest, ParsesSeedOrderEventsWithoutCopyingStrings) {
  std::string payload =
      R"({"event_id": "e1", "order_id": "SO-1", "status": "created", "amount": "10.50", )"
      R"("event_time": "2026-06-08T09:00:00Z"})";
  Batch batch = RawBatch({payload});
  ASSERT_OK_AND_ASSIGN(BoundExprPtr call, FromJsonCall(batch.schema, kOrderSchema, std::nullopt));
  EXPECT_EQ(call->type->ToDdl(),
            "STRUCT<event_id: STRING, order_id: STRING, status: STRING, amount: DECIMAL(18,2), "
            "event_time: STRING>");
  EvalContext context;
  context.StartBatch(1, 0);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*call, batch, context));
  EXPECT_EQ(Render(out, 0), "{e1, SO-1, created, 10.50, 2026-06-08T09:00:00Z}");
  EXPECT_EQ(context.malformed.count(), 0);
  // The strings are views of the input's bytes, which the result keeps alive.
  std::string_view input = batch.columns[0].StringAt(0);
  std::string_view event_id = out.child(0).StringAt(0);
  EXPECT_GE(event_id.data(), input.data());
  EXPECT_LT(event_id.data(), input.data() + input.size());
  batch = Batch();
  EXPECT_EQ(out.child(4).StringAt(0), "2026-06-08T09:00:00Z");
}

TEST(FromJsonTest, ConvertsEveryType) {
  std::string ddl =
      "b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT, f FLOAT, d DOUBLE, "
      "dec DECIMAL(10,3), s STRING, bin BINARY, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, "
      "arr ARRAY<INT>, m MAP<STRING, DOUBLE>, st STRUCT<x: STRING, y: ARRAY<STRUCT<z: INT>>>";
  std::string json =
      R"({"b": true, "i8": -5, "i16": 300, "i32": 70000, "i64": 9007199254740993, "f": 1.5,)"
      R"( "d": 2.25e-3, "dec": "1,234.5675", "s": "Zo\u00eb \u6771\u4eac", "bin": "aGk=",)"
      R"( "dt": "2026-06-08", "ts": "2026-06-08T09:00:00.5+02:00", "ntz": "2026-06-08 09:00:00",)"
      R"( "arr": [1, null, 3], "m": {"a": 1, "b": -0.5}, "st": {"x": "\"q\"", "y": [{"z": 7}, {}]}})";
  EXPECT_EQ(FromJsonOne(json, ddl),
            "{true, -5, 300, 70000, 9007199254740993, 1.5, 0.00225, 1234.568, Zoë 東京, hi, "
            "2026-06-08, 2026-06-08 07:00:00.5, 2026-06-08 09:00:00, [1, null, 3], "
            "{a -> 1.0, b -> -0.5}, {\"q\", [{7}, {null}]}}");
}

TEST(FromJsonTest, FollowsJacksonConversionRules) {
  // Strings never become numbers or booleans; numbers and literals into a STRING keep their text.
  EXPECT_EQ(FromJsonOne(R"({"a": "5"})", "a INT"), "{null}");
  EXPECT_EQ(FromJsonOne(R"({"a": "true"})", "a BOOLEAN"), "{null}");
  EXPECT_EQ(FromJsonOne(R"({"a": 1.50, "b": true, "c": -0})", "a STRING, b STRING, c STRING"),
            "{1.50, true, -0}");
  EXPECT_EQ(FromJsonOne(R"({"a": {"b" : [1, 2] }})", "a STRING"), R"({{"b" : [1, 2] }})");
  // Integral ranges as Jackson checks them (getByteValue accepts up to 255 and wraps).
  EXPECT_EQ(FromJsonOne(R"({"a": 200, "b": 256})", "a TINYINT, b TINYINT"), "{-56, null}");
  EXPECT_EQ(FromJsonOne(R"({"a": 3000000000, "b": 3000000000})", "a INT, b BIGINT"),
            "{null, 3000000000}");
  EXPECT_EQ(FromJsonOne(R"({"a": 1.0, "b": 1e2})", "a INT, b BIGINT"), "{null, null}");
  EXPECT_EQ(FromJsonOne(R"({"a": 99999999999999999999})", "a BIGINT"), "{null}");
  // Decimals round HALF_UP and overflow to a failed field; strings lose their ',' separators.
  EXPECT_EQ(FromJsonOne(R"({"a": 1.005, "b": 123456, "c": " 1.5", "d": "1e2"})",
                        "a DECIMAL(5,2), b DECIMAL(5,2), c DECIMAL(5,2), d DECIMAL(5,2)"),
            "{1.01, null, null, 100.00}");
  // Doubles: NaN and infinities as strings (allowNonNumericNumbers), other strings fail.
  EXPECT_EQ(FromJsonOne(R"({"a": "NaN", "b": "-INF", "c": "nan", "d": 1e400, "e": 7})",
                        "a DOUBLE, b DOUBLE, c DOUBLE, d DOUBLE, e FLOAT"),
            "{NaN, -Infinity, null, Infinity, 7.0}");
  // Timestamps from strings (Spark's cast rules) and from integral seconds; dates from days.
  EXPECT_EQ(FromJsonOne(R"({"a": 1780909200, "b": "junk", "c": 1.5, "d": "123"})",
                        "a TIMESTAMP, b TIMESTAMP, c TIMESTAMP, d DATE"),
            "{2026-06-08 09:00:00, null, null, 1970-05-04}");
  // Empty strings fail for every type but STRING and BINARY.
  EXPECT_EQ(FromJsonOne(R"({"a": "", "b": "", "c": ""})", "a STRING, b INT, c DATE"),
            "{, null, null}");
  // NULL tokens are NULL values for any type.
  EXPECT_EQ(FromJsonOne(R"({"a": null, "b": null})", "a INT, b ARRAY<INT>"), "{null, null}");
}

TEST(FromJsonTest, MatchesFieldsCaseSensitivelyAndKeepsTheLastDuplicate) {
  EXPECT_EQ(FromJsonOne(R"({"A": 1, "a": 2})", "a INT"), "{2}");
  EXPECT_EQ(FromJsonOne(R"({"A": 1, "a": 2})", "A INT"), "{1}");
  EXPECT_EQ(FromJsonOne(R"({"A": 1})", "a INT"), "{null}");
  EXPECT_EQ(FromJsonOne(R"({"a": 1, "a": 2})", "a INT"), "{2}");
  EXPECT_EQ(FromJsonOne(R"({"s": {"x": 1}, "s": {"y": 2}})", "s STRUCT<x: INT, y: INT>"),
            "{{null, 2}}");
  EXPECT_EQ(FromJsonOne(R"({"l": [1, 2], "l": [3]})", "l ARRAY<INT>"), "{[3]}");
  // Keys with escapes are decoded before matching; unknown fields are skipped.
  EXPECT_EQ(FromJsonOne(R"({"x": [1, {"y": "z"}], "\u0061": 5, "b\"": 6})", "a INT, `b\"` INT"),
            "{5, 6}");
  // Fields in any order.
  EXPECT_EQ(FromJsonOne(R"({"c": 3, "b": 2, "a": 1})", "a INT, b INT, c INT"), "{1, 2, 3}");
}

// Keys are matched on their raw bytes when they have no escapes (by length, then bytes), decoded
// otherwise; values of unknown keys are still checked as Jackson tokenizes them.
TEST(FromJsonTest, MatchesKeysByTheirBytesAndChecksSkippedValues) {
  constexpr std::string_view kDdl = "event_id STRING, order_id STRING, amount INT";
  // Unknown keys of a field name's length, a prefix, an extension, and a key whose escapes
  // decode to a field name.
  EXPECT_EQ(FromJsonOne(R"({"currency": "x", "event_id": "e1", "event_i": "y", "event_idx": "z",)"
                        R"( "order\u005fid": "o1", "amount": 3})",
                        kDdl),
            "{e1, o1, 3}");
  // Keys out of schema order, unknown ones between, and a repeated one (the last wins).
  EXPECT_EQ(FromJsonOne(R"({"amount": 1, "sku": "s", "order_id": "o", "qty": 4, )"
                        R"("event_id": "e", "amount": 2})",
                        kDdl),
            "{e, o, 2}");
  // Names longer than 15 bytes and than 31 bytes.
  EXPECT_EQ(FromJsonOne(R"({"customer_identifier": "c", "x": 1,)"
                        R"( "a_field_name_of_more_than_32_bytes": 7, "customer_identifiers": 0})",
                        "customer_identifier STRING, a_field_name_of_more_than_32_bytes INT"),
            "{c, 7}");
  // A key of the corrupt-record column's name is an unknown key.
  EXPECT_EQ(FromJsonOne(R"({"_corrupt_record": "x", "a": 1})", "a INT, _corrupt_record STRING"),
            "{1, null}");
  // Skipped string values with escapes are fine; invalid ones make the record malformed.
  EXPECT_EQ(FromJsonOne(R"({"note": "a\"b\\c\u00e9", "amount": 5})", kDdl), "{null, null, 5}");
  Evaluated e = FromJson({R"({"note": "a\qb", "amount": 5})", R"({"note": "ab"cd, "amount": 5})",
                          R"({"no\qte": "ab", "amount": 5})", R"({"note": "ab" , "amount": 5})"},
                         kDdl);
  EXPECT_EQ(e.rows, (std::vector<std::string>{"{null, null, null}", "{null, null, null}",
                                              "{null, null, null}", "{null, null, 5}"}));
  EXPECT_TRUE(e.context.malformed.IsMarked(0));
  EXPECT_EQ(e.context.malformed.Reason(0), "malformed JSON: invalid string at byte 9");
  EXPECT_TRUE(e.context.malformed.IsMarked(1));
  EXPECT_TRUE(e.context.malformed.IsMarked(2));
  EXPECT_FALSE(e.context.malformed.IsMarked(3));
}

TEST(FromJsonTest, MalformedJsonGivesAStructOfNullsAndMarksTheRow) {
  Evaluated e = FromJson({R"({"a": 1})", "not json", R"({"a": 1, "b": )", R"({"a" 1})",
                          R"({"a": 1, "junk": [1 2]})", R"({"a": 01})", "[", "]"},
                         "a INT, b STRING");
  EXPECT_EQ(e.rows, (std::vector<std::string>{"{1, null}", "{null, null}", "{null, null}",
                                              "{null, null}", "{null, null}", "{null, null}",
                                              "{null, null}", "{null, null}"}));
  EXPECT_FALSE(e.context.malformed.IsMarked(0));
  for (int64_t row = 1; row < 8; ++row) {
    EXPECT_TRUE(e.context.malformed.IsMarked(row)) << row;
    if (row == 6) continue;  // "[": Jackson rejects the array before reading on
    EXPECT_EQ(e.context.malformed.Reason(row).rfind("malformed JSON: ", 0), 0u)
        << row << ": " << e.context.malformed.Reason(row);
  }
  EXPECT_NE(e.context.malformed.Reason(5).find("invalid number at byte 6"), std::string::npos)
      << e.context.malformed.Reason(5);
  // Reasons never carry the payload.
  EXPECT_EQ(e.context.malformed.Reason(1).find("not json"), std::string::npos);
  EXPECT_EQ(e.context.row_errors.count(), 0);
}

TEST(FromJsonTest, NonObjectRootsAreBadRecords) {
  // JsonExpressionsSuite: arrays (even of one object, even empty) are not structs.
  Evaluated e = FromJson({R"([{"a": 1}])", "[]", "{ }", "null", "1", R"("x")"}, "a INT");
  EXPECT_EQ(e.rows,
            (std::vector<std::string>{"{null}", "{null}", "{null}", "{null}", "{null}", "{null}"}));
  EXPECT_TRUE(e.context.malformed.IsMarked(0));
  EXPECT_EQ(e.context.malformed.Reason(0), "JSON arrays cannot be parsed as a struct");
  EXPECT_TRUE(e.context.malformed.IsMarked(1));
  EXPECT_FALSE(e.context.malformed.IsMarked(2));  // an empty object is a good record
  EXPECT_EQ(e.context.malformed.Reason(3), "the JSON value is null");
  EXPECT_TRUE(e.context.malformed.IsMarked(4));
  EXPECT_TRUE(e.context.malformed.IsMarked(5));
}

TEST(FromJsonTest, NullEmptyAndBlankInputsAreNull) {
  Evaluated e = FromJson({std::nullopt, "", " \t\r\n", "\xEF\xBB\xBF"}, "a INT");
  EXPECT_EQ(e.rows, (std::vector<std::string>{"NULL", "NULL", "NULL", "NULL"}));
  EXPECT_EQ(e.context.malformed.count(), 0);
}

TEST(FromJsonTest, ReadsOnlyTheFirstValueLikeJackson) {
  EXPECT_EQ(FromJsonOne(R"({"a": 1} trailing junk)", "a INT"), "{1}");
  EXPECT_EQ(FromJsonOne(R"({"a": 1}{"a": 2})", "a INT"), "{1}");
  EXPECT_EQ(FromJsonOne("\xEF\xBB\xBF{\"a\": 1}", "a INT"), "{1}");
}

TEST(FromJsonTest, KeepsPartialResultsAndMarksTheRecord) {
  Evaluated e =
      FromJson({R"({"id": "o1", "items": [{"sku": "a", "qty": "2"}, {"sku": "b", "qty": 3}]})",
                R"({"id": "o2", "items": [{"sku": "a", "qty": 1}]})",
                R"({"id": "o3", "tags": [1, "x", 3], "m": {"k": 1}})",
                R"({"id": "o4", "m": {"k": 1, "j": "bad"}, "s": {"x": "bad", "y": 2}})"},
               "id STRING, items ARRAY<STRUCT<sku: STRING, qty: INT>>, tags ARRAY<INT>, "
               "m MAP<STRING, INT>, s STRUCT<x: INT, y: INT>");
  EXPECT_EQ(e.rows, (std::vector<std::string>{
                        "{o1, [{a, null}, {b, 3}], null, null, null}",
                        "{o2, [{a, 1}], null, null, null}",
                        "{o3, null, null, {k -> 1}, null}",
                        "{o4, null, null, null, {null, 2}}",
                    }));
  EXPECT_TRUE(e.context.malformed.IsMarked(0));
  EXPECT_EQ(e.context.malformed.Reason(0),
            "cannot convert a JSON string to INT in field 'items[].qty'");
  EXPECT_FALSE(e.context.malformed.IsMarked(1));
  EXPECT_EQ(e.context.malformed.Reason(2), "cannot convert a JSON string to INT in field 'tags[]'");
  EXPECT_TRUE(e.context.malformed.IsMarked(3));
}

TEST(FromJsonTest, CorruptRecordColumnReceivesTheRawText) {
  std::string partial = R"({"a": "x", "_corrupt_record": "ignored"})";
  Evaluated e =
      FromJson({R"({"a": 1})", "{oops", partial, std::nullopt}, "a INT, _corrupt_record STRING");
  EXPECT_EQ(e.rows, (std::vector<std::string>{"{1, null}", "{null, {oops}",
                                              "{null, " + partial + "}", "NULL"}));
  // The raw text is the input's own bytes.
  EXPECT_EQ(e.column.child(1).StringAt(1), "{oops");

  Evaluated named = FromJson({"{oops", R"({"a": 2})"}, "a INT, bad STRING",
                             Options{{"columnNameOfCorruptRecord", "bad"}});
  EXPECT_EQ(named.rows, (std::vector<std::string>{"{null, {oops}", "{2, null}"}));
}

TEST(FromJsonTest, FailFastMarksRowErrors) {
  Evaluated e = FromJson({R"({"a": 1})", "{oops"}, "a INT", Options{{"MODE", "failfast"}});
  EXPECT_EQ(e.rows, (std::vector<std::string>{"{1}", "NULL"}));
  EXPECT_EQ(e.context.row_errors.count(), 1);
  EXPECT_NE(e.context.row_errors.Reason(1).find("Parse Mode: FAILFAST"), std::string::npos);
  EXPECT_EQ(e.context.malformed.count(), 0);
}

TEST(FromJsonTest, RejectsBadOptionsAndSchemasWhenBinding) {
  Batch batch = RawBatch({"{}"});
  auto drop = FromJsonCall(batch.schema, "a INT", Options{{"mode", "DROPMALFORMED"}});
  ASSERT_STATUS_CODE(kInvalidArgument, drop);
  EXPECT_NE(drop.status().message().find("doesn't support the DROPMALFORMED mode"),
            std::string::npos);
  ASSERT_STATUS_CODE(kInvalidArgument,
                     FromJsonCall(batch.schema, "a INT", Options{{"timestampFormat", "yyyy"}}));
  ASSERT_STATUS_CODE(kInvalidArgument,
                     FromJsonCall(batch.schema, "a INT, _corrupt_record INT", std::nullopt));
  ASSERT_STATUS_CODE(kInvalidArgument, FromJsonCall(batch.schema, "INT", std::nullopt));
  ASSERT_STATUS_CODE(kInvalidArgument, FromJsonCall(batch.schema, "m MAP<INT, INT>", std::nullopt));
  ASSERT_STATUS_CODE(kInvalidArgument, FromJsonCall(batch.schema, "a INTT", std::nullopt));
  ASSERT_STATUS_CODE(kInvalidArgument, Bind(batch.schema, "from_json(raw, raw)"));
  ASSERT_STATUS_CODE(kInvalidArgument, Bind(batch.schema, "from_json(raw, 'a INT', 'x')"));
}

TEST(FromJsonTest, AcceptsSingleTypeSchemas) {
  EXPECT_EQ(FromJsonOne("[1, 2, null]", "ARRAY<INT>"), "[1, 2, null]");
  EXPECT_EQ(FromJsonOne(R"({"a": 1})", "ARRAY<STRUCT<a: INT>>"), "[{1}]");
  EXPECT_EQ(FromJsonOne("[ ]", "ARRAY<STRUCT<a: INT>>"), "[]");
  EXPECT_EQ(FromJsonOne(R"([1, "x"])", "ARRAY<INT>"), "NULL");
  EXPECT_EQ(FromJsonOne(R"({"a": 1})", "ARRAY<INT>"), "NULL");
  EXPECT_EQ(FromJsonOne(R"({"a": 1, "b": null})", "MAP<STRING, INT>"), "{a -> 1, b -> null}");
  EXPECT_EQ(FromJsonOne("[1]", "MAP<STRING, INT>"), "NULL");
  EXPECT_EQ(FromJsonOne("[1, 2", "ARRAY<INT>"), "NULL");  // unclosed: malformed
  EXPECT_EQ(FromJsonOne(R"({"a": {"b": 1}})", "STRUCT<a: STRUCT<b: INT>>"), "{{1}}");
}

TEST(FromJsonTest, AcceptsJacksonsLenientSyntaxPerOptions) {
  EXPECT_EQ(FromJsonOne(R"({'a': 'it''s', "b": 'say "hi"'})", "a STRING, b STRING"),
            R"({null, null})");  // '' is not an escape: malformed
  EXPECT_EQ(FromJsonOne(R"({'a': 'x', "b": 'say "hi"'})", "a STRING, b STRING"),
            R"({x, say "hi"})");
  EXPECT_EQ(FromJsonOne(R"({"a": NaN, "b": -Infinity, "c": NaN})", "a DOUBLE, b FLOAT, c INT"),
            "{NaN, -Infinity, null}");
  EXPECT_EQ(FromJsonOne(R"({"a": NaN})", "a DOUBLE", Options{{"allowNonNumericNumbers", "false"}}),
            "{null}");
  EXPECT_EQ(FromJsonOne(R"({'a': 1})", "a INT", Options{{"allowSingleQuotes", "false"}}), "{null}");
  EXPECT_EQ(FromJsonOne(R"({"a": 007})", "a INT", Options{{"allowNumericLeadingZeros", "true"}}),
            "{7}");
  EXPECT_EQ(FromJsonOne("{\"a\": /* c */ 1 // end\n}", "a INT", Options{{"allowComments", "true"}}),
            "{1}");
  EXPECT_EQ(FromJsonOne("{\"a\": /* c */ 1}", "a INT"), "{null}");
  // Raw control characters inside strings are malformed (allowUnquotedControlChars=false).
  EXPECT_EQ(FromJsonOne("{\"a\": \"x\ty\"}", "a STRING"), "{null}");
  // Lone surrogates become '?', as Java's UTF-8 encoder writes them.
  EXPECT_EQ(FromJsonOne(R"({"a": "\ud800x\ud83d\ude00"})", "a STRING"), "{?x\xF0\x9F\x98\x80}");
}

TEST(FromJsonTest, ConstantInputMarksEveryRow) {
  Batch batch = RawBatch({"a", "b", "c"});
  ASSERT_OK_AND_ASSIGN(BoundExprPtr call, Bind(batch.schema, "from_json('{oops', 'a INT')"));
  EvalContext context;
  context.StartBatch(3, 0);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*call, batch, context));
  ASSERT_EQ(out.size(), 3);
  EXPECT_EQ(Render(out, 2), "{null}");
  EXPECT_EQ(context.malformed.count(), 3);
}

TEST(FromJsonTest, UnbalancedBracketsAfterLongerRowsAreMalformed) {
  // The parser's buffer still holds the longer first row past the end of the later ones.
  Evaluated e = FromJson({R"([["xxxxxxxxxxxxxxxx", "yy"]])", "[[[", "[[", R"([["a"]])"},
                         "ARRAY<ARRAY<STRING>>");
  EXPECT_EQ(e.rows,
            (std::vector<std::string>{"[[xxxxxxxxxxxxxxxx, yy]]", "NULL", "NULL", "[[a]]"}));
  EXPECT_TRUE(e.context.malformed.IsMarked(1));
  EXPECT_TRUE(e.context.malformed.IsMarked(2));
  EXPECT_EQ(GetJsonObject(R"({"a": "x)", "$.a"), "NULL");
}

TEST(FromJsonTest, SurvivesDeepNestingAndHugeInputs) {
  std::string deep(5000, '[');
  EXPECT_EQ(FromJsonOne(R"({"a": )" + deep + "}", "a STRING"), "{null}");
  std::string big = R"({"a": ")" + std::string(1 << 20, 'x') + R"(", "b": 2})";
  EXPECT_EQ(FromJsonOne(big, "b INT"), "{2}");
}

TEST(FromJsonTest, AcceptsOptionsFromMapWhenAvailable) {
  if (FindFunction("map") == nullptr) GTEST_SKIP() << "map() is not registered yet";
  std::vector<std::string> rows = EvalOverRaw(
      {"{oops"}, "from_json(raw, 'a INT, c STRING', map('columnNameOfCorruptRecord', 'c'))");
  EXPECT_EQ(rows, (std::vector<std::string>{"{null, {oops}"}));
}

TEST(FromJsonTest, FieldAccessOnTheResult) {
  std::vector<std::string> rows =
      EvalOverRaw({R"({"event_id": "e1", "amount": "10.5"})", "bad", std::nullopt},
                  "from_json(raw, 'event_id STRING, amount DECIMAL(18,2)').amount");
  EXPECT_EQ(rows, (std::vector<std::string>{"10.50", "NULL", "NULL"}));
}

// ------------------------------------------------------------------ get_json_object

constexpr std::string_view kStore =
    R"({"store":{"fruit":[{"weight":8,"type":"apple"},{"weight":9,"type":"pear"}],)"
    R"("basket":[[1,2,{"b":"y","a":"x"}],[3,4],[5,6]],"book":[{"author":"Nigel Rees",)"
    R"("title":"Sayings of the Century","category":"reference","price":8.95},)"
    R"({"author":"Herman Melville","title":"Moby Dick","category":"fiction","price":8.99,)"
    R"("isbn":"0-553-21311-3"},{"author":"J. R. R. Tolkien","title":"The Lord of the Rings",)"
    R"("category":"fiction","reader":[{"age":25,"name":"bob"},{"age":26,"name":"jack"}],)"
    R"("price":22.99,"isbn":"0-395-19395-8"}],"bicycle":{"price":19.95,"color":"red"}},)"
    R"("email":"amy@only_for_json_udf_test.net","owner":"amy","zip code":"94025",)"
    R"("fb:testid":"1234"})";

std::string GetJsonObject(std::string_view json, std::string_view path) {
  auto rows =
      EvalOverRaw({std::string(json)}, "get_json_object(raw, \"" + std::string(path) + "\")");
  return rows.empty() ? "<error>" : rows[0];
}

TEST(GetJsonObjectTest, MatchesSparksSuite) {
  EXPECT_EQ(GetJsonObject(kStore, "$.store.bicycle"), R"({"price":19.95,"color":"red"})");
  EXPECT_EQ(GetJsonObject(kStore, "$['store'].bicycle"), R"({"price":19.95,"color":"red"})");
  EXPECT_EQ(GetJsonObject(kStore, "$.store['bicycle']"), R"({"price":19.95,"color":"red"})");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.book[0]"),
            R"({"author":"Nigel Rees","title":"Sayings of the Century","category":"reference",)"
            R"("price":8.95})");
  EXPECT_EQ(GetJsonObject(kStore, "$"), kStore);
  EXPECT_EQ(GetJsonObject(kStore, "$.store.book[0].category"), "reference");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.book[*].category"),
            R"(["reference","fiction","fiction"])");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.book[*].isbn"), R"(["0-553-21311-3","0-395-19395-8"])");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.book[*].reader"),
            R"([{"age":25,"name":"bob"},{"age":26,"name":"jack"}])");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.basket[0][1]"), "2");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.basket[*]"), R"([[1,2,{"b":"y","a":"x"}],[3,4],[5,6]])");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.basket[*][0]"), "[1,3,5]");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.basket[0][*]"), R"([1,2,{"b":"y","a":"x"}])");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.basket[*][*]"), R"([1,2,{"b":"y","a":"x"},3,4,5,6])");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.basket[0][2].b"), "y");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.basket[0][*].b"), R"(["y"])");
  EXPECT_EQ(GetJsonObject(kStore, "$.zip code"), "94025");
  EXPECT_EQ(GetJsonObject(kStore, "$.fb:testid"), "1234");
  EXPECT_EQ(GetJsonObject(kStore, "$.non_exist_key"), "NULL");
  EXPECT_EQ(GetJsonObject(kStore, "$..no_recursive"), "NULL");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.book[10]"), "NULL");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.book[0].non_exist_key"), "NULL");
  EXPECT_EQ(GetJsonObject(kStore, "$.store.basket[*].non_exist_key"), "NULL");
  EXPECT_EQ(GetJsonObject(R"({ "key with spaces": "it works" })", "$['key with spaces']"),
            "it works");
  EXPECT_EQ(GetJsonObject(R"({"a":"b\nc"})", "$.a"), "b\nc");
  EXPECT_EQ(GetJsonObject(R"({"a":"b\"c"})", "$.a"), "b\"c");
  EXPECT_EQ(GetJsonObject("\x00\x00\x00"
                          "A\x01"
                          "AAA",
                          "$.a"),
            "NULL");
}

TEST(GetJsonObjectTest, ReserializesLikeJackson) {
  EXPECT_EQ(GetJsonObject(R"({"a": {"x": 1.50, "y": 1e2, "z": -0, "w": "\u00e9\u0001\/"}})", "$.a"),
            R"({"x":1.5,"y":100.0,"z":0,"w":"é\u0001/"})");
  EXPECT_EQ(GetJsonObject(R"({"a": 1E400})", "$.a"), R"("Infinity")");
  EXPECT_EQ(GetJsonObject(R"([{"a":"x"},{"b":1}])", "$[*].a"), R"("x")");  // Hive's unwrapping
  EXPECT_EQ(GetJsonObject(R"({"a": null})", "$.a"), "NULL");
  EXPECT_EQ(GetJsonObject("[null]", "$[0]"), "null");
  EXPECT_EQ(GetJsonObject(R"("text")", "$"), "text");
  EXPECT_EQ(GetJsonObject(R"({"a": [1, 2]})", "$.a[ 1 ]"), "2");
  EXPECT_EQ(GetJsonObject(R"({"a": 1})", "$.*"), "NULL");
  // Jackson's parser here allows single quotes and raw control characters.
  EXPECT_EQ(GetJsonObject("{'a': 'x\ty'}", "$.a"), "x\ty");
  EXPECT_EQ(GetJsonObject(R"({"a": 1, "b": [1 2]})", "$.a"), "NULL");  // checked to the end
  EXPECT_EQ(GetJsonObject(R"({"a": 1} junk)", "$.a"), "1");
  EXPECT_EQ(GetJsonObject(R"({"a": NaN})", "$.a"), "NULL");
  EXPECT_EQ(GetJsonObject(R"({"a": 1})", "a"), "NULL");
  EXPECT_EQ(GetJsonObject(R"({"a": 1})", "$a"), "NULL");
  EXPECT_EQ(GetJsonObject(R"({"a": {"b": 1}, "a": {"c": 2}})", "$.a.c"), "2");
}

TEST(GetJsonObjectTest, PathsMayBeColumns) {
  Batch batch = RawBatch({R"({"a": 1, "b": 2})"});
  batch.schema.fields.push_back({"p", DataType::String()});
  Column paths(DataType::String());
  paths.AppendString("$.b");
  batch.columns.push_back(paths);
  ASSERT_OK_AND_ASSIGN(BoundExprPtr e, Bind(batch.schema, "get_json_object(raw, p)"));
  EvalContext context;
  context.StartBatch(1, 0);
  ASSERT_OK_AND_ASSIGN(Column out, Evaluate(*e, batch, context));
  EXPECT_EQ(Render(out, 0), "2");
}

// ------------------------------------------------------------------ raw:path

TEST(JsonPathOperatorTest, FollowsDatabricksSemantics) {
  std::vector<std::optional<std::string>> store = {std::string(kStore)};
  EXPECT_EQ(EvalOverRaw(store, "raw:owner"), std::vector<std::string>{"amy"});
  EXPECT_EQ(EvalOverRaw(store, "raw:OWNER"), std::vector<std::string>{"amy"});
  EXPECT_EQ(EvalOverRaw(store, "raw:['owner']"), std::vector<std::string>{"amy"});
  EXPECT_EQ(EvalOverRaw(store, "raw:['OWNER']"), std::vector<std::string>{"NULL"});
  EXPECT_EQ(EvalOverRaw(store, "raw:`zip code`"), std::vector<std::string>{"94025"});
  EXPECT_EQ(EvalOverRaw(store, "raw:`Zip Code`"), std::vector<std::string>{"94025"});
  EXPECT_EQ(EvalOverRaw(store, "raw:['fb:testid']"), std::vector<std::string>{"1234"});
  EXPECT_EQ(EvalOverRaw(store, "raw:store.bicycle"),
            std::vector<std::string>{R"({"price":19.95,"color":"red"})"});
  EXPECT_EQ(EvalOverRaw(store, "raw:store.fruit[0].type"), std::vector<std::string>{"apple"});
  EXPECT_EQ(EvalOverRaw(store, "raw:store.book[*].isbn"),
            std::vector<std::string>{R"([null,"0-553-21311-3","0-395-19395-8"])"});
  EXPECT_EQ(EvalOverRaw(store, "raw:store.basket[*][0]"), std::vector<std::string>{"[1,3,5]"});
  EXPECT_EQ(EvalOverRaw(store, "raw:store.basket[*][*]"),
            std::vector<std::string>{R"([1,2,{"b":"y","a":"x"},3,4,5,6])"});
  EXPECT_EQ(EvalOverRaw(store, "raw:store.basket[0][2].b"), std::vector<std::string>{"y"});
  EXPECT_EQ(EvalOverRaw({R"({"key": null})"}, "raw:key IS NULL"), std::vector<std::string>{"true"});
  EXPECT_EQ(EvalOverRaw({R"({"key": "null"})"}, "raw:key IS NULL"),
            std::vector<std::string>{"false"});
  EXPECT_EQ(EvalOverRaw(store, "raw:store.bicycle.price::double"),
            std::vector<std::string>{"19.95"});
}

TEST(JsonPathOperatorTest, AmbiguousFieldsAreRowErrors) {
  EvalContext context;
  EXPECT_EQ(
      EvalOverRaw({R"({"Owner": "a", "owner": "b"})", R"({"owner": "c"})"}, "raw:owner", &context),
      (std::vector<std::string>{"NULL", "c"}));
  EXPECT_TRUE(context.row_errors.IsMarked(0));
  EXPECT_FALSE(context.row_errors.IsMarked(1));
  EXPECT_NE(context.row_errors.Reason(0).find("AMBIGUOUS"), std::string::npos);
}

}  // namespace
}  // namespace weir::expr
