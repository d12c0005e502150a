#include "columnar/text_format.h"

#include <gtest/gtest.h>

namespace weir::columnar {
namespace {

// Valid UTF-8 comes through AppendValidUtf8 unchanged; IsValidUtf8 must say the same.
bool PassesUnchanged(std::string_view s) {
  std::string out;
  AppendValidUtf8(s, &out);
  const bool unchanged = out == s;
  EXPECT_EQ(IsValidUtf8(s), unchanged) << "IsValidUtf8 disagrees on \"" << s << "\"";
  return unchanged;
}

TEST(Utf8Test, ValidSequencesPassAndEachBadByteBecomesOneReplacement) {
  EXPECT_TRUE(PassesUnchanged(""));
  EXPECT_TRUE(PassesUnchanged("plain ascii, longer than eight bytes"));
  EXPECT_TRUE(PassesUnchanged("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(PassesUnchanged("abcdefgh\xFF"));         // after an ASCII run
  EXPECT_FALSE(PassesUnchanged("\xC0\xAF"));             // overlong
  EXPECT_FALSE(PassesUnchanged("\xED\xA0\x80"));         // a surrogate
  EXPECT_FALSE(PassesUnchanged("\xF4\x90\x80\x80"));     // beyond U+10FFFF
  EXPECT_FALSE(PassesUnchanged("\xE2\x82"));             // truncated
  EXPECT_FALSE(PassesUnchanged(std::string_view("\x80", 1)));  // a stray continuation byte
  std::string out;
  AppendValidUtf8("a\xFF" "b\xC3\xA9\xE2\x82", &out);
  EXPECT_EQ(out, "a\xEF\xBF\xBD" "b\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_TRUE(PassesUnchanged(out));
  std::string nul("a\0b", 3);
  EXPECT_TRUE(PassesUnchanged(nul));  // NUL is a valid code point
}

// IsValidUtf8 skips ASCII 32 bytes at a time: a bad or multi-byte sequence must be found at every
// position and alignment, inside long ASCII runs, and at the very end.
TEST(Utf8Test, TheWordAtATimeCheckFindsEveryBadByteWhereverItSits) {
  const std::string_view inserts[] = {"\xFF", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
                                      "\xC0\xAF", "\xED\xA0\x80", "\xE2\x82", "\x80"};
  for (size_t length : {0, 1, 7, 8, 9, 31, 32, 33, 64, 70, 220}) {
    const std::string ascii(length, 'a');
    EXPECT_TRUE(PassesUnchanged(ascii));
    for (size_t at = 0; at <= length; ++at) {
      for (std::string_view insert : inserts) {
        std::string s = ascii;
        s.insert(at, insert);
        PassesUnchanged(s);
        s.append(insert);  // a second one further on, after the first is accepted or not
        PassesUnchanged(s);
      }
    }
  }
  EXPECT_FALSE(IsValidUtf8(std::string(100, 'x') + "\xC3"));  // truncated at the end
  EXPECT_TRUE(IsValidUtf8(std::string(100, 'x') + "\xC3\xA9" + std::string(40, 'y')));
}

}  // namespace
}  // namespace weir::columnar
