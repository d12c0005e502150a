#include "parquet/thrift_compact.h"

#include <cstring>
#include <string>

namespace weir::parquet {
namespace {

constexpr uint8_t kWireBoolTrue = 1;
constexpr uint8_t kWireBoolFalse = 2;

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

int64_t UnZigZag(uint64_t u) { return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1)); }

std::string At(size_t pos) { return " at byte " + std::to_string(pos); }

}  // namespace

std::string_view ThriftTypeName(ThriftType type) {
  switch (type) {
    case ThriftType::kStop:
      return "stop";
    case ThriftType::kBool:
      return "bool";
    case ThriftType::kByte:
      return "byte";
    case ThriftType::kI16:
      return "i16";
    case ThriftType::kI32:
      return "i32";
    case ThriftType::kI64:
      return "i64";
    case ThriftType::kDouble:
      return "double";
    case ThriftType::kBinary:
      return "binary";
    case ThriftType::kList:
      return "list";
    case ThriftType::kSet:
      return "set";
    case ThriftType::kMap:
      return "map";
    case ThriftType::kStruct:
      return "struct";
  }
  return "invalid";
}

// ---------------------------------------------------------------------------------------------
// Writer

void ThriftCompactWriter::Varint(uint64_t value) {
  char buf[10];
  int n = 0;
  while (value >= 0x80) {
    buf[n++] = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  buf[n++] = static_cast<char>(value);
  out_->append(buf, n);
}

void ThriftCompactWriter::FieldHeader(int16_t id, uint8_t wire_type) {
  if (id > last_id_ && id - last_id_ <= 15) {
    out_->push_back(static_cast<char>(((id - last_id_) << 4) | wire_type));
  } else {
    out_->push_back(static_cast<char>(wire_type));
    Varint(ZigZag(id));
  }
  last_id_ = id;
}

void ThriftCompactWriter::StructBegin() {
  last_ids_.push_back(last_id_);
  last_id_ = 0;
}

void ThriftCompactWriter::StructEnd() {
  out_->push_back(0);
  last_id_ = last_ids_.back();
  last_ids_.pop_back();
}

void ThriftCompactWriter::FieldBool(int16_t id, bool value) {
  FieldHeader(id, value ? kWireBoolTrue : kWireBoolFalse);
}

void ThriftCompactWriter::FieldI8(int16_t id, int8_t value) {
  FieldHeader(id, static_cast<uint8_t>(ThriftType::kByte));
  I8(value);
}

void ThriftCompactWriter::FieldI16(int16_t id, int16_t value) {
  FieldHeader(id, static_cast<uint8_t>(ThriftType::kI16));
  I64(value);
}

void ThriftCompactWriter::FieldI32(int16_t id, int32_t value) {
  FieldHeader(id, static_cast<uint8_t>(ThriftType::kI32));
  I64(value);
}

void ThriftCompactWriter::FieldI64(int16_t id, int64_t value) {
  FieldHeader(id, static_cast<uint8_t>(ThriftType::kI64));
  I64(value);
}

void ThriftCompactWriter::FieldDouble(int16_t id, double value) {
  FieldHeader(id, static_cast<uint8_t>(ThriftType::kDouble));
  Double(value);
}

void ThriftCompactWriter::FieldBinary(int16_t id, std::string_view value) {
  FieldHeader(id, static_cast<uint8_t>(ThriftType::kBinary));
  Binary(value);
}

void ThriftCompactWriter::FieldStructBegin(int16_t id) {
  FieldStructHeader(id);
  StructBegin();
}

void ThriftCompactWriter::FieldStructHeader(int16_t id) {
  FieldHeader(id, static_cast<uint8_t>(ThriftType::kStruct));
}

void ThriftCompactWriter::FieldListBegin(int16_t id, ThriftType element_type, uint32_t size) {
  FieldHeader(id, static_cast<uint8_t>(ThriftType::kList));
  ListBegin(element_type, size);
}

void ThriftCompactWriter::ListBegin(ThriftType element_type, uint32_t size) {
  const uint8_t type = static_cast<uint8_t>(element_type);
  if (size < 15) {
    out_->push_back(static_cast<char>((size << 4) | type));
  } else {
    out_->push_back(static_cast<char>(0xF0 | type));
    Varint(size);
  }
}

void ThriftCompactWriter::MapBegin(ThriftType key_type, ThriftType value_type, uint32_t size) {
  if (size == 0) {
    out_->push_back(0);
    return;
  }
  Varint(size);
  out_->push_back(
      static_cast<char>((static_cast<uint8_t>(key_type) << 4) | static_cast<uint8_t>(value_type)));
}

// Bool list elements use the wire type codes (1 = true, 2 = false), which every reader accepts.
void ThriftCompactWriter::Bool(bool value) {
  out_->push_back(static_cast<char>(value ? kWireBoolTrue : kWireBoolFalse));
}

void ThriftCompactWriter::I8(int8_t value) { out_->push_back(static_cast<char>(value)); }

void ThriftCompactWriter::I64(int64_t value) { Varint(ZigZag(value)); }

void ThriftCompactWriter::Double(double value) {
  char buf[8];
  std::memcpy(buf, &value, 8);  // little-endian host (checked in encoding.cc)
  out_->append(buf, 8);
}

void ThriftCompactWriter::Binary(std::string_view value) {
  Varint(value.size());
  out_->append(value);
}

// ---------------------------------------------------------------------------------------------
// Reader

Status ThriftCompactReader::Truncated(const char* what, size_t need) const {
  return Status::Corruption("thrift: truncated " + std::string(what) + At(pos_) + " (needs " +
                            std::to_string(need) + " bytes, " + std::to_string(remaining()) +
                            " left)");
}

Status ThriftCompactReader::ReadVarint(int max_bytes, uint64_t* value, const char* what) {
  const size_t start = pos_;
  uint64_t result = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (pos_ >= data_.size()) {
      return Status::Corruption("thrift: truncated varint (" + std::string(what) + ")" + At(start));
    }
    const uint8_t byte = data_[pos_++];
    result |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) {
      if (i == 9 && byte > 1) break;  // the 10th byte may only hold bit 63
      *value = result;
      return Status::OK();
    }
  }
  return Status::Corruption("thrift: varint (" + std::string(what) + ") longer than " +
                            std::to_string(max_bytes) + " bytes or out of range" + At(start));
}

