#include "stream/update_buffer.h"

#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace weir::stream {
namespace {

// prefix + decimal i (built without operator+, which trips GCC 12's -Wrestrict false positive).
std::string Key(std::string_view prefix, int64_t i) {
  std::string key(prefix);
  key.append(std::to_string(i));
  return key;
}

// The same update in the buffer and in its model: a removal, or the value i.
void SetBoth(UpdateBuffer* buffer, std::map<std::string, std::optional<std::string>>* model,
             const std::string& key, bool removal, int i) {
  if (removal) {
    buffer->Set(key, "", true);
    (*model)[key] = std::nullopt;
  } else {
    std::string value = std::to_string(i);
    buffer->Set(key, value, false);
    (*model)[key] = value;
  }
}

// Sorted() holds one update per key of `model`, in key order, each the model's last update;
// with `found`, Find gives each key's update too.
void ExpectSortedMatches(const UpdateBuffer& buffer,
                         const std::map<std::string, std::optional<std::string>>& model,
                         bool found = false) {
  std::vector<const UpdateBuffer::Update*> sorted = buffer.Sorted();
  ASSERT_EQ(sorted.size(), model.size());
  auto it = model.begin();
  for (const UpdateBuffer::Update* u : sorted) {
    ASSERT_EQ(u->key, it->first);
    ASSERT_EQ(u->removal, !it->second.has_value()) << u->key;
    if (it->second) {
      ASSERT_EQ(u->value, *it->second) << u->key;
    }
    if (found) {
      ASSERT_EQ(buffer.Find(it->first), u) << u->key;
    }
    ++it;
  }
}

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
      std::string key(1, 'k');
      key.append(random() % 3, '\0');
      key.append(std::to_string(random() % 20000));
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
    ASSERT_NO_FATAL_FAILURE(ExpectSortedMatches(buffer, model, /*found=*/true));
    buffer.Clear();
  }
}

// An append-only buffer keeps every Set; its sorted walk gives each key's last update (keys
// sharing long prefixes and equal 16-byte prefixes included), across Clear.
TEST(UpdateBufferTest, AppendOnlySortedKeepsTheLastUpdateOfEachKey) {
  std::mt19937_64 random(4);
  UpdateBuffer buffer(UpdateBuffer::Lookup::kAppendOnly);
  for (int round = 0; round < 2; ++round) {
    std::map<std::string, std::optional<std::string>> model;
    int sets = 0;
    for (int i = 0; i < 30000; ++i, ++sets) {
      std::string key = std::string(random() % 2 == 0 ? 20 : 3, 'p');
      key += std::to_string(random() % 3000);
      buffer.Prefetch(key);  // nothing to load
      SetBoth(&buffer, &model, key, /*removal=*/random() % 4 == 0, i);
    }
    EXPECT_EQ(buffer.size(), static_cast<size_t>(sets));
    EXPECT_EQ(buffer.Find(model.begin()->first), nullptr);
    ASSERT_NO_FATAL_FAILURE(ExpectSortedMatches(buffer, model));
    buffer.Clear();
    EXPECT_TRUE(buffer.Sorted().empty());
  }
}

