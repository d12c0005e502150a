// FingerprintSet: a multiset of 64-bit fingerprints of byte strings, in one flat open-addressing
// table (linear probing, 8 bytes a slot, at most half full). Used as an exact "maybe contains"
// filter in front of a StateStore: a key whose fingerprint is absent is certainly absent, so only
// fingerprint hits (real duplicates or rare collisions) need a store lookup. Fingerprints are
// keyed with a per-process random seed, so crafted keys cannot force collisions except by chance;
// collisions cost a lookup, never a wrong answer. A set made `with_values` also keeps a 64-bit
// value beside each fingerprint (e.g. the time that completes the key's store key), in a parallel
// array that only hits and inserts touch: a lookup that misses reads the fingerprints alone. Not
// thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>

namespace weir::stream {

// Memory for large tables read at random (this set's, UpdateBuffer's): blocks of 2 MiB and more
// are mapped on 2 MiB boundaries and marked for transparent huge pages (madvise), so random reads
// across tens of megabytes rarely miss the TLB; smaller ones come from operator new. Throws
// std::bad_alloc like operator new. The memory reads as zeros: a mapping is zero already, so only
// a small block is cleared here. FreeHugePages takes the size given to AllocateHugePages.
void* AllocateHugePages(size_t bytes);
void FreeHugePages(void* memory, size_t bytes);

// A fixed number of T (a trivially copyable type), all zero at first, in AllocateHugePages'
// memory. A large table costs nothing until its pages are touched: the kernel clears each page
// at its first use, spread over the inserts that use it, where filling a vector with zeros cleared
// (and, through huge-page faults, often waited for) all of it at once: ~120 ms of a silver
// backfill's engine thread before its first row for a 64 MB fingerprint table.
template <typename T>
class ZeroedArray {
 public:
  static_assert(std::is_trivially_copyable_v<T>);
  ZeroedArray() = default;
  explicit ZeroedArray(size_t size)
      : data_(size == 0 ? nullptr
                        : static_cast<T*>(AllocateHugePages(size * sizeof(T)))),
        size_(size) {}
  ZeroedArray(ZeroedArray&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  ZeroedArray& operator=(ZeroedArray&& other) noexcept {
    ZeroedArray(std::move(other)).swap(*this);
    return *this;
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ~ZeroedArray() {
    if (data_ != nullptr) FreeHugePages(data_, size_ * sizeof(T));
  }

  void swap(ZeroedArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  // Sets every element to zero again (touching all of it).
  void Clear() {
    if (size_ > 0) std::memset(static_cast<void*>(data_), 0, size_ * sizeof(T));
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

class FingerprintSet {
 public:
  explicit FingerprintSet(bool with_values = false);

  // The fingerprint of `key` under this set's seed (never 0).
  uint64_t Fingerprint(std::string_view key) const;

  bool MayContain(uint64_t fingerprint) const;
  // A hint that `fingerprint` is about to be looked up or inserted: starts loading its slot (and
  // its value's, which an insert writes) into the cache. No effect on the contents.
  void Prefetch(uint64_t fingerprint) const {
    const size_t slot = SlotOf(fingerprint);
    __builtin_prefetch(&slots_[slot]);
    if (!values_.empty()) __builtin_prefetch(&values_[slot], /*rw=*/1);
  }
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
  ZeroedArray<uint64_t> slots_;  // 0: empty
  ZeroedArray<int64_t> values_;  // with_values_: slots_[i]'s value
  int shift_ = 0;                // 64 - log2(slots_.size())
  int64_t size_ = 0;
};

}  // namespace weir::stream
