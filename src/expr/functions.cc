#include "expr/functions.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "columnar/text_format.h"
#include "expr/cast.h"
#include "expr/kernel.h"
#include "expr/type_rules.h"

namespace weir::expr {

namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// ------------------------------------------------------------------ type rules

bool IsUntypedNull(const BoundExprPtr& e) { return e->IsNullLiteral(); }

std::string TypeName(const BoundExprPtr& e) {
  return IsUntypedNull(e) ? std::string("VOID") : e->type->ToDdl();
}

// An argument as the user wrote it, for messages.
std::string ArgumentName(const BoundExprPtr& e) { return e->sql.empty() ? TypeName(e) : e->sql; }

// Casts every argument to a common type computed with `combine`; NULL literals follow along.
Result<TypePtr> CoerceAll(std::vector<BoundExprPtr>& args, size_t first, std::string_view what,
                          std::optional<TypePtr> (*combine)(const TypePtr&, const TypePtr&)) {
  std::optional<TypePtr> common;
  for (size_t i = first; i < args.size(); ++i) {
    if (IsUntypedNull(args[i])) continue;
    if (!common) {
      common = args[i]->type;
      continue;
    }
    std::optional<TypePtr> next = combine(*common, args[i]->type);
    if (!next) {
      return Status::InvalidArgument(std::string(what) + " needs compatible types, got " +
                                     (*common)->ToDdl() + " and " + args[i]->type->ToDdl());
    }
    common = *next;
  }
  if (!common) common = DataType::String();  // all NULL
  for (size_t i = first; i < args.size(); ++i) {
    WEIR_ASSIGN_OR_RETURN(args[i], CastTo(args[i], *common));
  }
  return *common;
}

// The decimal an integral operand of an arithmetic or comparison operator becomes next to a
// decimal (DecimalPrecision): a literal takes the narrowest type holding its value (3 ->
// DECIMAL(1,0)), anything else the type holding every value of its type (INT -> DECIMAL(10,0)).
TypePtr DecimalForOperand(const BoundExpr& e) {
  TypeId id = e.type->id();
  if (e.kind == BoundExpr::Kind::kLiteral && !e.IsNullLiteral()) {
    const Column& value = *e.literal;
    switch (id) {
      case TypeId::kInt16: return DecimalForIntegralLiteral(value.Value<int16_t>(0));
      case TypeId::kInt32: return DecimalForIntegralLiteral(value.Value<int32_t>(0));
      case TypeId::kInt64: return DecimalForIntegralLiteral(value.Value<int64_t>(0));
      default: break;
    }
  }
  return DecimalForIntegral(id);
}

template <DecimalOp op>
Result<TypePtr> ArithmeticRule(std::vector<BoundExprPtr>& args) {
  static constexpr std::string_view kNames[] = {"+", "-", "*", "/", "%", "pmod"};
  std::string_view name = kNames[static_cast<int>(op)];
  // Strings are read as DOUBLE (non-ANSI implicit cast); a NULL takes the other side's type.
  for (BoundExprPtr& a : args) {
    if (!IsUntypedNull(a) && a->type->id() == TypeId::kString) {
      WEIR_ASSIGN_OR_RETURN(a, CastTo(a, DataType::Double()));
    }
  }
  for (const BoundExprPtr& a : args) {
    if (!IsUntypedNull(a) && !IsNumericType(a->type->id())) {
      return Status::InvalidArgument("'" + std::string(name) + "' needs numbers, got " +
                                     TypeName(args[0]) + " and " + TypeName(args[1]));
    }
  }
  if (IsUntypedNull(args[0]) && IsUntypedNull(args[1])) {
    WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::Double()));
  }
  const TypePtr& t0 = IsUntypedNull(args[0]) ? args[1]->type : args[0]->type;
  const TypePtr& t1 = IsUntypedNull(args[1]) ? args[0]->type : args[1]->type;
  bool decimal = t0->id() == TypeId::kDecimal || t1->id() == TypeId::kDecimal;
  bool floating = t0->id() == TypeId::kFloat || t0->id() == TypeId::kDouble ||
                  t1->id() == TypeId::kFloat || t1->id() == TypeId::kDouble;
  if (decimal && !floating) {
    // Each side keeps its own precision and scale; integral sides become decimals.
    TypePtr d0 = t0->id() == TypeId::kDecimal ? t0
                 : IsUntypedNull(args[0])     ? DecimalForIntegral(t0->id())
                                              : DecimalForOperand(*args[0]);
    TypePtr d1 = t1->id() == TypeId::kDecimal ? t1
                 : IsUntypedNull(args[1])     ? DecimalForIntegral(t1->id())
                                              : DecimalForOperand(*args[1]);
    WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], d0));
    WEIR_ASSIGN_OR_RETURN(args[1], CastTo(args[1], d1));
    return DecimalResultType(op, *d0, *d1);
  }
  TypePtr common;
  if (op == DecimalOp::kDivide) {
    common = DataType::Double();  // Spark's Divide of non-decimals is always DOUBLE
  } else {
    std::optional<TypePtr> w = WiderType(t0, t1);
    if (!w) return Status::InvalidArgument("'" + std::string(name) + "' needs numbers");
    common = *w;
  }
  WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], common));
  WEIR_ASSIGN_OR_RETURN(args[1], CastTo(args[1], common));
  return common;
}

Result<TypePtr> IntegerDivideRule(std::vector<BoundExprPtr>& args) {
  for (BoundExprPtr& a : args) {
    if (!IsUntypedNull(a) && !IsNumericType(a->type->id()) && a->type->id() != TypeId::kString) {
      return Status::InvalidArgument("DIV needs numbers, got " + TypeName(args[0]) + " and " +
                                     TypeName(args[1]));
    }
    WEIR_ASSIGN_OR_RETURN(a, CastTo(a, DataType::Int64()));
  }
  return DataType::Int64();
}

Result<TypePtr> NegateRule(std::vector<BoundExprPtr>& args) {
  if (IsUntypedNull(args[0])) {
    WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::Double()));
  }
  if (args[0]->type->id() == TypeId::kString) {
    WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::Double()));
  }
  if (!IsNumericType(args[0]->type->id())) {
    return Status::InvalidArgument("unary '-' needs a number, got " + args[0]->type->ToDdl());
  }
  return args[0]->type;
}

Result<TypePtr> ComparisonRule(std::vector<BoundExprPtr>& args) {
  // An integral literal compared with a decimal becomes its narrowest decimal first, as in
  // DecimalPrecision (so that comparing with a DECIMAL(38,37) loses no scale).
  for (size_t i = 0; i < 2 && args.size() == 2; ++i) {
    const BoundExprPtr& other = args[1 - i];
    if (args[i]->kind == BoundExpr::Kind::kLiteral && !IsUntypedNull(args[i]) &&
        IsIntegralType(args[i]->type->id()) && !IsUntypedNull(other) &&
        other->type->id() == TypeId::kDecimal) {
      WEIR_ASSIGN_OR_RETURN(args[i], CastTo(args[i], DecimalForOperand(*args[i])));
    }
  }
  WEIR_RETURN_NOT_OK(CoerceAll(args, 0, "a comparison", &ComparisonType).status());
  TypeId id = args[0]->type->id();
  if (id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap) {
    return Status::InvalidArgument("comparing " + args[0]->type->ToDdl() +
                                   " values is not supported");
  }
  return DataType::Boolean();
}

Result<TypePtr> BooleanRule(std::vector<BoundExprPtr>& args) {
  for (BoundExprPtr& a : args) {
    if (!IsUntypedNull(a) && a->type->id() != TypeId::kBoolean && a->type->id() != TypeId::kString) {
      return Status::InvalidArgument("a boolean operator needs BOOLEAN arguments, got " +
                                     a->type->ToDdl());
    }
    WEIR_ASSIGN_OR_RETURN(a, CastTo(a, DataType::Boolean()));
  }
  return DataType::Boolean();
}

Result<TypePtr> AnyToBooleanRule(std::vector<BoundExprPtr>&) { return DataType::Boolean(); }

