#include "expr/binder.h"

#include <algorithm>
#include <map>
#include <optional>

#include "columnar/text_format.h"
#include "expr/cast.h"
#include "expr/functions.h"
#include "expr/spark_text.h"

namespace weir::expr {

namespace {

using columnar::Column;
using columnar::DataType;
using columnar::TypeId;
using columnar::TypePtr;

using columnar::EqualsIgnoreAsciiCase;

int FindField(const std::vector<columnar::Field>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreAsciiCase(fields[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

std::string FieldList(const std::vector<columnar::Field>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size() && i < 20; ++i) {
    if (i > 0) out += ", ";
    out += sql::QuoteIdentifier(fields[i].name);
  }
  if (fields.size() > 20) out += ", ...";
  return out;
}

// Spark's toSQLId of one name part: always backquoted, backquotes doubled.
std::string SqlId(std::string_view part) {
  std::string out = "`";
  for (char c : part) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  return out + "`";
}

std::string SqlId(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ".";
    out += SqlId(parts[i]);
  }
  return out;
}

std::string JoinParts(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ".";
    out += parts[i];
  }
  return out;
}

// Levenshtein distance over bytes (commons-text's, which Spark uses, counts UTF-16 units; the
// order of suggestions differs only for non-ASCII names).
size_t Levenshtein(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Spark's UNRESOLVED_COLUMN.WITH_SUGGESTION: the candidates (each a quoted name path) closest to
// `name` first (StringUtils.orderSuggestedIdentifiersBySimilarity), at most five.
std::string UnresolvedColumnMessage(const std::vector<std::string>& name,
                                    std::vector<std::string> candidates) {
  const std::string base = JoinParts(name);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const std::string& x, const std::string& y) {
                     return Levenshtein(x, base) < Levenshtein(y, base);
                   });
  if (candidates.size() > 5) candidates.resize(5);
  std::string proposal;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (i > 0) proposal += ", ";
    proposal += candidates[i];
  }
  return "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter with "
         "name " + SqlId(name) + " cannot be resolved. Did you mean one of the following? [" +
         proposal + "].";
}

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

// The lambda a higher-order function is being bound with: its parameters and the outer
// expressions its body captures (see BoundExpr::Kind::kLambda).
struct LambdaScope {
  std::vector<std::string> names;  // parameters
  columnar::Schema schema;         // parameters, then one field per capture
  std::vector<BoundExprPtr> captures;
};

// Functions whose lambda arguments BindHigherOrder binds.
bool IsHigherOrder(std::string_view name) {
  return name == "transform" || name == "filter" || name == "exists" || name == "forall" ||
         name == "aggregate" || name == "reduce";
}

BoundExprPtr IntLiteral(int32_t v) {
  Column c(DataType::Int32());
  c.Append<int32_t>(v);
  return MakeLiteral(std::move(c), std::to_string(v));
}

BoundExprPtr LongLiteral(int64_t v) {
  Column c(DataType::Int64());
  c.Append<int64_t>(v);
  return MakeLiteral(std::move(c), std::to_string(v) + "L");
}

// An interval literal, possibly under unary minus or plus: INTERVAL 1 DAY, -INTERVAL '2' HOUR.
std::optional<sql::Interval> IntervalOf(const sql::Expr& e) {
  if (const auto* lit = e.As<sql::Literal>()) {
    if (lit->kind == sql::Literal::Kind::kInterval) return lit->interval;
    return std::nullopt;
  }
  if (const auto* u = e.As<sql::Unary>()) {
    if (u->op != sql::UnaryOp::kNegate && u->op != sql::UnaryOp::kPlus) return std::nullopt;
    std::optional<sql::Interval> inner = IntervalOf(*u->operand);
    if (inner && u->op == sql::UnaryOp::kNegate) {
      inner->months = -inner->months;
      inner->days = -inner->days;
      inner->micros = -inner->micros;
    }
    return inner;
  }
  return std::nullopt;
}

Status ErrorAt(sql::Location location, std::string message) {
  return Status::InvalidArgument(location.ToString() + ": " + message);
}

Status NotImplementedAt(sql::Location location, std::string message) {
  return Status::NotImplemented(location.ToString() + ": " + message);
}

BoundExprPtr MakeField(BoundExprPtr parent, int index, sql::Location location) {
  auto e = std::make_shared<BoundExpr>();
  const columnar::Field& f = parent->type->children()[index];
  e->kind = BoundExpr::Kind::kField;
  e->type = f.type;
  e->nullable = parent->nullable || f.nullable;
  e->index = index;
  e->location = location;
  e->sql = parent->sql + "." + sql::QuoteIdentifier(f.name);
  e->children.push_back(std::move(parent));
  return e;
}

BoundExprPtr MakeColumn(const columnar::Schema& schema, int index, sql::Location location) {
  auto e = std::make_shared<BoundExpr>();
  const columnar::Field& f = schema.fields[index];
  e->kind = BoundExpr::Kind::kColumn;
  e->type = f.type;
  e->nullable = f.nullable;
  e->index = index;
  e->location = location;
  e->sql = sql::QuoteIdentifier(f.name);
  return e;
}

// Whether a cast can turn a non-NULL value into NULL.
bool CastMayFail(const DataType& from, const DataType& to) {
  if (from.Equals(to)) return false;
  TypeId f = from.id(), t = to.id();
  if (t == TypeId::kString) return false;
  if (f == TypeId::kBinary && t == TypeId::kString) return false;
  if (f == TypeId::kString && t == TypeId::kBinary) return false;
  if (f == TypeId::kDate && (t == TypeId::kTimestamp || t == TypeId::kTimestampNtz)) return false;
  bool fi = f == TypeId::kInt8 || f == TypeId::kInt16 || f == TypeId::kInt32 || f == TypeId::kInt64;
  bool ti = t == TypeId::kInt8 || t == TypeId::kInt16 || t == TypeId::kInt32 || t == TypeId::kInt64 ||
            t == TypeId::kFloat || t == TypeId::kDouble;
  return !(fi && ti);
}

class ExprBinder {
 public:
  ExprBinder(const columnar::Schema& input, const std::vector<std::string>& qualifiers)
      : input_(input), qualifiers_(qualifiers) {}

  // A binder for a lambda body: names resolve to the lambda's parameters first, then (as
  // captures) in `parent`. REQUIRES: `scope` and `parent` outlive this binder.
  ExprBinder(LambdaScope* scope, ExprBinder* parent)
      : input_(scope->schema), qualifiers_(parent->qualifiers_), parent_(parent), scope_(scope),
        depth_(parent->depth_) {}

