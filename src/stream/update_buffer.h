// UpdateBuffer: a batch of key-value updates (puts and removals) held in memory before they are
// written to a store, with lookup by key and a sorted walk. Keys and values live in one byte arena
// and are indexed by a flat open-addressing table whose slots carry a hash tag, so a million
// updates cost a few large allocations, and adding a new key touches one table slot (no other
// key's bytes). A later update of a key replaces the earlier one. An append-only buffer (for
// updates never looked up) has no table: Set only appends, and Sorted keeps the last update of
// each key. Not thread-safe; const methods may run on several threads at once.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "stream/fingerprint_set.h"

namespace weir::stream {

class UpdateBuffer {
 public:
  struct Update {
    std::string_view key;
    std::string_view value;  // empty for a removal
    bool removal = false;
  };

  // The 64-bit hash of a key: its low bits pick the home slot, its high 32 bits are the tag.
  using HashFunction = uint64_t (*)(std::string_view key);

  enum class Lookup {
    kByKey,       // Find works; Set replaces an earlier update of the key at once
    kAppendOnly,  // no Find; earlier updates of a key are dropped by Sorted
  };

  // `hash` replaces the buffer's own hash function (tests use one that collides on purpose).
  explicit UpdateBuffer(Lookup lookup = Lookup::kByKey, HashFunction hash = nullptr);

  // Records a put of `value` (is_removal false) or a removal of `key`.
  void Set(std::string_view key, std::string_view value, bool is_removal);
  // The update of `key`, or nullptr. The pointer is valid until the next Set or Clear.
  // REQUIRES: Lookup::kByKey.
  const Update* Find(std::string_view key) const;
  // A hint that `key` is about to be Set or looked up: starts loading its table slot into the
  // cache. No effect on the contents (none at all for an append-only buffer).
  void Prefetch(std::string_view key) const;

  // The last update of every key, in bytewise key order. The views are valid until Clear.
  std::vector<const Update*> Sorted() const;

  // Makes room for `updates` keys in all, so that Set does not grow the table before then.
  void Reserve(size_t updates);
  // Empties the buffer; its table and arena keep their size for the next updates (a buffer
  // filled and written out again and again allocates once).
  void Clear();
  // Empties the buffer and frees its memory (what a new buffer holds is kept).
  void Release();
  bool empty() const { return updates_.empty(); }
  // Updates held: keys, or Set calls for an append-only buffer.
  size_t size() const { return updates_.size(); }
  // Key and value bytes held (the arena's size); memory_bytes() adds the tables.
  size_t data_bytes() const { return data_bytes_; }
  size_t memory_bytes() const;

 private:
  uint64_t Hash(std::string_view key) const;
  // Arena-owned bytes: chunks never move, so string_views into them stay valid.
  std::string_view Store(std::string_view bytes);
  // The index of the update of `key` (hash `hash`), or of the empty slot where it would go.
  size_t Probe(std::string_view key, uint64_t hash) const;
  void Grow();

  Lookup lookup_ = Lookup::kByKey;
  HashFunction hash_ = nullptr;  // nullptr: HashKey in update_buffer.cc
  std::vector<Update> updates_;
  // A slot: the high 32 bits of the key's hash (its tag) above the update's index + 1; 0: empty.
  // The home slot comes from the hash's low bits, so the tag tells keys of one probe run apart
  // without reading their bytes.
  ZeroedArray<uint64_t> slots_;
  std::vector<std::vector<char>> chunks_;
  size_t chunk_ = 0;  // the chunk being filled
  size_t chunk_used_ = 0;
  size_t data_bytes_ = 0;
};

}  // namespace weir::stream
