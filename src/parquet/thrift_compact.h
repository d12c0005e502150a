// Thrift compact protocol: a writer that appends to a std::string and a reader over borrowed bytes.
// The reader treats its input as hostile: every read is bounds-checked, varints are length-capped,
// list/map sizes are checked against the bytes left (so no allocation exceeds what the input can
// justify), nesting is limited to kMaxThriftDepth, and every failure is Status::Corruption naming
// the byte offset. Only what Parquet metadata uses is here (no messages). Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace weir::parquet {

// Structs, lists and maps nested deeper than this are rejected as corrupt.
inline constexpr int kMaxThriftDepth = 64;

// Compact-protocol wire types. The reader reports both boolean wire codes (1 = true, 2 = false) as
// kBool; the writer chooses the code from the value.
enum class ThriftType : uint8_t {
  kStop = 0,
  kBool = 1,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

std::string_view ThriftTypeName(ThriftType type);

// Appends compact-protocol bytes to *out. Fields of a struct must be written in ascending id order
// for the short (delta) field header; other orders are still encoded correctly (long form).
// Usage: StructBegin(); FieldI32(1, v); FieldStructBegin(2); ...; StructEnd(); StructEnd();
// REQUIRES: *out outlives the writer; nesting is balanced and at most kMaxThriftDepth deep.
class ThriftCompactWriter {
 public:
  explicit ThriftCompactWriter(std::string* out) : out_(out) { last_ids_.reserve(8); }

  // A struct value: a top-level struct, a list element, or (via FieldStructBegin) a field.
  void StructBegin();
  void StructEnd();  // writes the stop byte

  void FieldBool(int16_t id, bool value);
  void FieldI8(int16_t id, int8_t value);
  void FieldI16(int16_t id, int16_t value);
  void FieldI32(int16_t id, int32_t value);
  void FieldI64(int16_t id, int64_t value);
  void FieldDouble(int16_t id, double value);
  void FieldBinary(int16_t id, std::string_view value);
  void FieldStructBegin(int16_t id);   // follow with the struct's fields and StructEnd()
  void FieldStructHeader(int16_t id);  // follow with StructBegin(), fields, StructEnd()
  void FieldListBegin(int16_t id, ThriftType element_type, uint32_t size);

  // List elements (and other bare values).
  void ListBegin(ThriftType element_type, uint32_t size);
  void MapBegin(ThriftType key_type, ThriftType value_type, uint32_t size);
  void Bool(bool value);
  void I8(int8_t value);
  void I16(int16_t value) { I64(value); }
  void I32(int32_t value) { I64(value); }
  void I64(int64_t value);
  void Double(double value);
  void Binary(std::string_view value);

 private:
  void FieldHeader(int16_t id, uint8_t wire_type);
  void Varint(uint64_t value);

  std::string* out_;
  int16_t last_id_ = 0;
  std::vector<int16_t> last_ids_;  // enclosing structs' last field ids
};

// Reads compact-protocol values from `data`, which must outlive the reader (ReadBinary returns
// views into it). Typical struct loop:
//   StructBegin(); for (;;) { FieldBegin(&type, &id); if (type == kStop) break; switch (id) ... }
//   StructEnd();
// Unknown fields are passed to Skip(type). After any error the reader must not be used further.
class ThriftCompactReader {
 public:
  explicit ThriftCompactReader(std::span<const uint8_t> data) : data_(data) {}

  // Bytes consumed so far (the offset of the next unread byte).
  size_t position() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

  Status StructBegin();
  Status StructEnd();
  // Reads the next field header of the current struct; *type == kStop at its end (then *id is 0).
  Status FieldBegin(ThriftType* type, int16_t* id);

  // The value of a kBool field just read by FieldBegin, or the next bool element of a list.
  Status ReadBool(bool* value);
  Status ReadI8(int8_t* value);
  Status ReadI16(int16_t* value);
  Status ReadI32(int32_t* value);
  Status ReadI64(int64_t* value);
  Status ReadDouble(double* value);
  // A view into the input bytes.
  Status ReadBinary(std::string_view* value);
  Status ReadString(std::string* value);

  // List and set headers. *size is at most remaining() (every element takes at least one byte).
  // Callers reading elements must call ListEnd() after the last one.
  Status ListBegin(ThriftType* element_type, uint32_t* size);
  Status ListEnd();
  // *size is at most remaining() / 2. Callers must call MapEnd() after the last entry.
  Status MapBegin(ThriftType* key_type, ThriftType* value_type, uint32_t* size);
  Status MapEnd() { return ListEnd(); }

  // Skips one value of the given type, including nested structs, lists, sets and maps.
  Status Skip(ThriftType type);

 private:
  Status ReadVarint(int max_bytes, uint64_t* value, const char* what);
  Status ReadWireType(uint8_t nibble, ThriftType* type);
  Status Enter();
  Status SkipValue(ThriftType type);
  Status Truncated(const char* what, size_t need) const;

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  int depth_ = 0;
  int16_t last_id_ = 0;
  int16_t last_ids_[kMaxThriftDepth + 1] = {};
  int struct_depth_ = 0;
  bool has_pending_bool_ = false;
  bool pending_bool_ = false;
};

}  // namespace weir::parquet
