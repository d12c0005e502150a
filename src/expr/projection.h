// Projection (a bound SELECT list: Batch -> Batch) and Filter (a bound WHERE: Batch -> the rows
// where the condition is TRUE). Both are built once per query and evaluated on every batch:
// column references pass through without copying values (Evaluate(Batch&&) moves them), string
// bytes are never copied, constants are computed once per batch. Immutable after Make; Evaluate
// may run on several threads, each with its own EvalContext.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "expr/binder.h"
#include "expr/evaluator.h"
#include "sql/ast.h"

namespace weir::expr {

class Projection {
 public:
  // Binds `items` against `input`. Output names must be unique (case-insensitively, as Delta
  // requires): InvalidArgument at the second one otherwise.
  static Result<Projection> Make(const std::vector<sql::SelectItem>& items,
                                 const columnar::Schema& input,
                                 std::vector<std::string> qualifiers = {});
  // From already bound columns.
  static Result<Projection> Make(std::vector<NamedExpr> columns);

  const columnar::Schema& output_schema() const { return output_schema_; }
  const std::vector<NamedExpr>& columns() const { return columns_; }

  // Evaluates every output column; input columns used as is are copied (buffers, not bytes).
  Result<columnar::Batch> Evaluate(const columnar::Batch& input, EvalContext& context) const;
  // Same, taking the input: each input column used as is moves into the output (no copy).
  Result<columnar::Batch> Evaluate(columnar::Batch&& input, EvalContext& context) const;

 private:
  std::vector<NamedExpr> columns_;
  columnar::Schema output_schema_;
};

class Filter {
 public:
  // Binds `condition` (a BOOLEAN expression) against `input`.
  static Result<Filter> Make(const sql::Expr& condition, const columnar::Schema& input,
                             std::vector<std::string> qualifiers = {});
  explicit Filter(BoundExprPtr condition) : condition_(std::move(condition)) {}

  const BoundExpr& condition() const { return *condition_; }

  // Indices of the rows where the condition is TRUE (FALSE and NULL rows are left out), in order.
  Result<std::vector<int32_t>> Select(const columnar::Batch& input, EvalContext& context) const;
  // The batch holding only those rows.
  Result<columnar::Batch> Apply(const columnar::Batch& input, EvalContext& context) const;

 private:
  BoundExprPtr condition_;
};

// Row indices where a BOOLEAN column is TRUE.
std::vector<int32_t> TrueRows(const columnar::Column& predicate);

// The rows `rows` of `column` / `batch`, in that order (string bytes shared, not copied).
columnar::Column TakeRows(const columnar::Column& column, std::span<const int32_t> rows);
columnar::Batch TakeRows(const columnar::Batch& batch, std::span<const int32_t> rows);

}  // namespace weir::expr
