#include "stream/update_buffer.h"

#include <algorithm>
#include <cstring>

namespace weir::stream {

namespace {

constexpr size_t kInitialSlots = 1024;
constexpr size_t kChunkBytes = size_t{1} << 20;

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
  uint64_t tail = 0;
  std::memcpy(&tail, key.data() + i, key.size() - i);
  h = (h ^ tail) * 0x9e3779b97f4a7c15ull;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  h ^= h >> 32;
  return h;
}

}  // namespace

UpdateBuffer::UpdateBuffer() { Clear(); }

std::string_view UpdateBuffer::Store(std::string_view bytes) {
  if (bytes.empty()) return {};
  if (chunks_.empty() || chunk_used_ + bytes.size() > chunks_.back().size()) {
    chunks_.emplace_back(std::max(kChunkBytes, bytes.size()));
    chunk_used_ = 0;
  }
  char* out = chunks_.back().data() + chunk_used_;
  std::memcpy(out, bytes.data(), bytes.size());
  chunk_used_ += bytes.size();
  data_bytes_ += bytes.size();
  return {out, bytes.size()};
}

void UpdateBuffer::Set(std::string_view key, std::string_view value, bool is_removal) {
  const uint64_t hash = HashKey(key);
  const size_t mask = slots_.size() - 1;
  for (size_t i = SlotOf(hash);; i = (i + 1) & mask) {
    uint32_t slot = slots_[i];
    if (slot == 0) break;
    Update& u = updates_[slot - 1];
    if (hashes_[slot - 1] == hash && u.key == key) {
      u.value = is_removal ? std::string_view() : Store(value);
      u.removal = is_removal;
      return;
    }
  }
  if ((updates_.size() + 1) * 2 > slots_.size()) Grow();
  updates_.push_back({Store(key), is_removal ? std::string_view() : Store(value), is_removal});
  hashes_.push_back(hash);
  const size_t grown_mask = slots_.size() - 1;
  size_t i = SlotOf(hash);
  while (slots_[i] != 0) i = (i + 1) & grown_mask;
  slots_[i] = static_cast<uint32_t>(updates_.size());
}

const UpdateBuffer::Update* UpdateBuffer::Find(std::string_view key) const {
  if (updates_.empty()) return nullptr;
  const uint64_t hash = HashKey(key);
  const size_t mask = slots_.size() - 1;
  for (size_t i = SlotOf(hash);; i = (i + 1) & mask) {
    uint32_t slot = slots_[i];
    if (slot == 0) return nullptr;
    if (hashes_[slot - 1] == hash && updates_[slot - 1].key == key) return &updates_[slot - 1];
  }
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
  auto word = [](std::string_view key, size_t at) {
    unsigned char bytes[8] = {};
    if (key.size() > at) std::memcpy(bytes, key.data() + at, std::min<size_t>(8, key.size() - at));
    uint64_t w = 0;
    for (unsigned char b : bytes) w = (w << 8) | b;
    return w;
  };
  std::vector<Item> items;
  items.reserve(updates_.size());
  for (const Update& u : updates_) items.push_back({word(u.key, 0), word(u.key, 8), &u});
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.high != b.high) return a.high < b.high;
    if (a.low != b.low) return a.low < b.low;
    return a.update->key < b.update->key;
  });
  std::vector<const Update*> sorted;
  sorted.reserve(items.size());
  for (const Item& item : items) sorted.push_back(item.update);
  return sorted;
}

void UpdateBuffer::Clear() {
  updates_.clear();
  hashes_.clear();
  slots_.assign(kInitialSlots, 0);
  if (chunks_.size() > 1) chunks_.resize(1);  // keep one chunk for the next batch
  chunk_used_ = 0;
  data_bytes_ = 0;
}

void UpdateBuffer::Grow() {
  slots_.assign(slots_.size() * 2, 0);
  const size_t mask = slots_.size() - 1;
  for (size_t u = 0; u < updates_.size(); ++u) {
    size_t i = SlotOf(hashes_[u]);
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = static_cast<uint32_t>(u + 1);
  }
}

size_t UpdateBuffer::memory_bytes() const {
  size_t chunks = 0;
  for (const auto& c : chunks_) chunks += c.size();
  return chunks + updates_.capacity() * sizeof(Update) + hashes_.capacity() * sizeof(uint64_t) +
         slots_.capacity() * sizeof(uint32_t);
}

}  // namespace weir::stream
