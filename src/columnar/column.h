// Column vectors and batches: weir's in-memory columnar data, like a small Arrow.
//
// A Column holds `size()` values of one DataType:
//  - validity: empty when the column has no nulls, else one byte per value (1 = valid, 0 = null);
//  - fixed-width types: a byte buffer of size() * byte_width() (bool/int8 = 1 byte, decimal = Int128);
//    null slots hold zero;
//  - string/binary: one std::string_view per value, pointing into the column's arena or into buffers
//    kept alive by AddBufferOwner() (zero-copy views of Kafka messages or Parquet pages);
//  - list/map: size()+1 int32 offsets into the child column(s) (map: child 0 keys, child 1 values);
//  - struct: one child per field, each of size() values.
// Copies share the string arena and buffer owners (immutable once shared). Not thread-safe for
// concurrent mutation; concurrent readers are fine.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/types.h"

namespace weir::columnar {

using Int128 = __int128;

// Bump allocator for string bytes. Pointers stay valid for the arena's lifetime.
class StringArena {
 public:
  char* Allocate(size_t n);
  std::string_view Copy(std::string_view s);
  size_t bytes_allocated() const { return bytes_allocated_; }

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* cursor_ = nullptr;
  size_t remaining_ = 0;
  size_t bytes_allocated_ = 0;
};

class Column {
 public:
  explicit Column(TypePtr type);

  const TypePtr& type() const { return type_; }
  TypeId type_id() const { return type_->id(); }
  int64_t size() const { return size_; }

  // ---- Nulls
  int64_t null_count() const { return null_count_; }
  bool IsNull(int64_t i) const { return null_count_ > 0 && validity_[i] == 0; }
  // nullptr when there are no nulls.
  const uint8_t* validity() const { return null_count_ > 0 ? validity_.data() : nullptr; }

  // ---- Fixed-width values. REQUIRES: sizeof(T) == type()->byte_width().
  template <typename T>
  const T* values() const {
    return reinterpret_cast<const T*>(fixed_.data());
  }
  template <typename T>
  T* mutable_values() {
    return reinterpret_cast<T*>(fixed_.data());
  }
  template <typename T>
  T Value(int64_t i) const {
    T v;
    std::memcpy(&v, fixed_.data() + i * sizeof(T), sizeof(T));
    return v;
  }

  // ---- Strings and binary
  std::string_view StringAt(int64_t i) const { return strings_[i]; }
  const std::string_view* strings() const { return strings_.data(); }

  // ---- Nested
  const int32_t* offsets() const { return offsets_.data(); }  // list and map: size()+1 entries
  int num_children() const { return static_cast<int>(children_.size()); }
  const Column& child(int i) const { return children_[i]; }
  Column& mutable_child(int i) { return children_[i]; }

  // ---- Building, one value at a time
  void Reserve(int64_t n);
  // Appends a null. For a struct, appends a null to every child too; for list/map, an empty entry.
  void AppendNull();
  template <typename T>
  void Append(T v) {
    size_t at = fixed_.size();
    fixed_.resize(at + sizeof(T));
    std::memcpy(fixed_.data() + at, &v, sizeof(T));
    MarkValid();
  }
  void AppendString(std::string_view s) {  // copies the bytes into the arena
    strings_.push_back(arena_->Copy(s));
    MarkValid();
  }
  // REQUIRES: the bytes outlive every copy of this column (see AddBufferOwner).
  void AppendStringView(std::string_view s) {
    strings_.push_back(s);
    MarkValid();
  }
  // Appends a null to this column only: a struct's children are left alone (assembly code that
  // fills children separately uses this); otherwise the same as AppendNull().
  void AppendNullShallow();
  // Closes a list/map entry holding the child values appended since the previous entry.
  void AppendListEntry();
  // Closes a struct row after one value was appended to every child.
  void AppendStructEntry() { MarkValid(); }

  // Keeps `owner` alive as long as this column (or a copy) lives: for borrowed string bytes.
  void AddBufferOwner(std::shared_ptr<const void> owner);
  StringArena& arena() { return *arena_; }
  // Keeps every buffer that `other`'s strings point into alive as long as this column lives.
  void ShareBuffersFrom(const Column& other);

  // ---- Bulk building (decoders). The caller fills buffers, then calls SetSize(); the invariants
  // above must hold afterwards. validity may be left empty when there are no nulls.
  std::vector<uint8_t>& fixed_buffer() { return fixed_; }
  std::vector<std::string_view>& string_buffer() { return strings_; }
  std::vector<int32_t>& offsets_buffer() { return offsets_; }
  std::vector<uint8_t>& validity_buffer() { return validity_; }
  // Sets the length and recounts nulls from the validity buffer.
  void SetSize(int64_t size);

  // Removes all values (keeps the type and the allocated capacity; drops the arena and owners).
  void Clear();

  // A new column with the rows [offset, offset + length) (deep copy of fixed-width data, strings
  // still borrowed from this column's arena/owners, which the slice shares).
  Column Slice(int64_t offset, int64_t length) const;
  // Appends row `row` of `other` (same type) to this column.
  void AppendFrom(const Column& other, int64_t row);

 private:
  void MarkValid() {
    if (!validity_.empty()) validity_.push_back(1);
    ++size_;
  }
  void MarkNull();

  TypePtr type_;
  int64_t size_ = 0;
  int64_t null_count_ = 0;
  std::vector<uint8_t> validity_;
  std::vector<uint8_t> fixed_;
  std::vector<std::string_view> strings_;
  std::vector<int32_t> offsets_;
  std::vector<Column> children_;
  std::shared_ptr<StringArena> arena_;
  std::vector<std::shared_ptr<const void>> owners_;
};

// A batch of rows: one Column per schema field, all of num_rows() values.
struct Batch {
  Schema schema;
  std::vector<Column> columns;

  Batch() = default;
  explicit Batch(Schema s);
  int64_t num_rows() const { return columns.empty() ? num_rows_without_columns : columns[0].size(); }
  int64_t num_rows_without_columns = 0;  // for projections of zero columns (e.g. count(*))
};

}  // namespace weir::columnar
