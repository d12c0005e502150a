// Avro schemas (the JSON of a container file's avro.schema) and their Spark SQL types.
//
// ParseSchema() reads the schema JSON as Apache Avro's Java parser does: primitive names, named
// types (record, enum, fixed) with namespaces and references by full or short name, arrays, maps,
// unions, and the logical types Avro registers (a logical type on the wrong base type, or an
// invalid decimal, is ignored and the base type stays, as Avro's Java library does).
//
// ToSparkType() is spark-avro's SchemaConverters.toSqlType (Spark 4):
//   boolean BOOLEAN, int INT, long BIGINT, float FLOAT, double DOUBLE, string STRING,
//   bytes/fixed BINARY, enum STRING, record STRUCT (field nullability from the field's type),
//   array ARRAY (containsNull from the items), map MAP<STRING, V> (valueContainsNull from the
//   values), date DATE, time-millis INT, time-micros BIGINT, timestamp-millis/micros TIMESTAMP,
//   local-timestamp-millis/micros TIMESTAMP_NTZ, decimal (bytes or fixed) DECIMAL(p,s), uuid
//   STRING; a union with null is its other branches, nullable: ["null", T] is a nullable T; [int,
//   long] is BIGINT, [float, double] is DOUBLE, a one-branch union is its branch, and any other
//   union is STRUCT<member0, member1, ...> (the non-null branches in order, every member nullable,
//   exactly one set per row).
// Refused (NotImplemented, naming the field): null outside a union (Spark's NullType; Delta
// stores no such column), a union of null alone, recursive records, decimal precision over 38,
// Spark's interval annotation (spark.sql.catalyst.type), nesting deeper than kMaxNesting, records
// with no fields, and array items or top-level records that can be encoded in zero bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "columnar/types.h"

namespace weir::avro {

enum class Type : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

enum class LogicalType : uint8_t {
  kNone,
  kDate,                  // int
  kTimeMillis,            // int
  kTimeMicros,            // long
  kTimestampMillis,       // long
  kTimestampMicros,       // long
  kLocalTimestampMillis,  // long
  kLocalTimestampMicros,  // long
  kDecimal,               // bytes or fixed
  kUuid,                  // string
};

// "null", "record", ...
std::string_view TypeName(Type type);

// One node of a parsed schema. Named types referenced several times are one node (a reference to
// a record being defined makes a cycle: recursive records, which ToSparkType() refuses).
struct Node {
  Type type = Type::kNull;
  LogicalType logical = LogicalType::kNone;
  std::string name;                      // full name of a record, enum or fixed
  int precision = 0, scale = 0;          // decimal
  int64_t fixed_size = 0;                // fixed
  bool spark_catalyst_type = false;      // carries Spark's "spark.sql.catalyst.type" property
  std::vector<std::string> symbols;      // enum
  std::vector<std::string> field_names;  // record
  // record: the fields' types; array: {items}; map: {values}; union: the branches.
  std::vector<const Node*> children;

  // ---- Derived by ParseSchema() for the decoder.
  // A union mapped to STRUCT<member0, ...>: member index of each branch (-1 for null).
  bool union_as_struct = false;
  std::vector<int> union_member;
  // Fewest bytes one value takes in Avro's binary encoding.
  int64_t min_size = 0;
};

// Deepest nesting of records, arrays, maps and unions accepted (schemas and the JSON around
// them); deeper ones are refused rather than risking the stack.
inline constexpr int kMaxNesting = 64;

class Schema {
 public:
  Schema() = default;
  Schema(Schema&&) = default;
  Schema& operator=(Schema&&) = default;

  const Node& root() const { return *root_; }
  // The schema's JSON as given.
  const std::string& json() const { return json_; }

 private:
  friend Result<Schema> ParseSchema(std::string_view json);
  friend class SchemaParser;
  std::vector<std::unique_ptr<Node>> nodes_;
  const Node* root_ = nullptr;
  std::string json_;
};

// Corruption for JSON that is not an Avro schema (saying what and where).
Result<Schema> ParseSchema(std::string_view json);

// The Spark type of a schema node and whether values may be null (spark-avro's SchemaType).
struct SparkType {
  columnar::TypePtr type;
  bool nullable = false;
};

// Maps `node` to Spark's type. `path` names the value in messages ("avro field a.b.element: ...";
// empty for the top level).
Result<SparkType> ToSparkType(const Node& node, const std::string& path);

// The table schema of a file whose schema is `schema`: its top-level record's fields.
// NotImplemented when the top level is not a record (Spark: "Avro schema cannot be converted to a
// Spark SQL StructType").
Result<columnar::Schema> ToSparkSchema(const Schema& schema);

}  // namespace weir::avro
