#include "stream/update_buffer.h"

#include <map>
#include <optional>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace weir::stream {
namespace {

TEST(UpdateBufferTest, LaterUpdatesReplaceEarlierOnes) {
  UpdateBuffer buffer;
  buffer.Set("a", "1", false);
  buffer.Set("b", "2", false);
  buffer.Set("a", "", true);
  buffer.Set("b", "3", false);
  ASSERT_EQ(buffer.size(), 2u);
  const UpdateBuffer::Update* a = buffer.Find("a");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->removal);
  const UpdateBuffer::Update* b = buffer.Find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->removal);
  EXPECT_EQ(b->value, "3");
  EXPECT_EQ(buffer.Find("c"), nullptr);
  buffer.Clear();
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.Find("a"), nullptr);
}

// Random keys (shared prefixes, embedded NULs, a few longer than an arena chunk) against a model,
// across growth and Clear.
TEST(UpdateBufferTest, MatchesAMapModel) {
  std::mt19937_64 random(3);
  UpdateBuffer buffer;
  for (int round = 0; round < 3; ++round) {
    std::map<std::string, std::optional<std::string>> model;
    for (int i = 0; i < 50000; ++i) {
      std::string key = "k" + std::string(random() % 3, '\0') + std::to_string(random() % 20000);
      if (i % 10007 == 0) key += std::string((size_t{1} << 20) + 5, 'x');
      if (random() % 4 == 0) {
        buffer.Set(key, "", true);
        model[key] = std::nullopt;
      } else {
        std::string value = std::to_string(random());
        buffer.Set(key, value, false);
        model[key] = value;
      }
    }
    ASSERT_EQ(buffer.size(), model.size());
    std::vector<const UpdateBuffer::Update*> sorted = buffer.Sorted();
    ASSERT_EQ(sorted.size(), model.size());
    auto it = model.begin();
    for (const UpdateBuffer::Update* u : sorted) {
      ASSERT_EQ(u->key, it->first);
      ASSERT_EQ(u->removal, !it->second.has_value());
      if (it->second) ASSERT_EQ(u->value, *it->second);
      const UpdateBuffer::Update* found = buffer.Find(it->first);
      ASSERT_EQ(found, u);
      ++it;
    }
    buffer.Clear();
  }
}

}  // namespace
}  // namespace weir::stream
