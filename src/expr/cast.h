// CAST between weir's types with Spark's non-ANSI semantics (Cast.scala): a value that cannot be
// converted becomes NULL (in ANSI mode unparseable strings also mark the row in
// EvalContext::row_errors); integral narrowing wraps; float to integral saturates (NaN -> 0);
// decimals round HALF_UP and overflow to NULL; strings are trimmed and read as expr/spark_text.h
// describes; values print as CAST(x AS STRING) prints them. BINARY <-> STRING shares the bytes
// (no copy). Vectorised: one type dispatch per column. Thread-safe.
#pragma once

#include "base/result.h"
#include "columnar/column.h"
#include "columnar/types.h"
#include "expr/evaluator.h"

namespace weir::expr {

// Whether CAST(from AS to) is allowed at all (Spark's Cast.canCast, non-ANSI).
bool CanCast(const columnar::DataType& from, const columnar::DataType& to);

// Casts `input` (num_rows rows, or one constant row) to `to`. REQUIRES: CanCast(input type, to).
// `try_cast` never marks row errors.
Result<Vector> CastVector(Vector input, const columnar::TypePtr& to, int64_t num_rows,
                          EvalContext& context, bool try_cast = false);

// Casts a whole column.
Result<columnar::Column> CastColumn(const columnar::Column& input, const columnar::TypePtr& to,
                                    EvalContext& context);

// Appends row `row` of `column` as CAST(value AS STRING) prints it (NULL rows print "null", as
// inside Spark's struct and array text). Also used for test output.
void AppendCastString(const columnar::Column& column, int64_t row, std::string* out);

}  // namespace weir::expr
