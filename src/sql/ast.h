// The syntax tree of weir's pipeline SQL, as the parser produces it: statements (CREATE STREAMING
// TABLE, SET, USE, a bare SELECT) and expressions. Nothing here is resolved or typed except CAST
// targets (columnar types); expr/binder.h binds expressions against a schema. Names keep the case
// the user wrote; function names are lower-cased. Every node records where it starts so later
// errors can point at it. Trees are move-only (unique_ptr children) and immutable once parsed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "columnar/column.h"
#include "columnar/types.h"
#include "sql/lexer.h"

namespace weir::sql {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// A calendar interval like Spark's CalendarInterval: months, days and microseconds kept apart.
struct Interval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;

  // Length assuming 30-day months and 24-hour days; what a watermark delay uses.
  int64_t ApproximateMicros() const;
  bool operator==(const Interval&) const = default;
};

// ---------------------------------------------------------------- expressions

// A column, possibly dotted: `a`, `e.event_id`, `t.e.event_id` (the binder decides which parts
// are a qualifier, a column and struct fields).
struct ColumnRef {
  std::vector<std::string> parts;
};

// A select-list star: `*`, `q.*` (q a table name or alias, else a STRUCT column or field: Spark
// tries the table first), or `expr.*` for any STRUCT-valued expression (`from_json(...).*`; weir
// accepts it, Spark's parser does not). Each may end in Databricks' `EXCEPT (name, ...)`: columns
// (`a`, `t.a`) or fields (`s.x`) left out.
struct Star {
  std::vector<std::string> qualifier;              // `q.*`; empty for `*` and `expr.*`
  ExprPtr operand;                                 // `expr.*`; null otherwise
  std::vector<std::vector<std::string>> except;    // EXCEPT (...): each name's parts as written
};

struct Literal {
  enum class Kind : uint8_t {
    kNull,
    kBoolean,    // boolean_value
    kInteger,    // integer_value; type INT, BIGINT, SMALLINT or TINYINT (Spark's literal typing)
    kDecimal,    // decimal_unscaled at type's precision/scale ("1.50" -> DECIMAL(3,2))
    kDouble,     // double_value; type DOUBLE or FLOAT ("1e3", "1.5D", "2F")
    kString,     // text
    kBinary,     // text holds the bytes (X'..')
    kDate,       // text as written: DATE '2026-06-08' (validated by the binder)
    kTimestamp,  // text: TIMESTAMP '...' / TIMESTAMP_LTZ '...'
    kTimestampNtz,  // text: TIMESTAMP_NTZ '...'
    kInterval,   // interval
  };
  Kind kind = Kind::kNull;
  columnar::TypePtr type;  // numeric kinds only
  bool boolean_value = false;
  int64_t integer_value = 0;
  columnar::Int128 decimal_unscaled = 0;
  double double_value = 0;
  std::string text;  // strings, binary, typed literals; for numbers the digits as written
  Interval interval;
};

enum class UnaryOp : uint8_t { kNegate, kPlus, kNot, kBitNot };

enum class BinaryOp : uint8_t {
  kOr,
  kAnd,
  kEqual,           // = and ==
  kNullSafeEqual,   // <=>
  kNotEqual,        // <> and !=
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kModulo,
  kIntegerDivide,   // DIV
  kConcat,          // ||
  kBitAnd,
  kBitOr,
  kBitXor,
};

struct Unary {
  UnaryOp op;
  ExprPtr operand;
};

struct Binary {
  BinaryOp op;
  ExprPtr left;
  ExprPtr right;
};

// name(args) with positional and named (`name => value`) arguments, `count(*)` (star = true) and
// `count(DISTINCT x)`.
struct FunctionCall {
  std::string name;  // lower-cased; dotted names joined with '.'
  std::vector<ExprPtr> args;
  std::vector<std::string> arg_names;  // parallel to args; "" for a positional argument
  bool distinct = false;
  bool star = false;
};

// CAST(x AS type), TRY_CAST(x AS type) and x::type.
struct Cast {
  ExprPtr operand;
  columnar::TypePtr type;
  bool try_cast = false;
};

// CASE [operand] WHEN w THEN t ... [ELSE e] END.
struct Case {
  ExprPtr operand;  // null for a searched CASE
  std::vector<ExprPtr> whens;
  std::vector<ExprPtr> thens;
  ExprPtr else_result;  // null when absent
};

struct InList {
  ExprPtr operand;
  std::vector<ExprPtr> list;
  bool negated = false;
};