Result<TypePtr> ConcatRule(std::vector<BoundExprPtr>& args) {
  bool all_binary = !args.empty();
  for (const BoundExprPtr& a : args) {
    if (IsUntypedNull(a) || a->type->id() != TypeId::kBinary) all_binary = false;
  }
  TypePtr type = all_binary ? DataType::Binary() : DataType::String();
  for (BoundExprPtr& a : args) {
    TypeId id = IsUntypedNull(a) ? TypeId::kString : a->type->id();
    if (id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap) {
      return Status::InvalidArgument("concat needs strings, got " + a->type->ToDdl());
    }
    WEIR_ASSIGN_OR_RETURN(a, CastTo(a, type));
  }
  return type;
}

Result<TypePtr> InRule(std::vector<BoundExprPtr>& args) {
  WEIR_RETURN_NOT_OK(CoerceAll(args, 0, "IN", &ComparisonType).status());
  return DataType::Boolean();
}

Result<TypePtr> CoalesceRule(std::vector<BoundExprPtr>& args) {
  return CoerceAll(args, 0, "coalesce", &WiderType);
}

// CASE: arguments are when_1, then_1, ..., when_n, then_n, else.
Result<TypePtr> CaseRule(std::vector<BoundExprPtr>& args) {
  std::vector<BoundExprPtr> results;
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    BoundExprPtr& when = args[i];
    if (!IsUntypedNull(when) && when->type->id() != TypeId::kBoolean) {
      return Status::InvalidArgument("CASE WHEN needs a BOOLEAN condition, got " +
                                     when->type->ToDdl());
    }
    WEIR_ASSIGN_OR_RETURN(when, CastTo(when, DataType::Boolean()));
    results.push_back(args[i + 1]);
  }
  results.push_back(args.back());
  WEIR_ASSIGN_OR_RETURN(TypePtr type, CoerceAll(results, 0, "CASE", &WiderType));
  size_t r = 0;
  for (size_t i = 0; i + 1 < args.size(); i += 2) args[i + 1] = results[r++];
  args.back() = results[r];
  return type;
}

Result<TypePtr> LengthRule(std::vector<BoundExprPtr>& args) {
  if (IsUntypedNull(args[0]) || args[0]->type->id() != TypeId::kBinary) {
    WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::String()));
  }
  return DataType::Int32();
}

Result<TypePtr> SubstringRule(std::vector<BoundExprPtr>& args) {
  WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::String()));
  for (size_t i = 1; i < args.size(); ++i) {
    WEIR_ASSIGN_OR_RETURN(args[i], CastTo(args[i], DataType::Int32()));
  }
  return DataType::String();
}

Result<TypePtr> TimestampRule(std::vector<BoundExprPtr>&) { return DataType::Timestamp(); }
Result<TypePtr> DateRule(std::vector<BoundExprPtr>&) { return DataType::Date(); }

// ------------------------------------------------------------------ kernels

// Integral arithmetic wraps like Java's (two's complement, no UB).
template <typename T>
T WrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
T WrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
T WrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

// Rescales an unscaled decimal from scale `from` to `to` (HALF_UP); false on overflow of 38 digits.
bool Rescale(Int128 v, int from, int to, Int128* out) {
  static const Int128 kLimit = columnar::MaxDecimalUnscaled(38);
  if (to >= from) {
    Int128 f = Pow10(to - from);
    if (v > kLimit / f || v < -(kLimit / f)) return false;
    *out = v * f;
    return true;
  }
  Int128 d = Pow10(from - to);
  Int128 q = v / d, r = v % d;
  if ((r < 0 ? -r : r) * 2 >= d) q += v < 0 ? -1 : 1;
  *out = q;
  return true;
}

bool FitsPrecision(Int128 v, int precision) {
  Int128 limit = columnar::MaxDecimalUnscaled(precision);
  return v <= limit && v >= -limit;
}

template <DecimalOp op>
Vector DecimalArithmetic(const KernelInput& in) {
  const DataType& ta = *in.call.children[0]->type;
  const DataType& tb = *in.call.children[1]->type;
  const DataType& tr = *in.call.type;
  int sa = ta.scale(), sb = tb.scale(), sr = tr.scale(), pr = tr.precision();
  return BinaryKernel<Int128, Int128>(in, [&](Int128 a, Int128 b, Int128* r) {
    Int128 x, y, v;
    switch (op) {
      case DecimalOp::kAdd:
      case DecimalOp::kSubtract:
      case DecimalOp::kModulo:
      case DecimalOp::kPmod:
        if (!Rescale(a, sa, sr, &x) || !Rescale(b, sb, sr, &y)) return false;
        if (op == DecimalOp::kModulo || op == DecimalOp::kPmod) {
          if (y == 0) return false;
          v = x % y;
          if (op == DecimalOp::kPmod && v < 0) v = (v + y) % y;  // Spark's pmod: (r + n) % n
        } else {
          v = op == DecimalOp::kAdd ? x + y : x - y;
        }
        break;
      case DecimalOp::kMultiply:
        if (__builtin_mul_overflow(a, b, &v)) return false;
        if (!Rescale(v, sa + sb, sr, &v)) return false;
        break;
      case DecimalOp::kDivide: {
        if (b == 0) return false;
        // a/10^sa / (b/10^sb) at scale sr = a * 10^(sr - sa + sb) / b, rounded HALF_UP.
        int shift = sr - sa + sb;
        Int128 num;
        if (shift >= 0) {
          if (shift > 38 || __builtin_mul_overflow(a, Pow10(shift), &num)) return false;
        } else {
          num = a / Pow10(-shift);
        }
        Int128 q = num / b, rem = num % b;
        Int128 abs_rem = rem < 0 ? -rem : rem, abs_b = b < 0 ? -b : b;
        if (abs_rem * 2 >= abs_b) q += ((num < 0) != (b < 0)) ? -1 : 1;
        v = q;
        break;
      }
    }
    if (!FitsPrecision(v, pr)) return false;
    *r = v;
    return true;
  });
}

template <DecimalOp op>
Result<Vector> ArithmeticKernel(const KernelInput& in) {
  TypeId id = in.call.type->id();
  if (id == TypeId::kDecimal) return DecimalArithmetic<op>(in);
  return DispatchValue(id, [&]<typename T>() -> Result<Vector> {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string_view> ||
                  std::is_same_v<T, Int128>) {
      return Status::Internal("arithmetic on a non-numeric type");
    } else {
      return BinaryKernel<T, T>(in, [](T a, T b, T* r) {
        if constexpr (std::is_floating_point_v<T>) {
          switch (op) {
            case DecimalOp::kAdd: *r = a + b; return true;
            case DecimalOp::kSubtract: *r = a - b; return true;
            case DecimalOp::kMultiply: *r = a * b; return true;
            case DecimalOp::kDivide:
              if (b == 0) return false;  // Spark: x / 0 is NULL
              *r = a / b;
              return true;
            case DecimalOp::kModulo:
              if (b == 0) return false;
              *r = std::fmod(a, b);
              return true;
            case DecimalOp::kPmod: {
              if (b == 0) return false;
              T m = std::fmod(a, b);
              *r = m < 0 ? std::fmod(m + b, b) : m;
              return true;
            }
          }
        } else {
          switch (op) {
            case DecimalOp::kAdd: *r = WrapAdd(a, b); return true;
            case DecimalOp::kSubtract: *r = WrapSub(a, b); return true;
            case DecimalOp::kMultiply: *r = WrapMul(a, b); return true;
            case DecimalOp::kDivide: return false;  // never: the type rule makes it DOUBLE
            case DecimalOp::kModulo:
              if (b == 0) return false;
              *r = (b == -1) ? T{0} : static_cast<T>(a % b);
              return true;
            case DecimalOp::kPmod: {
              if (b == 0) return false;
              // As Java computes it: TINYINT/SMALLINT in int, INT and BIGINT wrapping.
              using W = decltype(a + b);
              W m = (b == -1) ? W{0} : static_cast<W>(a % b);
              if (m < 0) m = static_cast<W>(WrapAdd<W>(m, b) % b);
              *r = static_cast<T>(m);
              return true;
            }
          }
        }
        return false;
      });
    }
  });
}