// Sorted spreads large buffers over buckets by the 16 bits of their first words after the bits
// all keys share. Key sets whose first words differ only in their last 2 bits or last byte (the
// bucket bits run past the word's end), in their first bits, or not at all (second words
// decide), and keys shorter than a word (zero-padded, so "a" and "a\0" tie until the whole keys
// are compared) all give std::sort's order.
TEST(UpdateBufferTest, LargeBuffersSortLikeStdSort) {
  std::mt19937_64 random(5);
  auto prefixed = [&](std::string prefix, char last) {
    prefix.push_back(last);
    prefix.append(Key("-", random() % 50000));
    return prefix;
  };
  struct Family {
    std::function<std::string()> make;
    bool first_words_differ;  // else the plain sort runs
  };
  const std::vector<Family> families = {
      {[&] { return prefixed("samepre", static_cast<char>(random() % 4)); }, true},
      {[&] { return prefixed("samepre", static_cast<char>(random())); }, true},
      {[&] { return std::string(random() % 4, static_cast<char>(random() % 2 ? 'a' : '\0')); },
       true},
      {[&] {
         std::string key(8, '\0');
         for (char& c : key) c = static_cast<char>(random());
         return key;
       },
       true},
      {[&] { return Key("samepref", random() % 100000); }, false},
  };
  for (const Family& family : families) {
    UpdateBuffer buffer(UpdateBuffer::Lookup::kAppendOnly);
    std::map<std::string, std::optional<std::string>> model;
    for (int i = 0; i < 40000; ++i) SetBoth(&buffer, &model, family.make(), random() % 5 == 0, i);
    // The family takes the path it is meant for: its keys' first 8 bytes differ or not.
    auto first_word = [](const std::string& key) {
      std::string word = key.substr(0, 8);
      word.resize(8, '\0');
      return word;
    };
    EXPECT_EQ(first_word(model.begin()->first) != first_word(model.rbegin()->first),
              family.first_words_differ);
    ASSERT_NO_FATAL_FAILURE(ExpectSortedMatches(buffer, model));
  }
}

// Hash functions that make keys collide on purpose: on the tag and the home slot (every key in
// one probe run, told apart only by its bytes), on the tag only, on the home slot only.
uint64_t RealHash(std::string_view key) { return std::hash<std::string_view>()(key) * 0x9e37ull; }
uint64_t OneTagOneSlot(std::string_view) { return 0xabcd123400000005ull; }
uint64_t OneTag(std::string_view key) {
  return 0xabcd123400000000ull | (RealHash(key) & 0xffffffffull);
}
uint64_t OneSlot(std::string_view key) { return (RealHash(key) & 0xffffffff00000000ull) | 5; }

class CollidingHashTest : public ::testing::TestWithParam<UpdateBuffer::HashFunction> {};

TEST_P(CollidingHashTest, KeysWithEqualTagsOrSlotsAreToldApart) {
  std::mt19937_64 random(7);
  UpdateBuffer buffer(UpdateBuffer::Lookup::kByKey, GetParam());
  std::map<std::string, std::optional<std::string>> model;
  // 3000 updates of 1500 keys: the table grows from 1024 slots twice, with every key in one
  // probe run for OneTagOneSlot.
  for (int i = 0; i < 3000; ++i) {
    std::string key = "event-" + std::to_string(random() % 1500);
    buffer.Prefetch(key);
    SetBoth(&buffer, &model, key, /*removal=*/random() % 5 == 0, i);
  }
  ASSERT_EQ(buffer.size(), model.size());
  for (const auto& [key, value] : model) {
    const UpdateBuffer::Update* found = buffer.Find(key);
    ASSERT_NE(found, nullptr) << key;
    ASSERT_EQ(found->key, key);
    ASSERT_EQ(found->removal, !value.has_value()) << key;
    if (value) {
      ASSERT_EQ(found->value, *value) << key;
    }
  }
  EXPECT_EQ(buffer.Find("event-1500"), nullptr);
  EXPECT_EQ(buffer.Find("event-"), nullptr);
  EXPECT_EQ(buffer.Find(""), nullptr);
  ASSERT_NO_FATAL_FAILURE(ExpectSortedMatches(buffer, model));
}

INSTANTIATE_TEST_SUITE_P(Hashes, CollidingHashTest,
                         ::testing::Values(&OneTagOneSlot, &OneTag, &OneSlot, &RealHash,
                                           UpdateBuffer::HashFunction{nullptr}));

