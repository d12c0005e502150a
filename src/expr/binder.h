// Binds parsed expressions (sql/ast.h) to an input schema: resolves column references
// case-insensitively (as Spark does), including struct fields `a.b` and a leading table
// qualifier, expands `*` and `e.*`, checks argument types and inserts Spark's implicit casts
// (expr/type_rules.h), and types every node. Errors are InvalidArgument "line L, column C: ..."
// (NotImplemented for valid Spark SQL that weir does not evaluate yet, e.g. LIKE, JSON paths).
// A Binder borrows the schema, which must outlive it; Bind is const and thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/types.h"
#include "expr/bound_expr.h"
#include "sql/ast.h"

namespace weir::expr {

// One output column of a select list.
struct NamedExpr {
  std::string name;
  BoundExprPtr expr;
  sql::Location location;
};

class Binder {
 public:
  // `qualifiers`: names that may prefix a column, e.g. the FROM table's name and alias.
  explicit Binder(const columnar::Schema& input, std::vector<std::string> qualifiers = {});

  Result<BoundExprPtr> Bind(const sql::Expr& expr) const;

  // Binds a select list: `*` and `e.*` expand to one item per column or field; names come from
  // aliases, else Spark's defaults (sql::DefaultColumnName).
  Result<std::vector<NamedExpr>> BindSelectList(const std::vector<sql::SelectItem>& items) const;

  // Binds a predicate (WHERE, an expectation): it must be BOOLEAN (or a NULL literal).
  Result<BoundExprPtr> BindPredicate(const sql::Expr& expr) const;

 private:
  const columnar::Schema& input_;
  std::vector<std::string> qualifiers_;
};

}  // namespace weir::expr
