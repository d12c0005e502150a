#include "expr/datetime_format.h"

#include <gtest/gtest.h>

#include "base/testing.h"
#include "expr/spark_text.h"

namespace weir::expr {
namespace {

using Use = DateTimePattern::Use;

constexpr int64_t kT = 1780911015123456LL;  // 2026-06-08 09:30:15.123456 UTC (a Monday)

std::optional<int64_t> Parse(std::string_view pattern, std::string_view text) {
  auto p = DateTimePattern::Compile(pattern, Use::kParse);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  if (!p.ok()) return std::nullopt;
  return p->Parse(text);
}

std::string Format(std::string_view pattern, int64_t micros) {
  auto p = DateTimePattern::Compile(pattern, Use::kFormat);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  std::string out;
  if (p.ok()) p->Format(micros, &out);
  return out;
}

int64_t Ts(std::string_view text) { return *ParseSparkTimestamp(text); }

TEST(DateTimePatternTest, ParsesFieldsAndDefaults) {
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm:ss", "2026-06-08 09:30:15"), Ts("2026-06-08 09:30:15"));
  EXPECT_EQ(Parse("dd/MM/yyyy", "08/06/2026"), Ts("2026-06-08"));
  EXPECT_EQ(Parse("HH:mm", "09:30"), Ts("1970-01-01 09:30"));  // the date defaults to 1970-01-01
  EXPECT_EQ(Parse("yyyy-DDD", "2024-060"), Ts("2024-02-29"));
  EXPECT_EQ(Parse("yyyy-MM-dd", "2026-02-29"), std::nullopt);  // not a leap year
  EXPECT_EQ(Parse("yyyy-MM-dd", "2026-06-08 "), std::nullopt);  // text left over
  EXPECT_EQ(Parse("yyyy-MM-dd", "2026-6-08"), std::nullopt);    // MM is two digits
  EXPECT_EQ(Parse("yyyy-M-d", "2026-6-8"), Ts("2026-06-08"));
}

TEST(DateTimePatternTest, AdjacentNumbersShareTheDigits) {
  EXPECT_EQ(Parse("yyyyMMdd", "20260608"), Ts("2026-06-08"));
  EXPECT_EQ(Parse("yyyyMMddHHmmss", "20260608093015"), Ts("2026-06-08 09:30:15"));
  EXPECT_EQ(Parse("yyMMdd", "260608"), Ts("2026-06-08"));
  EXPECT_EQ(Parse("yyyyMMdd", "2026068"), std::nullopt);
  // A variable-width field after the run ends the sharing (Java's adjacent-value rule).
  EXPECT_EQ(Parse("yyyyMMd", "2026068"), std::nullopt);
}

TEST(DateTimePatternTest, FractionsAndAmPm) {
  EXPECT_EQ(Parse("HH:mm:ss.SSS", "09:30:15.5"), Ts("1970-01-01 09:30:15.5"));
  EXPECT_EQ(Parse("HH:mm:ss.SSSSSSSSS", "09:30:15.123456789"), Ts("1970-01-01 09:30:15.123456"));
  EXPECT_EQ(Parse("HH:mm:ss.SS", "09:30:15.123"), std::nullopt);
  EXPECT_EQ(Parse("h:mm a", "12:05 PM"), Ts("1970-01-01 12:05"));
  EXPECT_EQ(Parse("h:mm a", "12:05 am"), Ts("1970-01-01 00:05"));
  EXPECT_EQ(Parse("HH a", "15 AM"), std::nullopt);  // hour and am/pm disagree
  EXPECT_EQ(Parse("h", "13"), std::nullopt);
}

TEST(DateTimePatternTest, OffsetsAndZones) {
  int64_t base = Ts("2026-06-08 09:30:00");
  int64_t hour = 3600LL * 1000000;
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mmXXX", "2026-06-08 09:30+02:00"), base - 2 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mmX", "2026-06-08 09:30Z"), base);
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mmX", "2026-06-08 09:30-03"), base + 3 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mmZ", "2026-06-08 09:30+0100"), base - hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm xxx", "2026-06-08 09:30 +00:00"), base);
  // Java matches the zero text "+00" first, leaving "00": no parse.
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm x", "2026-06-08 09:30 +0000"), std::nullopt);
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm OOOO", "2026-06-08 09:30 GMT-05:00"), base + 5 * hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm VV", "2026-06-08 09:30 UTC+01:00"), base - hour);
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm z", "2026-06-08 09:30 gmt"), base);
  EXPECT_EQ(Parse("yyyy-MM-dd HH:mm VV", "2026-06-08 09:30 Europe/Paris"), std::nullopt);
}

