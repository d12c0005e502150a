#include "base/text.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir {
namespace {

TEST(TextTest, AsciiLowerLeavesOtherBytesAlone) {
  EXPECT_EQ(AsciiLower("MaxOffsetsPerTrigger"), "maxoffsetspertrigger");
  EXPECT_EQ(AsciiLower("\xC3\x89t\xC3\xA9"), "\xC3\x89t\xC3\xA9");  // UTF-8 bytes unchanged
}

TEST(TextTest, EqualsIgnoreAsciiCase) {
  EXPECT_TRUE(EqualsIgnoreAsciiCase("startingOffsets", "STARTINGOFFSETS"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("a", "ab"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("a[", "a{"));  // not folded by a bit trick
}

TEST(TextTest, ParsesIntegersAndRefusesEverythingElse) {
  ASSERT_OK_AND_ASSIGN(int64_t v, ParseInt64("-9223372036854775808", "offset"));
  EXPECT_EQ(v, INT64_MIN);
  ASSERT_OK_AND_ASSIGN(int32_t p, ParseInt32("31", "partition"));
  EXPECT_EQ(p, 31);
  for (const char* bad : {"", "1x", " 1", "+1", "0x10", "1.5", "-"}) {
    Result<int64_t> r = ParseInt64(bad, "offset");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find("offset '"), std::string::npos) << r.status().ToString();
  }
  Result<int32_t> big = ParseInt32("2147483648", "partition");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("out of range"), std::string::npos);
}

}  // namespace
}  // namespace weir
