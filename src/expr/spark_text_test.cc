#include "expr/spark_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace weir::expr {
namespace {

std::string Double(double v) {
  std::string s;
  AppendSparkDouble(v, &s);
  return s;
}

std::string Float(float v) {
  std::string s;
  AppendSparkFloat(v, &s);
  return s;
}

std::string Timestamp(int64_t micros) {
  std::string s;
  AppendSparkTimestamp(micros, &s);
  return s;
}

TEST(SparkTextTest, IntegersFollowUtf8StringToLong) {
  EXPECT_EQ(ParseSparkInteger("42"), 42);
  EXPECT_EQ(ParseSparkInteger(" \t-42\n"), -42);
  EXPECT_EQ(ParseSparkInteger("+7"), 7);
  EXPECT_EQ(ParseSparkInteger("1.99"), 1);
  EXPECT_EQ(ParseSparkInteger("-1.99"), -1);
  EXPECT_EQ(ParseSparkInteger(".5"), 0);
  EXPECT_EQ(ParseSparkInteger("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseSparkInteger("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ParseSparkInteger("9223372036854775808"), std::nullopt);
  EXPECT_EQ(ParseSparkInteger("-9223372036854775809"), std::nullopt);
  EXPECT_EQ(ParseSparkInteger("99999999999999999999"), std::nullopt);
  EXPECT_EQ(ParseSparkInteger("1e3"), std::nullopt);
  EXPECT_EQ(ParseSparkInteger("1.x"), std::nullopt);
  EXPECT_EQ(ParseSparkInteger("-"), std::nullopt);
  EXPECT_EQ(ParseSparkInteger(""), std::nullopt);
  EXPECT_EQ(ParseSparkInteger("1 2"), std::nullopt);
}

TEST(SparkTextTest, Doubles) {
  EXPECT_EQ(ParseSparkDouble("1e3"), 1000.0);
  EXPECT_EQ(ParseSparkDouble(" .5 "), 0.5);
  EXPECT_EQ(ParseSparkDouble("5."), 5.0);
  EXPECT_EQ(ParseSparkDouble("-2.5d"), -2.5);
  EXPECT_EQ(ParseSparkDouble("1E400"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(ParseSparkDouble("1e-400"), 0.0);
  EXPECT_EQ(ParseSparkDouble("-Infinity"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(ParseSparkDouble("INF"), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*ParseSparkDouble("nan")));
  EXPECT_EQ(ParseSparkDouble("e5"), std::nullopt);
  EXPECT_EQ(ParseSparkDouble("1e"), std::nullopt);
  EXPECT_EQ(ParseSparkDouble("0x1p3"), std::nullopt);
  EXPECT_EQ(ParseSparkDouble("abc"), std::nullopt);
}

TEST(SparkTextTest, DoublesPrintLikeJava) {
  EXPECT_EQ(Double(1.0), "1.0");
  EXPECT_EQ(Double(-1.5), "-1.5");
  EXPECT_EQ(Double(0.001), "0.001");
  EXPECT_EQ(Double(0.0001), "1.0E-4");
  EXPECT_EQ(Double(9999999.0), "9999999.0");
  EXPECT_EQ(Double(10000000.0), "1.0E7");
  EXPECT_EQ(Double(123456789.125), "1.23456789125E8");
  EXPECT_EQ(Double(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Double(1e-300), "1.0E-300");
  EXPECT_EQ(Double(std::numeric_limits<double>::max()), "1.7976931348623157E308");
  EXPECT_EQ(Double(-0.0), "-0.0");
  EXPECT_EQ(Double(std::nan("")), "NaN");
  EXPECT_EQ(Double(-std::numeric_limits<double>::infinity()), "-Infinity");
  EXPECT_EQ(Float(0.1f), "0.1");
  EXPECT_EQ(Float(1e10f), "1.0E10");
  EXPECT_EQ(Float(3.4028235e38f), "3.4028235E38");
}

TEST(SparkTextTest, BooleansAndDecimals) {
  EXPECT_EQ(ParseSparkBoolean(" TRUE "), true);
  EXPECT_EQ(ParseSparkBoolean("y"), true);
  EXPECT_EQ(ParseSparkBoolean("0"), false);
  EXPECT_EQ(ParseSparkBoolean("truth"), std::nullopt);
  EXPECT_EQ(ParseSparkDecimal(" 10.505 ", 5, 2), columnar::Int128{1051});
  EXPECT_EQ(ParseSparkDecimal("-10.505", 5, 2), columnar::Int128{-1051});
  EXPECT_EQ(ParseSparkDecimal("1e2", 5, 2), columnar::Int128{10000});
  EXPECT_EQ(ParseSparkDecimal("1000", 5, 2), std::nullopt);
  EXPECT_EQ(ParseSparkDecimal("NaN", 5, 2), std::nullopt);
}

TEST(SparkTextTest, DatesAndTimestamps) {
  int32_t day = 20612;  // 2026-06-08
  EXPECT_EQ(ParseSparkDate("2026-06-08"), day);
  EXPECT_EQ(ParseSparkDate(" 2026-6-8 "), day);
  EXPECT_EQ(ParseSparkDate("2026-06-08 anything"), day);
  EXPECT_EQ(ParseSparkDate("2026-06-08Tx"), day);
  EXPECT_EQ(ParseSparkDate("2026-06-08x"), std::nullopt);
  EXPECT_EQ(ParseSparkDate("2026-02-29"), std::nullopt);
  EXPECT_EQ(ParseSparkDate("2024-02-29"), 19782);
  EXPECT_EQ(ParseSparkDate("26-06-08"), std::nullopt);

  int64_t t = 1780909200LL * 1000000;  // 2026-06-08 09:00:00 UTC
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08T09:00:00Z"), t);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08 09:00"), t);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08T10:30:00+01:30"), t);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08T04:00:00-0500"), t);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08 09:00:00 UTC"), t);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08T11:00:00GMT+02:00"), t);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08T11:00:00+02:00", /*ignore_zone=*/true),
            t + 7200000000LL);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08 09:00:00.000001"), t + 1);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08 09:00:00.1234569"), t + 123456);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08 09:00:00.1234567890"), std::nullopt);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08 09:60:00"), std::nullopt);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08 09:00:00 Europe/Paris"), std::nullopt);
  EXPECT_EQ(ParseSparkTimestamp("09:00:00"), std::nullopt);

  EXPECT_EQ(Timestamp(t), "2026-06-08 09:00:00");
  EXPECT_EQ(Timestamp(t + 500000), "2026-06-08 09:00:00.5");
  EXPECT_EQ(Timestamp(t + 123456), "2026-06-08 09:00:00.123456");
  EXPECT_EQ(Timestamp(-1), "1969-12-31 23:59:59.999999");
}