Result<Vector> IntegerDivideKernel(const KernelInput& in) {
  return BinaryKernel<int64_t, int64_t>(in, [](int64_t a, int64_t b, int64_t* r) {
    if (b == 0) return false;
    *r = (b == -1) ? WrapSub<int64_t>(0, a) : a / b;
    return true;
  });
}

Result<Vector> NegateKernel(const KernelInput& in) {
  TypeId id = in.call.type->id();
  return DispatchValue(id, [&]<typename T>() -> Result<Vector> {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string_view>) {
      return Status::Internal("negation of a non-numeric type");
    } else {
      Reader<T> a(in.args[0]);
      FixedOut<T> out(in.call.type, in.num_rows);
      for (int64_t i = 0; i < in.num_rows; ++i) {
        if (a.IsNull(i)) {
          out.SetNull(i);
        } else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Int128>) {
          out.values[i] = -a[i];
        } else {
          out.values[i] = WrapSub<T>(0, a[i]);
        }
      }
      return out.Finish(AllConstant(in));
    }
  });
}

// Spark orders NaN above every other value and equal to itself; -0.0 equals 0.0.
template <typename T>
int Compare(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  if constexpr (std::is_same_v<T, std::string_view>) {
    int c = a.compare(b);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  } else {
    return a < b ? -1 : (b < a ? 1 : 0);
  }
}

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };

template <CompareOp op>
Result<Vector> CompareKernel(const KernelInput& in) {
  TypeId id = in.call.children[0]->type->id();
  return DispatchValue(id, [&]<typename T>() -> Result<Vector> {
    return BinaryKernel<T, bool>(in, [](const T& a, const T& b, bool* r) {
      int c = Compare(a, b);
      switch (op) {
        case CompareOp::kEq: *r = c == 0; break;
        case CompareOp::kNe: *r = c != 0; break;
        case CompareOp::kLt: *r = c < 0; break;
        case CompareOp::kLe: *r = c <= 0; break;
        case CompareOp::kGt: *r = c > 0; break;
        case CompareOp::kGe: *r = c >= 0; break;
      }
      return true;
    });
  });
}

Result<Vector> NullSafeEqualKernel(const KernelInput& in) {
  TypeId id = in.call.children[0]->type->id();
  return DispatchValue(id, [&]<typename T>() -> Result<Vector> {
    Reader<T> a(in.args[0]), b(in.args[1]);
    FixedOut<bool> out(in.call.type, in.num_rows);
    for (int64_t i = 0; i < in.num_rows; ++i) {
      bool an = a.IsNull(i), bn = b.IsNull(i);
      out.values[i] = (an || bn) ? (an && bn) : Compare(a[i], b[i]) == 0;
    }
    return out.Finish(AllConstant(in));
  });
}

// Three-valued AND / OR.
template <bool kAnd>
Result<Vector> LogicKernel(const KernelInput& in) {
  Reader<bool> a(in.args[0]), b(in.args[1]);
  FixedOut<bool> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    bool an = a.IsNull(i), bn = b.IsNull(i);
    bool av = !an && a[i], bv = !bn && b[i];
    if (kAnd) {
      if ((!an && !av) || (!bn && !bv)) {
        out.values[i] = false;
      } else if (an || bn) {
        out.SetNull(i);
      } else {
        out.values[i] = true;
      }
    } else {
      if (av || bv) {
        out.values[i] = true;
      } else if (an || bn) {
        out.SetNull(i);
      } else {
        out.values[i] = false;
      }
    }
  }
  return out.Finish(AllConstant(in));
}

Result<Vector> NotKernel(const KernelInput& in) {
  Reader<bool> a(in.args[0]);
  FixedOut<bool> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (a.IsNull(i)) {
      out.SetNull(i);
    } else {
      out.values[i] = !a[i];
    }
  }
  return out.Finish(AllConstant(in));
}

template <bool kIsNull>
Result<Vector> IsNullKernel(const KernelInput& in) {
  const Vector& a = in.args[0];
  FixedOut<bool> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) out.values[i] = a.IsNull(i) == kIsNull;
  return out.Finish(AllConstant(in));
}

// x IN (v1, ...): true if some vi = x; else NULL if x or some vi is NULL; else false.
Result<Vector> InKernel(const KernelInput& in) {
  TypeId id = in.call.children[0]->type->id();
  return DispatchValue(id, [&]<typename T>() -> Result<Vector> {
    std::vector<Reader<T>> readers;
    readers.reserve(in.args.size());
    for (const Vector& v : in.args) readers.emplace_back(v);
    FixedOut<bool> out(in.call.type, in.num_rows);
    for (int64_t i = 0; i < in.num_rows; ++i) {
      if (readers[0].IsNull(i)) {
        out.SetNull(i);
        continue;
      }
      T x = readers[0][i];
      bool found = false, saw_null = false;
      for (size_t k = 1; k < readers.size() && !found; ++k) {
        if (readers[k].IsNull(i)) {
          saw_null = true;
        } else if (Compare(x, readers[k][i]) == 0) {
          found = true;
        }
      }
      if (found) {
        out.values[i] = true;
      } else if (saw_null) {
        out.SetNull(i);
      } else {
        out.values[i] = false;
      }
    }
    return out.Finish(AllConstant(in));
  });
}

// Builds a column by picking, per row, a row of one of the argument vectors (CASE, coalesce).
// pick(i) returns the argument index or -1 for NULL.
template <typename Pick>
Vector PickRows(const KernelInput& in, Pick pick) {
  Column out(in.call.type);
  out.Reserve(in.num_rows);
  for (const Vector& v : in.args) out.ShareBuffersFrom(v.column());
  bool binary_like = in.call.type->is_binary_like();
  for (int64_t i = 0; i < in.num_rows; ++i) {
    int k = pick(i);
    if (k < 0) {
      out.AppendNull();
    } else if (binary_like) {
      const Vector& v = in.args[k];
      if (v.IsNull(i)) {
        out.AppendNull();
      } else {
        out.AppendStringView(v.column().StringAt(v.Row(i)));  // buffers shared above
      }
    } else {
      out.AppendFrom(in.args[k].column(), in.args[k].Row(i));
    }
  }
  return Vector::Own(std::move(out), AllConstant(in));
}

Result<Vector> CoalesceKernel(const KernelInput& in) {
  int n = static_cast<int>(in.args.size());
  return PickRows(in, [&](int64_t i) {
    for (int k = 0; k < n; ++k) {
      if (!in.args[k].IsNull(i)) return k;
    }
    return -1;
  });
}

Result<Vector> CaseKernel(const KernelInput& in) {
  int n = static_cast<int>(in.args.size());
  std::vector<Reader<bool>> whens;
  for (int k = 0; k + 1 < n; k += 2) whens.emplace_back(in.args[k]);
  return PickRows(in, [&](int64_t i) {
    for (size_t w = 0; w < whens.size(); ++w) {
      if (!whens[w].IsNull(i) && whens[w][i]) return static_cast<int>(2 * w + 1);
    }
    return n - 1;
  });
}

Result<Vector> ConcatKernel(const KernelInput& in) {
  return StringKernel(in, [&](int64_t i, std::string* s) {
    for (size_t k = 0; k < in.args.size(); ++k) s->append(StringArg(in, k, i));
    return true;
  });
}

int64_t Utf8Length(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

Result<Vector> LengthKernel(const KernelInput& in) {
  bool binary = in.call.children[0]->type->id() == TypeId::kBinary;
  Reader<std::string_view> a(in.args[0]);
  FixedOut<int32_t> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (a.IsNull(i)) {
      out.SetNull(i);
    } else {
      out.values[i] = static_cast<int32_t>(binary ? a[i].size() : Utf8Length(a[i]));
    }
  }
  return out.Finish(AllConstant(in));
}

