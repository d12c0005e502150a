#include "expr/cast.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "columnar/text_format.h"
#include "expr/spark_text.h"

namespace weir::expr {

namespace {

using columnar::Column;
using columnar::DataType;
using columnar::Int128;
using columnar::TypeId;
using columnar::TypePtr;

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

bool IsIntegral(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64;
}
bool IsFloating(TypeId id) { return id == TypeId::kFloat || id == TypeId::kDouble; }
bool IsNumeric(TypeId id) { return IsIntegral(id) || IsFloating(id) || id == TypeId::kDecimal; }
bool IsTimestamp(TypeId id) { return id == TypeId::kTimestamp || id == TypeId::kTimestampNtz; }

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Java's (long) d: NaN -> 0, saturating.
int64_t JavaDoubleToLong(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}
// Java's (int) d.
int32_t JavaDoubleToInt(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 2147483647.0) return std::numeric_limits<int32_t>::max();
  if (d <= -2147483648.0) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(d);
}

// Calls f.template operator()<T>() with the C++ type that stores `id`'s values.
template <typename F>
decltype(auto) DispatchFixed(TypeId id, F&& f) {
  switch (id) {
    case TypeId::kBoolean: return f.template operator()<bool>();
    case TypeId::kInt8: return f.template operator()<int8_t>();
    case TypeId::kInt16: return f.template operator()<int16_t>();
    case TypeId::kInt32: return f.template operator()<int32_t>();
    case TypeId::kDate: return f.template operator()<int32_t>();
    case TypeId::kInt64: return f.template operator()<int64_t>();
    case TypeId::kTimestamp: return f.template operator()<int64_t>();
    case TypeId::kTimestampNtz: return f.template operator()<int64_t>();
    case TypeId::kFloat: return f.template operator()<float>();
    case TypeId::kDouble: return f.template operator()<double>();
    default: return f.template operator()<Int128>();  // kDecimal
  }
}

// Builds a fixed-width column of `n` rows: null where `in` is null or `convert(row, &value)`
// returns false. `in_row(i)` maps output rows to input rows (constant inputs).
template <typename T, typename Convert>
Column BuildFixed(const TypePtr& type, const Column& in, int64_t n, Convert convert) {
  Column out(type);
  std::vector<uint8_t>& fixed = out.fixed_buffer();
  fixed.assign(static_cast<size_t>(n) * sizeof(T), 0);
  T* values = reinterpret_cast<T*>(fixed.data());
  std::vector<uint8_t>& validity = out.validity_buffer();
  const uint8_t* in_validity = in.validity();
  for (int64_t i = 0; i < n; ++i) {
    bool valid = in_validity == nullptr || in_validity[i] != 0;
    T v{};
    if (valid) valid = convert(i, &v);
    if (valid) {
      values[i] = v;
    } else {
      if (validity.empty()) validity.assign(static_cast<size_t>(n), 1);
      validity[i] = 0;
    }
  }
  out.SetSize(n);
  return out;
}

// Builds a string/binary column; `convert(row, &scratch)` fills scratch and returns false for
// NULL.
template <typename Convert>
Column BuildStrings(const TypePtr& type, const Column& in, int64_t n, Convert convert) {
  Column out(type);
  std::vector<std::string_view>& strings = out.string_buffer();
  strings.assign(static_cast<size_t>(n), std::string_view());
  std::vector<uint8_t>& validity = out.validity_buffer();
  const uint8_t* in_validity = in.validity();
  std::string scratch;
  for (int64_t i = 0; i < n; ++i) {
    bool valid = in_validity == nullptr || in_validity[i] != 0;
    if (valid) {
      scratch.clear();
      valid = convert(i, &scratch);
    }
    if (valid) {
      strings[i] = out.arena().Copy(scratch);
    } else {
      if (validity.empty()) validity.assign(static_cast<size_t>(n), 1);
      validity[i] = 0;
    }
  }
  out.SetSize(n);
  return out;
}

// A reason for an ANSI-mode row error.
std::string InvalidInputMessage(std::string_view value, const DataType& from, const DataType& to) {
  std::string shown(value.substr(0, 64));
  return "[CAST_INVALID_INPUT] The value '" + shown + "' of the type \"" + from.ToDdl() +
         "\" cannot be cast to \"" + to.ToDdl() + "\" because it is malformed";
}

class Caster {
 public:
  Caster(const TypePtr& to, int64_t n, bool constant, EvalContext& context, bool try_cast)
      : to_(to), n_(n), constant_(constant), context_(context), try_cast_(try_cast) {}

