#include "expr/functions.h"

#include <cmath>
#include <cstring>
#include <limits>

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

template <DecimalOp op>
Result<TypePtr> ArithmeticRule(std::vector<BoundExprPtr>& args) {
  static constexpr std::string_view kNames[] = {"+", "-", "*", "/", "%"};
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
    TypePtr d0 = t0->id() == TypeId::kDecimal ? t0 : DecimalForIntegral(t0->id());
    TypePtr d1 = t1->id() == TypeId::kDecimal ? t1 : DecimalForIntegral(t1->id());
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
        if (!Rescale(a, sa, sr, &x) || !Rescale(b, sb, sr, &y)) return false;
        if (op == DecimalOp::kModulo) {
          if (y == 0) return false;
          v = x % y;
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
