#include "stream/fingerprint_set.h"

#include <map>
#include <set>
#include <utility>
#include <random>
#include <string>

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

// A key's fingerprint depends on its bytes only (not on the bytes around it in memory), and on
// each of them, whatever its length (whole 16- and 8-byte words and a tail of up to 7 bytes).
TEST(FingerprintSetTest, FingerprintsOfEveryLengthSeeOnlyTheKeysBytes) {
  FingerprintSet set;
  std::mt19937_64 random(5);
  for (size_t length = 0; length <= 40; ++length) {
    std::string key(length, 'k');
    for (char& c : key) c = static_cast<char>(random());
    const uint64_t alone = set.Fingerprint(key);
    for (int trial = 0; trial < 4; ++trial) {
      std::string around(length + 32, static_cast<char>(random()));
      const size_t at = random() % 17;
      around.replace(at, length, key);
      ASSERT_EQ(set.Fingerprint(std::string_view(around).substr(at, length)), alone) << length;
    }
    for (size_t i = 0; i < length; ++i) {
      std::string changed = key;
      changed[i] = static_cast<char>(changed[i] ^ 0x01);
      ASSERT_NE(set.Fingerprint(changed), alone) << "length " << length << " byte " << i;
    }
  }
}

// Random inserts and erasures (many fingerprints sharing slots, growth included) against a model.
TEST(FingerprintSetTest, MatchesAMultisetModel) {
  FingerprintSet set;
  std::map<uint64_t, int> model;
  std::mt19937_64 random(7);
  for (int step = 0; step < 200000; ++step) {
    // Few distinct values with low bits alike: long probe runs that wrap around the table.
    uint64_t f = (random() % 3000 + 1) << (random() % 2 == 0 ? 0 : 40);
    set.Prefetch(f);  // a hint only
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

// With values: each occurrence keeps its own value through growth and backward-shift deletions,
// EraseOne removes an occurrence with the given value only, and AnyValue sees every occurrence's
// value (checked against a model of (fingerprint, value) pairs).
TEST(FingerprintSetTest, ValuesFollowTheirOccurrences) {
  FingerprintSet set(/*with_values=*/true);
  ASSERT_TRUE(set.with_values());
  std::map<std::pair<uint64_t, int64_t>, int> model;
  std::mt19937_64 random(11);
  for (int step = 0; step < 200000; ++step) {
    uint64_t f = (random() % 2000 + 1) << (random() % 2 == 0 ? 0 : 40);
    int64_t value = static_cast<int64_t>(random() % 3) - 1;  // -1, 0 or 1: shared values too
    if (random() % 3 != 0) {
      set.Insert(f, value);
      ++model[{f, value}];
    } else {
      bool had = model[{f, value}] > 0;
      ASSERT_EQ(set.EraseOne(f, value), had) << "step " << step;
      if (had) --model[{f, value}];
    }
    if (step % 991 == 0) {
      int64_t total = 0;
      std::map<uint64_t, std::multiset<int64_t>> by_fingerprint;
      for (const auto& [entry, count] : model) {
        total += count;
        for (int i = 0; i < count; ++i) by_fingerprint[entry.first].insert(entry.second);
      }
      ASSERT_EQ(set.size(), total);
      for (const auto& [fingerprint, values] : by_fingerprint) {
        std::multiset<int64_t> seen;
        EXPECT_FALSE(set.AnyValue(fingerprint, [&](int64_t v) {
          seen.insert(v);
          return false;
        }));
        ASSERT_EQ(seen, values) << "fingerprint " << fingerprint << " step " << step;
        if (!values.empty()) {
          const int64_t wanted = *values.rbegin();
          EXPECT_TRUE(set.AnyValue(fingerprint, [&](int64_t v) { return v == wanted; }));
        }
      }
    }
  }
  // A set without values reports 0 for every occurrence and erases by fingerprint alone.
  FingerprintSet plain;
  plain.Insert(5, 42);
  EXPECT_TRUE(plain.AnyValue(5, [](int64_t v) { return v == 0; }));
  EXPECT_TRUE(plain.EraseOne(5, 7));
  EXPECT_FALSE(plain.MayContain(5));
}

// Tables of 2 MiB and more are mapped on huge-page boundaries; smaller ones come from the heap.
// Either way the memory reads as zeros, is usable over its whole size and is freed with the size
// it was given.
TEST(HugePagesTest, AllocationsAreAlignedAndUsable) {
  for (size_t bytes : {size_t{64}, (size_t{2} << 20) - 8, size_t{2} << 20, (size_t{5} << 20) + 8}) {
    auto* memory = static_cast<unsigned char*>(AllocateHugePages(bytes));
    ASSERT_NE(memory, nullptr);
    if (bytes >= (size_t{2} << 20)) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(memory) % (size_t{2} << 20), 0u) << bytes;
    }
    EXPECT_EQ(memory[0] + memory[bytes / 2] + memory[bytes - 1], 0) << bytes;
    memory[0] = 1;
    memory[bytes - 1] = 2;
    EXPECT_EQ(memory[0] + memory[bytes - 1], 3);
    FreeHugePages(memory, bytes);
  }
}

// A ZeroedArray reads as zeros at every size (mapped or from the heap, whose memory is reused),
// and again after Clear; moving hands the memory over.
TEST(HugePagesTest, ZeroedArraysStartAndClearToZero) {
  for (size_t size : {size_t{1}, size_t{1000}, (size_t{1} << 18) - 1, size_t{1} << 18,
                      (size_t{1} << 19) + 3}) {
    for (int round = 0; round < 2; ++round) {  // the heap's reused blocks too
      ZeroedArray<uint64_t> table(size);
      ASSERT_EQ(table.size(), size);
      for (size_t i = 0; i < size; i += 4097) EXPECT_EQ(table[i], 0u) << size << " " << i;
      EXPECT_EQ(table[size - 1], 0u) << size;
      for (size_t i = 0; i < size; ++i) table[i] = i + 1;
      table.Clear();
      EXPECT_EQ(table[0] + table[size / 2] + table[size - 1], 0u) << size;
      table[size - 1] = 9;
      ZeroedArray<uint64_t> moved(std::move(table));
      EXPECT_TRUE(table.empty());
      EXPECT_EQ(moved[size - 1], 9u);
    }
  }
}

}  // namespace
}  // namespace weir::stream
