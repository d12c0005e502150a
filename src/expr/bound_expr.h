// A bound expression: an sql::Expr resolved against an input schema and typed, ready for
// column-at-a-time evaluation (expr/evaluator.h). Binding (expr/binder.h) has already inserted
// every implicit cast, so each function's kernel sees the argument types it declared. Trees are
// immutable after binding and may be evaluated from several threads at once (each with its own
// EvalContext).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "columnar/types.h"
#include "sql/lexer.h"

namespace weir::expr {

struct Function;
struct BoundExpr;
using BoundExprPtr = std::shared_ptr<const BoundExpr>;

struct BoundExpr {
  enum class Kind : uint8_t {
    kColumn,   // input column `index` (zero-copy)
    kField,    // field `index` of the struct children[0]
    kLiteral,  // `literal`, one row standing for every row
    kCast,     // children[0] cast to `type`
    kCall,     // `function` applied to children
    // A lambda argument of a higher-order function (transform, filter, ...): children[0] is the
    // body, bound against the lambda's own columns: its `index` parameters first, then one
    // column per captured outer expression; children[1..] are those captured expressions,
    // bound against the enclosing input. Evaluating a lambda yields its closure: a STRUCT of
    // the captured values (zero fields, constant, when nothing is captured); the higher-order
    // function's kernel then evaluates the body over the flattened elements.
    kLambda,
  };
  Kind kind = Kind::kLiteral;
  columnar::TypePtr type;
  bool nullable = true;
  int index = -1;
  std::shared_ptr<const columnar::Column> literal;  // kLiteral: a Column of one value
  const Function* function = nullptr;               // kCall
  bool try_cast = false;                            // kCast: TRY_CAST never raises in ANSI mode
  std::vector<BoundExprPtr> children;
  sql::Location location;  // where the expression starts in the SQL text
  std::string sql;         // the expression as SQL, for messages
  // Referenced more than once in a projection (Projection::Make shares equal subtrees, e.g. the
  // from_json(...) under five field accesses): evaluated once per batch (EvalContext caches it).
  bool shared = false;

  // True for a literal NULL (typed or not).
  bool IsNullLiteral() const { return kind == Kind::kLiteral && literal->IsNull(0); }
};

}  // namespace weir::expr
