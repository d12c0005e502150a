#include "columnar/text_format.h"

#include <gtest/gtest.h>

namespace weir::columnar {
namespace {

// Valid UTF-8 comes through AppendValidUtf8 unchanged.
bool IsValidUtf8(std::string_view s) {
  std::string out;
  AppendValidUtf8(s, &out);
  return out == s;
}

TEST(Utf8Test, ValidSequencesPassAndEachBadByteBecomesOneReplacement) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii, longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("abcdefgh\xFF"));         // after an ASCII run
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));             // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));         // a surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));     // beyond U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xE2\x82"));             // truncated
  EXPECT_FALSE(IsValidUtf8(std::string_view("\x80", 1)));  // a stray continuation byte
  std::string out;
  AppendValidUtf8("a\xFF" "b\xC3\xA9\xE2\x82", &out);
  EXPECT_EQ(out, "a\xEF\xBF\xBD" "b\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_TRUE(IsValidUtf8(out));
  std::string nul("a\0b", 3);
  EXPECT_TRUE(IsValidUtf8(nul));  // NUL is a valid code point
}

}  // namespace
}  // namespace weir::columnar