  Result<Column> Cast(const Column& in) {
    const DataType& from = *in.type();
    TypeId f = from.id();
    switch (to_->id()) {
      case TypeId::kString: return ToString(in);
      case TypeId::kBinary: return ToBinary(in);
      case TypeId::kBoolean: return ToBoolean(in);
      case TypeId::kInt8: return ToIntegral<int8_t>(in);
      case TypeId::kInt16: return ToIntegral<int16_t>(in);
      case TypeId::kInt32: return ToIntegral<int32_t>(in);
      case TypeId::kInt64: return ToIntegral<int64_t>(in);
      case TypeId::kFloat: return ToFloating<float>(in);
      case TypeId::kDouble: return ToFloating<double>(in);
      case TypeId::kDecimal: return ToDecimal(in);
      case TypeId::kDate: return ToDate(in);
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz: return ToTimestamp(in);
      case TypeId::kStruct:
      case TypeId::kList:
      case TypeId::kMap: return ToNested(in);
    }
    return Status::Internal("cast from " + from.ToDdl() + " to " + to_->ToDdl() +
                            " has no kernel (" + std::to_string(static_cast<int>(f)) + ")");
  }

 private:
  // Records a string that failed to parse (ANSI mode only).
  void Invalid(int64_t row, std::string_view value, const DataType& from) {
    if (!context_.ansi || try_cast_) return;
    context_.row_errors.Mark(constant_ ? -1 : row, InvalidInputMessage(value, from, *to_));
  }

  Result<Column> ToString(const Column& in) {
    TypeId f = in.type_id();
    if (f == TypeId::kString) return in;
    if (f == TypeId::kBinary) {
      // Spark keeps the bytes as they are; weir replaces bytes that are not UTF-8 with U+FFFD,
      // because a STRING column holding them is unreadable to DuckDB, arrow-rs and delta-rs
      // (docs/sql-extensions.md). Valid input, the common case, is shared without a copy.
      // This is usually the first read of the payloads since the Kafka client wrote them: the
      // values a few rows ahead are fetched into the cache while this one is checked.
      constexpr int64_t kAhead = 8;
      bool valid = true;
      for (int64_t i = 0; i < n_ && valid; ++i) {
        if (i + kAhead < n_) {
          const std::string_view ahead = in.StringAt(i + kAhead);
          for (size_t at = 0; at < ahead.size(); at += 64) __builtin_prefetch(ahead.data() + at);
        }
        std::string_view v = in.IsNull(i) ? std::string_view() : in.StringAt(i);
        valid = columnar::IsValidUtf8(v);
      }
      if (valid) return Retype(in);
      return BuildStrings(to_, in, n_, [&](int64_t i, std::string* s) {
        columnar::AppendValidUtf8(in.StringAt(i), s);
        return true;
      });
    }
    return BuildStrings(to_, in, n_, [&](int64_t i, std::string* s) {
      AppendCastString(in, i, s);
      return true;
    });
  }

  Result<Column> ToBinary(const Column& in) {
    TypeId f = in.type_id();
    if (f == TypeId::kBinary) return in;
    if (f == TypeId::kString) return Retype(in);
    // Integral -> big-endian bytes of its width.
    return DispatchFixed(f, [&]<typename T>() -> Result<Column> {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const T* v = in.values<T>();
        return BuildStrings(to_, in, n_, [&](int64_t i, std::string* s) {
          auto u = static_cast<std::make_unsigned_t<T>>(v[i]);
          for (int b = static_cast<int>(sizeof(T)) - 1; b >= 0; --b) {
            s->push_back(static_cast<char>((u >> (8 * b)) & 0xFF));
          }
          return true;
        });
      } else {
        return Status::Internal("no binary cast from " + in.type()->ToDdl());
      }
    });
  }

  // STRING <-> BINARY: the same views, new type; the bytes stay where they are.
  Column Retype(const Column& in) {
    Column out(to_);
    out.string_buffer().assign(in.strings(), in.strings() + n_);
    if (in.null_count() > 0) out.validity_buffer().assign(in.validity(), in.validity() + n_);
    out.ShareBuffersFrom(in);
    out.SetSize(n_);
    return out;
  }