Status ThriftCompactReader::ReadWireType(uint8_t nibble, ThriftType* type) {
  if (nibble == kWireBoolTrue || nibble == kWireBoolFalse) {
    *type = ThriftType::kBool;
    return Status::OK();
  }
  if (nibble < static_cast<uint8_t>(ThriftType::kByte) ||
      nibble > static_cast<uint8_t>(ThriftType::kStruct)) {
    return Status::Corruption("thrift: invalid type code " + std::to_string(nibble) +
                              At(pos_ == 0 ? 0 : pos_ - 1));
  }
  *type = static_cast<ThriftType>(nibble);
  return Status::OK();
}

Status ThriftCompactReader::Enter() {
  if (depth_ >= kMaxThriftDepth) {
    return Status::Corruption("thrift: nesting deeper than " + std::to_string(kMaxThriftDepth) +
                              At(pos_));
  }
  ++depth_;
  return Status::OK();
}

Status ThriftCompactReader::StructBegin() {
  WEIR_RETURN_NOT_OK(Enter());
  last_ids_[struct_depth_++] = last_id_;
  last_id_ = 0;
  return Status::OK();
}

Status ThriftCompactReader::StructEnd() {
  if (struct_depth_ == 0 || depth_ == 0) {
    return Status::Internal("thrift: StructEnd without StructBegin");
  }
  last_id_ = last_ids_[--struct_depth_];
  --depth_;
  return Status::OK();
}