// substring(s, pos[, len]): 1-based character positions; pos <= 0 counts as Spark's
// UTF8String.substringSQL does (0 is 1, negative counts from the end).
Result<Vector> SubstringKernel(const KernelInput& in) {
  bool has_length = in.args.size() > 2;
  return StringKernel(in, [&](int64_t i, std::string* s) {
    std::string_view v = StringArg(in, 0, i);
    int64_t pos = in.args[1].column().Value<int32_t>(in.args[1].Row(i));
    int64_t len = has_length ? in.args[2].column().Value<int32_t>(in.args[2].Row(i))
                             : std::numeric_limits<int32_t>::max();
    int64_t chars = Utf8Length(v);
    int64_t start = pos > 0 ? pos - 1 : (pos < 0 ? chars + pos : 0);
    int64_t end = len <= 0 ? start : (start + len > chars ? chars : start + len);
    if (start < 0) start = 0;
    if (end <= start || start >= chars) return true;
    // Character offsets to byte offsets.
    int64_t c = 0;
    size_t begin_byte = v.size(), end_byte = v.size();
    for (size_t b = 0; b <= v.size(); ++b) {
      bool boundary = b == v.size() || (static_cast<unsigned char>(v[b]) & 0xC0) != 0x80;
      if (!boundary) continue;
      if (c == start) begin_byte = b;
      if (c == end) {
        end_byte = b;
        break;
      }
      ++c;
    }
    s->assign(v.substr(begin_byte, end_byte - begin_byte));
    return true;
  });
}

Result<Vector> CurrentTimestampKernel(const KernelInput& in) {
  FixedOut<int64_t> out(in.call.type, 1);
  out.values[0] = in.context.current_timestamp_micros;
  return out.Finish(true);
}

Result<Vector> CurrentDateKernel(const KernelInput& in) {
  FixedOut<int32_t> out(in.call.type, 1);
  int64_t t = in.context.current_timestamp_micros;
  int64_t days = t / kMicrosPerDay - (t % kMicrosPerDay < 0 ? 1 : 0);
  out.values[0] = static_cast<int32_t>(days);
  return out.Finish(true);
}

// ------------------------------------------------------------------ conditional functions

// nullif(a, b): NULL when a = b (compared in their common comparison type), else a (of a's
// type). The rule makes the arguments [a, b'] or, when a must be cast to compare, [a, a', b'].
Result<TypePtr> NullIfRule(std::vector<BoundExprPtr>& args) {
  std::vector<BoundExprPtr> compared = args;
  WEIR_RETURN_NOT_OK(CoerceAll(compared, 0, "nullif()", &ComparisonType).status());
  TypeId id = compared[0]->type->id();
  if (id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap) {
    return Status::InvalidArgument("nullif() cannot compare " + compared[0]->type->ToDdl() +
                                   " values");
  }
  TypePtr type = IsUntypedNull(args[0]) ? compared[0]->type : args[0]->type;
  if (compared[0] == args[0]) {
    args[1] = compared[1];
  } else {
    args = {args[0], compared[0], compared[1]};
  }
  return type;
}

Result<Vector> NullIfKernel(const KernelInput& in) {
  size_t left = in.args.size() == 3 ? 1 : 0;
  TypeId id = in.call.children[left]->type->id();
  return DispatchValue(id, [&]<typename T>() -> Result<Vector> {
    Reader<T> a(in.args[left]), b(in.args[left + 1]);
    return PickRows(in, [&](int64_t i) {
      if (in.args[0].IsNull(i)) return -1;
      if (a.IsNull(i) || b.IsNull(i)) return 0;  // a = NULL is not true: a
      return Compare(a[i], b[i]) == 0 ? -1 : 0;
    });
  });
}

// if(cond, a, b) / iff: a CASE with one branch (CaseKernel).
Result<TypePtr> IfRule(std::vector<BoundExprPtr>& args) {
  if (!IsUntypedNull(args[0]) && args[0]->type->id() != TypeId::kBoolean) {
    return Status::InvalidArgument("if(): the first parameter requires the \"BOOLEAN\" type, but " +
                                   ArgumentName(args[0]) + " is " + args[0]->type->ToDdl());
  }
  WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::Boolean()));
  return CoerceAll(args, 1, "if()", &WiderType);
}

// greatest / least: the arguments' wider type without STRING promotion (Spark's
// findWiderTypeWithoutStringPromotion: greatest(1, '2') is an error).
template <const char* kName>
Result<TypePtr> ExtremeRule(std::vector<BoundExprPtr>& args) {
  std::string what = std::string(kName) + "()";
  WEIR_ASSIGN_OR_RETURN(TypePtr type, CoerceAll(args, 0, what, &WiderTypeWithoutStringPromotion));
  TypeId id = type->id();
  if (id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap) {
    return Status::InvalidArgument(what + " does not order " + type->ToDdl() + " values");
  }
  return type;
}

// NULLs are skipped; NaN is the largest value; on ties the first argument wins, as in Spark.
template <bool kGreatest>
Result<Vector> ExtremeKernel(const KernelInput& in) {
  return DispatchValue(in.call.type->id(), [&]<typename T>() -> Result<Vector> {
    std::vector<Reader<T>> readers;
    readers.reserve(in.args.size());
    for (const Vector& v : in.args) readers.emplace_back(v);
    return PickRows(in, [&](int64_t i) {
      int best = -1;
      T best_value{};
      for (size_t k = 0; k < readers.size(); ++k) {
        if (readers[k].IsNull(i)) continue;
        T v = readers[k][i];
        int c = best < 0 ? 0 : Compare(v, best_value);
        if (best < 0 || (kGreatest ? c > 0 : c < 0)) {
          best = static_cast<int>(k);
          best_value = v;
        }
      }
      return best;
    });
  });
}

// ------------------------------------------------------------------ math: type rules

static constexpr char kNameAbs[] = "abs";
static constexpr char kNamePositive[] = "positive";
static constexpr char kNameRound[] = "round";
static constexpr char kNameBround[] = "bround";
static constexpr char kNameCeil[] = "ceil";
static constexpr char kNameFloor[] = "floor";
static constexpr char kNameGreatest[] = "greatest";
static constexpr char kNameLeast[] = "least";
static constexpr char kNameSqrt[] = "sqrt";
static constexpr char kNameExp[] = "exp";
static constexpr char kNameLn[] = "ln";
static constexpr char kNameLog[] = "log";
static constexpr char kNameLog10[] = "log10";
static constexpr char kNameLog2[] = "log2";
static constexpr char kNameCbrt[] = "cbrt";
static constexpr char kNameSign[] = "sign";
static constexpr char kNamePow[] = "pow";
static constexpr char kNameNanvl[] = "nanvl";
static constexpr char kNameIsnan[] = "isnan";

// "sqrt(): the first parameter requires the "NUMERIC" type, but d is DATE" (Spark's words).
Status NotANumber(const char* name, size_t index, const BoundExprPtr& arg) {
  static constexpr const char* kOrdinals[] = {"first", "second", "third"};
  return Status::InvalidArgument(std::string(name) + "(): the " +
                                 kOrdinals[std::min<size_t>(index, 2)] +
                                 " parameter requires the \"NUMERIC\" type, but " +
                                 ArgumentName(arg) + " is " + arg->type->ToDdl());
}

// Argument `index`, which Spark implicitly casts to a numeric type: STRING and untyped NULL
// become DOUBLE; numbers stay; anything else is an error naming the function.
Status NumericArgument(const char* name, std::vector<BoundExprPtr>& args, size_t index) {
  BoundExprPtr& arg = args[index];
  if (IsUntypedNull(arg) || arg->type->id() == TypeId::kString) {
    WEIR_ASSIGN_OR_RETURN(arg, CastTo(arg, DataType::Double()));
  }
  if (!IsNumericType(arg->type->id())) return NotANumber(name, index, arg);
  return Status::OK();
}

// abs, positive: any number, result of its type.
template <const char* kName>
Result<TypePtr> SameNumericRule(std::vector<BoundExprPtr>& args) {
  WEIR_RETURN_NOT_OK(NumericArgument(kName, args, 0));
  return args[0]->type;
}

// Functions of DOUBLE (sqrt, exp, ln, pow, ...): every argument is cast to DOUBLE.
template <const char* kName>
Result<TypePtr> DoubleRule(std::vector<BoundExprPtr>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    WEIR_RETURN_NOT_OK(NumericArgument(kName, args, i));
    WEIR_ASSIGN_OR_RETURN(args[i], CastTo(args[i], DataType::Double()));
  }
  return DataType::Double();
}