  Result<Column> ToBoolean(const Column& in) {
    TypeId f = in.type_id();
    if (f == TypeId::kString) {
      return BuildFixed<bool>(to_, in, n_, [&](int64_t i, bool* out) {
        std::optional<bool> b = ParseSparkBoolean(in.StringAt(i));
        if (!b) {
          Invalid(i, in.StringAt(i), *in.type());
          return false;
        }
        *out = *b;
        return true;
      });
    }
    if (f == TypeId::kDate) return AllNull(in);
    return DispatchFixed(f, [&]<typename T>() -> Result<Column> {
      const T* v = in.values<T>();
      return BuildFixed<bool>(to_, in, n_, [&](int64_t i, bool* out) {
        *out = v[i] != T{};
        return true;
      });
    });
  }

  template <typename Out>
  Result<Column> ToIntegral(const Column& in) {
    TypeId f = in.type_id();
    if (f == TypeId::kString) {
      return BuildFixed<Out>(to_, in, n_, [&](int64_t i, Out* out) {
        std::optional<int64_t> v = ParseSparkInteger(in.StringAt(i));
        if (!v || *v < std::numeric_limits<Out>::min() || *v > std::numeric_limits<Out>::max()) {
          Invalid(i, in.StringAt(i), *in.type());
          return false;
        }
        *out = static_cast<Out>(*v);
        return true;
      });
    }
    if (f == TypeId::kDate) return AllNull(in);
    if (f == TypeId::kDecimal) {
      Int128 divisor = Pow10(in.type()->scale());
      const Int128* v = in.values<Int128>();
      return BuildFixed<Out>(to_, in, n_, [&](int64_t i, Out* out) {
        *out = static_cast<Out>(static_cast<int64_t>(v[i] / divisor));  // truncate, then wrap
        return true;
      });
    }
    bool timestamp = IsTimestamp(f);
    return DispatchFixed(f, [&]<typename T>() -> Result<Column> {
      const T* v = in.values<T>();
      return BuildFixed<Out>(to_, in, n_, [&](int64_t i, Out* out) {
        if constexpr (std::is_floating_point_v<T>) {
          if constexpr (sizeof(Out) == 8) {
            *out = JavaDoubleToLong(v[i]);
          } else {
            *out = static_cast<Out>(JavaDoubleToInt(v[i]));
          }
        } else if constexpr (std::is_same_v<T, Int128>) {
          *out = 0;
        } else {
          int64_t x = static_cast<int64_t>(v[i]);
          if (timestamp) x = FloorDiv(x, kMicrosPerSecond);
          *out = static_cast<Out>(x);
        }
        return true;
      });
    });
  }

  template <typename Out>
  Result<Column> ToFloating(const Column& in) {
    TypeId f = in.type_id();
    if (f == TypeId::kString) {
      return BuildFixed<Out>(to_, in, n_, [&](int64_t i, Out* out) {
        std::optional<double> v = ParseSparkDouble(in.StringAt(i));
        if (!v) {
          Invalid(i, in.StringAt(i), *in.type());
          return false;
        }
        *out = static_cast<Out>(*v);
        return true;
      });
    }
    if (f == TypeId::kDate) return AllNull(in);
    if (f == TypeId::kDecimal) {
      int scale = in.type()->scale();
      const Int128* v = in.values<Int128>();
      std::string text;
      return BuildFixed<Out>(to_, in, n_, [&](int64_t i, Out* out) {
        Int128 u = v[i];
        constexpr Int128 kExact = Int128{1} << 53;
        if (scale <= 22 && u < kExact && u > -kExact) {
          // Both operands are exact doubles, so the quotient is correctly rounded.
          *out = static_cast<Out>(static_cast<double>(static_cast<int64_t>(u)) /
                                  std::pow(10.0, scale));
        } else {
          text.clear();
          columnar::AppendDecimal(u, scale, &text);
          double d = 0;
          std::from_chars(text.data(), text.data() + text.size(), d);
          *out = static_cast<Out>(d);
        }
        return true;
      });
    }
    bool timestamp = IsTimestamp(f);
    return DispatchFixed(f, [&]<typename T>() -> Result<Column> {
      const T* v = in.values<T>();
      return BuildFixed<Out>(to_, in, n_, [&](int64_t i, Out* out) {
        if constexpr (std::is_same_v<T, Int128>) {
          *out = 0;
        } else if (timestamp) {
          *out = static_cast<Out>(static_cast<double>(v[i]) / kMicrosPerSecond);
        } else {
          *out = static_cast<Out>(v[i]);
        }
        return true;
      });
    });
  }

