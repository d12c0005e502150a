#include "columnar/column.h"

#include <gtest/gtest.h>

#include "base/testing.h"
#include "columnar/json_lines.h"
#include "columnar/text_format.h"

namespace weir::columnar {
namespace {

TEST(ColumnTest, FixedWidthWithNulls) {
  Column c(DataType::Int64());
  c.Append<int64_t>(1);
  c.Append<int64_t>(2);
  c.AppendNull();
  c.Append<int64_t>(4);
  ASSERT_EQ(c.size(), 4);
  EXPECT_EQ(c.null_count(), 1);
  EXPECT_FALSE(c.IsNull(1));
  EXPECT_TRUE(c.IsNull(2));
  EXPECT_EQ(c.Value<int64_t>(3), 4);
  Column s = c.Slice(1, 2);
  EXPECT_EQ(s.size(), 2);
  EXPECT_EQ(s.Value<int64_t>(0), 2);
  EXPECT_TRUE(s.IsNull(1));
}

TEST(ColumnTest, StringsSurviveTheirSource) {
  Column c(DataType::String());
  {
    std::string temp = "hello";
    c.AppendString(temp);
    temp = "xxxxx";
  }
  c.AppendString("");
  c.AppendNull();
  EXPECT_EQ(c.StringAt(0), "hello");
  EXPECT_EQ(c.StringAt(1), "");
  EXPECT_TRUE(c.IsNull(2));
  Column copy = c;
  c.Clear();
  EXPECT_EQ(copy.StringAt(0), "hello");
}

TEST(ColumnTest, NestedToJson) {
  ASSERT_OK_AND_ASSIGN(Schema schema, ParseDdlSchema(
      "id BIGINT, tags ARRAY<STRING>, m MAP<STRING, INT>, s STRUCT<a: INT, b: DECIMAL(5,2)>"));
  Batch batch(schema);
  // Row 0
  batch.columns[0].Append<int64_t>(9007199254740993LL);
  batch.columns[1].mutable_child(0).AppendString("x");
  batch.columns[1].mutable_child(0).AppendNull();
  batch.columns[1].AppendListEntry();
  batch.columns[2].mutable_child(0).AppendString("k");
  batch.columns[2].mutable_child(1).Append<int32_t>(7);
  batch.columns[2].AppendListEntry();
  batch.columns[3].mutable_child(0).Append<int32_t>(1);
  batch.columns[3].mutable_child(1).Append<Int128>(-1050);
  batch.columns[3].AppendStructEntry();
  // Row 1: all null
  for (auto& c : batch.columns) c.AppendNull();
  std::string out;
  AppendJsonRow(batch, 0, &out);
  EXPECT_EQ(out, R"({"id":"9007199254740993","tags":["x",null],"m":{"k":7},"s":{"a":1,"b":"-10.50"}})");
  out.clear();
  AppendJsonRow(batch, 1, &out);
  EXPECT_EQ(out, R"({"id":null,"tags":null,"m":null,"s":null})");
}

TEST(ColumnTest, AppendFromCopiesNestedRows) {
  ASSERT_OK_AND_ASSIGN(TypePtr t, ParseDdlType("ARRAY<STRUCT<a: INT, b: STRING>>"));
  Column src(t);
  Column& elem = src.mutable_child(0);
  elem.mutable_child(0).Append<int32_t>(1);
  elem.mutable_child(1).AppendString("one");
  elem.AppendStructEntry();
  src.AppendListEntry();
  src.AppendNull();
  Column dst(t);
  dst.AppendFrom(src, 1);
  dst.AppendFrom(src, 0);
  std::string out;
  AppendJsonValue(dst, 0, &out);
  out += "|";
  AppendJsonValue(dst, 1, &out);
  EXPECT_EQ(out, R"(null|[{"a":1,"b":"one"}])");
}

TEST(TextFormatTest, Decimals) {
  EXPECT_EQ(FormatDecimal(1050, 2), "10.50");
  EXPECT_EQ(FormatDecimal(-5, 2), "-0.05");
  EXPECT_EQ(FormatDecimal(0, 0), "0");
  EXPECT_EQ(FormatDecimal(MaxDecimalUnscaled(38), 0), "99999999999999999999999999999999999999");
  EXPECT_EQ(FormatDecimal(-MaxDecimalUnscaled(38), 38), "-0.99999999999999999999999999999999999999");
  EXPECT_EQ(ParseDecimal("10.50", 18, 2), Int128(1050));
  EXPECT_EQ(ParseDecimal("10.505", 18, 2), Int128(1051));  // half up
  EXPECT_EQ(ParseDecimal("-10.504", 18, 2), Int128(-1050));
  EXPECT_EQ(ParseDecimal("1e3", 18, 2), Int128(100000));
  EXPECT_EQ(ParseDecimal(" 7 ", 3, 0), Int128(7));
  EXPECT_EQ(ParseDecimal("0.0005", 5, 2), Int128(0));
  EXPECT_EQ(ParseDecimal("1000", 3, 0), std::nullopt);  // overflow
  EXPECT_EQ(ParseDecimal("abc", 10, 2), std::nullopt);
  EXPECT_EQ(ParseDecimal("1.2.3", 10, 2), std::nullopt);
  EXPECT_EQ(ParseDecimal("", 10, 2), std::nullopt);
}

TEST(TextFormatTest, DatesAndTimestamps) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(ParseDate("2026-06-08"), DaysFromCivil(2026, 6, 8));
  EXPECT_EQ(ParseDate("2024-02-30"), std::nullopt);
  EXPECT_EQ(ParseDate("9999-12-31").value(), 2932896);
  int64_t ts = *ParseTimestamp("2026-06-08T09:00:00Z");
  EXPECT_EQ(FormatTimestampMicros(ts), "2026-06-08T09:00:00.000000Z");
  EXPECT_EQ(*ParseTimestamp("2026-06-08 09:00:00.5"), ts + 500000);
  EXPECT_EQ(*ParseTimestamp("2026-06-08T01:00:00-08:00"), ts);
  EXPECT_EQ(*ParseTimestamp("2026-06-08T10:30:00+0130"), ts);
  EXPECT_EQ(ParseTimestamp("2026-06-08T25:00:00Z"), std::nullopt);
  EXPECT_EQ(FormatTimestampMicros(-1), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatTimestampForPartition(ts + 123), "2026-06-08 09:00:00.000123");
  EXPECT_EQ(FormatTimestampMillis(ts + 123456), "2026-06-08T09:00:00.123Z");
}

TEST(TextFormatTest, Base64AndJsonStrings) {
  std::string out;
  AppendBase64("hello!?", &out);
  EXPECT_EQ(out, "aGVsbG8hPw==");
  EXPECT_EQ(DecodeBase64(out), "hello!?");
  out.clear();
  AppendJsonString(std::string("a\"\\\n\x01\xff\xc3\xa9", 8), &out);
  EXPECT_EQ(out, "\"a\\\"\\\\\\n\\u0001\xEF\xBF\xBD\xc3\xa9\"");
}

}  // namespace
}  // namespace weir::columnar
