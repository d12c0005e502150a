#include "columnar/column.h"

#include <algorithm>

namespace weir::columnar {

char* StringArena::Allocate(size_t n) {
  if (n > remaining_) {
    size_t block = std::max<size_t>(n, 64 * 1024);
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(block));
    cursor_ = blocks_.back().get();
    remaining_ = block;
    bytes_allocated_ += block;
  }
  char* out = cursor_;
  cursor_ += n;
  remaining_ -= n;
  return out;
}

std::string_view StringArena::Copy(std::string_view s) {
  if (s.empty()) return std::string_view();
  char* p = Allocate(s.size());
  std::memcpy(p, s.data(), s.size());
  return std::string_view(p, s.size());
}

Column::Column(TypePtr type) : type_(std::move(type)), arena_(std::make_shared<StringArena>()) {
  for (const Field& f : type_->children()) children_.emplace_back(f.type);
  if (type_->id() == TypeId::kList || type_->id() == TypeId::kMap) offsets_.push_back(0);
}

void Column::Reserve(int64_t n) {
  int width = type_->byte_width();
  if (width > 0) fixed_.reserve(n * width);
  if (type_->is_binary_like()) strings_.reserve(n);
  if (type_->id() == TypeId::kList || type_->id() == TypeId::kMap) offsets_.reserve(n + 1);
}

void Column::MarkNull() {
  if (validity_.empty()) validity_.assign(size_, 1);
  validity_.push_back(0);
  ++null_count_;
  ++size_;
}

void Column::AppendNull() {
  int width = type_->byte_width();
  if (width > 0) {
    fixed_.resize(fixed_.size() + width, 0);
  } else if (type_->is_binary_like()) {
    strings_.emplace_back();
  } else if (type_->id() == TypeId::kStruct) {
    for (Column& c : children_) c.AppendNull();
  } else {  // list / map: an empty entry
    offsets_.push_back(offsets_.back());
  }
  MarkNull();
}

void Column::AppendNullShallow() {
  if (type_->id() == TypeId::kStruct) {
    MarkNull();
  } else {
    AppendNull();
  }
}

void Column::ShareBuffersFrom(const Column& other) {
  owners_.push_back(other.arena_);
  owners_.insert(owners_.end(), other.owners_.begin(), other.owners_.end());
}

void Column::AppendListEntry() {
  offsets_.push_back(static_cast<int32_t>(children_[0].size()));
  MarkValid();
}

void Column::AddBufferOwner(std::shared_ptr<const void> owner) {
  owners_.push_back(std::move(owner));
}

void Column::SetSize(int64_t size) {
  size_ = size;
  if (validity_.empty()) {
    null_count_ = 0;
  } else {
    null_count_ = size - std::count(validity_.begin(), validity_.begin() + size, uint8_t{1});
    if (null_count_ == 0) validity_.clear();
  }
}

void Column::Clear() {
  size_ = 0;
  null_count_ = 0;
  validity_.clear();
  fixed_.clear();
  strings_.clear();
  offsets_.clear();
  if (type_->id() == TypeId::kList || type_->id() == TypeId::kMap) offsets_.push_back(0);
  for (Column& c : children_) c.Clear();
  arena_ = std::make_shared<StringArena>();
  owners_.clear();
}

Column Column::Slice(int64_t offset, int64_t length) const {
  Column out(type_);
  out.arena_ = arena_;
  out.owners_ = owners_;
  if (null_count_ > 0) {
    out.validity_.assign(validity_.begin() + offset, validity_.begin() + offset + length);
  }
  int width = type_->byte_width();
  if (width > 0) {
    out.fixed_.assign(fixed_.begin() + offset * width, fixed_.begin() + (offset + length) * width);
  } else if (type_->is_binary_like()) {
    out.strings_.assign(strings_.begin() + offset, strings_.begin() + offset + length);
  } else if (type_->id() == TypeId::kStruct) {
    for (size_t i = 0; i < children_.size(); ++i) {
      out.children_[i] = children_[i].Slice(offset, length);
    }
  } else {
    int32_t first = offsets_[offset];
    int32_t last = offsets_[offset + length];
    out.offsets_.resize(length + 1);
    for (int64_t i = 0; i <= length; ++i) out.offsets_[i] = offsets_[offset + i] - first;
    for (size_t i = 0; i < children_.size(); ++i) {
      out.children_[i] = children_[i].Slice(first, last - first);
    }
  }
  out.SetSize(length);
  return out;
}

void Column::AppendFrom(const Column& other, int64_t row) {
  if (other.IsNull(row)) {
    AppendNull();
    return;
  }
  int width = type_->byte_width();
  if (width > 0) {
    fixed_.insert(fixed_.end(), other.fixed_.begin() + row * width,
                  other.fixed_.begin() + (row + 1) * width);
    MarkValid();
  } else if (type_->is_binary_like()) {
    AppendString(other.strings_[row]);
  } else if (type_->id() == TypeId::kStruct) {
    for (size_t i = 0; i < children_.size(); ++i) children_[i].AppendFrom(other.children_[i], row);
    MarkValid();
  } else {
    for (int32_t j = other.offsets_[row]; j < other.offsets_[row + 1]; ++j) {
      for (size_t i = 0; i < children_.size(); ++i) children_[i].AppendFrom(other.children_[i], j);
    }
    AppendListEntry();
  }
}

Batch::Batch(Schema s) : schema(std::move(s)) {
  for (const Field& f : schema.fields) columns.emplace_back(f.type);
}

}  // namespace weir::columnar
