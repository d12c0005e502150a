// FileMap: a table state's live files (or tombstones) by logical key, in key order, whose copies
// share their storage. Entries live in sorted chunks of at most kMaxChunk, each held by a shared
// pointer: copying the map copies one pointer a chunk, and a change copies only the chunk it
// touches (copy on write). A snapshot advanced by a commit of a few files therefore costs a few
// chunks, not the whole table: a streaming sink that commits every second to a table of 100,000
// files would otherwise copy 100,000 entries a commit, and hold two such copies at once.
// Thread-compatible: copies may be read and changed on different threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace weir::delta {

template <typename T>
class FileMap {
 public:
  using Entry = std::pair<std::string, std::shared_ptr<const T>>;
  static constexpr size_t kMaxChunk = 128;

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = const Entry*;
    using reference = const Entry&;

    const_iterator() = default;
    reference operator*() const { return (*map_->chunks_[chunk_])[entry_]; }
    pointer operator->() const { return &**this; }
    const_iterator& operator++() {
      if (++entry_ == map_->chunks_[chunk_]->size()) {
        ++chunk_;
        entry_ = 0;
      }
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const const_iterator& other) const {
      return chunk_ == other.chunk_ && entry_ == other.entry_;
    }
    bool operator!=(const const_iterator& other) const { return !(*this == other); }

   private:
    friend class FileMap;
    const_iterator(const FileMap* map, size_t chunk) : map_(map), chunk_(chunk) {}
    const FileMap* map_ = nullptr;
    size_t chunk_ = 0;
    size_t entry_ = 0;
  };

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, chunks_.size()); }

  // The value of `key`, or null.
  const std::shared_ptr<const T>* Find(const std::string& key) const {
    if (chunks_.empty()) return nullptr;
    const Chunk& chunk = *chunks_[ChunkFor(key)];
    auto it = LowerBound(chunk, key);
    return it != chunk.end() && it->first == key ? &it->second : nullptr;
  }

  // Inserts or replaces the value of `key`; returns the value it replaced (null when none).
  std::shared_ptr<const T> Set(std::string key, std::shared_ptr<const T> value) {
    if (chunks_.empty()) {
      chunks_.push_back(std::make_shared<Chunk>());
      chunks_.back()->emplace_back(std::move(key), std::move(value));
      size_ = 1;
      return nullptr;
    }
    const size_t i = ChunkFor(key);
    Chunk& chunk = Own(i);
    auto it = LowerBound(chunk, key);
    if (it != chunk.end() && it->first == key) {
      std::swap(it->second, value);
      return value;
    }
    chunk.emplace(it, std::move(key), std::move(value));
    ++size_;
    if (chunk.size() > kMaxChunk) {
      auto upper = std::make_shared<Chunk>(std::make_move_iterator(chunk.begin() + kMaxChunk / 2),
                                           std::make_move_iterator(chunk.end()));
      chunk.resize(kMaxChunk / 2);
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(upper));
    }
    return nullptr;
  }

  // Removes `key`; returns its value (null when it was absent).
  std::shared_ptr<const T> Erase(const std::string& key) {
    if (chunks_.empty()) return nullptr;
    const size_t i = ChunkFor(key);
    {
      const Chunk& shared = *chunks_[i];
      auto found = LowerBound(shared, key);
      if (found == shared.end() || found->first != key) return nullptr;  // no copy when absent
    }
    Chunk& chunk = Own(i);
    auto it = LowerBound(chunk, key);
    std::shared_ptr<const T> value = std::move(it->second);
    chunk.erase(it);
    --size_;
    if (chunk.empty()) chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(i));
    return value;
  }

 private:
  using Chunk = std::vector<Entry>;

  static typename Chunk::const_iterator LowerBound(const Chunk& chunk, const std::string& key) {
    return std::lower_bound(chunk.begin(), chunk.end(), key,
                            [](const Entry& e, const std::string& k) { return e.first < k; });
  }
  static typename Chunk::iterator LowerBound(Chunk& chunk, const std::string& key) {
    return std::lower_bound(chunk.begin(), chunk.end(), key,
                            [](const Entry& e, const std::string& k) { return e.first < k; });
  }

  // The chunk whose key range holds `key`, or the one it would be inserted into: the first whose
  // last key is >= `key`, else the last. Chunks are never empty. Requires !chunks_.empty().
  size_t ChunkFor(const std::string& key) const {
    auto it = std::lower_bound(
        chunks_.begin(), chunks_.end(), key,
        [](const std::shared_ptr<Chunk>& c, const std::string& k) { return c->back().first < k; });
    return it == chunks_.end() ? chunks_.size() - 1 : static_cast<size_t>(it - chunks_.begin());
  }

  // Chunk `i`, copied first when another map shares it. Only this map can hand out new
  // references to a chunk it alone holds, so use_count() == 1 cannot change under us.
  Chunk& Own(size_t i) {
    std::shared_ptr<Chunk>& chunk = chunks_[i];
    if (chunk.use_count() > 1) chunk = std::make_shared<Chunk>(*chunk);
    return *chunk;
  }

  std::vector<std::shared_ptr<Chunk>> chunks_;  // sorted, disjoint, none empty
  size_t size_ = 0;
};

}  // namespace weir::delta
