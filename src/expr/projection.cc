#include "expr/projection.h"

#include <map>
#include <set>

#include "expr/functions.h"

namespace weir::expr {

using columnar::Batch;
using columnar::Column;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

}  // namespace

Result<Projection> Projection::Make(const std::vector<sql::SelectItem>& items,
                                    const columnar::Schema& input,
                                    std::vector<std::string> qualifiers) {
  Binder binder(input, std::move(qualifiers));
  WEIR_ASSIGN_OR_RETURN(std::vector<NamedExpr> columns, binder.BindSelectList(items));
  return Make(std::move(columns));
}

namespace {

// Shares equal subtrees among a projection's columns (hash-consing by structure), marking the
// nodes used more than once so that each is evaluated once per batch. Calls whose result
// differs per evaluation (uuid()) and lambdas are never shared.
class SubexpressionSharer {
 public:
  BoundExprPtr Intern(const BoundExprPtr& e) {
    if (e->kind == BoundExpr::Kind::kLambda) return e;
    if (e->kind == BoundExpr::Kind::kCall && e->children.empty() && !e->function->constant_per_batch) {
      return e;
    }
    std::vector<BoundExprPtr> children;
    std::string key = std::to_string(static_cast<int>(e->kind)) + "|" + e->type->ToDdl() + "|" +
                      std::to_string(e->index) + "|" + std::to_string(e->try_cast) + "|" +
                      (e->kind == BoundExpr::Kind::kLiteral ? e->sql : std::string()) + "|" +
                      std::to_string(reinterpret_cast<uintptr_t>(e->function)) + "(";
    bool same_children = true;
    for (const BoundExprPtr& child : e->children) {
      BoundExprPtr interned = Intern(child);
      same_children &= interned == child;
      key += std::to_string(reinterpret_cast<uintptr_t>(interned.get())) + ",";
      children.push_back(std::move(interned));
    }
    auto it = nodes_.find(key);
    if (it != nodes_.end()) {
      ++uses_[it->second.get()];
      return it->second;
    }
    BoundExprPtr node = e;
    if (!same_children) {
      auto copy = std::make_shared<BoundExpr>(*e);
      copy->children = std::move(children);
      node = copy;
    }
    nodes_.emplace(std::move(key), node);
    uses_[node.get()] = 1;
    return node;
  }

  // Rebuilds `e` with the shared flag set on every node used more than once (only calls and
  // casts: column references and literals cost nothing to evaluate again).
  BoundExprPtr Mark(const BoundExprPtr& e) {
    bool shared = uses_[e.get()] > 1 &&
                  (e->kind == BoundExpr::Kind::kCall || e->kind == BoundExpr::Kind::kCast);
    auto done = marked_.find(e.get());
    if (done != marked_.end()) return done->second;
    std::vector<BoundExprPtr> children;
    bool changed = shared;
    for (const BoundExprPtr& child : e->children) {
      children.push_back(e->kind == BoundExpr::Kind::kLambda ? child : Mark(child));
      changed |= children.back() != child;
    }
    BoundExprPtr out = e;
    if (changed) {
      auto copy = std::make_shared<BoundExpr>(*e);
      copy->children = std::move(children);
      copy->shared = shared;
      out = copy;
    }
    marked_.emplace(e.get(), out);
    return out;
  }

 private:
  std::map<std::string, BoundExprPtr> nodes_;
  std::map<const BoundExpr*, int> uses_;
  std::map<const BoundExpr*, BoundExprPtr> marked_;
};

}  // namespace

Result<Projection> Projection::Make(std::vector<NamedExpr> columns) {
  SubexpressionSharer sharer;
  for (NamedExpr& c : columns) c.expr = sharer.Intern(c.expr);
  for (NamedExpr& c : columns) c.expr = sharer.Mark(c.expr);
  Projection p;
  std::set<std::string> names;
  for (const NamedExpr& c : columns) {
    if (!names.insert(Lower(c.name)).second) {
      return Status::InvalidArgument(c.location.ToString() + ": the select list names column " +
                                     sql::QuoteIdentifier(c.name) +
                                     " twice; give one of them another alias (AS name)");
    }
    p.output_schema_.fields.push_back(columnar::Field{c.name, c.expr->type, c.expr->nullable});
  }
  p.columns_ = std::move(columns);
  return p;
}

Result<Batch> Projection::Evaluate(const Batch& input, EvalContext& context) const {
  context.shared_results.clear();
  Batch out;
  out.schema = output_schema_;
  out.columns.reserve(columns_.size());
  out.num_rows_without_columns = input.num_rows();
  for (const NamedExpr& c : columns_) {
    WEIR_ASSIGN_OR_RETURN(Column column, expr::Evaluate(*c.expr, input, context));
    out.columns.push_back(std::move(column));
  }
  context.shared_results.clear();
  return out;
}