  Result<Column> ToDecimal(const Column& in) {
    int precision = to_->precision();
    int scale = to_->scale();
    Int128 limit = columnar::MaxDecimalUnscaled(precision);
    TypeId f = in.type_id();
    if (f == TypeId::kString) {
      return BuildFixed<Int128>(to_, in, n_, [&](int64_t i, Int128* out) {
        std::optional<Int128> v = ParseSparkDecimal(in.StringAt(i), precision, scale);
        if (!v) {
          Invalid(i, in.StringAt(i), *in.type());
          return false;
        }
        *out = *v;
        return true;
      });
    }
    if (f == TypeId::kDate) return AllNull(in);
    if (f == TypeId::kDecimal) {
      int from_scale = in.type()->scale();
      const Int128* v = in.values<Int128>();
      return BuildFixed<Int128>(to_, in, n_, [&](int64_t i, Int128* out) {
        Int128 u = v[i];
        if (scale >= from_scale) {
          Int128 factor = Pow10(scale - from_scale);
          Int128 max_before = limit / factor;
          if (u > max_before || u < -max_before) return false;
          u *= factor;
        } else {
          Int128 divisor = Pow10(from_scale - scale);
          Int128 q = u / divisor;
          Int128 r = u % divisor;
          if (r < 0) r = -r;
          if (r * 2 >= divisor) q += u < 0 ? -1 : 1;  // HALF_UP
          u = q;
        }
        if (u > limit || u < -limit) return false;
        *out = u;
        return true;
      });
    }
    bool timestamp = IsTimestamp(f);
    Int128 factor = Pow10(scale);
    return DispatchFixed(f, [&]<typename T>() -> Result<Column> {
      const T* v = in.values<T>();
      std::string text;
      return BuildFixed<Int128>(to_, in, n_, [&](int64_t i, Int128* out) {
        if constexpr (std::is_same_v<T, Int128>) {
          return false;
        } else if constexpr (std::is_floating_point_v<T>) {
          if (!std::isfinite(v[i])) return false;
          text.clear();
          if constexpr (std::is_same_v<T, float>) {
            AppendSparkFloat(v[i], &text);
          } else {
            AppendSparkDouble(v[i], &text);
          }
          std::optional<Int128> d = columnar::ParseDecimal(text, precision, scale);
          if (!d) return false;
          *out = *d;
          return true;
        } else {
          if (timestamp) {
            text.clear();
            AppendSparkDouble(static_cast<double>(v[i]) / kMicrosPerSecond, &text);
            std::optional<Int128> d = columnar::ParseDecimal(text, precision, scale);
            if (!d) return false;
            *out = *d;
            return true;
          }
          Int128 x = static_cast<Int128>(static_cast<int64_t>(v[i]));
          Int128 max_before = limit / factor;
          if (x > max_before || x < -max_before) return false;
          *out = x * factor;
          return true;
        }
      });
    });
  }

  Result<Column> ToDate(const Column& in) {
    TypeId f = in.type_id();
    if (f == TypeId::kString) {
      return BuildFixed<int32_t>(to_, in, n_, [&](int64_t i, int32_t* out) {
        std::optional<int32_t> d = ParseSparkDate(in.StringAt(i));
        if (!d) {
          Invalid(i, in.StringAt(i), *in.type());
          return false;
        }
        *out = *d;
        return true;
      });
    }
    if (f == TypeId::kDate) return in;
    const int64_t* v = in.values<int64_t>();  // timestamps
    return BuildFixed<int32_t>(to_, in, n_, [&](int64_t i, int32_t* out) {
      *out = static_cast<int32_t>(FloorDiv(v[i], kMicrosPerDay));
      return true;
    });
  }