  Result<BoundExprPtr> Bind(const sql::Expr& e) {
    if (++depth_ > 500) return ErrorAt(e.location, "expression nests too deeply");
    auto result = std::visit([&](const auto& node) { return BindNode(e, node); }, e.node);
    --depth_;
    if (result.ok() && (*result)->sql.empty()) {
      auto copy = std::make_shared<BoundExpr>(**result);
      copy->sql = sql::ToSql(e);
      return BoundExprPtr(copy);
    }
    return result;
  }

  // Resolves a name path to a column and struct fields.
  Result<BoundExprPtr> ResolvePath(const std::vector<std::string>& parts, sql::Location location) {
    if (scope_ != nullptr) return ResolveInLambda(parts, location);
    // As Spark: `q.c` is column c of the table (alias) q when there is one, else field c of
    // the column q.
    size_t start = 0;
    if (parts.size() >= 2 && IsQualifier(parts[0]) && FindField(input_.fields, parts[1]) >= 0) {
      start = 1;
    }
    int index = FindField(input_.fields, parts[start]);
    if (index < 0) {
      return ErrorAt(location, "column " + sql::QuoteIdentifier(parts[start]) +
                                   " does not exist; the input has " + FieldList(input_.fields));
    }
    BoundExprPtr e = MakeColumn(input_, index, location);
    for (size_t i = start + 1; i < parts.size(); ++i) {
      WEIR_ASSIGN_OR_RETURN(e, FieldOf(std::move(e), parts[i], location));
    }
    return e;
  }

