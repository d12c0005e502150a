#include "stream/fingerprint_set.h"

#include <sys/mman.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <new>
#include <random>

namespace weir::stream {

namespace {

constexpr size_t kInitialSlots = 1024;
constexpr size_t kHugePage = size_t{2} << 20;

uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// 64x64 -> 128-bit multiply, folded: the mixing step of wyhash-style hashes.
uint64_t Mix(uint64_t a, uint64_t b) {
  unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

constexpr uint64_t kP0 = 0xa0761d6478bd642full;
constexpr uint64_t kP1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kP2 = 0x8ebc6af09c88c6e3ull;
constexpr uint64_t kP3 = 0x589965cc75374cc3ull;

}  // namespace

void* AllocateHugePages(size_t bytes) {
  if (bytes < kHugePage) {
    void* memory = ::operator new(bytes);
    std::memset(memory, 0, bytes);
    return memory;
  }
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  // Maps one huge page more than needed, then unmaps the unaligned head and the rest of the tail.
  void* mapped = mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  const uintptr_t end = start + rounded + kHugePage;
  if (aligned > start) munmap(mapped, aligned - start);
  if (end > aligned + rounded) {
    munmap(reinterpret_cast<void*>(aligned + rounded), end - aligned - rounded);
  }
  // Only a hint: without transparent huge pages ("never") the table works on small pages.
  madvise(reinterpret_cast<void*>(aligned), rounded, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void FreeHugePages(void* memory, size_t bytes) {
  if (bytes < kHugePage) {
    ::operator delete(memory);
    return;
  }
  munmap(memory, (bytes + kHugePage - 1) / kHugePage * kHugePage);
}

FingerprintSet::FingerprintSet(bool with_values) : with_values_(with_values) {
  std::random_device random;
  seed_ = (uint64_t{random()} << 32) ^ random();
  Clear();
}

uint64_t FingerprintSet::Fingerprint(std::string_view key) const {
  const char* p = key.data();
  size_t n = key.size();
  uint64_t h = seed_ ^ Mix(n ^ kP0, kP1);
  while (n >= 16) {
    h = Mix(Load64(p) ^ kP1, Load64(p + 8) ^ h);
    p += 16;
    n -= 16;
  }
  if (n >= 8) {
    h = Mix(Load64(p) ^ kP2, h ^ kP3);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    // The last n bytes as a little-endian word, zero-filled (a memcpy into a zeroed word, without
    // a call for a variable length).
    uint64_t tail = 0;
    if (key.size() >= 8) {
      tail = Load64(key.data() + key.size() - 8) >> (8 * (8 - n));
    } else {
      for (size_t j = 0; j < n; ++j) tail |= uint64_t{static_cast<unsigned char>(p[j])} << (8 * j);
    }
    h = Mix(tail ^ kP3, h ^ kP0);
  }
  h = Mix(h ^ kP2, kP1 ^ seed_);
  return h == 0 ? 1 : h;
}

bool FingerprintSet::MayContain(uint64_t fingerprint) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = SlotOf(fingerprint);; i = (i + 1) & mask) {
    if (slots_[i] == fingerprint) return true;
    if (slots_[i] == 0) return false;
  }
}

void FingerprintSet::Insert(uint64_t fingerprint, int64_t value) {
  if (static_cast<size_t>(size_ + 1) * 2 > slots_.size()) Grow();
  const size_t mask = slots_.size() - 1;
  size_t i = SlotOf(fingerprint);
  while (slots_[i] != 0) i = (i + 1) & mask;
  slots_[i] = fingerprint;
  if (with_values_) values_[i] = value;
  ++size_;
}

bool FingerprintSet::EraseOne(uint64_t fingerprint, int64_t value) {
  const size_t mask = slots_.size() - 1;
  size_t i = SlotOf(fingerprint);
  for (;; i = (i + 1) & mask) {
    if (slots_[i] == 0) return false;
    if (slots_[i] == fingerprint && (!with_values_ || values_[i] == value)) break;
  }
  // Backward-shift deletion: move later entries of the probe run into the hole when their home
  // slot does not lie (cyclically) between the hole and them.
  size_t hole = i;
  for (size_t j = (hole + 1) & mask; slots_[j] != 0; j = (j + 1) & mask) {
    size_t home = SlotOf(slots_[j]);
    bool between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
    if (!between) {
      slots_[hole] = slots_[j];
      if (with_values_) values_[hole] = values_[j];
      hole = j;
    }
  }
  slots_[hole] = 0;
  --size_;
  return true;
}

void FingerprintSet::Clear() {
  slots_ = ZeroedArray<uint64_t>(kInitialSlots);
  values_ = with_values_ ? ZeroedArray<int64_t>(kInitialSlots) : ZeroedArray<int64_t>();
  shift_ = 64 - std::countr_zero(kInitialSlots);
  size_ = 0;
}

void FingerprintSet::Reserve(int64_t entries) {
  int doublings = 0;
  while (static_cast<size_t>(entries + 1) * 2 > (slots_.size() << doublings)) ++doublings;
  if (doublings > 0) Grow(doublings);
}

void FingerprintSet::Grow(int doublings) {
  ZeroedArray<uint64_t> old;
  ZeroedArray<int64_t> old_values;
  old.swap(slots_);
  old_values.swap(values_);
  slots_ = ZeroedArray<uint64_t>(old.size() << doublings);
  if (with_values_) values_ = ZeroedArray<int64_t>(slots_.size());
  shift_ -= doublings;
  const size_t mask = slots_.size() - 1;
  // The old table is read in order; the slot of the fingerprint kAhead entries further on is
  // prefetched, so the new table's random writes overlap instead of waiting one by one.
  constexpr size_t kAhead = 16;
  size_t ahead[kAhead];  // a ring of the old slots of the last kAhead entries read, not yet placed
  size_t count = 0;      // entries read
  auto place = [&](size_t from) {
    const uint64_t f = old[from];
    size_t i = SlotOf(f);
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = f;
    if (with_values_) values_[i] = old_values[from];
  };
  for (size_t from = 0; from < old.size(); ++from) {
    if (old[from] == 0) continue;
    __builtin_prefetch(&slots_[SlotOf(old[from])]);
    size_t& entry = ahead[count % kAhead];
    if (count >= kAhead) place(entry);
    entry = from;
    ++count;
  }
  for (size_t j = count > kAhead ? count - kAhead : 0; j < count; ++j) place(ahead[j % kAhead]);
}

}  // namespace weir::stream