  Result<Column> ToTimestamp(const Column& in) {
    TypeId f = in.type_id();
    bool ntz = to_->id() == TypeId::kTimestampNtz;
    if (f == TypeId::kString) {
      return BuildFixed<int64_t>(to_, in, n_, [&](int64_t i, int64_t* out) {
        std::optional<int64_t> t = ParseSparkTimestamp(in.StringAt(i), ntz);
        if (!t) {
          Invalid(i, in.StringAt(i), *in.type());
          return false;
        }
        *out = *t;
        return true;
      });
    }
    if (f == TypeId::kDate) {
      const int32_t* v = in.values<int32_t>();
      return BuildFixed<int64_t>(to_, in, n_, [&](int64_t i, int64_t* out) {
        *out = static_cast<int64_t>(v[i]) * kMicrosPerDay;
        return true;
      });
    }
    if (f == TypeId::kDecimal) {
      int scale = in.type()->scale();
      Int128 divisor = Pow10(scale);
      const Int128* v = in.values<Int128>();
      return BuildFixed<int64_t>(to_, in, n_, [&](int64_t i, int64_t* out) {
        Int128 u = v[i];
        // |u| < 10^38, so u * 10^6 can overflow Int128 only for huge values: divide first then.
        Int128 micros = (u > Pow10(30) || u < -Pow10(30)) ? u / divisor * kMicrosPerSecond
                                                          : u * kMicrosPerSecond / divisor;
        *out = static_cast<int64_t>(micros);
        return true;
      });
    }
    bool from_timestamp = IsTimestamp(f);
    return DispatchFixed(f, [&]<typename T>() -> Result<Column> {
      const T* v = in.values<T>();
      return BuildFixed<int64_t>(to_, in, n_, [&](int64_t i, int64_t* out) {
        if constexpr (std::is_floating_point_v<T>) {
          if (!std::isfinite(v[i])) return false;
          *out = JavaDoubleToLong(static_cast<double>(v[i]) * kMicrosPerSecond);
        } else if constexpr (std::is_same_v<T, Int128>) {
          return false;
        } else if constexpr (std::is_same_v<T, bool>) {
          *out = v[i] ? 1 : 0;
        } else {
          int64_t x = static_cast<int64_t>(v[i]);
          if (from_timestamp) {
            *out = x;
          } else if (x > std::numeric_limits<int64_t>::max() / kMicrosPerSecond) {
            *out = std::numeric_limits<int64_t>::max();  // TimeUnit.toMicros saturates
          } else if (x < std::numeric_limits<int64_t>::min() / kMicrosPerSecond) {
            *out = std::numeric_limits<int64_t>::min();
          } else {
            *out = x * kMicrosPerSecond;
          }
        }
        return true;
      });
    });
  }

  Result<Column> ToNested(const Column& in) {
    Column out(to_);
    if (to_->id() == TypeId::kStruct) {
      for (int c = 0; c < in.num_children(); ++c) {
        Caster child(to_->children()[c].type, n_, constant_, context_, try_cast_);
        WEIR_ASSIGN_OR_RETURN(out.mutable_child(c), child.Cast(in.child(c)));
      }
    } else {
      const int32_t* offsets = in.offsets();
      out.offsets_buffer().assign(offsets, offsets + n_ + 1);
      int64_t child_rows = offsets[n_];
      for (int c = 0; c < in.num_children(); ++c) {
        // Child rows are not batch rows: a failed element marks every row (rare; ANSI only).
        Column child_in = in.child(c).Slice(0, child_rows);
        Caster child(to_->children()[c].type, child_rows, /*constant=*/true, context_, try_cast_);
        WEIR_ASSIGN_OR_RETURN(out.mutable_child(c), child.Cast(child_in));
      }
    }
    if (in.null_count() > 0) out.validity_buffer().assign(in.validity(), in.validity() + n_);
    out.SetSize(n_);
    return out;
  }

  Column AllNull(const Column&) {
    Column out(to_);
    out.Reserve(n_);
    for (int64_t i = 0; i < n_; ++i) out.AppendNull();
    return out;
  }

  const TypePtr& to_;
  int64_t n_;
  bool constant_;
  EvalContext& context_;
  bool try_cast_;
};