struct Between {
  ExprPtr operand;
  ExprPtr low;
  ExprPtr high;
  bool negated = false;
};

// IS [NOT] NULL, IS [NOT] TRUE, IS [NOT] FALSE, IS [NOT] DISTINCT FROM x.
struct IsPredicate {
  enum class Kind : uint8_t { kNull, kTrue, kFalse, kDistinctFrom };
  Kind kind = Kind::kNull;
  ExprPtr operand;
  ExprPtr other;  // kDistinctFrom only
  bool negated = false;
};

// [NOT] LIKE / ILIKE pattern [ESCAPE 'c'], [NOT] RLIKE / REGEXP pattern.
struct Like {
  enum class Kind : uint8_t { kLike, kILike, kRLike };
  Kind kind = Kind::kLike;
  ExprPtr operand;
  ExprPtr pattern;
  std::string escape = "\\";
  bool negated = false;
};

// expr.field where expr is not a plain column reference, e.g. from_json(...).event_id.
struct FieldAccess {
  ExprPtr operand;
  std::string field;
};

// expr[index]: array element (0-based, like Spark) or map value.
struct Subscript {
  ExprPtr operand;
  ExprPtr index;
};

// Databricks JSON path extraction `raw:event_id`, `raw:a.b[0]`, `raw:['key']`: the result is a
// STRING (or NULL). `path` is normalised to "$.a.b[0]" / "$['key']".
struct JsonPath {
  ExprPtr operand;
  std::string path;
};

// x -> body or (x, y) -> body, as an argument of higher-order functions.
struct Lambda {
  std::vector<std::string> params;
  ExprPtr body;
};

struct Expr {
  Location location;
  std::variant<ColumnRef, Star, Literal, Unary, Binary, FunctionCall, Cast, Case, InList, Between,
               IsPredicate, Like, FieldAccess, Subscript, JsonPath, Lambda>
      node;

  template <typename T>
  const T* As() const {
    return std::get_if<T>(&node);
  }
  template <typename T>
  bool Is() const {
    return std::holds_alternative<T>(node);
  }
};

// The expression as SQL text, in Spark's canonical style: identifiers quoted only when needed,
// keywords upper-case, binary operators parenthesised: "CAST(key AS STRING)", "(a + 1)". Used for
// generated column names and in messages. Deterministic; re-parses to an equal tree.
std::string ToSql(const Expr& expr);

// Spark's name for an unaliased select item: a column's last name part ("e.event_id" ->
// "event_id"), otherwise ToSql(expr).
std::string DefaultColumnName(const Expr& expr);

// A deep copy.
ExprPtr Clone(const Expr& expr);

// Calls `visit` on each direct child of `expr`, in source order.
void ForEachChild(const Expr& expr, const std::function<void(const Expr&)>& visit);

// ---------------------------------------------------------------- queries

// A possibly qualified name as written: `orders`, `bronze.orders`, `sales.bronze.orders`.
struct QualifiedName {
  std::vector<std::string> parts;
  Location location;

  // Parts joined with '.', each quoted when needed.
  std::string ToString() const;
};

struct NamedArgument {
  std::string name;  // dotted names joined with '.'; `backquoted` names as written inside
  ExprPtr value;
  Location location;
};

// `WATERMARK expr [AS name] DELAY OF INTERVAL ...` on a FROM item (Databricks SQL).
struct Watermark {
  ExprPtr event_time;
  std::string column_name;  // AS name, or the column's name for a plain column reference
  Interval delay;
  std::string delay_text;   // the interval as SQL, for messages: "INTERVAL 30 MINUTES"
  Location location;
};

// weir's `DROP DUPLICATES [WITHIN WATERMARK] (col, ...)`: Spark's dropDuplicates(cols) /
// dropDuplicatesWithinWatermark(cols) over the query's output columns.
struct Deduplication {
  std::vector<std::string> columns;
  bool within_watermark = false;
  Location location;
};

struct Query;

// The FROM item of a query.
struct FromClause {
  enum class Kind : uint8_t {
    kReadKafka,  // [STREAM] read_kafka(name => value, ...)
    kTable,      // STREAM(name) / STREAM name / name
    kSubquery,   // (SELECT ...): a nested query whose innermost FROM is the stream
  };
  Kind kind = Kind::kTable;
  bool streaming = false;  // STREAM keyword present
  std::vector<NamedArgument> kafka_arguments;  // kReadKafka
  QualifiedName table;                         // kTable
  // kTable: `WITH (key = value, ...)` after the table, Databricks' options clause: the reader
  // options of Delta's streaming source (maxFilesPerTrigger, startingVersion, ...).
  std::map<std::string, std::string> table_options;
  std::shared_ptr<const Query> subquery;       // kSubquery
  std::optional<Watermark> watermark;
  std::string alias;  // [AS] alias, "" when absent
  Location location;
};

