// Recursive-descent parser for weir's pipeline SQL (sql/ast.h). Operator precedence follows Spark,
// lowest first: OR, AND, NOT, predicates (IS / IN / BETWEEN / LIKE / RLIKE), comparisons
// (= == <=> <> != < <= > >=), |, ^, &, additive (+ - ||, one level as in Spark), multiplicative
// (* / % DIV), unary (- + ~), postfix (::type, [i], .field, :json.path). Errors are
// InvalidArgument "line L, column C: expected <what> near '<token>'". Pure functions, thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "sql/ast.h"
#include "sql/lexer.h"

namespace weir::sql {

// Parses statements separated by ';' (empty statements are skipped). `map` (optional, must
// outlive the call) gives locations in the user's original text when `text` was rewritten.
Result<std::vector<Statement>> ParseStatements(std::string_view text,
                                               const SourceMap* map = nullptr);

// Parses exactly one SELECT query (an optional trailing ';' is allowed).
Result<Query> ParseQuery(std::string_view text);

// Parses exactly one expression, e.g. an expectation or a `--where` filter given on the command
// line.
Result<ExprPtr> ParseExpression(std::string_view text);

}  // namespace weir::sql