Status ThriftCompactReader::FieldBegin(ThriftType* type, int16_t* id) {
  has_pending_bool_ = false;
  if (pos_ >= data_.size()) return Truncated("field header", 1);
  const uint8_t byte = data_[pos_++];
  if (byte == 0) {
    *type = ThriftType::kStop;
    *id = 0;
    return Status::OK();
  }
  const uint8_t nibble = byte & 0x0F;
  WEIR_RETURN_NOT_OK(ReadWireType(nibble, type));
  const int delta = byte >> 4;
  int field_id;
  if (delta != 0) {
    field_id = last_id_ + delta;
    if (field_id > INT16_MAX) {
      return Status::Corruption("thrift: field id overflows i16" + At(pos_ - 1));
    }
  } else {
    uint64_t raw;
    WEIR_RETURN_NOT_OK(ReadVarint(3, &raw, "field id"));
    if (raw > 0xFFFF) return Status::Corruption("thrift: field id out of range" + At(pos_ - 1));
    field_id = static_cast<int>(UnZigZag(raw));
  }
  if (*type == ThriftType::kBool) {
    has_pending_bool_ = true;
    pending_bool_ = nibble == kWireBoolTrue;
  }
  last_id_ = static_cast<int16_t>(field_id);
  *id = last_id_;
  return Status::OK();
}

Status ThriftCompactReader::ReadBool(bool* value) {
  if (has_pending_bool_) {
    has_pending_bool_ = false;
    *value = pending_bool_;
    return Status::OK();
  }
  if (pos_ >= data_.size()) return Truncated("bool", 1);
  const uint8_t byte = data_[pos_++];
  // Writers disagree on false in lists (0 per the spec, 2 in Java); accept both.
  if (byte == 1) {
    *value = true;
  } else if (byte == 0 || byte == 2) {
    *value = false;
  } else {
    return Status::Corruption("thrift: invalid bool value " + std::to_string(byte) + At(pos_ - 1));
  }
  return Status::OK();
}

Status ThriftCompactReader::ReadI8(int8_t* value) {
  if (pos_ >= data_.size()) return Truncated("byte", 1);
  *value = static_cast<int8_t>(data_[pos_++]);
  return Status::OK();
}

Status ThriftCompactReader::ReadI16(int16_t* value) {
  uint64_t raw;
  WEIR_RETURN_NOT_OK(ReadVarint(3, &raw, "i16"));
  if (raw > 0xFFFF) return Status::Corruption("thrift: i16 out of range" + At(pos_ - 1));
  *value = static_cast<int16_t>(UnZigZag(raw));
  return Status::OK();
}

Status ThriftCompactReader::ReadI32(int32_t* value) {
  uint64_t raw;
  WEIR_RETURN_NOT_OK(ReadVarint(5, &raw, "i32"));
  if (raw > 0xFFFFFFFFu) return Status::Corruption("thrift: i32 out of range" + At(pos_ - 1));
  *value = static_cast<int32_t>(UnZigZag(raw));
  return Status::OK();
}

Status ThriftCompactReader::ReadI64(int64_t* value) {
  uint64_t raw;
  WEIR_RETURN_NOT_OK(ReadVarint(10, &raw, "i64"));
  *value = UnZigZag(raw);
  return Status::OK();
}

Status ThriftCompactReader::ReadDouble(double* value) {
  if (remaining() < 8) return Truncated("double", 8);
  std::memcpy(value, data_.data() + pos_, 8);
  pos_ += 8;
  return Status::OK();
}

Status ThriftCompactReader::ReadBinary(std::string_view* value) {
  uint64_t length;
  WEIR_RETURN_NOT_OK(ReadVarint(5, &length, "binary length"));
  if (length > remaining()) {
    return Status::Corruption("thrift: binary length " + std::to_string(length) + " exceeds the " +
                              std::to_string(remaining()) + " bytes left" + At(pos_));
  }
  *value = std::string_view(reinterpret_cast<const char*>(data_.data() + pos_), length);
  pos_ += length;
  return Status::OK();
}

Status ThriftCompactReader::ReadString(std::string* value) {
  std::string_view view;
  WEIR_RETURN_NOT_OK(ReadBinary(&view));
  value->assign(view);
  return Status::OK();
}