struct SelectItem {
  ExprPtr expr;       // a Star node for * and e.*
  std::string alias;  // "" when the item has no alias
  Location location;
};

struct Query {
  std::vector<SelectItem> select_list;
  std::optional<FromClause> from;  // absent for SELECT without FROM
  ExprPtr where;                   // null when absent
  // weir's extensions, after WHERE (docs/sql-extensions.md):
  std::optional<Deduplication> drop_duplicates;  // DROP DUPLICATES [WITHIN WATERMARK] (cols)
  std::optional<QualifiedName> quarantine_table;  // QUARANTINE INTO name
  Location location;
};

// The FROM item that reads the stream: the query's own, or that of its innermost subquery
// (SELECT ... FROM (SELECT ... FROM STREAM(t))). Null when the innermost query has no FROM.
const FromClause* SourceFrom(const Query& query);

// ---------------------------------------------------------------- statements

enum class ViolationAction : uint8_t {
  kWarn,        // default: keep the row, count it
  kDropRow,     // ON VIOLATION DROP ROW
  kFailUpdate,  // ON VIOLATION FAIL UPDATE
  kQuarantine,  // ON VIOLATION QUARANTINE (weir): the row goes to the quarantine table
};

std::string_view ViolationActionName(ViolationAction action);

// CONSTRAINT name EXPECT (condition) [ON VIOLATION DROP ROW | FAIL UPDATE].
struct Expectation {
  std::string name;
  ExprPtr condition;
  ViolationAction action = ViolationAction::kWarn;
  Location location;
};

// CREATE [OR REFRESH] STREAMING [LIVE] TABLE name [(columns and constraints)]
//   [PARTITIONED BY (cols)] [COMMENT '...'] [TBLPROPERTIES ('k' = 'v', ...)]
//   [MERGE ON (keys) [AND target_condition] [WHEN MATCHED THEN UPDATE SET *]] AS query
// MERGE ON (keys) [WHEN MATCHED THEN UPDATE SET *]: the flow upserts each micro-batch into its
// table on the key columns (Delta MERGE, as Spark's foreachBatch + MERGE) instead of appending.
// `MERGE ON (keys) AND <condition>`: the condition is over the target's columns (t.col, as in a
// MERGE INTO ... ON clause): target rows outside it never match, and target files that cannot
// hold such rows are not read — the time predicate that keeps a MERGE from scanning all of bronze.
struct MergeClause {
  std::vector<std::string> keys;
  bool when_matched_update = false;  // else matched rows are dropped (insert-only dedup)
  ExprPtr target_condition;          // null when absent
};

struct CreateStreamingTable {
  QualifiedName name;
  std::vector<columnar::Field> columns;  // declared columns, empty when none were given
  std::vector<Expectation> expectations;
  std::vector<std::string> partition_by;
  std::string comment;
  std::map<std::string, std::string> table_properties;
  std::optional<MergeClause> merge;
  Query query;
  Location location;
};

// SET key = value. The value is the raw text up to the end of the statement, trimmed, with one
// pair of surrounding quotes removed.
struct SetStatement {
  std::string key;
  std::string value;
  Location location;
};

// USE CATALOG c | USE SCHEMA [c.]s | USE [c.]s.
struct UseStatement {
  enum class Kind : uint8_t { kCatalog, kSchema };
  Kind kind = Kind::kSchema;
  QualifiedName name;
  Location location;
};

// A bare SELECT (logic tests, ad-hoc evaluation). Not allowed in pipeline files.
struct SelectStatement {
  Query query;
  Location location;
};

// ALTER TABLE name SET TBLPROPERTIES ('k' = 'v', ...) | UNSET TBLPROPERTIES [IF EXISTS] ('k', ...)
// (Spark / Databricks SQL).
struct AlterTableStatement {
  QualifiedName name;
  std::map<std::string, std::string> set;
  std::vector<std::string> unset;
  bool if_exists = false;
  Location location;
};

using Statement = std::variant<CreateStreamingTable, SetStatement, UseStatement, SelectStatement,
                               AlterTableStatement>;

}  // namespace weir::sql