  // Inside a lambda body: a parameter (and its fields), else an outer expression, captured.
  Result<BoundExprPtr> ResolveInLambda(const std::vector<std::string>& parts,
                                       sql::Location location) {
    for (size_t i = 0; i < scope_->names.size(); ++i) {
      if (!EqualsIgnoreAsciiCase(scope_->names[i], parts[0])) continue;
      BoundExprPtr e = MakeColumn(scope_->schema, static_cast<int>(i), location);
      for (size_t k = 1; k < parts.size(); ++k) {
        WEIR_ASSIGN_OR_RETURN(e, FieldOf(std::move(e), parts[k], location));
      }
      return e;
    }
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr outer, parent_->ResolvePath(parts, location));
    int index = scope_->schema.num_fields();
    scope_->schema.fields.push_back({"capture" + std::to_string(scope_->captures.size()),
                                     outer->type, outer->nullable});
    scope_->captures.push_back(outer);
    auto e = std::make_shared<BoundExpr>(*MakeColumn(scope_->schema, index, location));
    e->sql = outer->sql;
    return BoundExprPtr(e);
  }

  Result<BoundExprPtr> FieldOf(BoundExprPtr parent, const std::string& name, sql::Location location) {
    if (parent->type->id() != TypeId::kStruct) {
      return ErrorAt(location, "cannot read field " + sql::QuoteIdentifier(name) + " of " +
                                   parent->sql + ", which is " + parent->type->ToDdl() +
                                   ", not a STRUCT");
    }
    int f = FindField(parent->type->children(), name);
    if (f < 0) {
      return ErrorAt(location, "field " + sql::QuoteIdentifier(name) + " does not exist in " +
                                   parent->sql + "; it has " +
                                   FieldList(parent->type->children()));
    }
    return MakeField(std::move(parent), f, location);
  }

  bool IsQualifier(std::string_view name) const {
    for (const std::string& q : qualifiers_) {
      if (EqualsIgnoreAsciiCase(q, name)) return true;
    }
    return false;
  }

  // Expands `*`, `q.*` and `expr.*` (then their EXCEPT list) to named expressions, as Spark's
  // UnresolvedStar / UnresolvedStarExceptOrReplace: `q.*` is the columns of the table (alias) q
  // when q is one, else the fields of the STRUCT column or field q.
  Result<std::vector<NamedExpr>> ExpandStar(const sql::Star& star, sql::Location location) {
    std::vector<NamedExpr> out;
    bool table_star = false;
    BoundExprPtr parent;
    if (star.operand) {
      WEIR_ASSIGN_OR_RETURN(parent, Bind(*star.operand));
      if (parent->type->id() != TypeId::kStruct || parent->IsNullLiteral()) {
        return ErrorAt(location, "Can only star expand struct data types. Attribute: `" +
                                     parent->sql + "`.");
      }
    } else if (star.qualifier.empty() ||
               (star.qualifier.size() == 1 && IsQualifier(star.qualifier[0]))) {
      table_star = true;
      for (int i = 0; i < input_.num_fields(); ++i) {
        out.push_back({input_.fields[i].name, MakeColumn(input_, i, location), location});
      }
    } else {
      auto resolved = ResolvePath(star.qualifier, location);
      if (!resolved.ok()) {
        std::vector<std::string> names;
        for (const columnar::Field& f : input_.fields) names.push_back(SqlId(f.name));
        std::sort(names.begin(), names.end());
        std::string columns;
        for (size_t i = 0; i < names.size(); ++i) {
          if (i > 0) columns += ", ";
          columns += names[i];
        }
        return ErrorAt(location, "[CANNOT_RESOLVE_STAR_EXPAND] Cannot resolve " +
                                     SqlId(star.qualifier) + ".* given input columns " + columns +
                                     ". Please check that the specified table or struct exists "
                                     "and is accessible in the input columns.");
      }
      parent = *resolved;
      if (parent->type->id() != TypeId::kStruct) {
        std::string list;
        for (size_t i = 0; i < star.qualifier.size(); ++i) {
          if (i > 0) list += ", ";
          list += star.qualifier[i];
        }
        return ErrorAt(location, "Can only star expand struct data types. Attribute: `List(" +
                                     list + ")`.");
      }
    }
    if (parent) {
      for (size_t i = 0; i < parent->type->children().size(); ++i) {
        out.push_back({parent->type->children()[i].name,
                       MakeField(parent, static_cast<int>(i), location), location});
      }
    }
    if (!star.except.empty()) {
      WEIR_RETURN_NOT_OK(ApplyExcept(star.except, table_star, location, &out));
    }
    return out;
  }

  // Databricks' `* EXCEPT (name, ...)` over the expanded `columns`: each name is one of them
  // (for a table star optionally qualified, `t.a`), which is left out, or a path to a field in
  // one (`s.x`), which is left out of that STRUCT column. Errors are Spark's.
  Status ApplyExcept(const std::vector<std::vector<std::string>>& except, bool table_star,
                     sql::Location location, std::vector<NamedExpr>* columns) {
    // Each name resolved to a column index and the path below it (parts as written).
    struct Removal {
      size_t column;
      std::vector<std::string> path;  // path[0] is the column's name as written
    };
    std::vector<Removal> removals;
    for (const std::vector<std::string>& name : except) {
      std::vector<std::string> path = name;
      auto find = [&](std::string_view n) -> int {
        for (size_t i = 0; i < columns->size(); ++i) {
          if (EqualsIgnoreAsciiCase((*columns)[i].name, n)) return static_cast<int>(i);
        }
        return -1;
      };
      if (table_star && path.size() >= 2 && IsQualifier(path[0]) && find(path[1]) >= 0) {
        path.erase(path.begin());
      }
      int index = find(path[0]);
      if (index < 0) {
        std::vector<std::string> candidates;
        const bool qualify = table_star && name.size() > 1 && !qualifiers_.empty();
        for (const NamedExpr& c : *columns) {
          candidates.push_back(qualify ? SqlId({qualifiers_.back(), c.name}) : SqlId(c.name));
        }
        return ErrorAt(location, UnresolvedColumnMessage(name, std::move(candidates)));
      }
      // Check the path through the column's STRUCT fields.
      TypePtr type = (*columns)[index].expr->type;
      for (size_t k = 1; k < path.size(); ++k) {
        if (type->id() != TypeId::kStruct) {
          std::vector<std::string> prefix(path.begin(), path.begin() + k);
          return ErrorAt(location, "[INVALID_EXTRACT_BASE_FIELD_TYPE] Can't extract a value from "
                                   "\"" + JoinParts(prefix) + "\". Need a complex type [STRUCT, "
                                   "ARRAY, MAP] but got \"" + type->ToDdl() + "\".");
        }
        int f = FindField(type->children(), path[k]);
        if (f < 0) {
          std::string fields;
          for (size_t i = 0; i < type->children().size(); ++i) {
            if (i > 0) fields += ", ";
            fields += SqlId(type->children()[i].name);
          }
          return ErrorAt(location, "[FIELD_NOT_FOUND] No such struct field " + SqlId(path[k]) +
                                       " in " + fields + ".");
        }
        type = type->children()[f].type;
      }
      removals.push_back({static_cast<size_t>(index), std::move(path)});
    }
    // Spark compares the names as written (after a qualifier), case-sensitively: one must not be
    // the other or a prefix of it.
    for (size_t i = 0; i < removals.size(); ++i) {
      for (size_t j = i + 1; j < removals.size(); ++j) {
        const auto& a = removals[i].path;
        const auto& b = removals[j].path;
        size_t n = std::min(a.size(), b.size());
        if (std::equal(a.begin(), a.begin() + n, b.begin())) {
          std::string list;
          for (size_t k = 0; k < except.size(); ++k) {
            if (k > 0) list += ", ";
            list += JoinParts(except[k]);
          }
          return ErrorAt(location, "[EXCEPT_OVERLAPPING_COLUMNS] Columns in an EXCEPT list must "
                                   "be distinct and non-overlapping, but got (" + list + ").");
        }
      }
    }
    std::vector<NamedExpr> kept;
    for (size_t i = 0; i < columns->size(); ++i) {
      std::vector<std::vector<std::string>> nested;  // paths below column i
      bool dropped = false;
      for (const Removal& r : removals) {
        if (r.column != i) continue;
        if (r.path.size() == 1) {
          dropped = true;
        } else {
          nested.emplace_back(r.path.begin() + 1, r.path.end());
        }
      }
      if (dropped) continue;
      NamedExpr c = std::move((*columns)[i]);
      if (!nested.empty()) {
        WEIR_ASSIGN_OR_RETURN(c.expr, WithoutFields(c.expr, nested, c.name, location));
      }
      kept.push_back(std::move(c));
    }
    if (kept.empty()) {
      return ErrorAt(location, "EXCEPT leaves out every column; a streaming table needs at least "
                               "one (Spark would give rows without columns)");
    }
    *columns = std::move(kept);
    return Status::OK();
  }

  // The STRUCT `e` without the fields at `paths` (relative to it): named_struct of the other
  // fields, as Spark rebuilds it (so the result is never NULL: a NULL struct gives its fields as
  // NULLs).
  Result<BoundExprPtr> WithoutFields(const BoundExprPtr& e,
                                     const std::vector<std::vector<std::string>>& paths,
                                     const std::string& what, sql::Location location) {
    std::vector<BoundExprPtr> args;
    const std::vector<columnar::Field>& fields = e->type->children();
    for (size_t i = 0; i < fields.size(); ++i) {
      std::vector<std::vector<std::string>> below;
      bool dropped = false;
      for (const auto& p : paths) {
        if (!EqualsIgnoreAsciiCase(p[0], fields[i].name)) continue;
        if (p.size() == 1) {
          dropped = true;
        } else {
          below.emplace_back(p.begin() + 1, p.end());
        }
      }
      if (dropped) continue;
      BoundExprPtr field = MakeField(e, static_cast<int>(i), location);
      if (!below.empty()) {
        WEIR_ASSIGN_OR_RETURN(field, WithoutFields(field, below, what + "." + fields[i].name,
                                                   location));
      }
      args.push_back(StringLiteral(fields[i].name));
      args.push_back(std::move(field));
    }
    if (args.empty()) {
      return ErrorAt(location, "EXCEPT leaves out every field of " + what +
                                   ", and an empty STRUCT cannot be stored in a Delta table");
    }
    return Call("named_struct", std::move(args), location);
  }

  Result<BoundExprPtr> Call(std::string_view name, std::vector<BoundExprPtr> args,
                            sql::Location location) {
    const Function* f = FindFunction(name);
    if (f == nullptr) return Status::Internal("no function " + std::string(name));
    auto type = f->type_rule(args);
    if (!type.ok()) return type.status().WithContext(location.ToString());
    auto e = std::make_shared<BoundExpr>();
    e->kind = BoundExpr::Kind::kCall;
    e->type = *type;
    e->function = f;
    e->location = location;
    bool any_nullable = false, all_nullable = !args.empty();
    for (const BoundExprPtr& a : args) {
      any_nullable |= a->nullable;
      all_nullable &= a->nullable;
    }
    if (name == "IS NULL" || name == "IS NOT NULL" || name == "<=>" || name == "isnull" ||
        name == "isnotnull" || f->constant_per_batch) {
      e->nullable = false;
    } else if (name == "coalesce" || name == "ifnull" || name == "nvl") {
      e->nullable = all_nullable;
    } else if (name == "array" || name == "named_struct" || name == "map") {
      e->nullable = false;  // constructors never return NULL (a bad key marks the row)
    } else {
      e->nullable = any_nullable || f->introduces_nulls;
    }
    e->children = std::move(args);
    return BoundExprPtr(e);
  }

 private:
  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::ColumnRef& n) {
    return ResolvePath(n.parts, e.location);
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Star&) {
    return ErrorAt(e.location, "'*' is allowed only as a select item");
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Literal& n) {
    using K = sql::Literal::Kind;
    Column value(n.type ? n.type : DataType::String());
    std::string sql = sql::ToSql(e);
    switch (n.kind) {
      case K::kNull: value.AppendNull(); break;
      case K::kBoolean:
        value = Column(DataType::Boolean());
        value.Append<uint8_t>(n.boolean_value ? 1 : 0);
        break;
      case K::kInteger:
        switch (n.type->id()) {
          case TypeId::kInt8: value.Append<int8_t>(static_cast<int8_t>(n.integer_value)); break;
          case TypeId::kInt16: value.Append<int16_t>(static_cast<int16_t>(n.integer_value)); break;
          case TypeId::kInt32: value.Append<int32_t>(static_cast<int32_t>(n.integer_value)); break;
          default: value.Append<int64_t>(n.integer_value);
        }
        break;
      case K::kDecimal: value.Append<columnar::Int128>(n.decimal_unscaled); break;
      case K::kDouble:
        if (n.type->id() == TypeId::kFloat) {
          value.Append<float>(static_cast<float>(n.double_value));
        } else {
          value.Append<double>(n.double_value);
        }
        break;
      case K::kString: value.AppendString(n.text); break;
      case K::kBinary:
        value = Column(DataType::Binary());
        value.AppendString(n.text);
        break;
      case K::kDate: {
        std::optional<int32_t> d = ParseSparkDate(n.text);
        if (!d) return ErrorAt(e.location, "invalid DATE literal " + sql::QuoteString(n.text));
        value = Column(DataType::Date());
        value.Append<int32_t>(*d);
        break;
      }
      case K::kTimestamp:
      case K::kTimestampNtz: {
        bool ntz = n.kind == K::kTimestampNtz;
        std::optional<int64_t> t = ParseSparkTimestamp(n.text, ntz);
        if (!t) {
          return ErrorAt(e.location, std::string(ntz ? "invalid TIMESTAMP_NTZ" : "invalid TIMESTAMP") +
                                         " literal " + sql::QuoteString(n.text));
        }
        value = Column(ntz ? DataType::TimestampNtz() : DataType::Timestamp());
        value.Append<int64_t>(*t);
        break;
      }
      case K::kInterval:
        return NotImplementedAt(e.location, "INTERVAL values are supported only in WATERMARK ... "
                                            "DELAY OF and added to or subtracted from a DATE or "
                                            "TIMESTAMP (ts - INTERVAL 10 MINUTES)");
    }
    BoundExprPtr lit = MakeLiteral(std::move(value), std::move(sql));
    auto copy = std::make_shared<BoundExpr>(*lit);
    copy->location = e.location;
    return BoundExprPtr(copy);
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Unary& n) {
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(*n.operand));
    switch (n.op) {
      case sql::UnaryOp::kNegate: return Call("NEGATE", {std::move(operand)}, e.location);
      case sql::UnaryOp::kPlus: return operand;
      case sql::UnaryOp::kNot: return Call("NOT", {std::move(operand)}, e.location);
      case sql::UnaryOp::kBitNot:
        return NotImplementedAt(e.location, "the ~ operator is not supported yet");
    }
    return Status::Internal("unary operator");
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Binary& n) {
    std::string_view name;
    switch (n.op) {
      case sql::BinaryOp::kOr: name = "OR"; break;
      case sql::BinaryOp::kAnd: name = "AND"; break;
      case sql::BinaryOp::kEqual: name = "="; break;
      case sql::BinaryOp::kNullSafeEqual: name = "<=>"; break;
      case sql::BinaryOp::kNotEqual: name = "!="; break;
      case sql::BinaryOp::kLess: name = "<"; break;
      case sql::BinaryOp::kLessEqual: name = "<="; break;
      case sql::BinaryOp::kGreater: name = ">"; break;
      case sql::BinaryOp::kGreaterEqual: name = ">="; break;
      case sql::BinaryOp::kAdd: name = "+"; break;
      case sql::BinaryOp::kSubtract: name = "-"; break;
      case sql::BinaryOp::kMultiply: name = "*"; break;
      case sql::BinaryOp::kDivide: name = "/"; break;
      case sql::BinaryOp::kModulo: name = "%"; break;
      case sql::BinaryOp::kIntegerDivide: name = "DIV"; break;
      case sql::BinaryOp::kConcat: name = "||"; break;
      case sql::BinaryOp::kBitAnd:
      case sql::BinaryOp::kBitOr:
      case sql::BinaryOp::kBitXor:
        return NotImplementedAt(e.location, "bitwise operators are not supported yet");
    }
    if (n.op == sql::BinaryOp::kAdd || n.op == sql::BinaryOp::kSubtract) {
      std::optional<sql::Interval> left_interval = IntervalOf(*n.left);
      std::optional<sql::Interval> right_interval = IntervalOf(*n.right);
      if (left_interval || right_interval) {
        return BindIntervalArithmetic(e, n, left_interval, right_interval);
      }
    }
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr left, Bind(*n.left));
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr right, Bind(*n.right));
    // DATE + n, n + DATE and DATE - n are date_add / date_sub (Spark's DateAdd / DateSub).
    if (n.op == sql::BinaryOp::kAdd || n.op == sql::BinaryOp::kSubtract) {
      bool left_date = left->type->id() == TypeId::kDate && !left->IsNullLiteral();
      bool right_date = right->type->id() == TypeId::kDate && !right->IsNullLiteral();
      auto is_number = [](const BoundExprPtr& x) {
        TypeId id = x->type->id();
        return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
               id == TypeId::kInt64 || id == TypeId::kFloat || id == TypeId::kDouble ||
               id == TypeId::kDecimal;
      };
      if (left_date && is_number(right)) {
        return Call(n.op == sql::BinaryOp::kAdd ? "date_add" : "date_sub",
                    {std::move(left), std::move(right)}, e.location);
      }
      if (right_date && is_number(left) && n.op == sql::BinaryOp::kAdd) {
        return Call("date_add", {std::move(right), std::move(left)}, e.location);
      }
    }
    if (n.op == sql::BinaryOp::kSubtract) {
      TypeId l = left->type->id(), r = right->type->id();
      bool left_time = l == TypeId::kDate || l == TypeId::kTimestamp || l == TypeId::kTimestampNtz;
      bool right_time = r == TypeId::kDate || r == TypeId::kTimestamp || r == TypeId::kTimestampNtz;
      if (left_time && right_time && !left->IsNullLiteral() && !right->IsNullLiteral()) {
        return NotImplementedAt(e.location, "subtracting dates or timestamps gives an INTERVAL, "
                                            "which weir does not support yet; use datediff(end, "
                                            "start) or unix_seconds(end) - unix_seconds(start)");
      }
    }
    return Call(name, {std::move(left), std::move(right)}, e.location);
  }

  // `x + INTERVAL ...`, `INTERVAL ... + x` and `x - INTERVAL ...` (columnar has no interval type,
  // so an interval only exists as literal arguments of these internal calls), as Spark 3.2+
  // types them: TIMESTAMP[_NTZ] +/- any interval -> same type ("TIMESTAMP + INTERVAL"(ts,
  // months, micros)); DATE +/- a year-month or whole-day interval -> DATE ("DATE + INTERVAL"(d,
  // months, days)); DATE +/- a day-time interval with a time part -> TIMESTAMP; STRING +/-
  // a day-time interval -> the timestamp as STRING.
  Result<BoundExprPtr> BindIntervalArithmetic(const sql::Expr& e, const sql::Binary& n,
                                              std::optional<sql::Interval> left_interval,
                                              std::optional<sql::Interval> right_interval) {
    bool subtract = n.op == sql::BinaryOp::kSubtract;
    if (left_interval && right_interval) {
      return NotImplementedAt(e.location, "adding INTERVAL values together is not supported; "
                                          "add each one to the DATE or TIMESTAMP");
    }
    if (left_interval && subtract) {
      return ErrorAt(e.location, "cannot subtract a value from an INTERVAL; write the DATE or "
                                 "TIMESTAMP first: ts - INTERVAL ...");
    }
    const sql::Expr& interval_expr = left_interval ? *n.left : *n.right;
    const sql::Expr& operand_expr = left_interval ? *n.right : *n.left;
    sql::Interval iv = left_interval ? *left_interval : *right_interval;
    if (iv.months != 0 && (iv.days != 0 || iv.micros != 0)) {
      return ErrorAt(interval_expr.location,
                     "an INTERVAL cannot mix year-month and day-time fields (" +
                         sql::ToSql(interval_expr) + "); add or subtract them one at a time");
    }
    int64_t micros = 0;
    if (__builtin_mul_overflow(static_cast<int64_t>(iv.days), kMicrosPerDay, &micros) ||
        __builtin_add_overflow(micros, iv.micros, &micros)) {
      return ErrorAt(interval_expr.location, "INTERVAL " + sql::ToSql(interval_expr) +
                                                 " is too large");
    }
    int32_t months = iv.months, days = iv.days;
    if (subtract) {
      months = -months;
      days = -days;
      micros = -micros;
    }
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(operand_expr));
    if (operand->IsNullLiteral() && operand->type->id() == TypeId::kString) {
      WEIR_ASSIGN_OR_RETURN(operand, CastTo(std::move(operand), DataType::Timestamp()));
    }
    switch (operand->type->id()) {
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
        return Call("TIMESTAMP + INTERVAL", {std::move(operand), IntLiteral(months),
                                             LongLiteral(micros)}, e.location);
      case TypeId::kDate: {
        if (iv.micros == 0) {
          return Call("DATE + INTERVAL", {std::move(operand), IntLiteral(months),
                                          IntLiteral(days)}, e.location);
        }
        WEIR_ASSIGN_OR_RETURN(operand, CastTo(std::move(operand), DataType::Timestamp()));
        return Call("TIMESTAMP + INTERVAL", {std::move(operand), IntLiteral(0),
                                             LongLiteral(micros)}, e.location);
      }
      case TypeId::kString: {
        if (months != 0) break;
        WEIR_ASSIGN_OR_RETURN(operand, CastTo(std::move(operand), DataType::Timestamp()));
        WEIR_ASSIGN_OR_RETURN(BoundExprPtr sum,
                              Call("TIMESTAMP + INTERVAL", {std::move(operand), IntLiteral(0),
                                                            LongLiteral(micros)}, e.location));
        return CastTo(std::move(sum), DataType::String());
      }
      default: break;
    }
    return ErrorAt(e.location, "cannot add an INTERVAL to " + operand->sql + ", which is " +
                                   operand->type->ToDdl() + "; it needs a DATE or TIMESTAMP");
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::FunctionCall& n) {
    if (n.name == "secret") {
      return ErrorAt(e.location, "secret() is allowed only in read_kafka options");
    }
    if (n.name == "struct" && !n.star && !n.distinct) return BindStruct(e, n);
    const Function* f = FindFunction(n.name);
    if (f == nullptr || n.name.empty() || !(n.name[0] >= 'a' && n.name[0] <= 'z')) {
      if (n.name == "count" || n.name == "sum" || n.name == "min" || n.name == "max" ||
          n.name == "avg") {
        return NotImplementedAt(e.location, "aggregate function " + n.name +
                                                "() is not supported in a streaming table");
      }
      return NotImplementedAt(e.location, "function " + n.name + "() is not supported by weir yet");
    }
    if (n.star || n.distinct) {
      return ErrorAt(e.location, n.name + "() takes no * or DISTINCT");
    }
    for (const std::string& arg_name : n.arg_names) {
      if (!arg_name.empty()) {
        return ErrorAt(e.location, n.name + "() takes positional arguments only, not '" +
                                       arg_name + " =>'");
      }
    }
    int count = static_cast<int>(n.args.size());
    if (count < f->min_args || (f->max_args >= 0 && count > f->max_args)) {
      std::string expected = f->min_args == f->max_args ? std::to_string(f->min_args)
                             : f->max_args < 0 ? "at least " + std::to_string(f->min_args)
                                               : std::to_string(f->min_args) + " to " +
                                                     std::to_string(f->max_args);
      return ErrorAt(e.location, n.name + "() takes " + expected + " argument" +
                                     (expected == "1" ? "" : "s") + ", got " + std::to_string(count));
    }
    if (IsHigherOrder(n.name)) return BindHigherOrder(e, n);
    std::vector<BoundExprPtr> args;
    for (const sql::ExprPtr& a : n.args) {
      if (a->Is<sql::Lambda>()) {
        return ErrorAt(a->location, n.name + "() takes no lambda function; lambdas are arguments "
                                    "of transform, filter, exists, forall and aggregate");
      }
      WEIR_ASSIGN_OR_RETURN(BoundExprPtr b, Bind(*a));
      args.push_back(std::move(b));
    }
    return Call(n.name, std::move(args), e.location);
  }

  // struct(a, e.b, x + 1) is named_struct('a', a, 'b', e.b, 'col3', x + 1): Spark names a field
  // after a column's (or field's) last name part, else col<position>.
  Result<BoundExprPtr> BindStruct(const sql::Expr& e, const sql::FunctionCall& n) {
    std::vector<BoundExprPtr> args;
    for (size_t i = 0; i < n.args.size(); ++i) {
      const sql::Expr& a = *n.args[i];
      if (!n.arg_names[i].empty()) {
        return ErrorAt(e.location, "struct() takes positional arguments only, not '" +
                                       n.arg_names[i] + " =>'");
      }
      std::string name = "col" + std::to_string(i + 1);
      if (const auto* ref = a.As<sql::ColumnRef>()) {
        name = ref->parts.back();
      } else if (const auto* field = a.As<sql::FieldAccess>()) {
        name = field->field;
      } else if (const auto* sub = a.As<sql::Subscript>()) {
        const auto* key = sub->index->As<sql::Literal>();
        if (key != nullptr && key->kind == sql::Literal::Kind::kString) name = key->text;
      }
      if (a.Is<sql::Lambda>()) {
        return ErrorAt(a.location, "struct() takes no lambda function");
      }
      WEIR_ASSIGN_OR_RETURN(BoundExprPtr value, Bind(a));
      args.push_back(StringLiteral(name));
      args.push_back(std::move(value));
    }
    return Call("named_struct", std::move(args), e.location);
  }

  // transform(array, x -> ...), transform(array, (x, i) -> ...), filter (same), exists and
  // forall(array, x -> ...), aggregate / reduce(array, start, (acc, x) -> ...[, acc -> ...]).
  // Lambda parameters are typed from the array's elements (and the start value).
  Result<BoundExprPtr> BindHigherOrder(const sql::Expr& e, const sql::FunctionCall& n) {
    bool aggregate = n.name == "aggregate" || n.name == "reduce";
    std::vector<BoundExprPtr> args(n.args.size());
    for (size_t i = 0; i < n.args.size(); ++i) {
      bool wants_lambda = aggregate ? i >= 2 : i == 1;
      if (wants_lambda != n.args[i]->Is<sql::Lambda>()) {
        return ErrorAt(n.args[i]->location,
                       n.name + "() argument " + std::to_string(i + 1) +
                           (wants_lambda ? " must be a lambda function (x -> ...)"
                                         : " cannot be a lambda function"));
      }
      if (!wants_lambda) {
        WEIR_ASSIGN_OR_RETURN(args[i], Bind(*n.args[i]));
      }
    }
    const BoundExprPtr& array = args[0];
    if (array->type->id() != TypeId::kList || array->IsNullLiteral()) {
      return ErrorAt(e.location, n.name + "() argument 1 must be an ARRAY, but " + array->sql +
                                     " is " + (array->IsNullLiteral() ? std::string("VOID")
                                                                       : array->type->ToDdl()));
    }
    const columnar::Field& element = array->type->element();
    using Param = std::pair<TypePtr, bool>;  // type, nullable
    if (!aggregate) {
      size_t max_params = (n.name == "transform" || n.name == "filter") ? 2 : 1;
      std::vector<Param> params = {{element.type, element.nullable}, {DataType::Int32(), false}};
      params.resize(max_params);
      WEIR_ASSIGN_OR_RETURN(args[1], BindLambda(n.name, *n.args[1], params, 1));
      return Call(n.name, std::move(args), e.location);
    }
    BoundExprPtr& start = args[1];
    if (start->IsNullLiteral() && start->type->id() == TypeId::kString) {
      return ErrorAt(start->location, n.name + "() needs a typed start value, e.g. "
                                               "CAST(NULL AS INT), not NULL");
    }
    WEIR_ASSIGN_OR_RETURN(args[2], BindLambda(n.name, *n.args[2],
                                              {{start->type, true}, {element.type, element.nullable}},
                                              2));
    const BoundExpr& merge_body = *args[2]->children[0];
    if (!merge_body.type->Equals(*start->type)) {
      return ErrorAt(n.args[2]->location,
                     n.name + "() merge function returns " + merge_body.type->ToDdl() +
                         ", but the start value " + start->sql + " is " + start->type->ToDdl() +
                         "; cast the start value, e.g. CAST(0 AS " + merge_body.type->ToDdl() + ")");
    }
    if (args.size() > 3) {
      WEIR_ASSIGN_OR_RETURN(args[3], BindLambda(n.name, *n.args[3], {{start->type, true}}, 1));
    }
    return Call(n.name, std::move(args), e.location);
  }

  // Binds `lambda_expr` (x -> body or (x, y) -> body) with parameters of the given types; it must
  // take between `min_params` and params.size() parameters.
  Result<BoundExprPtr> BindLambda(const std::string& function, const sql::Expr& lambda_expr,
                                  std::vector<std::pair<TypePtr, bool>> params,
                                  size_t min_params) {
    const auto& lambda = *lambda_expr.As<sql::Lambda>();
    if (lambda.params.size() < min_params || lambda.params.size() > params.size()) {
      std::string expected = min_params == params.size()
                                 ? std::to_string(min_params)
                                 : std::to_string(min_params) + " or " + std::to_string(params.size());
      return ErrorAt(lambda_expr.location,
                     function + "() takes a lambda function of " + expected + " argument" +
                         (expected == "1" ? "" : "s") + ", got " +
                         std::to_string(lambda.params.size()));
    }
    LambdaScope scope;
    for (size_t i = 0; i < lambda.params.size(); ++i) {
      for (size_t k = 0; k < i; ++k) {
        if (EqualsIgnoreAsciiCase(lambda.params[k], lambda.params[i])) {
          return ErrorAt(lambda_expr.location, "lambda argument " +
                                                   sql::QuoteIdentifier(lambda.params[i]) +
                                                   " is declared twice");
        }
      }
      scope.names.push_back(lambda.params[i]);
      scope.schema.fields.push_back({lambda.params[i], params[i].first, params[i].second});
    }
    ExprBinder body_binder(&scope, this);
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr body, body_binder.Bind(*lambda.body));
    auto l = std::make_shared<BoundExpr>();
    l->kind = BoundExpr::Kind::kLambda;
    l->type = body->type;
    l->nullable = false;
    l->index = static_cast<int>(lambda.params.size());
    l->location = lambda_expr.location;
    l->sql = sql::ToSql(lambda_expr);
    l->children.push_back(std::move(body));
    for (BoundExprPtr& c : scope.captures) l->children.push_back(std::move(c));
    return BoundExprPtr(l);
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Cast& n) {
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(*n.operand));
    if (operand->IsNullLiteral()) return CastTo(std::move(operand), n.type);
    if (!CanCast(*operand->type, *n.type)) {
      return ErrorAt(e.location, "cannot cast " + operand->sql + " from " +
                                     operand->type->ToDdl() + " to " + n.type->ToDdl());
    }
    auto c = std::make_shared<BoundExpr>();
    c->kind = BoundExpr::Kind::kCast;
    c->type = n.type;
    c->try_cast = n.try_cast;
    c->nullable = operand->nullable || CastMayFail(*operand->type, *n.type);
    c->location = e.location;
    c->children.push_back(std::move(operand));
    return BoundExprPtr(c);
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Case& n) {
    std::vector<BoundExprPtr> args;
    BoundExprPtr operand;
    if (n.operand) {
      WEIR_ASSIGN_OR_RETURN(operand, Bind(*n.operand));
    }
    for (size_t i = 0; i < n.whens.size(); ++i) {
      WEIR_ASSIGN_OR_RETURN(BoundExprPtr when, Bind(*n.whens[i]));
      if (operand) {
        WEIR_ASSIGN_OR_RETURN(when, Call("=", {operand, std::move(when)}, n.whens[i]->location));
      }
      WEIR_ASSIGN_OR_RETURN(BoundExprPtr then, Bind(*n.thens[i]));
      args.push_back(std::move(when));
      args.push_back(std::move(then));
    }
    if (n.else_result) {
      WEIR_ASSIGN_OR_RETURN(BoundExprPtr otherwise, Bind(*n.else_result));
      args.push_back(std::move(otherwise));
    } else {
      Column null_value(DataType::String());
      null_value.AppendNull();
      args.push_back(MakeLiteral(std::move(null_value), "NULL"));
    }
    return Call("CASE", std::move(args), e.location);
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::InList& n) {
    std::vector<BoundExprPtr> args;
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(*n.operand));
    args.push_back(std::move(operand));
    for (const sql::ExprPtr& item : n.list) {
      WEIR_ASSIGN_OR_RETURN(BoundExprPtr b, Bind(*item));
      args.push_back(std::move(b));
    }
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr in, Call("IN", std::move(args), e.location));
    if (n.negated) return Call("NOT", {std::move(in)}, e.location);
    return in;
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Between& n) {
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(*n.operand));
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr low, Bind(*n.low));
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr high, Bind(*n.high));
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr ge, Call(">=", {operand, std::move(low)}, e.location));
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr le, Call("<=", {operand, std::move(high)}, e.location));
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr both, Call("AND", {std::move(ge), std::move(le)}, e.location));
    if (n.negated) return Call("NOT", {std::move(both)}, e.location);
    return both;
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::IsPredicate& n) {
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(*n.operand));
    using K = sql::IsPredicate::Kind;
    if (n.kind == K::kNull) {
      return Call(n.negated ? "IS NOT NULL" : "IS NULL", {std::move(operand)}, e.location);
    }
    BoundExprPtr other;
    if (n.kind == K::kDistinctFrom) {
      WEIR_ASSIGN_OR_RETURN(other, Bind(*n.other));
    } else {
      Column value(DataType::Boolean());
      value.Append<uint8_t>(n.kind == K::kTrue ? 1 : 0);
      other = MakeLiteral(std::move(value), n.kind == K::kTrue ? "true" : "false");
    }
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr same, Call("<=>", {std::move(operand), std::move(other)},
                                                  e.location));
    // IS TRUE = (x <=> true); IS DISTINCT FROM = NOT (x <=> y).
    bool want_same = n.kind == K::kDistinctFrom ? n.negated : !n.negated;
    if (want_same) return same;
    return Call("NOT", {std::move(same)}, e.location);
  }

  // LIKE / ILIKE / RLIKE call the functions like(s, pattern, escape), ilike(...) and rlike(s, re)
  // (string_functions.cc); NOT LIKE negates the call.
  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Like& n) {
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(*n.operand));
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr pattern, Bind(*n.pattern));
    std::vector<BoundExprPtr> args = {std::move(operand), std::move(pattern)};
    std::string_view name = "rlike";
    if (n.kind != sql::Like::Kind::kRLike) {
      name = n.kind == sql::Like::Kind::kLike ? "like" : "ilike";
      args.push_back(StringLiteral(n.escape));
    }
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr like, Call(name, std::move(args), e.location));
    if (!n.negated) return like;
    return Call("NOT", {std::move(like)}, e.location);
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::FieldAccess& n) {
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(*n.operand));
    return FieldOf(std::move(operand), n.field, e.location);
  }

  // arr[i] (0-based; NULL when out of range), map[key] (NULL when missing), struct['field'].
  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Subscript& n) {
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(*n.operand));
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr index, Bind(*n.index));
    switch (operand->IsNullLiteral() ? TypeId::kString : operand->type->id()) {
      case TypeId::kList:
      case TypeId::kMap:
        return Call("SUBSCRIPT", {std::move(operand), std::move(index)}, e.location);
      case TypeId::kStruct:
        if (index->kind == BoundExpr::Kind::kLiteral && !index->IsNullLiteral() &&
            index->type->id() == TypeId::kString) {
          return FieldOf(std::move(operand), std::string(index->literal->StringAt(0)), e.location);
        }
        return ErrorAt(e.location, "a STRUCT field is selected with a constant name, e.g. " +
                                       operand->sql + "['name'], not " + index->sql);
      default:
        return ErrorAt(e.location, "cannot use [] on " + operand->sql + ", which is " +
                                       (operand->IsNullLiteral() ? std::string("VOID")
                                                                 : operand->type->ToDdl()) +
                                       "; [] needs an ARRAY, MAP or STRUCT");
    }
  }

  // `raw:a.b[0]` calls the internal function "JSON PATH"(raw, '$.a.b[0]') (json_functions.cc).
  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::JsonPath& n) {
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr operand, Bind(*n.operand));
    return Call("JSON PATH", {std::move(operand), StringLiteral(n.path)}, e.location);
  }

  static BoundExprPtr StringLiteral(std::string_view text) {
    Column value(DataType::String());
    value.AppendString(text);
    return MakeLiteral(std::move(value), sql::QuoteString(text));
  }

  Result<BoundExprPtr> BindNode(const sql::Expr& e, const sql::Lambda&) {
    return ErrorAt(e.location, "a lambda (x -> ...) is allowed only as a function argument");
  }

  const columnar::Schema& input_;
  const std::vector<std::string>& qualifiers_;
  ExprBinder* parent_ = nullptr;  // the enclosing binder of a lambda body
  LambdaScope* scope_ = nullptr;  // the lambda whose body this binder binds
  int depth_ = 0;
};

}  // namespace