// ISO-8601 text in the layout producers write is read at fixed positions; a leading space sends
// the same text through the general reading, which must agree on every value and every NULL.
TEST(SparkTextTest, FixedLayoutTimestampsReadAsTheGeneralGrammarDoes) {
  int64_t t = 1780909200LL * 1000000;  // 2026-06-08 09:00:00 UTC
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08T09:00:00.014Z"), t + 14000);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08T10:30:00.5+01:30"), t + 500000);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08T04:00:00.000000001-05:00"), t);
  EXPECT_EQ(ParseSparkTimestamp("2026-06-08 10:30:00+01:30", /*ignore_zone=*/true),
            t + 5400000000LL);
  EXPECT_EQ(ParseSparkTimestamp("2024-02-29T00:00:00Z"), 19782LL * 86400 * 1000000);
  // Past the microseconds an int64 holds: NULL (Spark's Math.multiplyExact fails), not a wrap.
  EXPECT_NE(ParseSparkTimestamp("290000-01-01"), std::nullopt);
  EXPECT_NE(ParseSparkTimestamp("-290000-01-01T00:00:00"), std::nullopt);
  EXPECT_EQ(ParseSparkTimestamp("300000-01-01"), std::nullopt);
  EXPECT_EQ(ParseSparkTimestamp("-300000-01-01 00:00:00Z"), std::nullopt);
  EXPECT_EQ(ParseSparkTimestamp("+294247-01-10T04:00:54.775807Z"),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseSparkTimestamp("+294247-01-10T04:00:54.775808Z"), std::nullopt);
  EXPECT_EQ(ParseSparkTimestamp("+294247-01-10T05:00:54.775807+01:00"),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseSparkTimestamp("+294247-01-10T03:00:54.775808-01:00"), std::nullopt);
  for (const char* text : {
           "2026-06-08T09:00:00Z",          "2026-06-08 09:00:00",
           "2026-06-08T09:00:00.014Z",      "2026-06-08T09:00:00.1234567Z",
           "2026-06-08T09:00:00.123456789", "2026-06-08T09:00:00.1234567890Z",
           "2026-06-08T09:00:00.Z",         "2026-06-08T09:00:00+05:30",
           "2026-06-08T09:00:00-18:00",     "2026-06-08T09:00:00+19:00",
           "2026-06-08T09:00:00+05:60",     "2026-06-08T09:00:00+0530",
           "2026-06-08T09:00:00 Z",         "2026-06-08T09:00:00z",
           "2026-06-08T09:00:00UTC",        "2026-06-08T09:00:00Zx",
           "2026-06-08T09:00:001",          "2026-06-08T24:00:00Z",
           "2026-06-08T23:60:00Z",          "2026-06-08T23:59:60Z",
           "2026-02-29T09:00:00Z",          "2024-02-29T09:00:00Z",
           "1900-02-29T09:00:00Z",          "2000-02-29T09:00:00Z",
           "2026-04-31T09:00:00Z",          "2026-12-31T23:59:59.999999Z",
           "2026-13-01T09:00:00Z",          "2026-00-01T09:00:00Z",
           "2026-06-00T09:00:00Z",          "0000-01-01T00:00:00Z",
           "2026-06-08X09:00:00Z",          "2026-06-08T09-00:00Z",
           "2026-06-08T09:00-00Z",          "2026-6-08T09:00:00Z",
           "2026-06-08T9:00:00.5Z",         "20260-06-08T09:00:00Z",
           "2026-06-08T09:00:00.5+01:3a",   "2026-06-08T0a:00:00Z",
       }) {
    SCOPED_TRACE(text);
    std::string general = std::string(" ") + text;
    EXPECT_EQ(ParseSparkTimestamp(text), ParseSparkTimestamp(general));
    EXPECT_EQ(ParseSparkTimestamp(text, true), ParseSparkTimestamp(general, true));
  }
}

}  // namespace
}  // namespace weir::expr
