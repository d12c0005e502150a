// The function registry: every scalar function and operator the binder can call. A Function has
// a type rule (checks the arguments, inserts Spark's implicit casts, returns the result type)
// and a vectorised kernel (whole columns in, one column out). Operators are registered under
// names a user cannot call ("+", "=", "AND", "IS NULL", ...); SQL functions under their
// lower-case Spark names. Add a function by adding an entry in functions.cc. The registry is
// immutable and thread-safe.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "expr/bound_expr.h"
#include "expr/evaluator.h"

namespace weir::expr {

// What a kernel gets: the call node (result type, argument types), the evaluated arguments, and
// how many rows to produce (1 when every argument is constant; the result is then constant).
struct KernelInput {
  const BoundExpr& call;
  std::span<Vector> args;
  int64_t num_rows;
  EvalContext& context;
};

// Type rule: may replace arguments (e.g. wrap them in casts, see CastTo). Errors are
// InvalidArgument naming the function and the offending type; the binder adds the location.
using TypeRule = Result<columnar::TypePtr> (*)(std::vector<BoundExprPtr>& args);
using Kernel = Result<Vector> (*)(const KernelInput& input);

struct Function {
  std::string_view name;
  int min_args = 0;
  int max_args = 0;  // -1: any number
  TypeRule type_rule = nullptr;
  Kernel kernel = nullptr;
  // Whether the result may be NULL for non-NULL arguments (beyond argument nulls).
  bool introduces_nulls = false;
  // Zero-argument functions whose value is fixed per batch (current_timestamp): evaluated once.
  bool constant_per_batch = false;
};

// The registry's tables, one per kernel file: operators and the basic functions (functions.cc),
// string, regex and hash functions (string_functions.cc), dates and times
// (datetime_functions.cc), JSON (json_functions.cc), arrays, maps and lambdas
// (collection_functions.cc).
std::span<const Function> CoreFunctions();
std::span<const Function> StringFunctions();
std::span<const Function> DatetimeFunctions();
std::span<const Function> JsonFunctions();
std::span<const Function> CollectionFunctions();

// The function with this (lower-case, or operator) name, or nullptr.
const Function* FindFunction(std::string_view name);

// `arg` cast to `type` (Spark's implicit cast): returns `arg` itself when it already has the
// type; a NULL literal becomes a NULL literal of `type`. InvalidArgument when not castable.
Result<BoundExprPtr> CastTo(BoundExprPtr arg, const columnar::TypePtr& type);

// A literal of one value: a column of one row (type and value as given).
BoundExprPtr MakeLiteral(columnar::Column value, std::string sql);

}  // namespace weir::expr
