// FingerprintSet: a multiset of 64-bit fingerprints of byte strings, in one flat open-addressing
// table (linear probing, 8 bytes a slot, at most half full). Used as an exact "maybe contains"
// filter in front of a StateStore: a key whose fingerprint is absent is certainly absent, so only
// fingerprint hits (real duplicates or rare collisions) need a store lookup. Fingerprints are
// keyed with a per-process random seed, so crafted keys cannot force collisions except by chance;
// collisions cost a lookup, never a wrong answer. A set made `with_values` also keeps a 64-bit
// value beside each fingerprint (e.g. the time that completes the key's store key), in a parallel
// array that only hits read: a miss touches the fingerprints alone. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace weir::stream {

// Memory for large tables read at random (this set's, UpdateBuffer's): blocks of 2 MiB and more
// are mapped on 2 MiB boundaries and marked for transparent huge pages (madvise), so random reads
// across tens of megabytes rarely miss the TLB; smaller ones come from operator new. Throws
// std::bad_alloc like operator new. FreeHugePages takes the size given to AllocateHugePages.
void* AllocateHugePages(size_t bytes);
void FreeHugePages(void* memory, size_t bytes);

// A std::vector allocator over AllocateHugePages.
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(AllocateHugePages(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { FreeHugePages(p, n * sizeof(T)); }
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

class FingerprintSet {
 public:
  explicit FingerprintSet(bool with_values = false);

  // The fingerprint of `key` under this set's seed (never 0).
  uint64_t Fingerprint(std::string_view key) const;

  bool MayContain(uint64_t fingerprint) const;
  // A hint that `fingerprint` is about to be looked up or inserted: starts loading its slot into
  // the cache. No effect on the contents.
  void Prefetch(uint64_t fingerprint) const { __builtin_prefetch(&slots_[SlotOf(fingerprint)]); }
  // Calls `f(value)` for the value of each occurrence of `fingerprint` (0 for a set without
  // values) until f returns true; returns whether one did.
  template <typename F>
  bool AnyValue(uint64_t fingerprint, F&& f) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = SlotOf(fingerprint); slots_[i] != 0; i = (i + 1) & mask) {
      if (slots_[i] == fingerprint && f(values_.empty() ? int64_t{0} : values_[i])) return true;
    }
    return false;
  }
  // Adds one occurrence (equal fingerprints of different keys are kept apart), with `value` in a
  // set with values (ignored otherwise).
  void Insert(uint64_t fingerprint, int64_t value = 0);
  // Removes one occurrence (with this value, in a set with values); false if there was none.
  bool EraseOne(uint64_t fingerprint, int64_t value = 0);
  void Clear();
  // Makes room for `entries` occurrences in all without growing again (one larger table instead
  // of a doubling at a time: less memory touched, one rehash).
  void Reserve(int64_t entries);

  int64_t size() const { return size_; }
  bool with_values() const { return with_values_; }
  // Bytes held by the table.
  int64_t memory_bytes() const {
    return static_cast<int64_t>(slots_.size() * sizeof(uint64_t) +
                                values_.size() * sizeof(int64_t));
  }

 private:
  size_t SlotOf(uint64_t fingerprint) const { return (fingerprint * kSpread) >> shift_; }
  // Rehashes into a table of slots_.size() << doublings slots.
  void Grow(int doublings = 1);

  static constexpr uint64_t kSpread = 0x9e3779b97f4a7c15ull;
  uint64_t seed_ = 0;
  bool with_values_ = false;
  std::vector<uint64_t, HugePageAllocator<uint64_t>> slots_;  // 0: empty
  std::vector<int64_t, HugePageAllocator<int64_t>> values_;   // with_values_: slots_[i]'s value
  int shift_ = 0;                // 64 - log2(slots_.size())
  int64_t size_ = 0;
};

}  // namespace weir::stream