// nanvl(a, b) and isnan(a): FLOAT when the arguments are FLOAT, else DOUBLE (Spark's
// FunctionArgumentConversion for NaNvl, then TypeCollection(DOUBLE, FLOAT)).
template <const char* kName>
Result<TypePtr> FloatingRule(std::vector<BoundExprPtr>& args) {
  bool all_float = true;
  for (size_t i = 0; i < args.size(); ++i) {
    // nanvl(x, NULL) takes x's type; a NULL first argument is a DOUBLE.
    all_float &= IsUntypedNull(args[i]) ? i > 0 : args[i]->type->id() == TypeId::kFloat;
    WEIR_RETURN_NOT_OK(NumericArgument(kName, args, i));
  }
  TypePtr type = all_float ? DataType::Float() : DataType::Double();
  for (BoundExprPtr& a : args) {
    WEIR_ASSIGN_OR_RETURN(a, CastTo(a, type));
  }
  return args.size() == 1 ? DataType::Boolean() : type;
}

BoundExprPtr IntLiteral(std::optional<int32_t> v) {
  Column c(DataType::Int32());
  if (v) {
    c.Append<int32_t>(*v);
  } else {
    c.AppendNull();
  }
  return MakeLiteral(std::move(c), v ? std::to_string(*v) : "NULL");
}

// The scale argument of round/bround/ceil/floor: a constant integer (Spark requires a foldable
// INT; weir a literal), replaced by an INT literal; absent means 0. Returns the scale (0 for a
// NULL scale, which makes every result NULL).
Result<int> ScaleArgument(const char* name, std::vector<BoundExprPtr>& args) {
  if (args.size() == 1) {
    args.push_back(IntLiteral(0));
    return 0;
  }
  const BoundExpr& s = *args[1];
  std::optional<int64_t> value;
  bool literal = s.kind == BoundExpr::Kind::kLiteral;
  if (literal && !s.IsNullLiteral()) {
    switch (s.type->id()) {
      case TypeId::kInt8: value = s.literal->Value<int8_t>(0); break;
      case TypeId::kInt16: value = s.literal->Value<int16_t>(0); break;
      case TypeId::kInt32: value = s.literal->Value<int32_t>(0); break;
      case TypeId::kInt64: value = s.literal->Value<int64_t>(0); break;
      default: literal = false;
    }
  }
  if (!literal) {
    return Status::InvalidArgument(std::string(name) +
                                   "(): the scale must be a constant INT, e.g. " + name +
                                   "(x, 2), but it is " + ArgumentName(args[1]));
  }
  // A BIGINT scale is cast to INT (non-ANSI: wraps).
  std::optional<int32_t> scale;
  if (value) scale = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(*value)));
  args[1] = IntLiteral(scale);
  return scale.value_or(0);
}

// round(x[, d]) / bround: numbers keep their type, DECIMAL(p,s) becomes RoundedDecimalType.
template <const char* kName>
Result<TypePtr> RoundRule(std::vector<BoundExprPtr>& args) {
  WEIR_ASSIGN_OR_RETURN(int scale, ScaleArgument(kName, args));
  WEIR_RETURN_NOT_OK(NumericArgument(kName, args, 0));
  const TypePtr& type = args[0]->type;
  if (type->id() == TypeId::kDecimal) return RoundedDecimalType(*type, scale);
  return type;
}

// ceil(x) / floor(x): BIGINT, or for DECIMAL(p,s) DECIMAL(p-s+1, 0). With a scale, Spark's
// RoundCeil/RoundFloor: x becomes a decimal (INT -> DECIMAL(10,0), DOUBLE -> DECIMAL(30,15), STRING
// -> DECIMAL(38,18)) and the result is RoundedDecimalType.
template <const char* kName>
Result<TypePtr> CeilFloorRule(std::vector<BoundExprPtr>& args) {
  BoundExprPtr& x = args[0];
  if (args.size() == 2) {
    WEIR_ASSIGN_OR_RETURN(int scale, ScaleArgument(kName, args));
    if (args[1]->IsNullLiteral()) {
      return Status::InvalidArgument(std::string(kName) +
                                     "(): the scale must be a constant INT, not NULL");
    }
    TypePtr decimal;
    TypeId id = IsUntypedNull(x) ? TypeId::kString : x->type->id();
    if (id == TypeId::kDecimal) {
      decimal = x->type;
    } else if (IsIntegralType(id)) {
      decimal = DecimalForIntegral(id);
    } else if (id == TypeId::kFloat) {
      decimal = DataType::Decimal(14, 7);
    } else if (id == TypeId::kDouble) {
      decimal = DataType::Decimal(30, 15);
    } else if (id == TypeId::kString) {
      decimal = DataType::Decimal(38, 18);
    } else {
      return NotANumber(kName, 0, x);
    }
    WEIR_ASSIGN_OR_RETURN(x, CastTo(x, decimal));
    return RoundedDecimalType(*decimal, scale);
  }
  WEIR_RETURN_NOT_OK(NumericArgument(kName, args, 0));
  TypeId id = x->type->id();
  if (id == TypeId::kDecimal) {
    int p = x->type->precision(), s = x->type->scale();
    return s == 0 ? x->type : DataType::Decimal(std::min(p - s + 1, 38), 0);
  }
  if (IsIntegralType(id)) {
    WEIR_ASSIGN_OR_RETURN(x, CastTo(x, DataType::Int64()));
  } else {
    WEIR_ASSIGN_OR_RETURN(x, CastTo(x, DataType::Double()));
  }
  return DataType::Int64();
}

// A cast function (int(x), string(x), ...): CAST(x AS <name>).
template <const char* kName>
Result<TypePtr> CastFunctionRule(std::vector<BoundExprPtr>& args) {
  WEIR_ASSIGN_OR_RETURN(TypePtr type, columnar::ParseDdlType(kName));
  auto cast = CastTo(args[0], type);
  if (!cast.ok()) {
    return Status::InvalidArgument(std::string(kName) + "(): " + cast.status().message());
  }
  args[0] = *cast;
  return type;
}

Result<TypePtr> ConstantDoubleRule(std::vector<BoundExprPtr>&) { return DataType::Double(); }

// ------------------------------------------------------------------ math: kernels

// The argument itself (already cast by the type rule).
Result<Vector> PassThroughKernel(const KernelInput& in) { return std::move(in.args[0]); }

Result<Vector> AbsKernel(const KernelInput& in) {
  return DispatchValue(in.call.type->id(), [&]<typename T>() -> Result<Vector> {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string_view>) {
      return Status::Internal("abs of a non-numeric type");
    } else {
      Reader<T> a(in.args[0]);
      FixedOut<T> out(in.call.type, in.num_rows);
      for (int64_t i = 0; i < in.num_rows; ++i) {
        if (a.IsNull(i)) {
          out.SetNull(i);
        } else if constexpr (std::is_floating_point_v<T>) {
          out.values[i] = std::fabs(a[i]);
        } else if constexpr (std::is_same_v<T, Int128>) {
          out.values[i] = a[i] < 0 ? -a[i] : a[i];
        } else {
          out.values[i] = a[i] < 0 ? WrapSub<T>(0, a[i]) : a[i];  // abs(INT_MIN) = INT_MIN
        }
      }
      return out.Finish(AllConstant(in));
    }
  });
}

enum class RoundMode { kHalfUp, kHalfEven, kCeiling, kFloor };

// v / d rounded with `mode` (d > 0).
Int128 DivideRounded(Int128 v, Int128 d, RoundMode mode) {
  Int128 q = v / d, r = v % d;
  if (r == 0) return q;
  Int128 abs_r = r < 0 ? -r : r;
  Int128 away = v < 0 ? -1 : 1;
  switch (mode) {
    case RoundMode::kHalfUp:
      if (abs_r >= d - abs_r) q += away;
      break;
    case RoundMode::kHalfEven:
      if (abs_r > d - abs_r || (abs_r == d - abs_r && q % 2 != 0)) q += away;
      break;
    case RoundMode::kCeiling:
      if (v > 0) q += 1;
      break;
    case RoundMode::kFloor:
      if (v < 0) q -= 1;
      break;
  }
  return q;
}

