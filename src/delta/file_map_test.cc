#include "delta/file_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace weir::delta {
namespace {

using Map = FileMap<int>;
using Model = std::map<std::string, int>;

void ExpectSame(const Map& map, const Model& model) {
  ASSERT_EQ(map.size(), model.size());
  EXPECT_EQ(map.empty(), model.empty());
  auto it = map.begin();
  for (const auto& [key, value] : model) {
    ASSERT_NE(it, map.end());
    EXPECT_EQ(it->first, key);
    EXPECT_EQ(*it->second, value);
    ++it;
  }
  EXPECT_EQ(it, map.end());
}

TEST(FileMapTest, EmptyMap) {
  Map map;
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.begin(), map.end());
  EXPECT_EQ(map.Find("a"), nullptr);
  EXPECT_EQ(map.Erase("a"), nullptr);
  EXPECT_TRUE(map.empty());
}

TEST(FileMapTest, SetReplacesAndReturnsTheOldValue) {
  Map map;
  EXPECT_EQ(map.Set("b", std::make_shared<const int>(1)), nullptr);
  EXPECT_EQ(map.Set("a", std::make_shared<const int>(2)), nullptr);
  auto old = map.Set("b", std::make_shared<const int>(3));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(*old, 1);
  ExpectSame(map, {{"a", 2}, {"b", 3}});
  auto erased = map.Erase("a");
  ASSERT_NE(erased, nullptr);
  EXPECT_EQ(*erased, 2);
  ExpectSame(map, {{"b", 3}});
  ASSERT_NE(map.Find("b"), nullptr);
  EXPECT_EQ(**map.Find("b"), 3);
}

// Random sets and erases over several thousand keys (many chunks, splits, emptied chunks), each
// also applied to a copy taken along the way: the copies must keep their own contents.
TEST(FileMapTest, MatchesAnOrderedMapAndCopiesStayIndependent) {
  std::mt19937 rng(7);
  Map map;
  Model model;
  std::vector<std::pair<Map, Model>> copies;
  for (int step = 0; step < 20000; ++step) {
    std::string key = "part-" + std::to_string(rng() % 3000);
    if (rng() % 3 == 0) {
      auto erased = map.Erase(key);
      auto found = model.find(key);
      ASSERT_EQ(erased != nullptr, found != model.end()) << key;
      if (found != model.end()) {
        EXPECT_EQ(*erased, found->second);
        model.erase(found);
      }
    } else {
      int value = static_cast<int>(rng() % 1000);
      auto replaced = map.Set(key, std::make_shared<const int>(value));
      auto found = model.find(key);
      ASSERT_EQ(replaced != nullptr, found != model.end()) << key;
      if (found != model.end()) {
        EXPECT_EQ(*replaced, found->second);
      }
      model[key] = value;
    }
    const auto* f = map.Find(key);
    ASSERT_EQ(f != nullptr, model.count(key) == 1);
    if (step % 2500 == 0) copies.emplace_back(map, model);
  }
  ExpectSame(map, model);
  for (const auto& [copy, copy_model] : copies) ExpectSame(copy, copy_model);
  // Emptied completely, then reused.
  for (const auto& [key, value] : Model(model)) ASSERT_NE(map.Erase(key), nullptr);
  ExpectSame(map, {});
  map.Set("z", std::make_shared<const int>(1));
  ExpectSame(map, {{"z", 1}});
  for (const auto& [copy, copy_model] : copies) ExpectSame(copy, copy_model);
}

TEST(FileMapTest, KeysInOrderFillChunksAndIterateInOrder) {
  Map map;
  Model model;
  for (int i = 0; i < 1000; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%06d", i);
    map.Set(key, std::make_shared<const int>(i));
    model[key] = i;
  }
  ExpectSame(map, model);
  Map copy = map;
  copy.Set("k000500", std::make_shared<const int>(-1));
  EXPECT_EQ(**map.Find("k000500"), 500);
  EXPECT_EQ(**copy.Find("k000500"), -1);
}

}  // namespace
}  // namespace weir::delta
