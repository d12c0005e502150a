#include "delta/partition_value.h"

#include <cmath>

#include <gtest/gtest.h>

#include "base/testing.h"
#include "columnar/text_format.h"

namespace weir::delta {
namespace {

using columnar::Column;
using columnar::DataType;

TEST(PartitionValueTest, JavaNumberForms) {
  EXPECT_EQ(FormatJavaDouble(1.0), "1.0");
  EXPECT_EQ(FormatJavaDouble(2021.0), "2021.0");
  EXPECT_EQ(FormatJavaDouble(-0.5), "-0.5");
  EXPECT_EQ(FormatJavaDouble(0.001), "0.001");
  EXPECT_EQ(FormatJavaDouble(0.0001), "1.0E-4");
  EXPECT_EQ(FormatJavaDouble(1e7), "1.0E7");
  EXPECT_EQ(FormatJavaDouble(1234567.0), "1234567.0");
  EXPECT_EQ(FormatJavaDouble(1.5e300), "1.5E300");
  EXPECT_EQ(FormatJavaDouble(0.0), "0.0");
  EXPECT_EQ(FormatJavaDouble(-0.0), "-0.0");
  EXPECT_EQ(FormatJavaDouble(NAN), "NaN");
  EXPECT_EQ(FormatJavaDouble(-INFINITY), "-Infinity");
  EXPECT_EQ(FormatJavaFloat(3.14f), "3.14");
  EXPECT_EQ(FormatJavaFloat(100.0f), "100.0");
}

TEST(PartitionValueTest, HiveEscaping) {
  EXPECT_EQ(EscapePartitionPathComponent("/%20%f"), "%2F%2520%25f");
  EXPECT_EQ(EscapePartitionPathComponent("1971-07-22T03:06:40.000000Z"), "1971-07-22T03%3A06%3A40.000000Z");
  EXPECT_EQ(EscapePartitionPathComponent("a b😈"), "a b😈");
  EXPECT_EQ(EscapePartitionPathComponent("a=b#c?d*e'f\"g[h]i^j{k\\l\x01"),
            "a%3Db%23c%3Fd%2Ae%27f%22g%5Bh%5Di%5Ej%7Bk%5Cl%01");
}

// Serializes one value and parses it back into a column of the same type.
void RoundTrip(const Column& c) {
  for (int64_t r = 0; r < c.size(); ++r) {
    ASSERT_OK_AND_ASSIGN(auto text, SerializePartitionValue(c, r));
    Column back(c.type());
    ASSERT_OK(AppendPartitionValue(text, "c", &back));
    ASSERT_EQ(back.IsNull(0), c.IsNull(r));
    if (c.IsNull(r)) continue;
    ASSERT_OK_AND_ASSIGN(auto again, SerializePartitionValue(back, 0));
    EXPECT_EQ(again, text) << c.type()->ToDdl();
  }
}

TEST(PartitionValueTest, EveryTypeRoundTrips) {
  Column ints(DataType::Int32());
  ints.Append<int32_t>(-5);
  ints.AppendNull();
  ints.Append<int32_t>(2147483647);
  RoundTrip(ints);
  Column longs(DataType::Int64());
  longs.Append<int64_t>(INT64_MIN);
  RoundTrip(longs);
  Column doubles(DataType::Double());
  doubles.Append<double>(0.1);
  doubles.Append<double>(1e-10);
  doubles.Append<double>(NAN);
  RoundTrip(doubles);
  Column floats(DataType::Float());
  floats.Append<float>(-1.25f);
  RoundTrip(floats);
  Column decimals(DataType::Decimal(12, 5));
  decimals.Append<columnar::Int128>(-234234223423);
  RoundTrip(decimals);
  Column dates(DataType::Date());
  dates.Append<int32_t>(18878);
  RoundTrip(dates);
  Column ts(DataType::Timestamp());
  ts.Append<int64_t>(1631099471123456);
  RoundTrip(ts);
  Column ntz(DataType::TimestampNtz());
  ntz.Append<int64_t>(1631099471000000);
  RoundTrip(ntz);
  Column bools(DataType::Boolean());
  bools.Append<uint8_t>(1);
  bools.Append<uint8_t>(0);
  RoundTrip(bools);
  Column strings(DataType::String());
  strings.AppendString("a/b=c");
  strings.AppendString("null");
  RoundTrip(strings);
}

TEST(PartitionValueTest, TextForms) {
  Column ts(DataType::Timestamp());
  ts.Append<int64_t>(1631099471123456);
  EXPECT_EQ(*SerializePartitionValue(ts, 0).ValueOrDie(), "2021-09-08T11:11:11.123456Z");
  Column ntz(DataType::TimestampNtz());
  ntz.Append<int64_t>(1631099471000000);
  EXPECT_EQ(*SerializePartitionValue(ntz, 0).ValueOrDie(), "2021-09-08 11:11:11");
  Column empty(DataType::String());
  empty.AppendString("");
  EXPECT_EQ(SerializePartitionValue(empty, 0).ValueOrDie(), std::nullopt);  // "" reads as null
  Column bad_binary(DataType::Binary());
  bad_binary.AppendString(std::string("\xff\xfe", 2));
  ASSERT_STATUS_CODE(kInvalidArgument, SerializePartitionValue(bad_binary, 0));
}

TEST(PartitionValueTest, ParsesEveryProtocolForm) {
  Column ts(DataType::Timestamp());
  ASSERT_OK(AppendPartitionValue(std::string("1970-01-01 00:00:00"), "t", &ts));
  ASSERT_OK(AppendPartitionValue(std::string("1970-01-01 00:00:00.123456"), "t", &ts));
  ASSERT_OK(AppendPartitionValue(std::string("1971-07-22T03:06:40.000000Z"), "t", &ts));
  ASSERT_OK(AppendPartitionValue(std::string("2021-09-08 11:11:11"), "t", &ts, -7 * 3600));
  ASSERT_OK(AppendPartitionValue(std::string("2021-09-08T11:11:11Z"), "t", &ts, -7 * 3600));
  EXPECT_EQ(ts.Value<int64_t>(0), 0);
  EXPECT_EQ(ts.Value<int64_t>(1), 123456);
  EXPECT_EQ(ts.Value<int64_t>(2), 49000000000000);
  EXPECT_EQ(ts.Value<int64_t>(3), 1631099471000000 + 7 * 3600 * 1000000LL);  // local time at UTC-7
  EXPECT_EQ(ts.Value<int64_t>(4), 1631099471000000);                         // carries its zone
  Column years(DataType::Int64());
  ASSERT_OK(AppendPartitionValue(std::string("2021.0"), "year", &years));  // delta-rs
  EXPECT_EQ(years.Value<int64_t>(0), 2021);
  Column b(DataType::Boolean());
  ASSERT_OK(AppendPartitionValue(std::string("TRUE"), "b", &b));
  ASSERT_OK(AppendPartitionValue(std::nullopt, "b", &b));
  ASSERT_OK(AppendPartitionValue(std::string(""), "b", &b));
  EXPECT_EQ(b.null_count(), 2);
  Column i(DataType::Int8());
  ASSERT_STATUS_CODE(kInvalidArgument, AppendPartitionValue(std::string("300"), "i", &i));
  Column d(DataType::Decimal(5, 2));
  ASSERT_STATUS_CODE(kInvalidArgument, AppendPartitionValue(std::string("abc"), "d", &d));
}

}  // namespace
}  // namespace weir::delta