TEST(DateTimePatternTest, OptionalSectionsAndLiterals) {
  EXPECT_EQ(Parse("yyyy-MM-dd[ HH:mm[:ss]]", "2026-06-08"), Ts("2026-06-08"));
  EXPECT_EQ(Parse("yyyy-MM-dd[ HH:mm[:ss]]", "2026-06-08 09:30"), Ts("2026-06-08 09:30"));
  EXPECT_EQ(Parse("yyyy-MM-dd[ HH:mm[:ss]]", "2026-06-08 09:30:15"), Ts("2026-06-08 09:30:15"));
  EXPECT_EQ(Parse("yyyy-MM-dd'T'HH", "2026-06-08t09"), Ts("2026-06-08 09:00"));  // case-insensitive
  EXPECT_EQ(Parse("''yyyy''", "'2026'"), Ts("2026-01-01"));
  EXPECT_EQ(Format("'at' HH 'o''clock'", kT), "at 09 o'clock");
}

TEST(DateTimePatternTest, Formats) {
  EXPECT_EQ(Format("yyyy-MM-dd HH:mm:ss.SSSSSS", kT), "2026-06-08 09:30:15.123456");
  EXPECT_EQ(Format("EEE EEEE MMM MMMM d D", kT), "Mon Monday Jun June 8 159");
  EXPECT_EQ(Format("h:mm a k K", Ts("2026-06-08 00:05")), "12:05 AM 24 0");
  EXPECT_EQ(Format("yy y yyyyy G", kT), "26 2026 02026 AD");
  EXPECT_EQ(Format("yyyy", Ts("12026-01-01")), "+12026");
  EXPECT_EQ(Format("X x xx Z ZZZZ ZZZZZ O VV z", kT), "Z +00 +0000 +0000 GMT Z GMT UTC UTC");
  EXPECT_EQ(Format("yyyy-MM-dd", Ts("1969-12-31 23:59:59.999")), "1969-12-31");
}

TEST(DateTimePatternTest, RejectsWhatSparkRejects) {
  auto error = [](std::string_view pattern, Use use) {
    auto p = DateTimePattern::Compile(pattern, use);
    return p.ok() ? std::string("ok") : std::string(p.status().message());
  };
  EXPECT_EQ(error("yyyy-MM-dd T", Use::kFormat), "Unknown pattern letter: T");
  EXPECT_EQ(error("E yyyy", Use::kParse), "Illegal pattern character: E");
  EXPECT_EQ(error("E yyyy", Use::kFormat), "ok");
  EXPECT_EQ(error("MMMMM", Use::kFormat), "Too many pattern letters: M");
  EXPECT_EQ(error("ddd", Use::kFormat), "Too many pattern letters: d");
  EXPECT_EQ(error("yyyyyyyyyyy", Use::kFormat), "Too many pattern letters: y");
  EXPECT_EQ(error("V", Use::kFormat), "Pattern letter count must be 2: V");
  EXPECT_EQ(error("'open", Use::kFormat), "Pattern ends with an incomplete string literal: 'open");
  EXPECT_EQ(error("yyyy]", Use::kFormat), "Pattern invalid as it contains ] without previous [");
  EXPECT_EQ(error("A", Use::kFormat), "Illegal pattern character: A");
  EXPECT_EQ(error("ww", Use::kFormat), "pattern letter 'w' is not supported by weir");
  EXPECT_EQ(error("'u' yyyy", Use::kFormat), "ok");  // quoted letters are text
}

}  // namespace
}  // namespace weir::expr