// Rounds the unscaled decimal v (scale `from`) to `scale` digits (negative: tens, hundreds...);
// the result has scale max(min(from, scale), 0). False when it does not fit 38 digits.
bool RoundDecimal(Int128 v, int from, int scale, RoundMode mode, Int128* out) {
  if (scale >= from) {
    *out = v;
    return true;
  }
  int64_t drop = static_cast<int64_t>(from) - scale;  // digits removed, > 0
  Int128 q;
  if (drop > 38) {  // |v| < 10^38 <= 10^drop / 10
    q = (mode == RoundMode::kCeiling && v > 0) ? 1 : (mode == RoundMode::kFloor && v < 0) ? -1 : 0;
  } else {
    q = DivideRounded(v, Pow10(static_cast<int>(drop)), mode);
  }
  if (scale < 0 && q != 0) {
    if (-static_cast<int64_t>(scale) > 38 || __builtin_mul_overflow(q, Pow10(-scale), &q)) {
      return false;
    }
  }
  *out = q;
  return true;
}

// Rounds a double to `scale` decimal places as Spark does: the decimal digits Java's
// Double.toString prints (the shortest that read back as the same double), rounded with `mode`,
// read back as a T (FLOAT rounds its value widened to DOUBLE). NaN and infinities are kept; zero
// results are +0.0 (BigDecimal has no negative zero).
template <typename T>
T RoundFloating(T value, int scale, RoundMode mode) {
  if (!std::isfinite(value)) return value;
  if (value == 0) return T(0);
  char buf[40];
  auto printed = std::to_chars(buf, buf + sizeof(buf), static_cast<double>(value),
                               std::chars_format::scientific);
  std::string_view text(buf, static_cast<size_t>(printed.ptr - buf));  // -d.ddde[+-]xx
  bool negative = text.front() == '-';
  if (negative) text.remove_prefix(1);
  size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;  // value = d.ddd * 10^exponent
  std::string_view exp_text = text.substr(e + 1);
  if (exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
  int64_t keep = static_cast<int64_t>(exponent) + scale + 1;  // significant digits kept
  if (keep >= static_cast<int64_t>(digits.size())) return value;
  if (keep < 0) return T(0);
  int dropped = digits[keep] - '0';
  bool rest = keep + 1 < static_cast<int64_t>(digits.size());  // shortest digits: no trailing 0
  bool last_odd = keep > 0 && (digits[keep - 1] - '0') % 2 != 0;
  bool up = mode == RoundMode::kHalfUp ? dropped >= 5
                                       : dropped > 5 || (dropped == 5 && (rest || last_odd));
  digits.resize(static_cast<size_t>(keep));
  if (up) {
    size_t i = digits.size();
    while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
    if (i == 0) {
      digits.insert(digits.begin(), '1');
    } else {
      ++digits[i - 1];
    }
  }
  if (digits.empty()) return T(0);
  // digits * 10^(exponent - keep + 1)
  std::string number = (negative ? "-" : "") + digits + "e" +
                       std::to_string(static_cast<int64_t>(exponent) - keep + 1);
  T result = 0;
  auto parsed = std::from_chars(number.data(), number.data() + number.size(), result);
  if (parsed.ec == std::errc::result_out_of_range) {
    result = negative ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  }
  return result == 0 ? T(0) : result;
}

// round/bround/ceil/floor with a scale (args[1], a constant INT; NULL makes every row NULL).
template <RoundMode kMode>
Result<Vector> RoundKernel(const KernelInput& in) {
  const Vector& scale_arg = in.args[1];
  bool null_scale = scale_arg.IsNull(0);
  int scale = null_scale ? 0 : scale_arg.column().Value<int32_t>(0);
  int from_scale = in.call.children[0]->type->id() == TypeId::kDecimal
                       ? in.call.children[0]->type->scale()
                       : 0;
  int precision = in.call.type->id() == TypeId::kDecimal ? in.call.type->precision() : 38;
  return DispatchValue(in.call.type->id(), [&]<typename T>() -> Result<Vector> {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string_view>) {
      return Status::Internal("rounding a non-numeric type");
    } else {
      Reader<T> a(in.args[0]);
      FixedOut<T> out(in.call.type, in.num_rows);
      for (int64_t i = 0; i < in.num_rows; ++i) {
        if (null_scale || a.IsNull(i)) {
          out.SetNull(i);
          continue;
        }
        T v = a[i];
        if constexpr (std::is_same_v<T, Int128>) {
          Int128 r;
          if (!RoundDecimal(v, from_scale, scale, kMode, &r) || !FitsPrecision(r, precision)) {
            out.SetNull(i);
          } else {
            out.values[i] = r;
          }
        } else if constexpr (std::is_floating_point_v<T>) {
          out.values[i] = RoundFloating<T>(v, scale, kMode);
        } else if (scale >= 0) {
          out.values[i] = v;
        } else {
          // BigDecimal(v).setScale(scale, mode), then its low-order bits (Java's intValue()).
          Int128 r = 0;
          if (-static_cast<int64_t>(scale) <= 38) {
            Int128 unit = Pow10(-scale);
            r = DivideRounded(v, unit, kMode) * unit;
          }
          using U = std::make_unsigned_t<T>;
          out.values[i] = static_cast<T>(static_cast<U>(static_cast<unsigned __int128>(r)));
        }
      }
      return out.Finish(AllConstant(in));
    }
  });
}

// Java's (long) of a double: NaN is 0, out-of-range values saturate.
int64_t JavaLong(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// ceil/floor: with a scale, RoundKernel; of a BIGINT or DECIMAL(p,0) the value itself; of a
// DOUBLE Math.ceil/floor as a long; of a DECIMAL(p,s) the integral decimal.
template <RoundMode kMode>
Result<Vector> CeilFloorKernel(const KernelInput& in) {
  if (in.args.size() == 2) return RoundKernel<kMode>(in);
  const DataType& input = *in.call.children[0]->type;
  if (input.id() == TypeId::kInt64 || (input.id() == TypeId::kDecimal && input.scale() == 0)) {
    return std::move(in.args[0]);
  }
  if (input.id() == TypeId::kDecimal) {
    Reader<Int128> a(in.args[0]);
    FixedOut<Int128> out(in.call.type, in.num_rows);
    Int128 unit = Pow10(input.scale());
    for (int64_t i = 0; i < in.num_rows; ++i) {
      if (a.IsNull(i)) {
        out.SetNull(i);
      } else {
        out.values[i] = DivideRounded(a[i], unit, kMode);
      }
    }
    return out.Finish(AllConstant(in));
  }
  Reader<double> a(in.args[0]);
  FixedOut<int64_t> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (a.IsNull(i)) {
      out.SetNull(i);
    } else {
      double v = a[i];
      out.values[i] = JavaLong(kMode == RoundMode::kCeiling ? std::ceil(v) : std::floor(v));
    }
  }
  return out.Finish(AllConstant(in));
}

// The functions of one DOUBLE. Logarithms are NULL for x <= 0, as in Spark (and Hive).
double SqrtOf(double x) { return std::sqrt(x); }
double ExpOf(double x) { return std::exp(x); }
double LnOf(double x) { return std::log(x); }
double Log10Of(double x) { return std::log10(x); }
double Log2Of(double x) { return std::log(x) / std::log(2.0); }  // Spark's formula, not log2()
// glibc's cbrt is off by an ulp even for exact cubes (cbrt(27) = 3.0000000000000004); the
// extended-precision one rounded to double is exact for them, as Java's Math.cbrt is.
double CbrtOf(double x) { return static_cast<double>(std::cbrt(static_cast<long double>(x))); }
double SignumOf(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }  // keeps -0.0 and NaN

template <double (*kFunction)(double), bool kLogarithm>
Result<Vector> DoubleFunctionKernel(const KernelInput& in) {
  Reader<double> a(in.args[0]);
  FixedOut<double> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (a.IsNull(i) || (kLogarithm && a[i] <= 0)) {
      out.SetNull(i);
    } else {
      out.values[i] = kFunction(a[i]);
    }
  }
  return out.Finish(AllConstant(in));
}

