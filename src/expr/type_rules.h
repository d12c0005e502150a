// Spark's implicit type rules (TypeCoercion / DecimalPrecision, non-ANSI) for the operators and
// functions weir supports: the common type of two values, the type a comparison is made in, and
// decimal arithmetic result types. Pure functions, thread-safe.
#pragma once

#include <optional>

#include "columnar/types.h"

namespace weir::expr {

bool IsIntegralType(columnar::TypeId id);
bool IsNumericType(columnar::TypeId id);  // integral, float, double, decimal

// The decimal that holds every value of an integral type: TINYINT -> DECIMAL(3,0), SMALLINT ->
// (5,0), INT -> (10,0), BIGINT -> (20,0).
columnar::TypePtr DecimalForIntegral(columnar::TypeId id);

// The decimal an integral *literal* takes next to a decimal in an arithmetic or comparison
// operator: the narrowest that holds its value (DecimalType.fromLiteral, Spark's default
// spark.sql.legacy.literal.pickMinimumPrecision=true): 3 -> DECIMAL(1,0), -120 -> DECIMAL(3,0).
// (TINYINT literals keep DECIMAL(3,0), as in Spark.)
columnar::TypePtr DecimalForIntegralLiteral(int64_t value);

// findWiderTypeForTwo: same type; numeric widening (TINYINT < SMALLINT < INT < BIGINT < FLOAT <
// DOUBLE; decimals widen to hold both, with FLOAT/DOUBLE they become DOUBLE); DATE and TIMESTAMP
// become TIMESTAMP; a STRING with any other atomic type but BINARY or BOOLEAN becomes STRING.
std::optional<columnar::TypePtr> WiderType(const columnar::TypePtr& a, const columnar::TypePtr& b);

// findWiderTypeWithoutStringPromotion (greatest, least): WiderType without the STRING rule.
std::optional<columnar::TypePtr> WiderTypeWithoutStringPromotion(const columnar::TypePtr& a,
                                                                 const columnar::TypePtr& b);

// The type both sides of a comparison are cast to (findCommonTypeForBinaryComparison, then
// WiderType): STRING vs number compares as the number (DOUBLE against a decimal), STRING vs
// DATE/TIMESTAMP as the date/timestamp.
std::optional<columnar::TypePtr> ComparisonType(const columnar::TypePtr& a,
                                                const columnar::TypePtr& b);

enum class DecimalOp { kAdd, kSubtract, kMultiply, kDivide, kModulo, kPmod };
// DecimalPrecision's result type, with precision loss allowed (scale kept >= 6 when capped at 38).
// kPmod has kModulo's type.
columnar::TypePtr DecimalResultType(DecimalOp op, const columnar::DataType& a,
                                    const columnar::DataType& b);

// The type of round/bround/ceil/floor(DECIMAL(p,s), scale) (RoundBase.dataType): one more
// integral digit than the input; scale min(s, scale), or 0 for a negative scale.
columnar::TypePtr RoundedDecimalType(const columnar::DataType& input, int scale);

}  // namespace weir::expr
