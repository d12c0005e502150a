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

// findWiderTypeForTwo: same type; numeric widening (TINYINT < SMALLINT < INT < BIGINT < FLOAT <
// DOUBLE; decimals widen to hold both, with FLOAT/DOUBLE they become DOUBLE); DATE and TIMESTAMP
// become TIMESTAMP; a STRING with any other atomic type but BINARY or BOOLEAN becomes STRING.
std::optional<columnar::TypePtr> WiderType(const columnar::TypePtr& a, const columnar::TypePtr& b);

// The type both sides of a comparison are cast to (findCommonTypeForBinaryComparison, then
// WiderType): STRING vs number compares as the number (DOUBLE against a decimal), STRING vs
// DATE/TIMESTAMP as the date/timestamp.
std::optional<columnar::TypePtr> ComparisonType(const columnar::TypePtr& a,
                                                const columnar::TypePtr& b);

enum class DecimalOp { kAdd, kSubtract, kMultiply, kDivide, kModulo };
// DecimalPrecision's result type, with precision loss allowed (scale kept >= 6 when capped at 38).
columnar::TypePtr DecimalResultType(DecimalOp op, const columnar::DataType& a,
                                    const columnar::DataType& b);

}  // namespace weir::expr