Status ThriftCompactReader::ListBegin(ThriftType* element_type, uint32_t* size) {
  has_pending_bool_ = false;
  if (pos_ >= data_.size()) return Truncated("list header", 1);
  const size_t start = pos_;
  const uint8_t byte = data_[pos_++];
  uint64_t n = byte >> 4;
  if (n == 15) WEIR_RETURN_NOT_OK(ReadVarint(5, &n, "list size"));
  const uint8_t nibble = byte & 0x0F;
  if (nibble == 0 && n == 0) {
    *element_type = ThriftType::kStop;  // some writers give empty lists no element type
  } else {
    WEIR_RETURN_NOT_OK(ReadWireType(nibble, element_type));
  }
  if (n > remaining()) {
    return Status::Corruption("thrift: list size " + std::to_string(n) + " exceeds the " +
                              std::to_string(remaining()) + " bytes left" + At(start));
  }
  WEIR_RETURN_NOT_OK(Enter());
  *size = static_cast<uint32_t>(n);
  return Status::OK();
}

Status ThriftCompactReader::ListEnd() {
  if (depth_ <= struct_depth_) return Status::Internal("thrift: ListEnd without ListBegin");
  --depth_;
  return Status::OK();
}

Status ThriftCompactReader::MapBegin(ThriftType* key_type, ThriftType* value_type, uint32_t* size) {
  has_pending_bool_ = false;
  const size_t start = pos_;
  uint64_t n;
  WEIR_RETURN_NOT_OK(ReadVarint(5, &n, "map size"));
  if (n == 0) {
    *key_type = *value_type = ThriftType::kStop;
  } else {
    if (pos_ >= data_.size()) return Truncated("map types", 1);
    const uint8_t byte = data_[pos_++];
    WEIR_RETURN_NOT_OK(ReadWireType(byte >> 4, key_type));
    WEIR_RETURN_NOT_OK(ReadWireType(byte & 0x0F, value_type));
    if (n > remaining() / 2) {
      return Status::Corruption("thrift: map size " + std::to_string(n) + " exceeds the " +
                                std::to_string(remaining()) + " bytes left" + At(start));
    }
  }
  WEIR_RETURN_NOT_OK(Enter());
  *size = static_cast<uint32_t>(n);
  return Status::OK();
}

Status ThriftCompactReader::Skip(ThriftType type) { return SkipValue(type); }

Status ThriftCompactReader::SkipValue(ThriftType type) {
  switch (type) {
    case ThriftType::kBool: {
      bool ignored;
      return ReadBool(&ignored);
    }
    case ThriftType::kByte: {
      int8_t ignored;
      return ReadI8(&ignored);
    }
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64: {
      int64_t ignored;
      return ReadI64(&ignored);
    }
    case ThriftType::kDouble: {
      double ignored;
      return ReadDouble(&ignored);
    }
    case ThriftType::kBinary: {
      std::string_view ignored;
      return ReadBinary(&ignored);
    }
    case ThriftType::kStruct: {
      WEIR_RETURN_NOT_OK(StructBegin());
      for (;;) {
        ThriftType field_type;
        int16_t id;
        WEIR_RETURN_NOT_OK(FieldBegin(&field_type, &id));
        if (field_type == ThriftType::kStop) break;
        WEIR_RETURN_NOT_OK(SkipValue(field_type));
      }
      return StructEnd();
    }
    case ThriftType::kList:
    case ThriftType::kSet: {
      ThriftType element_type;
      uint32_t size;
      WEIR_RETURN_NOT_OK(ListBegin(&element_type, &size));
      for (uint32_t i = 0; i < size; ++i) WEIR_RETURN_NOT_OK(SkipValue(element_type));
      return ListEnd();
    }
    case ThriftType::kMap: {
      ThriftType key_type, value_type;
      uint32_t size;
      WEIR_RETURN_NOT_OK(MapBegin(&key_type, &value_type, &size));
      for (uint32_t i = 0; i < size; ++i) {
        WEIR_RETURN_NOT_OK(SkipValue(key_type));
        WEIR_RETURN_NOT_OK(SkipValue(value_type));
      }
      return MapEnd();
    }
    case ThriftType::kStop:
      break;
  }
  return Status::Corruption("thrift: cannot skip a value of type " +
                            std::string(ThriftTypeName(type)) + At(pos_));
}

}  // namespace weir::parquet
