#include "expr/type_rules.h"

#include <algorithm>

namespace weir::expr {

namespace {

using columnar::DataType;
using columnar::TypeId;
using columnar::TypePtr;

// Rank in the numeric widening order; -1 for non-numeric and decimals.
int NumericRank(TypeId id) {
  switch (id) {
    case TypeId::kInt8: return 0;
    case TypeId::kInt16: return 1;
    case TypeId::kInt32: return 2;
    case TypeId::kInt64: return 3;
    case TypeId::kFloat: return 4;
    case TypeId::kDouble: return 5;
    default: return -1;
  }
}

TypePtr BoundedDecimal(int precision, int scale) {
  if (precision > 38) {
    // DecimalType.adjustPrecisionScale: keep the integral digits, at least 6 fraction digits.
    int int_digits = precision - scale;
    int min_scale = std::min(scale, 6);
    scale = std::max(38 - int_digits, min_scale);
    precision = 38;
  }
  return DataType::Decimal(precision, std::max(0, std::min(scale, precision)));
}

bool IsDatetime(TypeId id) {
  return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
}

bool IsAtomic(TypeId id) {
  return id != TypeId::kStruct && id != TypeId::kList && id != TypeId::kMap;
}

std::optional<TypePtr> TightestCommonType(const TypePtr& a, const TypePtr& b) {
  if (a->Equals(*b)) return a;
  int ra = NumericRank(a->id()), rb = NumericRank(b->id());
  if (ra >= 0 && rb >= 0) return ra >= rb ? a : b;
  TypeId x = a->id(), y = b->id();
  if (IsDatetime(x) && IsDatetime(y)) {
    if (x == TypeId::kTimestamp || y == TypeId::kTimestamp) return DataType::Timestamp();
    return DataType::TimestampNtz();  // DATE with TIMESTAMP_NTZ
  }
  return std::nullopt;
}

}  // namespace

bool IsIntegralType(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64;
}

bool IsNumericType(TypeId id) { return NumericRank(id) >= 0 || id == TypeId::kDecimal; }

TypePtr DecimalForIntegral(TypeId id) {
  switch (id) {
    case TypeId::kInt8: return DataType::Decimal(3, 0);
    case TypeId::kInt16: return DataType::Decimal(5, 0);
    case TypeId::kInt32: return DataType::Decimal(10, 0);
    default: return DataType::Decimal(20, 0);
  }
}

TypePtr DecimalForIntegralLiteral(int64_t value) {
  // Digits of |value| (at least 1); unsigned so that INT64_MIN has 19.
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  int digits = 1;
  while (magnitude >= 10) {
    magnitude /= 10;
    ++digits;
  }
  return DataType::Decimal(digits, 0);
}

namespace {

// findWiderTypeForTwo, with or without the STRING promotion.
std::optional<TypePtr> Wider(const TypePtr& a, const TypePtr& b, bool string_promotion) {
  if (auto t = TightestCommonType(a, b)) return t;
  TypeId x = a->id(), y = b->id();
  if (x == TypeId::kDecimal || y == TypeId::kDecimal) {
    if (x == TypeId::kFloat || x == TypeId::kDouble || y == TypeId::kFloat || y == TypeId::kDouble) {
      return DataType::Double();
    }
    TypePtr l = x == TypeId::kDecimal ? a : IsIntegralType(x) ? DecimalForIntegral(x) : nullptr;
    TypePtr r = y == TypeId::kDecimal ? b : IsIntegralType(y) ? DecimalForIntegral(y) : nullptr;
    if (l && r) {
      int scale = std::max(l->scale(), r->scale());
      int range = std::max(l->precision() - l->scale(), r->precision() - r->scale());
      return BoundedDecimal(range + scale, scale);
    }
  }
  // String promotion: a STRING with any other atomic type but BINARY or BOOLEAN.
  auto promotes = [](TypeId other) {
    return IsAtomic(other) && other != TypeId::kBinary && other != TypeId::kBoolean;
  };
  if (string_promotion && ((x == TypeId::kString && promotes(y)) ||
                           (y == TypeId::kString && promotes(x)))) {
    return DataType::String();
  }
  if (x == y && x == TypeId::kList) {
    auto e = Wider(a->element().type, b->element().type, string_promotion);
    if (e) return DataType::List(*e, a->element().nullable || b->element().nullable);
  }
  return std::nullopt;
}

}  // namespace

std::optional<TypePtr> WiderType(const TypePtr& a, const TypePtr& b) {
  return Wider(a, b, /*string_promotion=*/true);
}

std::optional<TypePtr> WiderTypeWithoutStringPromotion(const TypePtr& a, const TypePtr& b) {
  return Wider(a, b, /*string_promotion=*/false);
}

std::optional<TypePtr> ComparisonType(const TypePtr& a, const TypePtr& b) {
  TypeId x = a->id(), y = b->id();
  if (x == TypeId::kString && IsDatetime(y)) return b;
  if (y == TypeId::kString && IsDatetime(x)) return a;
  if (x == TypeId::kString && y == TypeId::kDecimal) return DataType::Double();
  if (y == TypeId::kString && x == TypeId::kDecimal) return DataType::Double();
  if (x == TypeId::kString && IsAtomic(y) && y != TypeId::kString) return b;
  if (y == TypeId::kString && IsAtomic(x) && x != TypeId::kString) return a;
  return WiderType(a, b);
}

TypePtr DecimalResultType(DecimalOp op, const DataType& a, const DataType& b) {
  int p1 = a.precision(), s1 = a.scale(), p2 = b.precision(), s2 = b.scale();
  switch (op) {
    case DecimalOp::kAdd:
    case DecimalOp::kSubtract: {
      int scale = std::max(s1, s2);
      return BoundedDecimal(std::max(p1 - s1, p2 - s2) + scale + 1, scale);
    }
    case DecimalOp::kMultiply: return BoundedDecimal(p1 + p2 + 1, s1 + s2);
    case DecimalOp::kDivide: {
      int scale = std::max(6, s1 + p2 + 1);
      return BoundedDecimal(p1 - s1 + s2 + scale, scale);
    }
    case DecimalOp::kModulo:
    case DecimalOp::kPmod: {
      int scale = std::max(s1, s2);
      return BoundedDecimal(std::min(p1 - s1, p2 - s2) + scale, scale);
    }
  }
  return DataType::Decimal(38, 18);
}

TypePtr RoundedDecimalType(const DataType& input, int scale) {
  int p = input.precision(), s = input.scale();
  int integral_digits = p - s + 1;  // rounding up may carry into one more digit
  if (scale < 0) {
    // At least -scale + 1 digits: round(5, -1) = 10. (int64 so that -INT32_MIN cannot overflow.)
    int64_t digits = std::max<int64_t>(integral_digits, -static_cast<int64_t>(scale) + 1);
    return DataType::Decimal(static_cast<int>(std::min<int64_t>(digits, 38)), 0);
  }
  int new_scale = std::min(s, scale);
  return DataType::Decimal(std::min(integral_digits + new_scale, 38), new_scale);
}

}  // namespace weir::expr