Binder::Binder(const columnar::Schema& input, std::vector<std::string> qualifiers)
    : input_(input), qualifiers_(std::move(qualifiers)) {}

Result<BoundExprPtr> Binder::Bind(const sql::Expr& expr) const {
  ExprBinder binder(input_, qualifiers_);
  return binder.Bind(expr);
}

Result<std::vector<NamedExpr>> Binder::BindSelectList(
    const std::vector<sql::SelectItem>& items) const {
  ExprBinder binder(input_, qualifiers_);
  std::vector<NamedExpr> out;
  for (const sql::SelectItem& item : items) {
    if (const sql::Star* star = item.expr->As<sql::Star>()) {
      if (!item.alias.empty()) return ErrorAt(item.location, "'*' cannot have an alias");
      WEIR_ASSIGN_OR_RETURN(std::vector<NamedExpr> expanded,
                            binder.ExpandStar(*star, item.expr->location));
      for (NamedExpr& n : expanded) out.push_back(std::move(n));
      continue;
    }
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr e, binder.Bind(*item.expr));
    std::string name = item.alias.empty() ? sql::DefaultColumnName(*item.expr) : item.alias;
    out.push_back({std::move(name), std::move(e), item.location});
  }
  return out;
}

Result<BoundExprPtr> Binder::BindPredicate(const sql::Expr& expr) const {
  WEIR_ASSIGN_OR_RETURN(BoundExprPtr e, Bind(expr));
  if (e->IsNullLiteral()) return CastTo(std::move(e), DataType::Boolean());
  if (e->type->id() != TypeId::kBoolean) {
    return ErrorAt(expr.location, "a condition must be BOOLEAN, but " + e->sql + " is " +
                                      e->type->ToDdl());
  }
  return e;
}


