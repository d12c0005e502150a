// Logical types and schemas: Spark SQL / Delta types as weir models them.
// Types are immutable and shared (TypePtr). A struct's children are its fields; a list has one child
// named "element" (nullable = containsNull); a map has "key" (never null) and "value" (nullable =
// valueContainsNull). Conversions: Spark DDL strings (`a STRING, b DECIMAL(18,2)`) and Delta's
// schemaString JSON. Thread-safe once built.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace weir::columnar {

enum class TypeId : uint8_t {
  kBoolean,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat,
  kDouble,
  kDecimal,       // 128-bit unscaled value, precision <= 38
  kString,        // UTF-8
  kBinary,
  kDate,          // days since 1970-01-01, int32
  kTimestamp,     // microseconds since the epoch, UTC (Spark TIMESTAMP)
  kTimestampNtz,  // microseconds, no time zone (Spark TIMESTAMP_NTZ)
  kStruct,
  kList,
  kMap,
};

class DataType;
using TypePtr = std::shared_ptr<const DataType>;

struct Field {
  std::string name;
  TypePtr type;
  bool nullable = true;
  // Field metadata as a JSON object text (Delta's "metadata"); "{}" when none.
  std::string metadata = "{}";
};

class DataType {
 public:
  static TypePtr Boolean();
  static TypePtr Int8();
  static TypePtr Int16();
  static TypePtr Int32();
  static TypePtr Int64();
  static TypePtr Float();
  static TypePtr Double();
  static TypePtr String();
  static TypePtr Binary();
  static TypePtr Date();
  static TypePtr Timestamp();
  static TypePtr TimestampNtz();
  // REQUIRES: 1 <= precision <= 38, 0 <= scale <= precision (checked by the parsers).
  static TypePtr Decimal(int precision, int scale);
  static TypePtr Struct(std::vector<Field> fields);
  static TypePtr List(TypePtr element, bool contains_null = true);
  static TypePtr Map(TypePtr key, TypePtr value, bool value_contains_null = true);

  TypeId id() const { return id_; }
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  const std::vector<Field>& children() const { return children_; }
  // List element / map key and value. REQUIRES: the matching id().
  const Field& element() const { return children_[0]; }
  const Field& key() const { return children_[0]; }
  const Field& value() const { return children_[1]; }

  bool is_nested() const { return id_ == TypeId::kStruct || id_ == TypeId::kList || id_ == TypeId::kMap; }
  bool is_binary_like() const { return id_ == TypeId::kString || id_ == TypeId::kBinary; }
  // Bytes per value in a column's fixed-width buffer; 0 for strings and nested types.
  int byte_width() const;

  // Spark DDL form: "BIGINT", "DECIMAL(18,2)", "ARRAY<STRING>", "STRUCT<a: INT, b: STRING>".
  std::string ToDdl() const;
  // Delta / Spark JSON simple name: "long", "decimal(18,2)"; "struct"/"array"/"map" for nested.
  std::string ToDeltaName() const;

  bool Equals(const DataType& other) const;
  // Equal but for the nullability of nested fields (struct fields, list elements, map values).
  bool EqualsIgnoringNullability(const DataType& other) const;

 private:
  explicit DataType(TypeId id) : id_(id) {}
  TypeId id_;
  int precision_ = 0;
  int scale_ = 0;
  std::vector<Field> children_;
};

struct Schema {
  std::vector<Field> fields;

  int num_fields() const { return static_cast<int>(fields.size()); }
  // Index of the field with this name (case-insensitive, as Spark resolves), or -1.
  int FieldIndex(std::string_view name) const;
  bool Equals(const Schema& other) const;
  // "event_id STRING, amount DECIMAL(18,2)" (NOT NULL where a field is not nullable).
  std::string ToDdl() const;
};

// Parses a Spark DDL column list, e.g. "event_id STRING, amount DECIMAL(18,2) NOT NULL,
// tags ARRAY<STRING>, m MAP<STRING, INT>, s STRUCT<a: INT, b STRING>". Names may be `quoted`.
// Accepts Spark's aliases (BIGINT/LONG, INT/INTEGER, SMALLINT/SHORT, TINYINT/BYTE, REAL/FLOAT,
// DEC/NUMERIC, VARCHAR(n)/CHAR(n) as STRING) and COMMENT 'text'. InvalidArgument with the position.
Result<Schema> ParseDdlSchema(std::string_view ddl);
// Parses one DDL type, e.g. "DECIMAL(18,2)" or "ARRAY<STRUCT<a: INT>>".
Result<TypePtr> ParseDdlType(std::string_view ddl);

// Delta schemaString: {"type":"struct","fields":[{"name":..,"type":..,"nullable":..,"metadata":{}}]}.
std::string SchemaToDeltaJson(const Schema& schema);
Result<Schema> SchemaFromDeltaJson(std::string_view json);

}  // namespace weir::columnar
