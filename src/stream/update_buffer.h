// UpdateBuffer: a batch of key-value updates (puts and removals) held in memory before they are
// written to a store, with lookup by key and a sorted walk. Keys and values live in one byte arena
// and are indexed by a flat open-addressing table, so a million updates cost a few large
// allocations, not a million nodes. A later update of a key replaces the earlier one. Not
// thread-safe.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace weir::stream {

class UpdateBuffer {
 public:
  struct Update {
    std::string_view key;
    std::string_view value;  // empty for a removal
    bool removal = false;
  };

  UpdateBuffer();

  // Records a put of `value` (is_removal false) or a removal of `key`.
  void Set(std::string_view key, std::string_view value, bool is_removal);
  // The update of `key`, or nullptr. The pointer is valid until the next Set or Clear.
  const Update* Find(std::string_view key) const;

  // Every update in bytewise key order. The views are valid until Clear.
  std::vector<const Update*> Sorted() const;

  void Clear();
  bool empty() const { return updates_.empty(); }
  size_t size() const { return updates_.size(); }
  // Key and value bytes held (the arena's size); memory_bytes() adds the tables.
  size_t data_bytes() const { return data_bytes_; }
  size_t memory_bytes() const;

 private:
  // Arena-owned bytes: chunks never move, so string_views into them stay valid.
  std::string_view Store(std::string_view bytes);
  size_t SlotOf(uint64_t hash) const { return hash & (slots_.size() - 1); }
  void Grow();

  std::vector<Update> updates_;
  std::vector<uint64_t> hashes_;  // per update
  std::vector<uint32_t> slots_;   // update index + 1; 0: empty
  std::vector<std::vector<char>> chunks_;
  size_t chunk_used_ = 0;
  size_t data_bytes_ = 0;
};

}  // namespace weir::stream
