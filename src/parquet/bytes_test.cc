#include "parquet/bytes.h"

#include <gtest/gtest.h>

#include <string>

namespace weir::parquet {
namespace {

int Sign(int v) { return (v > 0) - (v < 0); }

// Every length up to 40 (short, word-sized and overlapping tails), a difference at every position,
// bytes above 0x7F (unsigned order) and prefixes: the same answers as std::string_view's.
TEST(BytesTest, SameAndCompareAgreeWithStringView) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string a;
    for (size_t i = 0; i < n; ++i) a.push_back(static_cast<char>('a' + i % 26));
    EXPECT_TRUE(SameBytes(a, std::string(a))) << n;
    EXPECT_EQ(CompareBytes(a, std::string(a)), 0) << n;
    for (size_t at = 0; at < n; ++at) {
      for (char c : {'\0', 'z', '\x80', '\xff'}) {
        std::string b = a;
        if (b[at] == c) continue;
        b[at] = c;
        SCOPED_TRACE("length " + std::to_string(n) + ", byte " + std::to_string(at));
        EXPECT_FALSE(SameBytes(a, b));
        EXPECT_FALSE(SameBytes(b, a));
        EXPECT_EQ(CompareBytes(a, b), Sign(std::string_view(a).compare(b)));
        EXPECT_EQ(CompareBytes(b, a), Sign(std::string_view(b).compare(a)));
      }
    }
    if (n > 0) {  // a proper prefix: never the same, and ordered first
      const std::string prefix = a.substr(0, n - 1);
      EXPECT_FALSE(SameBytes(a, prefix));
      EXPECT_EQ(CompareBytes(prefix, a), -1);
      EXPECT_EQ(CompareBytes(a, prefix), 1);
    }
  }
}

// Views into a larger buffer, with different bytes around them: a word read past a view's end
// (or before its start) would make equal views differ.
TEST(BytesTest, ViewsCompareOnlyTheirOwnBytes) {
  const std::string buffer = "xxSO-1234567yySO-1234567zz";
  const std::string_view a(buffer.data() + 2, 10), b(buffer.data() + 14, 10);
  EXPECT_TRUE(SameBytes(a, b));
  EXPECT_FALSE(
      SameBytes(std::string_view(buffer.data() + 1, 11), std::string_view(buffer.data() + 13, 11)));
  EXPECT_EQ(CompareBytes(a, b), 0);
}

}  // namespace
}  // namespace weir::parquet
