// Building blocks for function kernels (expr/functions.h): output columns filled in place,
// typed readers over argument vectors (constant or not), and the element-wise loops most kernels
// are made of. Shared by the kernel files (functions.cc, string_functions.cc, ...); include it
// only from those .cc files.
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "columnar/column.h"
#include "expr/functions.h"

namespace weir::expr {

using columnar::Column;
using columnar::DataType;
using columnar::Int128;
using columnar::TypeId;
using columnar::TypePtr;

// A fixed-width output column of n rows being filled in place.
template <typename T>
struct FixedOut {
  FixedOut(const TypePtr& type, int64_t n) : column(type), n(n) {
    column.fixed_buffer().assign(static_cast<size_t>(n) * sizeof(T), 0);
    values = reinterpret_cast<T*>(column.fixed_buffer().data());
  }
  void SetNull(int64_t i) {
    std::vector<uint8_t>& validity = column.validity_buffer();
    if (validity.empty()) validity.assign(static_cast<size_t>(n), 1);
    validity[i] = 0;
  }
  Vector Finish(bool constant) {
    column.SetSize(n);
    return Vector::Own(std::move(column), constant);
  }
  Column column;
  int64_t n;
  T* values;
};

inline bool AllConstant(const KernelInput& in) {
  for (const Vector& v : in.args) {
    if (!v.constant()) return false;
  }
  return true;
}

// Calls f.template operator()<T>() with the storage type of `id` (fixed-width types and
// string_view for STRING/BINARY).
template <typename F>
decltype(auto) DispatchValue(TypeId id, F&& f) {
  switch (id) {
    case TypeId::kBoolean: return f.template operator()<bool>();
    case TypeId::kInt8: return f.template operator()<int8_t>();
    case TypeId::kInt16: return f.template operator()<int16_t>();
    case TypeId::kInt32:
    case TypeId::kDate: return f.template operator()<int32_t>();
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: return f.template operator()<int64_t>();
    case TypeId::kFloat: return f.template operator()<float>();
    case TypeId::kDouble: return f.template operator()<double>();
    case TypeId::kDecimal: return f.template operator()<Int128>();
    default: return f.template operator()<std::string_view>();
  }
}

// Reads a value of storage type T at batch row i of v.
template <typename T>
struct Reader {
  explicit Reader(const Vector& v) : vector(v) {
    if constexpr (std::is_same_v<T, std::string_view>) {
      strings = v.column().strings();
    } else {
      values = v.column().template values<T>();
    }
    stride = v.constant() ? 0 : 1;
  }
  T operator[](int64_t i) const {
    if constexpr (std::is_same_v<T, std::string_view>) {
      return strings[i * stride];
    } else {
      return values[i * stride];
    }
  }
  bool IsNull(int64_t i) const { return vector.IsNull(i); }
  const Vector& vector;
  const T* values = nullptr;
  const std::string_view* strings = nullptr;
  int64_t stride;
};

// Elementwise binary kernel over two arguments of storage type T producing R.
// op(a, b, &r) returns false for NULL.
template <typename T, typename R, typename Op>
Vector BinaryKernel(const KernelInput& in, Op op) {
  Reader<T> a(in.args[0]), b(in.args[1]);
  FixedOut<R> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (a.IsNull(i) || b.IsNull(i) || !op(a[i], b[i], &out.values[i])) out.SetNull(i);
  }
  return out.Finish(AllConstant(in));
}

// A string kernel: f(row, inputs, &scratch) fills scratch; false for NULL. Any NULL argument
// gives NULL.
template <typename F>
Vector StringKernel(const KernelInput& in, F f) {
  Column out(in.call.type);
  std::vector<std::string_view>& strings = out.string_buffer();
  strings.assign(static_cast<size_t>(in.num_rows), std::string_view());
  std::vector<uint8_t>& validity = out.validity_buffer();
  std::string scratch;
  for (int64_t i = 0; i < in.num_rows; ++i) {
    bool valid = true;
    for (const Vector& v : in.args) valid &= !v.IsNull(i);
    if (valid) {
      scratch.clear();
      valid = f(i, &scratch);
    }
    if (valid) {
      strings[i] = out.arena().Copy(scratch);
    } else {
      if (validity.empty()) validity.assign(static_cast<size_t>(in.num_rows), 1);
      validity[i] = 0;
    }
  }
  out.SetSize(in.num_rows);
  return Vector::Own(std::move(out), AllConstant(in));
}

inline std::string_view StringArg(const KernelInput& in, size_t k, int64_t i) {
  const Vector& v = in.args[k];
  return v.column().StringAt(v.Row(i));
}

// Builds a MAP column row by row with Spark's rules (ArrayBasedMapBuilder), for every function
// that makes maps (map, map_from_arrays, map_from_entries, map_concat, str_to_map): a repeated
// key keeps its first position and takes the last value; with spark.sql.mapKeyDedupPolicy =
// EXCEPTION (EvalContext::map_key_dedup_policy, the default) it also marks the row with Spark's
// DUPLICATED_MAP_KEY, the error Spark fails the query with. A NULL key is dropped and marks the
// row (Spark: NULL_MAP_KEY). FLOAT/DOUBLE keys are normalized as Spark's are: -0.0 is 0.0 and
// every NaN one key. Entries refer to the columns given to Add until EndRow: strings are
// appended as views, so call ShareBuffersFrom with every key and value column first.
class MapBuilder {
 public:
  // `constant`: the result is one row standing for all (marks then apply to every row).
  MapBuilder(const TypePtr& type, int64_t rows, EvalContext& context, bool constant);

  void ShareBuffersFrom(const Column& keys, const Column& values);
  // Adds keys[key_row] -> values[value_row] to the map of batch row `row`.
  void Add(int64_t row, const Column& keys, int64_t key_row, const Column& values,
           int64_t value_row);
  void EndRow();   // ends the current row's map
  void NullRow();  // a NULL map instead (discarding what was added)
  void Mark(int64_t row, std::string_view message);
  Vector Finish() { return Vector::Own(std::move(out_), constant_); }

 private:
  void Duplicate(int64_t row, const Column& keys, int64_t key_row);

  struct Entry {
    const Column* keys;
    int64_t key_row;
    const Column* values;
    int64_t value_row;
  };
  Column out_;
  EvalContext& context_;
  bool constant_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;
};

// Casts every argument to STRING; the result is STRING (a type rule).
Result<TypePtr> StringRule(std::vector<BoundExprPtr>& args);

}  // namespace weir::expr
