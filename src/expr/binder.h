// Binds parsed expressions (sql/ast.h) to an input schema: resolves column references
// case-insensitively (as Spark does), including struct fields `a.b` and a leading table
// qualifier, expands `*`, `e.*` and `expr.*` (with Databricks' EXCEPT (...)), checks argument
// types and inserts Spark's implicit casts (expr/type_rules.h), and types every node. Errors are InvalidArgument "line L, column C: ..."
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

// A SELECT bound over the rows of its innermost FROM item (the stream): subqueries in FROM,
// `SELECT e.*, ... FROM (SELECT from_json(...) AS e, ... FROM STREAM(t))`, are inlined, so every
// expression reads the source's columns (Projection::Make then evaluates an inlined expression
// used several times, like the from_json under e.*, once per batch). Names resolve in each
// level's FROM item: its columns, qualified by the table's name or the item's alias.
struct BoundQuery {
  std::vector<NamedExpr> columns;  // the outermost select list
  // Every level's WHERE, innermost first, ANDed; null when there is none.
  BoundExprPtr where;
  // The WATERMARK clause of a FROM item at any level (nullptr when none; a pipeline has at most
  // one) and its event time, resolved as DLT does: a plain name that is a column of that
  // level's select list is that column's expression, else the expression over the FROM item.
  const sql::Watermark* watermark = nullptr;
  BoundExprPtr event_time;
};

Result<BoundQuery> BindQuery(const sql::Query& query, const columnar::Schema& source);

}  // namespace weir::expr
