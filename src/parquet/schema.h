// Parquet schema <-> columnar schema, with the level tree and per-leaf physical descriptions.
//
// Reading accepts the layouts other engines write: 3-level LIST/MAP groups, the legacy 2-level and
// unannotated repeated fields (LogicalTypes.md backward-compatibility rules), converted types and
// logical types, INT96 timestamps, unsigned integers (widened as Spark does: UINT32 -> BIGINT,
// UINT64 -> DECIMAL(20,0)), decimals in INT32/INT64/BYTE_ARRAY/FIXED_LEN_BYTE_ARRAY. Writing uses
// the standard layout. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/types.h"
#include "parquet/format.h"
#include "parquet/levels.h"

namespace weir::parquet {

// How a leaf's physical values become columnar values.
enum class Conversion {
  kNone,              // same representation (bool, int32, int64, float, double, strings, date, ...)
  kInt32ToInt8,
  kInt32ToInt16,
  kUint32ToInt64,     // INT32 holding UINT_32 (also UINT_8/16 widened to int16/int32 via kNone+mask)
  kUint8ToInt16,
  kUint16ToInt32,
  kUint64ToDecimal,   // INT64 holding UINT_64 -> DECIMAL(20,0)
  kInt32ToDecimal,
  kInt64ToDecimal,
  kBytesToDecimal,    // big-endian two's complement, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY
  kMillisToMicros,    // INT64 timestamp in milliseconds
  kNanosToMicros,     // INT64 timestamp in nanoseconds
  kInt96ToMicros,     // Impala/Spark INT96 timestamp
  kFloat16ToFloat,
  kUuidToString,
};

struct LeafDescriptor {
  std::vector<std::string> path;  // path_in_schema
  Type physical_type = Type::kInt32;
  int32_t type_length = 0;        // FIXED_LEN_BYTE_ARRAY width
  columnar::TypePtr type;         // columnar type of the values
  Conversion conversion = Conversion::kNone;
  int16_t max_def = 0;
  int16_t max_rep = 0;
  // Non-empty for a leaf of a type weir does not read (TIME, INTERVAL, DECIMAL wider than 38
  // digits): its Parquet type, e.g. "INT64 TIME(MICROS, isAdjustedToUTC=false)". `type` is then
  // the columnar type of the physical values (for display only: the leaf is never decoded).
  std::string unsupported_type;
};

// A top-level field holding a leaf weir does not read. It is not in FileSchema::schema or
// ::fields, so the file's other columns can be read; asking for it fails with `message`.
struct UnreadableField {
  std::string name;
  std::string message;  // names the column, its Parquet type and what the reader can do
};

struct FileSchema {
  columnar::Schema schema;        // the fields weir reads
  std::vector<LevelNode> fields;  // one per field of `schema`, in schema order
  std::vector<LeafDescriptor> leaves;  // every leaf of the file, in column chunk order
  std::vector<UnreadableField> unreadable;  // in file order
};

// Reads a file's schema elements (depth-first, root first). A field whose subtree holds a type
// weir does not read (TIME, INTERVAL, DECIMAL wider than 38 digits) goes to `unreadable`;
// Corruption for malformed trees, NotImplemented for layouts weir does not read (a map without
// key and value fields, an empty group).
Result<FileSchema> SchemaFromParquet(const std::vector<SchemaElement>& elements);

// The schema elements weir writes for a columnar schema (root named "schema" first).
std::vector<SchemaElement> SchemaToParquet(const columnar::Schema& schema);

// Bytes of a FIXED_LEN_BYTE_ARRAY holding a decimal of this precision (two's complement).
int32_t DecimalByteWidth(int precision);

}  // namespace weir::parquet