// log(x) is ln(x); log(base, x) = ln(x) / ln(base), NULL when either is <= 0.
Result<Vector> LogKernel(const KernelInput& in) {
  if (in.args.size() == 1) return DoubleFunctionKernel<&LnOf, true>(in);
  return BinaryKernel<double, double>(in, [](double base, double x, double* r) {
    if (base <= 0 || x <= 0) return false;
    *r = std::log(x) / std::log(base);
    return true;
  });
}

// pow(x, y) with Java's special cases where C's differ: a NaN exponent gives NaN (C: pow(1, NaN)
// = 1), and |x| = 1 with an infinite exponent gives NaN (C: 1).
Result<Vector> PowKernel(const KernelInput& in) {
  return BinaryKernel<double, double>(in, [](double x, double y, double* r) {
    if (std::isnan(y) || (std::isinf(y) && std::fabs(x) == 1)) {
      *r = std::numeric_limits<double>::quiet_NaN();
    } else {
      *r = std::pow(x, y);
    }
    return true;
  });
}

// nanvl(a, b): b where a is NaN, else a (NULL when a is NULL).
Result<Vector> NanvlKernel(const KernelInput& in) {
  return DispatchValue(in.call.type->id(), [&]<typename T>() -> Result<Vector> {
    if constexpr (!std::is_floating_point_v<T>) {
      return Status::Internal("nanvl of a non-floating type");
    } else {
      Reader<T> a(in.args[0]), b(in.args[1]);
      FixedOut<T> out(in.call.type, in.num_rows);
      for (int64_t i = 0; i < in.num_rows; ++i) {
        if (a.IsNull(i)) {
          out.SetNull(i);
        } else if (!std::isnan(a[i])) {
          out.values[i] = a[i];
        } else if (b.IsNull(i)) {
          out.SetNull(i);
        } else {
          out.values[i] = b[i];
        }
      }
      return out.Finish(AllConstant(in));
    }
  });
}

// isnan(x): false for NULL.
Result<Vector> IsNanKernel(const KernelInput& in) {
  bool is_float = in.call.children[0]->type->id() == TypeId::kFloat;
  FixedOut<bool> out(in.call.type, in.num_rows);
  const Vector& a = in.args[0];
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (a.IsNull(i)) continue;
    int64_t row = a.Row(i);
    out.values[i] = is_float ? std::isnan(a.column().Value<float>(row))
                             : std::isnan(a.column().Value<double>(row));
  }
  return out.Finish(AllConstant(in));
}

Vector ConstantDouble(const KernelInput& in, double value) {
  FixedOut<double> out(in.call.type, 1);
  out.values[0] = value;
  return out.Finish(true);
}
Result<Vector> EKernel(const KernelInput& in) { return ConstantDouble(in, 2.718281828459045); }
Result<Vector> PiKernel(const KernelInput& in) { return ConstantDouble(in, 3.141592653589793); }

// typeof(x): Spark's DataType.catalogString of x's type ("int", "decimal(12,2)",
// "struct<a:int,b:array<string>>"); an untyped NULL is "string" in weir (Spark: "void").
void AppendCatalogString(const DataType& type, std::string* out) {
  switch (type.id()) {
    case TypeId::kDecimal:
      *out += "decimal(" + std::to_string(type.precision()) + "," + std::to_string(type.scale()) +
              ")";
      return;
    case TypeId::kList:
      *out += "array<";
      AppendCatalogString(*type.element().type, out);
      *out += ">";
      return;
    case TypeId::kMap:
      *out += "map<";
      AppendCatalogString(*type.key().type, out);
      *out += ",";
      AppendCatalogString(*type.value().type, out);
      *out += ">";
      return;
    case TypeId::kStruct:
      *out += "struct<";
      for (size_t i = 0; i < type.children().size(); ++i) {
        if (i > 0) *out += ",";
        *out += type.children()[i].name + ":";
        AppendCatalogString(*type.children()[i].type, out);
      }
      *out += ">";
      return;
    default: {
      std::string ddl = type.ToDdl();  // an atomic type's name: INT, TIMESTAMP_NTZ, ...
      for (char& c : ddl) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
      *out += ddl;
    }
  }
}

Result<TypePtr> TypeOfRule(std::vector<BoundExprPtr>&) { return DataType::String(); }

Result<Vector> TypeOfKernel(const KernelInput& in) {
  std::string text;
  AppendCatalogString(*in.call.children[0]->type, &text);
  Column out(DataType::String());
  out.AppendString(text);
  return Vector::Own(std::move(out), true);
}

static constexpr char kTypeInt[] = "int";
static constexpr char kTypeBigint[] = "bigint";
static constexpr char kTypeSmallint[] = "smallint";
static constexpr char kTypeTinyint[] = "tinyint";
static constexpr char kTypeDouble[] = "double";
static constexpr char kTypeFloat[] = "float";
static constexpr char kTypeString[] = "string";
static constexpr char kTypeBoolean[] = "boolean";
static constexpr char kTypeDecimal[] = "decimal";
static constexpr char kTypeDate[] = "date";
static constexpr char kTypeTimestamp[] = "timestamp";
static constexpr char kTypeBinary[] = "binary";

// ------------------------------------------------------------------ the registry

