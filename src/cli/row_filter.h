// A WHERE condition for commands that read tables (`weir table scan --where`, `weir validate
// --where`): parsed with the pipeline SQL dialect, bound to the scanned schema, applied batch by
// batch with current_timestamp() fixed at construction. Not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "expr/evaluator.h"
#include "expr/projection.h"

namespace weir::cli {

class RowFilter {
 public:
  // InvalidArgument naming the position of a syntax or binding error in `where`.
  static Result<RowFilter> Make(const std::string& where, const columnar::Schema& schema);
  // The rows of `batch` for which the condition is TRUE (NULL and FALSE drop the row).
  Result<columnar::Batch> Apply(const columnar::Batch& batch);

 private:
  explicit RowFilter(expr::Filter filter) : filter_(std::move(filter)) {}
  expr::Filter filter_;
  expr::EvalContext context_;
  int64_t now_micros_ = 0;
};

// The named columns of `batch`, in that order (NotFound naming a missing one).
Result<columnar::Batch> SelectColumns(const columnar::Batch& batch, const std::vector<std::string>& names);

}  // namespace weir::cli
