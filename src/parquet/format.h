// Parquet metadata structs (the subset of parquet.thrift weir uses) and their Thrift compact
// serialization. Parse() treats its input as hostile: unknown fields are skipped, a missing
// required field or a malformed value is Status::Corruption naming the struct and field, and it
// never reads out of bounds. Enum fields keep unknown numeric values as they are (callers reject
// what they do not support). Serialize() appends bytes that parquet-mr, Arrow, parquet-rs and
// DuckDB accept. Plain value types; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace weir::parquet {

// Physical types.
enum class Type : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class FieldRepetitionType : int32_t {
  kRequired = 0,
  kOptional = 1,
  kRepeated = 2,
};

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // Hadoop-framed LZ4 (deprecated)
  kZstd = 6,
  kLz4Raw = 7,
};

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

// The TimeUnit union, by field id.
enum class TimeUnit : int16_t {
  kMillis = 1,
  kMicros = 2,
  kNanos = 3,
};

// The ColumnOrder union, by field id. Other ids (future orders) are kept as their number.
enum class ColumnOrder : int16_t {
  kTypeDefinedOrder = 1,
  kIeee754TotalOrder = 2,
  kInt96TimestampOrder = 3,
};

// The LogicalType union. `kind` is the union's field id; ids weir does not know (VARIANT, GEOMETRY,
// GEOGRAPHY, future types) are kept as their number without parameters and serialize as an empty
// struct, so readers may fall back to the physical type.
struct LogicalType {
  enum class Kind : int16_t {
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  // always null (NullType)
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
  };

  Kind kind = Kind::kString;
  int32_t scale = 0;  // kDecimal
  int32_t precision = 0;
  bool is_adjusted_to_utc = false;  // kTime, kTimestamp
  TimeUnit unit = TimeUnit::kMillis;
  int8_t bit_width = 0;  // kInteger: 8, 16, 32 or 64
  bool is_signed = true;

  static LogicalType Simple(Kind kind) { return LogicalType{.kind = kind}; }
  static LogicalType Decimal(int32_t scale, int32_t precision) {
    return {.kind = Kind::kDecimal, .scale = scale, .precision = precision};
  }
  static LogicalType Time(bool is_adjusted_to_utc, TimeUnit unit) {
    return {.kind = Kind::kTime, .is_adjusted_to_utc = is_adjusted_to_utc, .unit = unit};
  }
  static LogicalType Timestamp(bool is_adjusted_to_utc, TimeUnit unit) {
    return {.kind = Kind::kTimestamp, .is_adjusted_to_utc = is_adjusted_to_utc, .unit = unit};
  }
  static LogicalType Integer(int8_t bit_width, bool is_signed) {
    return {.kind = Kind::kInteger, .bit_width = bit_width, .is_signed = is_signed};
  }
  bool operator==(const LogicalType&) const = default;
};

// Values of min/max fields are PLAIN-encoded without the BYTE_ARRAY length prefix.
struct Statistics {
  std::optional<std::string> max;  // deprecated signed-order max/min
  std::optional<std::string> min;
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value;
  std::optional<std::string> min_value;
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;
  std::optional<int64_t> nan_count;
  bool operator==(const Statistics&) const = default;
};

struct SchemaElement {
  std::optional<Type> type;  // unset for groups
  std::optional<int32_t> type_length;
  std::optional<FieldRepetitionType> repetition_type;  // unset for the root
  std::string name;
  std::optional<int32_t> num_children;  // set for groups
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;
  bool operator==(const SchemaElement&) const = default;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const KeyValue&) const = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;
  Encoding encoding = Encoding::kPlain;
  int32_t count = 0;
  bool operator==(const PageEncodingStats&) const = default;
};

// List fields below are written only when non-empty and read as empty when absent.
struct ColumnMetaData {
  Type type = Type::kBoolean;
  std::vector<Encoding> encodings;  // required: written even when empty
  std::vector<std::string> path_in_schema;
  CompressionCodec codec = CompressionCodec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::vector<PageEncodingStats> encoding_stats;
  bool operator==(const ColumnMetaData&) const = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;  // deprecated; required on the wire, read as 0 when absent
  std::optional<ColumnMetaData> meta_data;
  bool operator==(const ColumnChunk&) const = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
  bool operator==(const RowGroup&) const = default;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;  // depth-first, root first
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  // One per leaf column when present; empty means the field is absent (min/max stats then only
  // have their deprecated signed-order meaning).
  std::vector<ColumnOrder> column_orders;
  bool operator==(const FileMetaData&) const = default;
};

struct DataPageHeader {
  int32_t num_values = 0;  // including nulls
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeader&) const = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;
  bool operator==(const DictionaryPageHeader&) const = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;  // including nulls
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;  // the wire default when absent; always written
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeaderV2&) const = default;
};

// index_page_header (field 6) is skipped when read and never written.
struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
  bool operator==(const PageHeader&) const = default;
};

// Parses one struct from the start of `bytes` into *out (reset first). *consumed (if not null)
// receives the number of bytes the struct took, e.g. the offset of the page data after a
// PageHeader. Errors are Corruption, prefixed with the struct's name.
Status Parse(std::span<const uint8_t> bytes, FileMetaData* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, PageHeader* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, SchemaElement* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, RowGroup* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, ColumnChunk* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, ColumnMetaData* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, Statistics* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, KeyValue* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, LogicalType* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, DataPageHeader* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, DictionaryPageHeader* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, DataPageHeaderV2* out, size_t* consumed = nullptr);
Status Parse(std::span<const uint8_t> bytes, PageEncodingStats* out, size_t* consumed = nullptr);

// Appends the Thrift compact encoding of the struct to *out.
void Serialize(const FileMetaData& value, std::string* out);
void Serialize(const PageHeader& value, std::string* out);
void Serialize(const SchemaElement& value, std::string* out);
void Serialize(const RowGroup& value, std::string* out);
void Serialize(const ColumnChunk& value, std::string* out);
void Serialize(const ColumnMetaData& value, std::string* out);
void Serialize(const Statistics& value, std::string* out);
void Serialize(const KeyValue& value, std::string* out);
void Serialize(const LogicalType& value, std::string* out);
void Serialize(const DataPageHeader& value, std::string* out);
void Serialize(const DictionaryPageHeader& value, std::string* out);
void Serialize(const DataPageHeaderV2& value, std::string* out);
void Serialize(const PageEncodingStats& value, std::string* out);

std::string_view TypeName(Type type);              // "INT32"; "UNKNOWN" for other values
std::string_view EncodingName(Encoding encoding);  // "PLAIN"
std::string_view CompressionCodecName(CompressionCodec codec);  // "ZSTD"

}  // namespace weir::parquet