void AppendFixedAsString(const Column& c, int64_t row, std::string* out) {
  TypeId id = c.type_id();
  switch (id) {
    case TypeId::kBoolean: out->append(c.Value<uint8_t>(row) ? "true" : "false"); return;
    case TypeId::kInt8: out->append(std::to_string(c.Value<int8_t>(row))); return;
    case TypeId::kInt16: out->append(std::to_string(c.Value<int16_t>(row))); return;
    case TypeId::kInt32: out->append(std::to_string(c.Value<int32_t>(row))); return;
    case TypeId::kInt64: out->append(std::to_string(c.Value<int64_t>(row))); return;
    case TypeId::kFloat: AppendSparkFloat(c.Value<float>(row), out); return;
    case TypeId::kDouble: AppendSparkDouble(c.Value<double>(row), out); return;
    case TypeId::kDecimal: columnar::AppendDecimal(c.Value<Int128>(row), c.type()->scale(), out); return;
    case TypeId::kDate: columnar::AppendDate(c.Value<int32_t>(row), out); return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: AppendSparkTimestamp(c.Value<int64_t>(row), out); return;
    default: return;
  }
}

}  // namespace

void AppendCastString(const Column& c, int64_t row, std::string* out) {
  if (c.IsNull(row)) {
    out->append("null");
    return;
  }
  switch (c.type_id()) {
    case TypeId::kString:
    case TypeId::kBinary: out->append(c.StringAt(row)); return;
    case TypeId::kStruct: {  // {1, a}
      out->push_back('{');
      for (int i = 0; i < c.num_children(); ++i) {
        if (i > 0) out->append(", ");
        AppendCastString(c.child(i), row, out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kList: {  // [1, 2]
      out->push_back('[');
      for (int32_t j = c.offsets()[row]; j < c.offsets()[row + 1]; ++j) {
        if (j > c.offsets()[row]) out->append(", ");
        AppendCastString(c.child(0), j, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kMap: {  // {a -> 1, b -> 2}
      out->push_back('{');
      for (int32_t j = c.offsets()[row]; j < c.offsets()[row + 1]; ++j) {
        if (j > c.offsets()[row]) out->append(", ");
        AppendCastString(c.child(0), j, out);
        out->append(" -> ");
        AppendCastString(c.child(1), j, out);
      }
      out->push_back('}');
      return;
    }
    default: AppendFixedAsString(c, row, out);
  }
}

bool CanCast(const DataType& from, const DataType& to) {
  TypeId f = from.id(), t = to.id();
  if (from.Equals(to)) return true;
  switch (t) {
    case TypeId::kString: return true;
    case TypeId::kBinary: return f == TypeId::kString || IsIntegral(f);
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
      return f == TypeId::kString || f == TypeId::kBoolean || IsNumeric(f) || IsTimestamp(f) ||
             f == TypeId::kDate;
    case TypeId::kDate: return f == TypeId::kString || f == TypeId::kDate || IsTimestamp(f);
    case TypeId::kTimestamp:
      return f == TypeId::kString || f == TypeId::kDate || IsTimestamp(f) ||
             f == TypeId::kBoolean || IsNumeric(f);
    case TypeId::kTimestampNtz: return f == TypeId::kString || f == TypeId::kDate || IsTimestamp(f);
    case TypeId::kStruct:
      if (f != TypeId::kStruct || from.children().size() != to.children().size()) return false;
      for (size_t i = 0; i < to.children().size(); ++i) {
        if (!CanCast(*from.children()[i].type, *to.children()[i].type)) return false;
      }
      return true;
    case TypeId::kList:
      return f == TypeId::kList && CanCast(*from.element().type, *to.element().type);
    case TypeId::kMap:
      return f == TypeId::kMap && CanCast(*from.key().type, *to.key().type) &&
             CanCast(*from.value().type, *to.value().type);
  }
  return false;
}

Result<Vector> CastVector(Vector input, const TypePtr& to, int64_t num_rows, EvalContext& context,
                          bool try_cast) {
  const Column& in = input.column();
  if (in.type()->Equals(*to)) return input;
  bool constant = input.constant();
  int64_t n = constant ? 1 : num_rows;
  Caster caster(to, n, constant, context, try_cast);
  WEIR_ASSIGN_OR_RETURN(Column out, caster.Cast(in));
  return Vector::Own(std::move(out), constant);
}

Result<Column> CastColumn(const Column& input, const TypePtr& to, EvalContext& context) {
  if (!CanCast(*input.type(), *to)) {
    return Status::InvalidArgument("cannot cast " + input.type()->ToDdl() + " to " + to->ToDdl());
  }
  WEIR_ASSIGN_OR_RETURN(Vector v,
                        CastVector(Vector::Borrow(&input, false), to, input.size(), context));
  return std::move(v).Materialize(input.size());
}

}  // namespace weir::expr
