#include "stream/fingerprint_set.h"

#include <map>
#include <random>

#include <gtest/gtest.h>

namespace weir::stream {
namespace {

TEST(FingerprintSetTest, FingerprintsAreNonZeroAndDependOnEveryByte) {
  FingerprintSet set;
  std::string key(40, 'a');
  uint64_t base = set.Fingerprint(key);
  EXPECT_NE(base, 0u);
  for (size_t i = 0; i < key.size(); ++i) {
    std::string changed = key;
    changed[i] = 'b';
    EXPECT_NE(set.Fingerprint(changed), base) << "byte " << i;
  }
  EXPECT_NE(set.Fingerprint(""), set.Fingerprint(std::string(1, '\0')));
  EXPECT_NE(set.Fingerprint(std::string(1, '\0')), set.Fingerprint(std::string(2, '\0')));
}

TEST(FingerprintSetTest, KeepsEqualFingerprintsApart) {
  FingerprintSet set;
  set.Insert(42);
  set.Insert(42);
  EXPECT_EQ(set.size(), 2);
  EXPECT_TRUE(set.EraseOne(42));
  EXPECT_TRUE(set.MayContain(42));
  EXPECT_TRUE(set.EraseOne(42));
  EXPECT_FALSE(set.MayContain(42));
  EXPECT_FALSE(set.EraseOne(42));
  EXPECT_EQ(set.size(), 0);
}

// Random inserts and erasures (many fingerprints sharing slots, growth included) against a model.
TEST(FingerprintSetTest, MatchesAMultisetModel) {
  FingerprintSet set;
  std::map<uint64_t, int> model;
  std::mt19937_64 random(7);
  for (int step = 0; step < 200000; ++step) {
    // Few distinct values with low bits alike: long probe runs that wrap around the table.
    uint64_t f = (random() % 3000 + 1) << (random() % 2 == 0 ? 0 : 40);
    if (random() % 3 != 0) {
      set.Insert(f);
      ++model[f];
    } else {
      bool had = model[f] > 0;
      ASSERT_EQ(set.EraseOne(f), had) << "step " << step;
      if (had) --model[f];
    }
    if (step % 997 == 0) {
      int64_t total = 0;
      for (const auto& [value, count] : model) {
        total += count;
        ASSERT_EQ(set.MayContain(value), count > 0) << "value " << value << " step " << step;
      }
      ASSERT_EQ(set.size(), total);
    }
  }
}

}  // namespace
}  // namespace weir::stream