constexpr Function kFunctions[] = {
    // Operators (names a user cannot call).
    {"+", 2, 2, &ArithmeticRule<DecimalOp::kAdd>, &ArithmeticKernel<DecimalOp::kAdd>, true},
    {"-", 2, 2, &ArithmeticRule<DecimalOp::kSubtract>, &ArithmeticKernel<DecimalOp::kSubtract>, true},
    {"*", 2, 2, &ArithmeticRule<DecimalOp::kMultiply>, &ArithmeticKernel<DecimalOp::kMultiply>, true},
    {"/", 2, 2, &ArithmeticRule<DecimalOp::kDivide>, &ArithmeticKernel<DecimalOp::kDivide>, true},
    {"%", 2, 2, &ArithmeticRule<DecimalOp::kModulo>, &ArithmeticKernel<DecimalOp::kModulo>, true},
    {"DIV", 2, 2, &IntegerDivideRule, &IntegerDivideKernel, true},
    {"NEGATE", 1, 1, &NegateRule, &NegateKernel, false},
    {"=", 2, 2, &ComparisonRule, &CompareKernel<CompareOp::kEq>, false},
    {"!=", 2, 2, &ComparisonRule, &CompareKernel<CompareOp::kNe>, false},
    {"<", 2, 2, &ComparisonRule, &CompareKernel<CompareOp::kLt>, false},
    {"<=", 2, 2, &ComparisonRule, &CompareKernel<CompareOp::kLe>, false},
    {">", 2, 2, &ComparisonRule, &CompareKernel<CompareOp::kGt>, false},
    {">=", 2, 2, &ComparisonRule, &CompareKernel<CompareOp::kGe>, false},
    {"<=>", 2, 2, &ComparisonRule, &NullSafeEqualKernel, false},
    {"AND", 2, 2, &BooleanRule, &LogicKernel<true>, false},
    {"OR", 2, 2, &BooleanRule, &LogicKernel<false>, false},
    {"NOT", 1, 1, &BooleanRule, &NotKernel, false},
    {"IS NULL", 1, 1, &AnyToBooleanRule, &IsNullKernel<true>, false},
    {"IS NOT NULL", 1, 1, &AnyToBooleanRule, &IsNullKernel<false>, false},
    {"IN", 2, -1, &InRule, &InKernel, true},
    {"CASE", 3, -1, &CaseRule, &CaseKernel, true},
    {"||", 2, 2, &ConcatRule, &ConcatKernel, false},
    // SQL functions.
    {"coalesce", 1, -1, &CoalesceRule, &CoalesceKernel, false},
    {"ifnull", 2, 2, &CoalesceRule, &CoalesceKernel, false},
    {"nvl", 2, 2, &CoalesceRule, &CoalesceKernel, false},
    {"isnull", 1, 1, &AnyToBooleanRule, &IsNullKernel<true>, false},
    {"isnotnull", 1, 1, &AnyToBooleanRule, &IsNullKernel<false>, false},
    {"concat", 1, -1, &ConcatRule, &ConcatKernel, false},
    // upper/lower/trim and the other string functions: string_functions.cc.
    {"length", 1, 1, &LengthRule, &LengthKernel, false},
    {"char_length", 1, 1, &LengthRule, &LengthKernel, false},
    {"character_length", 1, 1, &LengthRule, &LengthKernel, false},
    {"substring", 2, 3, &SubstringRule, &SubstringKernel, false},
    {"substr", 2, 3, &SubstringRule, &SubstringKernel, false},
    {"current_timestamp", 0, 0, &TimestampRule, &CurrentTimestampKernel, false, true},
    {"now", 0, 0, &TimestampRule, &CurrentTimestampKernel, false, true},
    {"current_date", 0, 0, &DateRule, &CurrentDateKernel, false, true},
    {"curdate", 0, 0, &DateRule, &CurrentDateKernel, false, true},
    // Conditional functions.
    {"nullif", 2, 2, &NullIfRule, &NullIfKernel, true},
    {"if", 3, 3, &IfRule, &CaseKernel, false},
    {"iff", 3, 3, &IfRule, &CaseKernel, false},
    {"greatest", 2, -1, &ExtremeRule<kNameGreatest>, &ExtremeKernel<true>, false},
    {"least", 2, -1, &ExtremeRule<kNameLeast>, &ExtremeKernel<false>, false},
    {"nanvl", 2, 2, &FloatingRule<kNameNanvl>, &NanvlKernel, false},
    {"isnan", 1, 1, &FloatingRule<kNameIsnan>, &IsNanKernel, false},
    // Math. Nullability follows Spark's: its math functions of DOUBLE and rounding are nullable.
    {"abs", 1, 1, &SameNumericRule<kNameAbs>, &AbsKernel, false},
    {"negative", 1, 1, &NegateRule, &NegateKernel, false},
    {"positive", 1, 1, &SameNumericRule<kNamePositive>, &PassThroughKernel, false},
    {"mod", 2, 2, &ArithmeticRule<DecimalOp::kModulo>, &ArithmeticKernel<DecimalOp::kModulo>, true},
    {"pmod", 2, 2, &ArithmeticRule<DecimalOp::kPmod>, &ArithmeticKernel<DecimalOp::kPmod>, true},
    {"round", 1, 2, &RoundRule<kNameRound>, &RoundKernel<RoundMode::kHalfUp>, true},
    {"bround", 1, 2, &RoundRule<kNameBround>, &RoundKernel<RoundMode::kHalfEven>, true},
    {"ceil", 1, 2, &CeilFloorRule<kNameCeil>, &CeilFloorKernel<RoundMode::kCeiling>, true},
    {"ceiling", 1, 2, &CeilFloorRule<kNameCeil>, &CeilFloorKernel<RoundMode::kCeiling>, true},
    {"floor", 1, 2, &CeilFloorRule<kNameFloor>, &CeilFloorKernel<RoundMode::kFloor>, true},
    {"sign", 1, 1, &DoubleRule<kNameSign>, &DoubleFunctionKernel<&SignumOf, false>, true},
    {"signum", 1, 1, &DoubleRule<kNameSign>, &DoubleFunctionKernel<&SignumOf, false>, true},
    {"sqrt", 1, 1, &DoubleRule<kNameSqrt>, &DoubleFunctionKernel<&SqrtOf, false>, true},
    {"cbrt", 1, 1, &DoubleRule<kNameCbrt>, &DoubleFunctionKernel<&CbrtOf, false>, true},
    {"exp", 1, 1, &DoubleRule<kNameExp>, &DoubleFunctionKernel<&ExpOf, false>, true},
    {"ln", 1, 1, &DoubleRule<kNameLn>, &DoubleFunctionKernel<&LnOf, true>, true},
    {"log", 1, 2, &DoubleRule<kNameLog>, &LogKernel, true},
    {"log10", 1, 1, &DoubleRule<kNameLog10>, &DoubleFunctionKernel<&Log10Of, true>, true},
    {"log2", 1, 1, &DoubleRule<kNameLog2>, &DoubleFunctionKernel<&Log2Of, true>, true},
    {"pow", 2, 2, &DoubleRule<kNamePow>, &PowKernel, false},
    {"power", 2, 2, &DoubleRule<kNamePow>, &PowKernel, false},
    {"e", 0, 0, &ConstantDoubleRule, &EKernel, false, true},
    {"pi", 0, 0, &ConstantDoubleRule, &PiKernel, false, true},
    {"typeof", 1, 1, &TypeOfRule, &TypeOfKernel, false},
    // Cast functions: int(x) is CAST(x AS INT).
    {"int", 1, 1, &CastFunctionRule<kTypeInt>, &PassThroughKernel, false},
    {"bigint", 1, 1, &CastFunctionRule<kTypeBigint>, &PassThroughKernel, false},
    {"smallint", 1, 1, &CastFunctionRule<kTypeSmallint>, &PassThroughKernel, false},
    {"tinyint", 1, 1, &CastFunctionRule<kTypeTinyint>, &PassThroughKernel, false},
    {"double", 1, 1, &CastFunctionRule<kTypeDouble>, &PassThroughKernel, false},
    {"float", 1, 1, &CastFunctionRule<kTypeFloat>, &PassThroughKernel, false},
    {"string", 1, 1, &CastFunctionRule<kTypeString>, &PassThroughKernel, false},
    {"boolean", 1, 1, &CastFunctionRule<kTypeBoolean>, &PassThroughKernel, false},
    {"decimal", 1, 1, &CastFunctionRule<kTypeDecimal>, &PassThroughKernel, false},
    {"date", 1, 1, &CastFunctionRule<kTypeDate>, &PassThroughKernel, false},
    {"timestamp", 1, 1, &CastFunctionRule<kTypeTimestamp>, &PassThroughKernel, false},
    {"binary", 1, 1, &CastFunctionRule<kTypeBinary>, &PassThroughKernel, false},
};

}  // namespace

Result<TypePtr> StringRule(std::vector<BoundExprPtr>& args) {
  for (BoundExprPtr& a : args) {
    WEIR_ASSIGN_OR_RETURN(a, CastTo(a, DataType::String()));
  }
  return DataType::String();
}

std::span<const Function> CoreFunctions() { return kFunctions; }

const Function* FindFunction(std::string_view name) {
  using Table = std::span<const Function> (*)();
  static constexpr Table kTables[] = {&CoreFunctions, &StringFunctions, &DatetimeFunctions,
                                      &JsonFunctions, &CollectionFunctions};
  for (Table table : kTables) {
    for (const Function& f : table()) {
      if (f.name == name) return &f;
    }
  }
  return nullptr;
}

BoundExprPtr MakeLiteral(Column value, std::string sql) {
  auto e = std::make_shared<BoundExpr>();
  e->kind = BoundExpr::Kind::kLiteral;
  e->type = value.type();
  e->nullable = value.IsNull(0);
  e->literal = std::make_shared<const Column>(std::move(value));
  e->sql = std::move(sql);
  return e;
}

Result<BoundExprPtr> CastTo(BoundExprPtr arg, const TypePtr& type) {
  if (arg->type->Equals(*type) && !arg->IsNullLiteral()) return arg;
  if (arg->IsNullLiteral()) {
    if (arg->type->Equals(*type)) return arg;
    Column null_value(type);
    null_value.AppendNull();
    auto e = MakeLiteral(std::move(null_value), "NULL");
    auto copy = std::make_shared<BoundExpr>(*e);
    copy->location = arg->location;
    return BoundExprPtr(copy);
  }
  if (!CanCast(*arg->type, *type)) {
    return Status::InvalidArgument("cannot cast " + arg->type->ToDdl() + " to " + type->ToDdl());
  }
  auto e = std::make_shared<BoundExpr>();
  e->kind = BoundExpr::Kind::kCast;
  e->type = type;
  e->nullable = true;
  e->location = arg->location;
  e->sql = "CAST(" + arg->sql + " AS " + type->ToDdl() + ")";
  e->children.push_back(std::move(arg));
  return BoundExprPtr(e);
}

}  // namespace weir::expr
