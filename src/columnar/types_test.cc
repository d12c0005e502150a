#include "columnar/types.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::columnar {
namespace {

TEST(DdlTest, ParsesSeedSchema) {
  ASSERT_OK_AND_ASSIGN(Schema s, ParseDdlSchema(
      "event_id STRING, amount DECIMAL(18,2), tags ARRAY<STRING>, m MAP<STRING, INT>, "
      "s STRUCT<a: INT, `b c` STRING NOT NULL>, ts TIMESTAMP, d DATE, n BIGINT NOT NULL"));
  ASSERT_EQ(s.num_fields(), 8);
  EXPECT_EQ(s.fields[1].type->id(), TypeId::kDecimal);
  EXPECT_EQ(s.fields[1].type->precision(), 18);
  EXPECT_EQ(s.fields[1].type->scale(), 2);
  EXPECT_EQ(s.fields[2].type->element().type->id(), TypeId::kString);
  EXPECT_EQ(s.fields[3].type->value().type->id(), TypeId::kInt32);
  EXPECT_EQ(s.fields[4].type->children()[1].name, "b c");
  EXPECT_FALSE(s.fields[4].type->children()[1].nullable);
  EXPECT_FALSE(s.fields[7].nullable);
  EXPECT_EQ(s.ToDdl(),
            "event_id STRING, amount DECIMAL(18,2), tags ARRAY<STRING>, m MAP<STRING, INT>, "
            "s STRUCT<a: INT, b c: STRING NOT NULL>, ts TIMESTAMP, d DATE, n BIGINT NOT NULL");
}

TEST(DdlTest, AcceptsSparkAliasesAndComments) {
  ASSERT_OK_AND_ASSIGN(Schema s, ParseDdlSchema(
      "a long, b integer, c short, d byte, e real, f varchar(10), g dec(5), h bool COMMENT 'x'"));
  EXPECT_EQ(s.fields[0].type->id(), TypeId::kInt64);
  EXPECT_EQ(s.fields[1].type->id(), TypeId::kInt32);
  EXPECT_EQ(s.fields[2].type->id(), TypeId::kInt16);
  EXPECT_EQ(s.fields[3].type->id(), TypeId::kInt8);
  EXPECT_EQ(s.fields[4].type->id(), TypeId::kFloat);
  EXPECT_EQ(s.fields[5].type->id(), TypeId::kString);
  EXPECT_EQ(s.fields[6].type->precision(), 5);
  EXPECT_EQ(s.fields[6].type->scale(), 0);
  EXPECT_EQ(s.fields[7].metadata, R"({"comment":"x"})");
}

TEST(DdlTest, ErrorsNamePosition) {
  auto r = ParseDdlSchema("a STRING, b DECIMAL(40,2)");
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_NE(r.status().message().find("DECIMAL(p,s)"), std::string::npos) << r.status().message();
  ASSERT_STATUS_CODE(kInvalidArgument, ParseDdlSchema("a STRNG"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseDdlSchema("a ARRAY<INT"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseDdlSchema(""));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseDdlSchema("a INT b INT"));
}

TEST(DeltaJsonTest, RoundTripsEveryType) {
  ASSERT_OK_AND_ASSIGN(Schema s, ParseDdlSchema(
      "b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, i64 BIGINT NOT NULL, f FLOAT, d DOUBLE, "
      "dec DECIMAL(38,10), s STRING, bin BINARY, dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, "
      "arr ARRAY<STRUCT<x: INT, y: ARRAY<STRING>>>, m MAP<STRING, MAP<INT, DOUBLE>>"));
  std::string json = SchemaToDeltaJson(s);
  ASSERT_OK_AND_ASSIGN(Schema back, SchemaFromDeltaJson(json));
  EXPECT_TRUE(back.Equals(s)) << json;
  EXPECT_EQ(SchemaToDeltaJson(back), json);
}

TEST(DeltaJsonTest, ParsesSparkWrittenSchema) {
  const char* json =
      R"({"type":"struct","fields":[{"name":"letter","type":"string","nullable":true,"metadata":{}},)"
      R"({"name":"number","type":"long","nullable":true,"metadata":{}},)"
      R"({"name":"a_float","type":"double","nullable":false,"metadata":{"comment":"c"}},)"
      R"({"name":"arr","type":{"type":"array","elementType":"integer","containsNull":false},"nullable":true,"metadata":{}}]})";
  ASSERT_OK_AND_ASSIGN(Schema s, SchemaFromDeltaJson(json));
  ASSERT_EQ(s.num_fields(), 4);
  EXPECT_EQ(s.fields[1].type->id(), TypeId::kInt64);
  EXPECT_FALSE(s.fields[2].nullable);
  EXPECT_EQ(s.fields[2].metadata, R"({"comment":"c"})");
  EXPECT_FALSE(s.fields[3].type->element().nullable);
  EXPECT_EQ(s.FieldIndex("NUMBER"), 1);
  EXPECT_EQ(s.FieldIndex("missing"), -1);
}

TEST(DeltaJsonTest, RejectsBadJson) {
  ASSERT_STATUS_CODE(kCorruption, SchemaFromDeltaJson("{not json"));
  ASSERT_STATUS_CODE(kCorruption, SchemaFromDeltaJson(R"({"type":"struct"})"));
  ASSERT_STATUS_CODE(kNotImplemented,
                     SchemaFromDeltaJson(R"({"type":"struct","fields":[{"name":"v","type":"variant"}]})"));
}

}  // namespace
}  // namespace weir::columnar