namespace {

// `e` with every input column reference replaced by the expression of that column of `inner`
// (a subquery's select list over its own input). Lambda bodies read the lambda's columns and
// are left alone; their captured outer expressions are rewritten. `done` maps the nodes of one
// tree, which `e`'s root keeps alive (a node freed since could share an address with a new one).
BoundExprPtr Inline(const BoundExprPtr& e, const std::vector<NamedExpr>& inner,
                    std::map<const BoundExpr*, BoundExprPtr>* done) {
  if (e->kind == BoundExpr::Kind::kColumn) return inner[e->index].expr;
  auto it = done->find(e.get());
  if (it != done->end()) return it->second;
  std::vector<BoundExprPtr> children;
  bool changed = false;
  for (size_t i = 0; i < e->children.size(); ++i) {
    const BoundExprPtr& child = e->children[i];
    children.push_back(e->kind == BoundExpr::Kind::kLambda && i == 0 ? child
                                                                      : Inline(child, inner, done));
    changed |= children.back() != child;
  }
  BoundExprPtr out = e;
  if (changed) {
    auto copy = std::make_shared<BoundExpr>(*e);
    copy->children = std::move(children);
    out = copy;
  }
  done->emplace(e.get(), out);
  return out;
}

// One level of a query with subqueries in FROM, bound over the innermost FROM item's rows.
Status BindLevel(const sql::Query& query, const columnar::Schema& source, BoundQuery* out) {
  // The rows this level's FROM item gives: the source's, or a subquery's output.
  std::vector<NamedExpr> inner;
  columnar::Schema rows = source;
  std::vector<std::string> qualifiers;
  const sql::FromClause* from = query.from ? &*query.from : nullptr;
  if (from != nullptr && from->kind == sql::FromClause::Kind::kSubquery) {
    WEIR_RETURN_NOT_OK(BindLevel(*from->subquery, source, out));
    inner = std::move(out->columns);
    rows.fields.clear();
    for (const NamedExpr& c : inner) {
      for (const columnar::Field& f : rows.fields) {
        if (EqualsIgnoreAsciiCase(f.name, c.name)) {
          return ErrorAt(c.location, "the subquery names column " + sql::QuoteIdentifier(c.name) +
                                         " twice; give one of them another alias (AS name)");
        }
      }
      rows.fields.push_back({c.name, c.expr->type, c.expr->nullable});
    }
  } else if (from != nullptr && from->kind == sql::FromClause::Kind::kTable &&
             !from->table.parts.empty()) {
    qualifiers.push_back(from->table.parts.back());
  }
  if (from != nullptr && !from->alias.empty()) qualifiers.push_back(from->alias);
  const bool subquery = from != nullptr && from->kind == sql::FromClause::Kind::kSubquery;
  auto over_source = [&](const BoundExprPtr& e) {
    std::map<const BoundExpr*, BoundExprPtr> done;
    return subquery ? Inline(e, inner, &done) : e;
  };

  Binder binder(rows, qualifiers);
  WEIR_ASSIGN_OR_RETURN(std::vector<NamedExpr> columns, binder.BindSelectList(query.select_list));
  for (NamedExpr& c : columns) c.expr = over_source(c.expr);
  if (query.where) {
    WEIR_ASSIGN_OR_RETURN(BoundExprPtr where, binder.BindPredicate(*query.where));
    where = over_source(where);
    if (out->where) {
      ExprBinder calls(rows, qualifiers);
      WEIR_ASSIGN_OR_RETURN(where, calls.Call("AND", {out->where, std::move(where)},
                                              query.where->location));
    }
    out->where = std::move(where);
  }
  if (from != nullptr && from->watermark) {
    // DLT resolves the WATERMARK column against the query's output: a plain name that is a
    // column of this level's select list (an alias, or a column passed through) is that item.
    const sql::Watermark& w = *from->watermark;
    out->watermark = &w;
    out->event_time = nullptr;
    const auto* ref = w.event_time->As<sql::ColumnRef>();
    if (ref != nullptr && ref->parts.size() == 1) {
      for (const NamedExpr& c : columns) {
        if (EqualsIgnoreAsciiCase(c.name, ref->parts[0])) out->event_time = c.expr;
      }
    }
    if (out->event_time == nullptr) {
      WEIR_ASSIGN_OR_RETURN(BoundExprPtr e, binder.Bind(*w.event_time));
      out->event_time = over_source(e);
    }
  }
  out->columns = std::move(columns);
  return Status::OK();
}

}  // namespace

Result<BoundQuery> BindQuery(const sql::Query& query, const columnar::Schema& source) {
  BoundQuery out;
  WEIR_RETURN_NOT_OK(BindLevel(query, source, &out));
  return out;
}

}  // namespace weir::expr
