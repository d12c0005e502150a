#include "stream/update_buffer.h"

#include <algorithm>
#include <cstring>

namespace weir::stream {

namespace {

constexpr size_t kInitialSlots = 1024;
constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr uint64_t kTagMask = 0xffffffff00000000ull;
constexpr uint64_t kIndexMask = 0x00000000ffffffffull;
// Sorted: buffers of this many updates or more are first spread over 2^kRadixBits buckets.
constexpr size_t kRadixMinItems = size_t{1} << 14;
constexpr int kRadixBits = 16;

// The bytes of `key` from `at` (fewer than 8) as a little-endian word, zero-filled: what a
// memcpy into a zeroed word gives, without a call for a variable length.
uint64_t LoadTail(std::string_view key, size_t at) {
  const size_t n = key.size() - at;
  if (n == 0) return 0;
  if (key.size() >= 8) {
    uint64_t w;  // the key's last 8 bytes: the tail is their high n bytes
    std::memcpy(&w, key.data() + key.size() - 8, 8);
    return w >> (8 * (8 - n));
  }
  uint64_t w = 0;
  for (size_t j = 0; j < n; ++j) w |= uint64_t{static_cast<unsigned char>(key[at + j])} << (8 * j);
  return w;
}

// The 8 bytes of `key` from `at` as a big-endian word, zero-padded past the end: comparing such
// words compares the bytes.
uint64_t LoadBigEndian(std::string_view key, size_t at) {
  if (key.size() >= at + 8) {
    uint64_t w;
    std::memcpy(&w, key.data() + at, 8);
    return __builtin_bswap64(w);
  }
  uint64_t w = 0;
  for (size_t j = 0; j < 8; ++j) {
    w = (w << 8) | (at + j < key.size() ? static_cast<unsigned char>(key[at + j]) : 0);
  }
  return w;
}

// FNV-1a over 8-byte words, then a multiply-shift finalizer: keys are state keys weir encoded
// itself (no hostile inputs reach their distribution beyond what a 64-bit mix absorbs).
uint64_t HashKey(std::string_view key) {
  uint64_t h = 0xcbf29ce484222325ull ^ key.size();
  size_t i = 0;
  for (; i + 8 <= key.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, key.data() + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  h = (h ^ LoadTail(key, i)) * 0x9e3779b97f4a7c15ull;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  h ^= h >> 32;
  return h;
}

}  // namespace

UpdateBuffer::UpdateBuffer(Lookup lookup, HashFunction hash)
    : lookup_(lookup), hash_(hash), slots_(kInitialSlots) {}

uint64_t UpdateBuffer::Hash(std::string_view key) const {
  return hash_ == nullptr ? HashKey(key) : hash_(key);
}

std::string_view UpdateBuffer::Store(std::string_view bytes) {
  if (bytes.empty()) return {};
  if (chunks_.empty() || chunk_used_ + bytes.size() > chunks_[chunk_].size()) {
    // The next chunk: a kept one (unused since Clear) when large enough.
    const size_t next = chunks_.empty() ? 0 : chunk_ + 1;
    const size_t bytes_needed = std::max(kChunkBytes, bytes.size());
    if (next == chunks_.size()) {
      chunks_.emplace_back(bytes_needed);
    } else if (chunks_[next].size() < bytes_needed) {
      chunks_[next] = std::vector<char>(bytes_needed);
    }
    chunk_ = next;
    chunk_used_ = 0;
  }
  char* out = chunks_[chunk_].data() + chunk_used_;
  std::memcpy(out, bytes.data(), bytes.size());
  chunk_used_ += bytes.size();
  data_bytes_ += bytes.size();
  return {out, bytes.size()};
}

size_t UpdateBuffer::Probe(std::string_view key, uint64_t hash) const {
  const uint64_t tag = hash & kTagMask;
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  for (;; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return i;
    if ((slot & kTagMask) == tag && updates_[(slot & kIndexMask) - 1].key == key) return i;
  }
}

void UpdateBuffer::Set(std::string_view key, std::string_view value, bool is_removal) {
  if (lookup_ == Lookup::kAppendOnly) {
    updates_.push_back({Store(key), is_removal ? std::string_view() : Store(value), is_removal});
    return;
  }
  const uint64_t hash = Hash(key);
  size_t i = Probe(key, hash);
  if (slots_[i] != 0) {
    Update& u = updates_[(slots_[i] & kIndexMask) - 1];
    u.value = is_removal ? std::string_view() : Store(value);
    u.removal = is_removal;
    return;
  }
  if ((updates_.size() + 1) * 2 > slots_.size()) {
    Grow();
    i = Probe(key, hash);
  }
  updates_.push_back({Store(key), is_removal ? std::string_view() : Store(value), is_removal});
  slots_[i] = (hash & kTagMask) | static_cast<uint64_t>(updates_.size());
}

const UpdateBuffer::Update* UpdateBuffer::Find(std::string_view key) const {
  if (updates_.empty() || lookup_ == Lookup::kAppendOnly) return nullptr;
  const uint64_t slot = slots_[Probe(key, Hash(key))];
  return slot == 0 ? nullptr : &updates_[(slot & kIndexMask) - 1];
}

void UpdateBuffer::Prefetch(std::string_view key) const {
  if (lookup_ == Lookup::kAppendOnly) return;
  __builtin_prefetch(&slots_[Hash(key) & (slots_.size() - 1)]);
}

std::vector<const UpdateBuffer::Update*> UpdateBuffer::Sorted() const {
  // Sorted by the keys' first 16 bytes held inline (two big-endian words, zero-padded: the bytes'
  // order), whole keys compared only on ties: few cache misses, and keys that share a long
  // prefix (a keyspace byte, an encoding header, an event time's high bytes) rarely tie.
  struct Item {
    uint64_t high;
    uint64_t low;
    const Update* update;
  };
  std::vector<Item> items;
  items.reserve(updates_.size());
  for (const Update& u : updates_) {
    items.push_back({LoadBigEndian(u.key, 0), LoadBigEndian(u.key, 8), &u});
  }
  // Equal keys (append-only buffers) in the order they were set: updates_ is that order.
  const auto less = [](const Item& a, const Item& b) {
    if (a.high != b.high) return a.high < b.high;
    if (a.low != b.low) return a.low < b.low;
    const int order = a.update->key.compare(b.update->key);
    return order != 0 ? order < 0 : a.update < b.update;
  };
  // Large buffers: one counting-sort pass on the 16 bits of the first word from the first bit in
  // which its keys differ (the bits above are the same in every key: a keyspace byte, a shared
  // prefix), then each bucket sorted on its own. Buckets are ranges of that word in order, so
  // the result is what one sort gives; a 2M-key write-out sorts buckets of a few thousand.
  uint64_t differ = 0;
  if (items.size() >= kRadixMinItems && items.size() <= UINT32_MAX) {  // 32-bit bucket counts
    for (const Item& item : items) differ |= item.high ^ items[0].high;
  }
  if (differ == 0) {
    std::sort(items.begin(), items.end(), less);
  } else {
    const int skip = __builtin_clzll(differ);
    const auto bucket = [skip](const Item& item) {
      return static_cast<size_t>((item.high << skip) >> (64 - kRadixBits));
    };
    std::vector<uint32_t> starts(size_t{1} << kRadixBits, 0);
    for (const Item& item : items) ++starts[bucket(item)];
    uint32_t at = 0;
    for (uint32_t& start : starts) {
      const uint32_t count = start;
      start = at;
      at += count;
    }
    std::vector<Item> scattered(items.size());  // for the pass: twice the items' 24 bytes each
    for (const Item& item : items) scattered[starts[bucket(item)]++] = item;
    items.swap(scattered);
    // starts[b] is now the end of bucket b, which is where bucket b + 1 begins.
    size_t begin = 0;
    for (uint32_t end : starts) {
      if (end - begin > 1) std::sort(items.begin() + begin, items.begin() + end, less);
      begin = end;
    }
  }
  std::vector<const Update*> sorted;
  sorted.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    // Of equal keys, the last set wins.
    if (lookup_ == Lookup::kAppendOnly && i + 1 < items.size() &&
        items[i + 1].high == items[i].high && items[i + 1].low == items[i].low &&
        items[i + 1].update->key == items[i].update->key) {
      continue;
    }
    sorted.push_back(items[i].update);
  }
  return sorted;
}

void UpdateBuffer::Clear() {
  updates_.clear();
  slots_.Clear();
  chunk_ = 0;
  chunk_used_ = 0;
  data_bytes_ = 0;
}

void UpdateBuffer::Reserve(size_t updates) {
  updates_.reserve(updates);
  if (lookup_ == Lookup::kAppendOnly || (updates + 1) * 2 <= slots_.size()) return;
  if (updates_.empty()) {
    size_t slots = slots_.size();
    while ((updates + 1) * 2 > slots) slots *= 2;
    slots_ = ZeroedArray<uint64_t>(slots);
    return;
  }
  while ((updates + 1) * 2 > slots_.size()) Grow();
}

void UpdateBuffer::Release() {
  Clear();
  std::vector<Update>().swap(updates_);
  slots_ = ZeroedArray<uint64_t>(kInitialSlots);
  if (chunks_.size() > 1) chunks_.resize(1);
  if (!chunks_.empty() && chunks_[0].size() > kChunkBytes) chunks_.clear();
}

void UpdateBuffer::Grow() {
  // Rehashes the keys (in arena order, so their reads are sequential) and prefetches the slot of
  // the key kGrowAhead places ahead, so the table's random writes overlap. The table is kept
  // across Clear, so a buffer filled again and again grows only the first time.
  constexpr size_t kGrowAhead = 16;
  slots_ = ZeroedArray<uint64_t>(slots_.size() * 2);
  const size_t mask = slots_.size() - 1;
  const size_t n = updates_.size();
  uint64_t ahead[kGrowAhead];
  for (size_t u = 0; u < std::min(n, kGrowAhead); ++u) {
    ahead[u] = Hash(updates_[u].key);
    __builtin_prefetch(&slots_[ahead[u] & mask]);
  }
  for (size_t u = 0; u < n; ++u) {
    const uint64_t hash = ahead[u % kGrowAhead];
    if (u + kGrowAhead < n) {
      const uint64_t next = Hash(updates_[u + kGrowAhead].key);
      ahead[u % kGrowAhead] = next;
      __builtin_prefetch(&slots_[next & mask]);
    }
    size_t i = hash & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = (hash & kTagMask) | static_cast<uint64_t>(u + 1);
  }
}

size_t UpdateBuffer::memory_bytes() const {
  size_t chunks = 0;
  for (const auto& c : chunks_) chunks += c.size();
  return chunks + updates_.capacity() * sizeof(Update) + slots_.size() * sizeof(uint64_t);
}

}  // namespace weir::stream