// Clear empties the buffer but keeps its table and arena (refilling allocates nothing new);
// Release gives the memory back.
TEST(UpdateBufferTest, ClearKeepsTheMemoryReleaseFreesIt) {
  UpdateBuffer buffer;
  const size_t empty_bytes = buffer.memory_bytes();
  auto fill = [&](int round) {
    for (int i = 0; i < 100000; ++i) {
      buffer.Set("key-" + std::to_string(i), "round-" + std::to_string(round), false);
    }
  };
  fill(0);
  const size_t full_bytes = buffer.memory_bytes();
  EXPECT_GT(full_bytes, empty_bytes + (size_t{2} << 20));
  buffer.Clear();
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.data_bytes(), 0u);
  EXPECT_EQ(buffer.Find("key-7"), nullptr);
  EXPECT_EQ(buffer.memory_bytes(), full_bytes);
  fill(1);
  EXPECT_EQ(buffer.memory_bytes(), full_bytes);
  ASSERT_EQ(buffer.size(), 100000u);
  const UpdateBuffer::Update* found = buffer.Find("key-99999");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->value, "round-1");
  buffer.Release();
  EXPECT_TRUE(buffer.empty());
  EXPECT_LE(buffer.memory_bytes(), empty_bytes + (size_t{1} << 20));
  EXPECT_EQ(buffer.Find("key-7"), nullptr);
  buffer.Set("key-7", "again", false);
  ASSERT_NE(buffer.Find("key-7"), nullptr);
  EXPECT_EQ(buffer.Find("key-7")->value, "again");
}

// Keys are hashed from their own bytes only: a key set from a view into a larger buffer is found
// by an equal key elsewhere in memory, at every length (whole words and a tail).
TEST(UpdateBufferTest, KeysAreFoundWhateverSurroundsThem) {
  std::mt19937_64 random(9);
  UpdateBuffer buffer;
  std::vector<std::string> keys;
  for (size_t length = 1; length <= 40; ++length) {
    std::string key(length, 'k');
    for (char& c : key) c = static_cast<char>(random());
    std::string around(length + 32, static_cast<char>(random()));
    const size_t at = random() % 17;
    around.replace(at, length, key);
    buffer.Set(std::string_view(around).substr(at, length), std::to_string(length), false);
    keys.push_back(key);
  }
  for (const std::string& key : keys) {
    const UpdateBuffer::Update* found = buffer.Find(key);
    ASSERT_NE(found, nullptr) << key.size();
    EXPECT_EQ(found->value, std::to_string(key.size()));
  }
}

TEST(UpdateBufferTest, ReserveKeepsTheContents) {
  UpdateBuffer buffer;
  buffer.Reserve(5000);  // empty: sizes the table
  for (int i = 0; i < 3000; ++i) buffer.Set(Key("a", i), std::to_string(i), false);
  buffer.Reserve(100000);  // rehashes what it holds
  for (int i = 0; i < 3000; ++i) buffer.Set(Key("b", i), std::to_string(i), false);
  ASSERT_EQ(buffer.size(), 6000u);
  for (int i = 0; i < 3000; ++i) {
    for (const char* prefix : {"a", "b"}) {
      const UpdateBuffer::Update* found = buffer.Find(Key(prefix, i));
      ASSERT_NE(found, nullptr) << prefix << i;
      ASSERT_EQ(found->value, std::to_string(i));
    }
  }
  EXPECT_EQ(buffer.Find("c1"), nullptr);
}

// A value larger than the kept arena chunks after Clear gets a chunk of its own; earlier views
// of the same round stay valid.
TEST(UpdateBufferTest, ClearedArenaTakesLargerValues) {
  UpdateBuffer buffer;
  for (int i = 0; i < 3000; ++i) buffer.Set(Key("k", i), std::string(1000, 'a'), false);
  buffer.Clear();
  buffer.Set("small", "v", false);
  std::string big(3 << 20, 'b');
  buffer.Set("big", big, false);
  buffer.Set("after", "w", false);
  ASSERT_NE(buffer.Find("small"), nullptr);
  EXPECT_EQ(buffer.Find("small")->value, "v");
  EXPECT_EQ(buffer.Find("big")->value, big);
  EXPECT_EQ(buffer.Find("after")->value, "w");
  EXPECT_EQ(buffer.data_bytes(), 5 + 1 + 3 + big.size() + 5 + 1);
}

}  // namespace
}  // namespace weir::stream