Result<Batch> Projection::Evaluate(Batch&& input, EvalContext& context) const {
  context.shared_results.clear();
  Batch out;
  out.schema = output_schema_;
  out.num_rows_without_columns = input.num_rows();
  // Columns passed through as is, each moved at most once (after everything else is evaluated,
  // since other expressions may still read them).
  std::vector<int> moved_from(columns_.size(), -1);
  std::vector<bool> taken(input.columns.size(), false);
  out.columns.reserve(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    const BoundExpr& e = *columns_[i].expr;
    if (e.kind == BoundExpr::Kind::kColumn && !taken[e.index]) {
      taken[e.index] = true;
      moved_from[i] = e.index;
      out.columns.emplace_back(e.type);  // placeholder
      continue;
    }
    WEIR_ASSIGN_OR_RETURN(Column column, expr::Evaluate(e, input, context));
    out.columns.push_back(std::move(column));
  }
  context.shared_results.clear();  // they may borrow the input's columns
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (moved_from[i] >= 0) out.columns[i] = std::move(input.columns[moved_from[i]]);
  }
  return out;
}

Result<Filter> Filter::Make(const sql::Expr& condition, const columnar::Schema& input,
                            std::vector<std::string> qualifiers) {
  Binder binder(input, std::move(qualifiers));
  WEIR_ASSIGN_OR_RETURN(BoundExprPtr bound, binder.BindPredicate(condition));
  return Filter(std::move(bound));
}

std::vector<int32_t> TrueRows(const Column& predicate) {
  std::vector<int32_t> rows;
  const bool* values = predicate.values<bool>();
  const uint8_t* validity = predicate.validity();
  int64_t n = predicate.size();
  rows.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (values[i] && (validity == nullptr || validity[i] != 0)) rows.push_back(static_cast<int32_t>(i));
  }
  return rows;
}

Result<std::vector<int32_t>> Filter::Select(const Batch& input, EvalContext& context) const {
  context.shared_results.clear();
  WEIR_ASSIGN_OR_RETURN(Vector v, EvaluateVector(*condition_, input, context));
  if (v.constant()) {
    std::vector<int32_t> rows;
    if (!v.IsNull(0) && v.column().Value<uint8_t>(0) != 0) {
      rows.resize(static_cast<size_t>(input.num_rows()));
      for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int32_t>(i);
    }
    return rows;
  }
  return TrueRows(v.column());
}

Result<Batch> Filter::Apply(const Batch& input, EvalContext& context) const {
  WEIR_ASSIGN_OR_RETURN(std::vector<int32_t> rows, Select(input, context));
  if (static_cast<int64_t>(rows.size()) == input.num_rows()) return input;
  return TakeRows(input, rows);
}

Column TakeRows(const Column& column, std::span<const int32_t> rows) {
  Column out(column.type());
  int64_t n = static_cast<int64_t>(rows.size());
  int width = column.type()->byte_width();
  if (column.null_count() > 0) {
    std::vector<uint8_t>& validity = out.validity_buffer();
    validity.resize(rows.size());
    const uint8_t* in = column.validity();
    for (int64_t i = 0; i < n; ++i) validity[i] = in[rows[i]];
  }
  if (width > 0) {
    std::vector<uint8_t>& fixed = out.fixed_buffer();
    fixed.resize(static_cast<size_t>(n) * width);
    const uint8_t* src = column.values<uint8_t>();
    switch (width) {
      case 1:
        for (int64_t i = 0; i < n; ++i) fixed[i] = src[rows[i]];
        break;
      case 4:
        for (int64_t i = 0; i < n; ++i) std::memcpy(&fixed[i * 4], src + rows[i] * 4, 4);
        break;
      case 8:
        for (int64_t i = 0; i < n; ++i) std::memcpy(&fixed[i * 8], src + rows[i] * 8, 8);
        break;
      default:
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(&fixed[i * width], src + static_cast<int64_t>(rows[i]) * width, width);
        }
    }
  } else if (column.type()->is_binary_like()) {
    std::vector<std::string_view>& strings = out.string_buffer();
    strings.resize(rows.size());
    const std::string_view* src = column.strings();
    for (int64_t i = 0; i < n; ++i) strings[i] = src[rows[i]];
    out.ShareBuffersFrom(column);
  } else if (column.type_id() == columnar::TypeId::kStruct) {
    for (int c = 0; c < column.num_children(); ++c) {
      out.mutable_child(c) = TakeRows(column.child(c), rows);
    }
  } else {  // list / map: gather the child ranges
    const int32_t* offsets = column.offsets();
    std::vector<int32_t> child_rows;
    std::vector<int32_t>& out_offsets = out.offsets_buffer();
    out_offsets.assign(1, 0);
    for (int64_t i = 0; i < n; ++i) {
      for (int32_t j = offsets[rows[i]]; j < offsets[rows[i] + 1]; ++j) child_rows.push_back(j);
      out_offsets.push_back(static_cast<int32_t>(child_rows.size()));
    }
    for (int c = 0; c < column.num_children(); ++c) {
      out.mutable_child(c) = TakeRows(column.child(c), child_rows);
    }
  }
  out.SetSize(n);
  return out;
}

Batch TakeRows(const Batch& batch, std::span<const int32_t> rows) {
  Batch out;
  out.schema = batch.schema;
  out.num_rows_without_columns = static_cast<int64_t>(rows.size());
  out.columns.reserve(batch.columns.size());
  for (const Column& c : batch.columns) out.columns.push_back(TakeRows(c, rows));
  return out;
}

}  // namespace weir::expr
