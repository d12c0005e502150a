// FingerprintSet: a multiset of 64-bit fingerprints of byte strings, in one flat open-addressing
// table (linear probing, 8 bytes a slot, at most half full). Used as an exact "maybe contains"
// filter in front of a StateStore: a key whose fingerprint is absent is certainly absent, so only
// fingerprint hits (real duplicates or rare collisions) need a store lookup. Fingerprints are
// keyed with a per-process random seed, so crafted keys cannot force collisions except by chance;
// collisions cost a lookup, never a wrong answer. Not thread-safe.
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
  FingerprintSet();

  // The fingerprint of `key` under this set's seed (never 0).
  uint64_t Fingerprint(std::string_view key) const;

  bool MayContain(uint64_t fingerprint) const;
  // A hint that `fingerprint` is about to be looked up or inserted: starts loading its slot into
  // the cache. No effect on the contents.
  void Prefetch(uint64_t fingerprint) const { __builtin_prefetch(&slots_[SlotOf(fingerprint)]); }
  // Adds one occurrence (equal fingerprints of different keys are kept apart).
  void Insert(uint64_t fingerprint);
  // Removes one occurrence; false if there was none.
  bool EraseOne(uint64_t fingerprint);
  void Clear();

  int64_t size() const { return size_; }
  // Bytes held by the table.
  int64_t memory_bytes() const { return static_cast<int64_t>(slots_.size() * sizeof(uint64_t)); }

 private:
  size_t SlotOf(uint64_t fingerprint) const { return (fingerprint * kSpread) >> shift_; }
  void Grow();

  static constexpr uint64_t kSpread = 0x9e3779b97f4a7c15ull;
  uint64_t seed_ = 0;
  std::vector<uint64_t, HugePageAllocator<uint64_t>> slots_;  // 0: empty
  int shift_ = 0;                // 64 - log2(slots_.size())
  int64_t size_ = 0;
};

}  // namespace weir::stream
