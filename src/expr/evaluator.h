// Vectorised evaluation of bound expressions over columnar batches: each node runs once per batch
// over whole columns (a type switch per column, tight loops inside, no per-row virtual calls or
// allocations). Column references return the input column without copying its values where the
// API allows it (EvaluateVector borrows; Evaluate copies buffers but never string bytes);
// literals stay one constant row until the caller materialises them.
//
// Bad rows are not failures: a value Spark turns into NULL (non-ANSI cast of 'abc' to INT) is a
// NULL; in ANSI mode the row is marked in EvalContext::row_errors (for quarantine routing) and
// the value is NULL. A Status error means the batch cannot be evaluated at all (internal bugs).
// An EvalContext belongs to one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "expr/bound_expr.h"

namespace weir::expr {

// Rows that failed to evaluate (or to parse), each with the first reason given for it.
class RowErrors {
 public:
  // Clears and sizes for a batch of `num_rows`.
  void Reset(int64_t num_rows);
  // Marks `row` (or every row when `row` < 0) with `message` unless it is already marked.
  void Mark(int64_t row, std::string_view message);

  int64_t count() const { return count_; }
  bool IsMarked(int64_t row) const { return count_ > 0 && reason_index_[row] != 0; }
  // The message `row` was first marked with ("" when not marked).
  std::string_view Reason(int64_t row) const {
    return IsMarked(row) ? std::string_view(reasons_[reason_index_[row] - 1]) : std::string_view();
  }
  std::string_view first_message() const {
    return reasons_.empty() ? std::string_view() : std::string_view(reasons_.front());
  }

 private:
  int64_t num_rows_ = 0;
  int64_t count_ = 0;
  // Per row: 0, or 1 + the index of its reason in reasons_ (equal consecutive reasons shared).
  std::vector<uint32_t> reason_index_;
  std::vector<std::string> reasons_;
};

// An intermediate result: a column of the batch's rows, or one constant row standing for all of
// them. It either borrows a column (an input column or a literal, which must outlive it) or owns
// one.
class Vector {
 public:
  static Vector Borrow(const columnar::Column* column, bool constant) {
    Vector v;
    v.borrowed_ = column;
    v.constant_ = constant;
    return v;
  }
  static Vector Own(columnar::Column column, bool constant) {
    Vector v;
    v.owned_.emplace(std::move(column));
    v.constant_ = constant;
    return v;
  }

  const columnar::Column& column() const { return borrowed_ ? *borrowed_ : *owned_; }
  bool constant() const { return constant_; }
  // Row of column() holding the value of batch row `row`.
  int64_t Row(int64_t row) const { return constant_ ? 0 : row; }
  bool IsNull(int64_t row) const { return column().IsNull(Row(row)); }

  // A column of `num_rows` rows: moves an owned column, copies a borrowed one (sharing its string
  // bytes) and repeats a constant.
  columnar::Column Materialize(int64_t num_rows) &&;

 private:
  Vector() = default;
  const columnar::Column* borrowed_ = nullptr;
  std::optional<columnar::Column> owned_;
  bool constant_ = false;
};

// spark.sql.mapKeyDedupPolicy: what a map-building function (map, map_from_arrays,
// map_from_entries, str_to_map, map_concat) does with a repeated key. kException (Spark's
// default) marks the row with Spark's DUPLICATED_MAP_KEY error, which stops the query unless the
// flow quarantines such rows; kLastWin keeps the key where it first appeared with the value it
// was given last.
enum class MapKeyDedupPolicy : uint8_t { kException, kLastWin };

// The Spark settings evaluation follows, from a pipeline's settings (SET / --set): unknown keys
// are ignored; spark.sql.ansi.enabled is true when "true" (any case); spark.sql.mapKeyDedupPolicy
// is LAST_WIN (any case) or EXCEPTION (sql::ParsePipeline refuses other values).
struct EvalSettings {
  bool ansi = false;
  MapKeyDedupPolicy map_key_dedup_policy = MapKeyDedupPolicy::kException;

  static EvalSettings FromConf(const std::map<std::string, std::string>& settings);
};

struct EvalContext {
  // current_timestamp() for the whole batch (Spark fixes it per micro-batch): microseconds UTC.
  int64_t current_timestamp_micros = 0;
  // spark.sql.ansi.enabled: invalid casts mark the row in row_errors instead of silently
  // becoming NULL.
  bool ansi = false;
  // spark.sql.mapKeyDedupPolicy.
  MapKeyDedupPolicy map_key_dedup_policy = MapKeyDedupPolicy::kException;
  RowErrors row_errors;
  // Rows whose input did not parse (from_json on malformed JSON, which still yields Spark's
  // PERMISSIVE result): a flow with a quarantine table routes them there with the reason;
  // otherwise they are kept as Spark keeps them.
  RowErrors malformed;
  // Results of shared subexpressions (BoundExpr::shared) for the batch being evaluated, by node
  // and batch; Projection::Evaluate and Filter::Select clear it before and after.
  std::map<std::pair<const BoundExpr*, const columnar::Batch*>, Vector> shared_results;

  void Apply(const EvalSettings& settings) {
    ansi = settings.ansi;
    map_key_dedup_policy = settings.map_key_dedup_policy;
  }

  // Prepares for a batch: sizes row_errors and sets the batch timestamp.
  void StartBatch(int64_t num_rows, int64_t batch_timestamp_micros) {
    row_errors.Reset(num_rows);
    malformed.Reset(num_rows);
    shared_results.clear();
    current_timestamp_micros = batch_timestamp_micros;
  }
};

// Evaluates `expr` over `batch`; the result may borrow from `batch` and from `expr`, which must
// outlive it.
Result<Vector> EvaluateVector(const BoundExpr& expr, const columnar::Batch& batch,
                              EvalContext& context);

// Evaluates `expr` over `batch` into a column of batch.num_rows() values.
Result<columnar::Column> Evaluate(const BoundExpr& expr, const columnar::Batch& batch,
                                  EvalContext& context);

// A column of `num_rows` copies of row `row` of `column`.
columnar::Column Broadcast(const columnar::Column& column, int64_t row, int64_t num_rows);

}  // namespace weir::expr
