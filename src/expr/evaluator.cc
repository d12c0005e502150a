#include "expr/evaluator.h"

#include <algorithm>

#include "columnar/text_format.h"
#include "expr/cast.h"
#include "expr/functions.h"

namespace weir::expr {

EvalSettings EvalSettings::FromConf(const std::map<std::string, std::string>& settings) {
  EvalSettings out;
  auto ansi = settings.find("spark.sql.ansi.enabled");
  out.ansi = ansi != settings.end() && columnar::EqualsIgnoreAsciiCase(ansi->second, "true");
  auto policy = settings.find("spark.sql.mapKeyDedupPolicy");
  if (policy != settings.end() && columnar::EqualsIgnoreAsciiCase(policy->second, "LAST_WIN")) {
    out.map_key_dedup_policy = MapKeyDedupPolicy::kLastWin;
  }
  return out;
}

using columnar::Column;

void RowErrors::Reset(int64_t num_rows) {
  num_rows_ = num_rows;
  count_ = 0;
  reason_index_.clear();
  reasons_.clear();
}

void RowErrors::Mark(int64_t row, std::string_view message) {
  if (reason_index_.empty()) reason_index_.assign(static_cast<size_t>(num_rows_), 0);
  if (reasons_.empty() || reasons_.back() != message) reasons_.emplace_back(message);
  auto index = static_cast<uint32_t>(reasons_.size());
  int64_t begin = row < 0 ? 0 : row;
  int64_t end = row < 0 ? num_rows_ : std::min(row + 1, num_rows_);
  for (int64_t i = begin; i < end; ++i) {
    if (reason_index_[i] == 0) {
      reason_index_[i] = index;
      ++count_;
    }
  }
}

Column Broadcast(const Column& column, int64_t row, int64_t num_rows) {
  Column out(column.type());
  int width = column.type()->byte_width();
  if (column.IsNull(row)) {
    out.Reserve(num_rows);
    for (int64_t i = 0; i < num_rows; ++i) out.AppendNull();
    return out;
  }
  if (width > 0) {
    std::vector<uint8_t>& fixed = out.fixed_buffer();
    fixed.resize(static_cast<size_t>(num_rows) * width);
    const uint8_t* src = column.values<uint8_t>() + row * width;
    for (int64_t i = 0; i < num_rows; ++i) std::memcpy(fixed.data() + i * width, src, width);
  } else if (column.type()->is_binary_like()) {
    out.string_buffer().assign(static_cast<size_t>(num_rows), column.StringAt(row));
    out.ShareBuffersFrom(column);
  } else {
    out.Reserve(num_rows);
    for (int64_t i = 0; i < num_rows; ++i) out.AppendFrom(column, row);
    return out;
  }
  out.SetSize(num_rows);
  return out;
}

Column Vector::Materialize(int64_t num_rows) && {
  if (constant_) return Broadcast(column(), 0, num_rows);
  if (owned_) return std::move(*owned_);
  return *borrowed_;
}

namespace {

// Field `index` of a struct vector, NULL where the struct is NULL. The parent may be owned and
// die with this call, so the child is copied (its string bytes stay shared).
Vector StructField(Vector parent, int index) {
  const Column& s = parent.column();
  const Column& child = s.child(index);
  Column out = child;
  if (s.null_count() > 0) {
    std::vector<uint8_t> validity(static_cast<size_t>(s.size()), 1);
    for (int64_t i = 0; i < s.size(); ++i) {
      validity[i] = (!s.IsNull(i) && !child.IsNull(i)) ? 1 : 0;
    }
    out.validity_buffer() = std::move(validity);
    out.SetSize(s.size());
  }
  return Vector::Own(std::move(out), parent.constant());
}

}  // namespace

namespace {

Result<Vector> EvaluateNode(const BoundExpr& expr, const columnar::Batch& batch, EvalContext& context);

}  // namespace

Result<Vector> EvaluateVector(const BoundExpr& expr, const columnar::Batch& batch,
                              EvalContext& context) {
  if (!expr.shared) return EvaluateNode(expr, batch, context);
  auto key = std::make_pair(&expr, &batch);
  auto it = context.shared_results.find(key);
  if (it == context.shared_results.end()) {
    WEIR_ASSIGN_OR_RETURN(Vector v, EvaluateNode(expr, batch, context));
    it = context.shared_results.emplace(key, std::move(v)).first;
  }
  return Vector::Borrow(&it->second.column(), it->second.constant());
}

namespace {

Result<Vector> EvaluateNode(const BoundExpr& expr, const columnar::Batch& batch, EvalContext& context) {
  int64_t num_rows = batch.num_rows();
  switch (expr.kind) {
    case BoundExpr::Kind::kColumn:
      if (expr.index < 0 || expr.index >= static_cast<int>(batch.columns.size())) {
        return Status::Internal("bound column " + std::to_string(expr.index) +
                                " is outside the batch");
      }
      return Vector::Borrow(&batch.columns[expr.index], false);
    case BoundExpr::Kind::kLiteral:
      return Vector::Borrow(expr.literal.get(), true);
    case BoundExpr::Kind::kField: {
      const BoundExpr& parent = *expr.children[0];
      if (parent.kind == BoundExpr::Kind::kColumn) {
        const Column& s = batch.columns[parent.index];
        if (s.null_count() == 0) return Vector::Borrow(&s.child(expr.index), false);
      }
      WEIR_ASSIGN_OR_RETURN(Vector p, EvaluateVector(parent, batch, context));
      return StructField(std::move(p), expr.index);
    }
    case BoundExpr::Kind::kCast: {
      WEIR_ASSIGN_OR_RETURN(Vector input, EvaluateVector(*expr.children[0], batch, context));
      return CastVector(std::move(input), expr.type, num_rows, context, expr.try_cast);
    }
    case BoundExpr::Kind::kLambda: {
      // The closure: one struct field per captured expression.
      std::vector<Vector> captured;
      bool all_constant = true;
      for (size_t i = 1; i < expr.children.size(); ++i) {
        WEIR_ASSIGN_OR_RETURN(Vector v, EvaluateVector(*expr.children[i], batch, context));
        all_constant &= v.constant();
        captured.push_back(std::move(v));
      }
      int64_t rows = all_constant ? 1 : num_rows;
      std::vector<columnar::Field> fields;
      for (size_t i = 0; i < captured.size(); ++i) {
        fields.push_back({"capture" + std::to_string(i), expr.children[i + 1]->type, true});
      }
      Column closure(columnar::DataType::Struct(std::move(fields)));
      for (size_t i = 0; i < captured.size(); ++i) {
        closure.mutable_child(static_cast<int>(i)) = std::move(captured[i]).Materialize(rows);
      }
      closure.SetSize(rows);
      return Vector::Own(std::move(closure), all_constant);
    }
    case BoundExpr::Kind::kCall: {
      std::vector<Vector> args;
      args.reserve(expr.children.size());
      // A call without arguments is one value for the batch only when fixed per batch
      // (current_timestamp()); uuid() gives every row its own.
      bool all_constant = !expr.children.empty() || expr.function->constant_per_batch;
      for (const BoundExprPtr& child : expr.children) {
        WEIR_ASSIGN_OR_RETURN(Vector v, EvaluateVector(*child, batch, context));
        all_constant &= v.constant();
        args.push_back(std::move(v));
      }
      KernelInput input{expr, std::span<Vector>(args), all_constant ? 1 : num_rows, context};
      WEIR_ASSIGN_OR_RETURN(Vector result, expr.function->kernel(input));
      return result;
    }
  }
  return Status::Internal("unknown bound expression kind");
}

}  // namespace

Result<Column> Evaluate(const BoundExpr& expr, const columnar::Batch& batch, EvalContext& context) {
  WEIR_ASSIGN_OR_RETURN(Vector v, EvaluateVector(expr, batch, context));
  return std::move(v).Materialize(batch.num_rows());
}

}  // namespace weir::expr
