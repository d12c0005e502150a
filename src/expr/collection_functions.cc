// Arrays, maps, structs and higher-order functions (Spark 3.5 / 4.0 non-ANSI): constructors
// (array, map, named_struct — struct() is bound as named_struct), map_from_entries,
// map_from_arrays, element access (element_at, try_element_at, x[i] as "SUBSCRIPT"), size,
// array_contains, map_keys / map_values, and the lambda functions transform, filter, exists,
// forall and aggregate. A lambda body runs once per batch over the flattened elements of every
// row (BoundExpr::Kind::kLambda), never once per row.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>

#include "expr/cast.h"
#include "expr/functions.h"
#include "expr/kernel.h"
#include "expr/projection.h"
#include "expr/type_rules.h"

namespace weir::expr {

namespace {

using columnar::Batch;
using columnar::Field;

// Spark's DUPLICATED_MAP_KEY (spark.sql.mapKeyDedupPolicy=EXCEPTION), the key printed as Spark
// prints it there (the internal value: a DATE as its day number, a TIMESTAMP in microseconds).
// Spark breaks the line before "If you want"; weir's messages are one line.
std::string DuplicateKeyMessage(const Column& keys, int64_t row) {
  std::string message = "[DUPLICATED_MAP_KEY] Duplicate map key ";
  switch (keys.type_id()) {
    case TypeId::kDate: message += std::to_string(keys.values<int32_t>()[row]); break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: message += std::to_string(keys.values<int64_t>()[row]); break;
    default: AppendCastString(keys, row, &message);
  }
  message += " was found, please check the input data. If you want to remove the duplicated "
             "keys, you can set \"spark.sql.mapKeyDedupPolicy\" to \"LAST_WIN\" so that the key "
             "inserted at last takes precedence.";
  return message;
}
constexpr std::string_view kNullKeyMessage = "Cannot use null as map key";

bool IsVoid(const BoundExprPtr& e) {
  return e->IsNullLiteral() && e->kind == BoundExpr::Kind::kLiteral &&
         e->type->id() == TypeId::kString;
}

std::string TypeText(const BoundExprPtr& e) { return IsVoid(e) ? "VOID" : e->type->ToDdl(); }

// ------------------------------------------------------------------ building columns

// Appends row `row` of `src` to `out` (same type). Strings are appended as views: the caller
// has made `out` share `src`'s buffers (ShareBuffersFrom).
void AppendRow(Column* out, const Column& src, int64_t row) {
  if (src.IsNull(row)) {
    out->AppendNull();
  } else if (src.type()->is_binary_like()) {
    out->AppendStringView(src.StringAt(row));
  } else {
    out->AppendFrom(src, row);
  }
}

// Rows `rows` of `src`, a NULL where a row is -1.
Column GatherOrNull(const Column& src, std::span<const int64_t> rows) {
  Column out(src.type());
  out.Reserve(static_cast<int64_t>(rows.size()));
  out.ShareBuffersFrom(src);
  for (int64_t r : rows) {
    if (r < 0) {
      out.AppendNull();
    } else {
      AppendRow(&out, src, r);
    }
  }
  return out;
}

// A FLOAT or DOUBLE key as Spark's ArrayBasedMapBuilder keeps it (NormalizeFloatingNumbers):
// -0.0 is 0.0 and every NaN the same NaN.
template <typename T>
T NormalizedKey(T v) {
  if (v != v) return std::numeric_limits<T>::quiet_NaN();
  return v == 0 ? T(0) : v;
}

// Whether row i of a and row j of b (same type) are the same map key.
bool SameKey(const Column& a, int64_t i, const Column& b, int64_t j) {
  if (a.type_id() == TypeId::kDouble) {
    return std::bit_cast<uint64_t>(NormalizedKey(a.values<double>()[i])) ==
           std::bit_cast<uint64_t>(NormalizedKey(b.values<double>()[j]));
  }
  if (a.type_id() == TypeId::kFloat) {
    return std::bit_cast<uint32_t>(NormalizedKey(a.values<float>()[i])) ==
           std::bit_cast<uint32_t>(NormalizedKey(b.values<float>()[j]));
  }
  int width = a.type()->byte_width();
  if (width > 0) {
    return std::memcmp(a.values<uint8_t>() + i * width, b.values<uint8_t>() + j * width,
                       static_cast<size_t>(width)) == 0;
  }
  if (a.type()->is_binary_like()) return a.StringAt(i) == b.StringAt(j);
  std::string x, y;
  AppendCastString(a, i, &x);
  AppendCastString(b, j, &y);
  return x == y;
}

// The key's bytes, for hashing large maps.
std::string KeyBytes(const Column& c, int64_t row) {
  if (c.type_id() == TypeId::kDouble) {
    double v = NormalizedKey(c.values<double>()[row]);
    return std::string(reinterpret_cast<const char*>(&v), sizeof v);
  }
  if (c.type_id() == TypeId::kFloat) {
    float v = NormalizedKey(c.values<float>()[row]);
    return std::string(reinterpret_cast<const char*>(&v), sizeof v);
  }
  int width = c.type()->byte_width();
  if (width > 0) return std::string(reinterpret_cast<const char*>(c.values<uint8_t>()) + row * width, width);
  if (c.type()->is_binary_like()) return std::string(c.StringAt(row));
  std::string s;
  AppendCastString(c, row, &s);
  return s;
}

}  // namespace

// ------------------------------------------------------------------ MapBuilder (kernel.h)

MapBuilder::MapBuilder(const TypePtr& type, int64_t rows, EvalContext& context, bool constant)
    : out_(type), context_(context), constant_(constant) {
  out_.Reserve(rows);
}

void MapBuilder::ShareBuffersFrom(const Column& keys, const Column& values) {
  out_.mutable_child(0).ShareBuffersFrom(keys);
  out_.mutable_child(1).ShareBuffersFrom(values);
}

void MapBuilder::Add(int64_t row, const Column& keys, int64_t key_row, const Column& values,
                     int64_t value_row) {
  if (keys.IsNull(key_row)) {
    Mark(row, kNullKeyMessage);
    return;
  }
  if (entries_.size() < 32) {
    for (Entry& e : entries_) {
      if (SameKey(*e.keys, e.key_row, keys, key_row)) {
        e.values = &values;
        e.value_row = value_row;
        Duplicate(row, keys, key_row);
        return;
      }
    }
  } else {
    if (index_.empty()) {
      for (size_t k = 0; k < entries_.size(); ++k) {
        index_.emplace(KeyBytes(*entries_[k].keys, entries_[k].key_row), k);
      }
    }
    auto [it, inserted] = index_.emplace(KeyBytes(keys, key_row), entries_.size());
    if (!inserted) {
      entries_[it->second].values = &values;
      entries_[it->second].value_row = value_row;
      Duplicate(row, keys, key_row);
      return;
    }
  }
  entries_.push_back({&keys, key_row, &values, value_row});
}

void MapBuilder::EndRow() {
  Column& keys = out_.mutable_child(0);
  for (const Entry& e : entries_) {
    if (keys.type_id() == TypeId::kDouble) {
      keys.Append<double>(NormalizedKey(e.keys->values<double>()[e.key_row]));
    } else if (keys.type_id() == TypeId::kFloat) {
      keys.Append<float>(NormalizedKey(e.keys->values<float>()[e.key_row]));
    } else {
      AppendRow(&keys, *e.keys, e.key_row);
    }
    AppendRow(&out_.mutable_child(1), *e.values, e.value_row);
  }
  out_.AppendListEntry();
  entries_.clear();
  index_.clear();
}

void MapBuilder::NullRow() {
  entries_.clear();
  index_.clear();
  out_.AppendNull();
}

void MapBuilder::Mark(int64_t row, std::string_view message) {
  context_.row_errors.Mark(constant_ ? -1 : row, message);
}

void MapBuilder::Duplicate(int64_t row, const Column& keys, int64_t key_row) {
  if (context_.map_key_dedup_policy == MapKeyDedupPolicy::kException) {
    Mark(row, DuplicateKeyMessage(keys, key_row));
  }
}

namespace {

// ------------------------------------------------------------------ type rules

// The common type of args[first], args[first + step], ... (Spark's findWiderCommonType); NULL
// literals take it.
Result<TypePtr> CommonType(std::vector<BoundExprPtr>& args, size_t first, size_t step,
                           std::string_view what) {
  std::optional<TypePtr> common;
  for (size_t i = first; i < args.size(); i += step) {
    if (IsVoid(args[i])) continue;
    if (!common) {
      common = args[i]->type;
      continue;
    }
    std::optional<TypePtr> next = WiderType(*common, args[i]->type);
    if (!next) {
      return Status::InvalidArgument(std::string(what) + " needs values of one type, got " +
                                     (*common)->ToDdl() + " and " + args[i]->type->ToDdl());
    }
    common = *next;
  }
  if (!common) common = DataType::String();
  for (size_t i = first; i < args.size(); i += step) {
    WEIR_ASSIGN_OR_RETURN(args[i], CastTo(args[i], *common));
  }
  return *common;
}

bool AnyNullable(const std::vector<BoundExprPtr>& args, size_t first, size_t step) {
  for (size_t i = first; i < args.size(); i += step) {
    if (args[i]->nullable) return true;
  }
  return false;
}

Result<TypePtr> ArrayRule(std::vector<BoundExprPtr>& args) {
  WEIR_ASSIGN_OR_RETURN(TypePtr element, CommonType(args, 0, 1, "array()"));
  return DataType::List(element, AnyNullable(args, 0, 1));
}

Result<TypePtr> MapRule(std::vector<BoundExprPtr>& args) {
  if (args.size() % 2 != 0) {
    return Status::InvalidArgument("map() takes key, value pairs, got " +
                                   std::to_string(args.size()) + " arguments");
  }
  WEIR_ASSIGN_OR_RETURN(TypePtr key, CommonType(args, 0, 2, "map() keys"));
  WEIR_ASSIGN_OR_RETURN(TypePtr value, CommonType(args, 1, 2, "map() values"));
  return DataType::Map(key, value, AnyNullable(args, 1, 2));
}

Result<TypePtr> NamedStructRule(std::vector<BoundExprPtr>& args) {
  if (args.size() % 2 != 0 || args.empty()) {
    return Status::InvalidArgument("named_struct() takes name, value pairs, got " +
                                   std::to_string(args.size()) + " arguments");
  }
  std::vector<Field> fields;
  for (size_t i = 0; i < args.size(); i += 2) {
    const BoundExprPtr& name = args[i];
    if (name->kind != BoundExpr::Kind::kLiteral || name->IsNullLiteral() ||
        name->type->id() != TypeId::kString) {
      return Status::InvalidArgument("named_struct() argument " + std::to_string(i + 1) +
                                     " must be a constant STRING field name, not " + name->sql);
    }
    if (IsVoid(args[i + 1])) {
      return Status::InvalidArgument("named_struct() field " + name->sql +
                                     " needs a typed value, e.g. CAST(NULL AS STRING)");
    }
    fields.push_back({std::string(name->literal->StringAt(0)), args[i + 1]->type,
                      args[i + 1]->nullable});
  }
  return DataType::Struct(std::move(fields));
}

Result<TypePtr> MapFromEntriesRule(std::vector<BoundExprPtr>& args) {
  const TypePtr& t = args[0]->type;
  if (IsVoid(args[0]) || t->id() != TypeId::kList ||
      t->element().type->id() != TypeId::kStruct || t->element().type->children().size() != 2) {
    return Status::InvalidArgument("map_from_entries() needs an ARRAY of two-field STRUCTs "
                                   "(key, value), but " + args[0]->sql + " is " + TypeText(args[0]));
  }
  const auto& fields = t->element().type->children();
  return DataType::Map(fields[0].type, fields[1].type, fields[1].nullable);
}

Result<TypePtr> MapFromArraysRule(std::vector<BoundExprPtr>& args) {
  for (size_t i = 0; i < 2; ++i) {
    if (IsVoid(args[i]) || args[i]->type->id() != TypeId::kList) {
      return Status::InvalidArgument("map_from_arrays() argument " + std::to_string(i + 1) +
                                     " must be an ARRAY, but " + args[i]->sql + " is " +
                                     TypeText(args[i]));
    }
  }
  return DataType::Map(args[0]->type->element().type, args[1]->type->element().type,
                       args[1]->type->element().nullable);
}

// map_concat(m1, m2, ...): maps of one type (keys and values widened as Spark's
// findWiderCommonType does); no arguments: an empty MAP<STRING, STRING>.
Result<TypePtr> MapConcatRule(std::vector<BoundExprPtr>& args) {
  TypePtr common;
  for (const BoundExprPtr& a : args) {
    if (IsVoid(a)) continue;
    if (a->type->id() != TypeId::kMap) {
      return Status::InvalidArgument("map_concat() arguments must all be MAPs, but " + a->sql +
                                     " is " + TypeText(a));
    }
    if (!common) {
      common = a->type;
      continue;
    }
    std::optional<TypePtr> key = WiderType(common->key().type, a->type->key().type);
    std::optional<TypePtr> value = WiderType(common->value().type, a->type->value().type);
    if (!key || !value) {
      return Status::InvalidArgument("map_concat() arguments must be MAPs of one type, got " +
                                     common->ToDdl() + " and " + a->type->ToDdl());
    }
    common = DataType::Map(*key, *value, common->value().nullable || a->type->value().nullable);
  }
  if (!common) common = DataType::Map(DataType::String(), DataType::String(), true);
  for (BoundExprPtr& a : args) {
    WEIR_ASSIGN_OR_RETURN(a, CastTo(a, common));
  }
  return common;
}

Result<TypePtr> MapPartRule(std::vector<BoundExprPtr>& args, int part, std::string_view name) {
  if (IsVoid(args[0]) || args[0]->type->id() != TypeId::kMap) {
    return Status::InvalidArgument(std::string(name) + "() needs a MAP, but " + args[0]->sql +
                                   " is " + TypeText(args[0]));
  }
  const Field& f = args[0]->type->children()[part];
  return DataType::List(f.type, part == 1 && f.nullable);
}
Result<TypePtr> MapKeysRule(std::vector<BoundExprPtr>& args) {
  return MapPartRule(args, 0, "map_keys");
}
Result<TypePtr> MapValuesRule(std::vector<BoundExprPtr>& args) {
  return MapPartRule(args, 1, "map_values");
}

template <const char* kName>
Result<TypePtr> SizeRule(std::vector<BoundExprPtr>& args) {
  TypeId id = args[0]->type->id();
  if (IsVoid(args[0])) {
    WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::List(DataType::String())));
  } else if (id != TypeId::kList && id != TypeId::kMap) {
    return Status::InvalidArgument(std::string(kName) + "() needs an ARRAY or MAP, but " +
                                   args[0]->sql + " is " + TypeText(args[0]));
  }
  return DataType::Int32();
}

// The key `key` to look up in `map` (args[0]), with the implicit casts Spark allows: numbers
// widen (the map's keys too), a STRING or NULL key is cast to the key type.
Status CoerceMapKey(std::vector<BoundExprPtr>& args, std::string_view name) {
  TypePtr key_type = args[0]->type->key().type;
  BoundExprPtr& key = args[1];
  if (key->type->Equals(*key_type) && !IsVoid(key)) return Status::OK();
  if (IsVoid(key) || key->type->id() == TypeId::kString) {
    auto cast = CastTo(key, key_type);
    if (cast.ok()) {
      key = *cast;
      return Status::OK();
    }
  }
  if (IsNumericType(key->type->id()) && IsNumericType(key_type->id())) {
    std::optional<TypePtr> common = WiderType(key_type, key->type);
    if (common) {
      WEIR_ASSIGN_OR_RETURN(key, CastTo(key, *common));
      if (!(*common)->Equals(*key_type)) {
        const columnar::DataType& m = *args[0]->type;
        WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::Map(*common, m.value().type,
                                                                    m.value().nullable)));
      }
      return Status::OK();
    }
  }
  return Status::InvalidArgument(std::string(name) + ": the key " + key->sql + " is " +
                                 TypeText(key) + ", but the map's keys are " + key_type->ToDdl());
}

Status CoerceArrayIndex(std::vector<BoundExprPtr>& args, std::string_view name) {
  BoundExprPtr& index = args[1];
  if (!IsVoid(index) && !IsIntegralType(index->type->id())) {
    return Status::InvalidArgument(std::string(name) + ": an array index must be an integer, but " +
                                   index->sql + " is " + index->type->ToDdl());
  }
  WEIR_ASSIGN_OR_RETURN(index, CastTo(index, DataType::Int32()));
  return Status::OK();
}

// element_at(array, index) / element_at(map, key) / x[i] / x[key].
template <const char* kName>
Result<TypePtr> ElementAtRule(std::vector<BoundExprPtr>& args) {
  TypeId id = IsVoid(args[0]) ? TypeId::kString : args[0]->type->id();
  std::string name = kName[0] == 'S' ? std::string("[]") : std::string(kName) + "()";
  if (id == TypeId::kList) {
    WEIR_RETURN_NOT_OK(CoerceArrayIndex(args, name));
    return args[0]->type->element().type;
  }
  if (id == TypeId::kMap) {
    WEIR_RETURN_NOT_OK(CoerceMapKey(args, name));
    return args[0]->type->value().type;
  }
  return Status::InvalidArgument(name + " needs an ARRAY or MAP, but " + args[0]->sql + " is " +
                                 TypeText(args[0]));
}

Result<TypePtr> ArrayContainsRule(std::vector<BoundExprPtr>& args) {
  if (IsVoid(args[0]) || args[0]->type->id() != TypeId::kList) {
    return Status::InvalidArgument("array_contains() needs an ARRAY, but " + args[0]->sql +
                                   " is " + TypeText(args[0]));
  }
  TypePtr element = args[0]->type->element().type;
  BoundExprPtr& value = args[1];
  if (IsVoid(value) || value->type->Equals(*element)) {
    WEIR_ASSIGN_OR_RETURN(value, CastTo(value, element));
    return DataType::Boolean();
  }
  bool string_mix = (value->type->id() == TypeId::kString) != (element->id() == TypeId::kString);
  std::optional<TypePtr> common = string_mix ? std::nullopt : WiderType(element, value->type);
  if (!common || element->is_nested()) {
    return Status::InvalidArgument("array_contains() needs a value of the element type " +
                                   element->ToDdl() + ", but " + value->sql + " is " +
                                   value->type->ToDdl());
  }
  WEIR_ASSIGN_OR_RETURN(value, CastTo(value, *common));
  if (!(*common)->Equals(*element)) {
    WEIR_ASSIGN_OR_RETURN(args[0], CastTo(args[0], DataType::List(*common,
                                                                   args[0]->type->element().nullable)));
  }
  return DataType::Boolean();
}

// transform: ARRAY<body type>; filter: the input's type; exists / forall: BOOLEAN;
// aggregate: the start type, or the finish lambda's type.
Result<TypePtr> TransformRule(std::vector<BoundExprPtr>& args) {
  const BoundExpr& body = *args[1]->children[0];
  return DataType::List(body.type, body.nullable);
}

Result<TypePtr> PredicateLambdaRule(const char* name, const BoundExprPtr& lambda) {
  const BoundExpr& body = *lambda->children[0];
  if (body.type->id() != TypeId::kBoolean && !body.IsNullLiteral()) {
    return Status::InvalidArgument(std::string(name) + "() needs a lambda returning BOOLEAN, but " +
                                   lambda->sql + " returns " + body.type->ToDdl());
  }
  return DataType::Boolean();
}

template <const char* kName>
Result<TypePtr> FilterRule(std::vector<BoundExprPtr>& args) {
  WEIR_RETURN_NOT_OK(PredicateLambdaRule(kName, args[1]).status());
  return args[0]->type;
}

template <const char* kName>
Result<TypePtr> QuantifierRule(std::vector<BoundExprPtr>& args) {
  return PredicateLambdaRule(kName, args[1]);
}

Result<TypePtr> AggregateRule(std::vector<BoundExprPtr>& args) {
  if (args.size() > 3) return args[3]->children[0]->type;
  return args[1]->type;
}

// ------------------------------------------------------------------ kernels

// array(v1, ...): one entry per row holding every argument's value.
Result<Vector> ArrayKernel(const KernelInput& in) {
  Column out(in.call.type);
  out.Reserve(in.num_rows);
  Column& child = out.mutable_child(0);
  for (const Vector& v : in.args) child.ShareBuffersFrom(v.column());
  for (int64_t i = 0; i < in.num_rows; ++i) {
    for (const Vector& v : in.args) AppendRow(&child, v.column(), v.Row(i));
    out.AppendListEntry();
  }
  return Vector::Own(std::move(out), AllConstant(in));
}

Result<Vector> NamedStructKernel(const KernelInput& in) {
  Column out(in.call.type);
  for (size_t k = 1; k < in.args.size(); k += 2) {
    out.mutable_child(static_cast<int>(k / 2)) = std::move(in.args[k]).Materialize(in.num_rows);
  }
  out.SetSize(in.num_rows);
  return Vector::Own(std::move(out), AllConstant(in));
}

Result<Vector> MapKernel(const KernelInput& in) {
  MapBuilder builder(in.call.type, in.num_rows, in.context, AllConstant(in));
  for (size_t k = 0; k + 1 < in.args.size(); k += 2) {
    builder.ShareBuffersFrom(in.args[k].column(), in.args[k + 1].column());
  }
  for (int64_t i = 0; i < in.num_rows; ++i) {
    for (size_t k = 0; k + 1 < in.args.size(); k += 2) {
      const Vector& key = in.args[k];
      const Vector& value = in.args[k + 1];
      builder.Add(i, key.column(), key.Row(i), value.column(), value.Row(i));
    }
    builder.EndRow();
  }
  return builder.Finish();
}

// map_from_entries(array<struct<k, v>>): NULL for a NULL array or a NULL entry.
Result<Vector> MapFromEntriesKernel(const KernelInput& in) {
  const Vector& list = in.args[0];
  const Column& entries = list.column().child(0);
  const Column& keys = entries.child(0);
  const Column& values = entries.child(1);
  const int32_t* offsets = list.column().offsets();
  MapBuilder builder(in.call.type, in.num_rows, in.context, AllConstant(in));
  builder.ShareBuffersFrom(keys, values);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (list.IsNull(i)) {
      builder.NullRow();
      continue;
    }
    int64_t row = list.Row(i);
    bool null_entry = false;
    for (int32_t j = offsets[row]; j < offsets[row + 1]; ++j) null_entry |= entries.IsNull(j);
    if (null_entry) {
      builder.NullRow();
      continue;
    }
    for (int32_t j = offsets[row]; j < offsets[row + 1]; ++j) builder.Add(i, keys, j, values, j);
    builder.EndRow();
  }
  return builder.Finish();
}

// map_from_arrays(keys, values): the arrays must have equal lengths (else NULL, row marked).
Result<Vector> MapFromArraysKernel(const KernelInput& in) {
  const Vector& k = in.args[0];
  const Vector& v = in.args[1];
  const Column& keys = k.column().child(0);
  const Column& values = v.column().child(0);
  MapBuilder builder(in.call.type, in.num_rows, in.context, AllConstant(in));
  builder.ShareBuffersFrom(keys, values);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (k.IsNull(i) || v.IsNull(i)) {
      builder.NullRow();
      continue;
    }
    const int32_t* ko = k.column().offsets() + k.Row(i);
    const int32_t* vo = v.column().offsets() + v.Row(i);
    if (ko[1] - ko[0] != vo[1] - vo[0]) {
      builder.Mark(i, "map_from_arrays: the key array and value array must have the same length");
      builder.NullRow();
      continue;
    }
    for (int32_t j = 0; j < ko[1] - ko[0]; ++j) builder.Add(i, keys, ko[0] + j, values, vo[0] + j);
    builder.EndRow();
  }
  return builder.Finish();
}

// map_concat(m1, m2, ...): the entries of every map in order, through MapBuilder (a key in more
// than one map is a repeated key); NULL when any map is.
Result<Vector> MapConcatKernel(const KernelInput& in) {
  MapBuilder builder(in.call.type, in.num_rows, in.context, AllConstant(in));
  for (const Vector& v : in.args) builder.ShareBuffersFrom(v.column().child(0), v.column().child(1));
  for (int64_t i = 0; i < in.num_rows; ++i) {
    bool null = false;
    for (const Vector& v : in.args) null |= v.IsNull(i);
    if (null) {
      builder.NullRow();
      continue;
    }
    for (const Vector& v : in.args) {
      const Column& map = v.column();
      const int32_t* o = map.offsets() + v.Row(i);
      for (int32_t j = o[0]; j < o[1]; ++j) builder.Add(i, map.child(0), j, map.child(1), j);
    }
    builder.EndRow();
  }
  return builder.Finish();
}

// map_keys / map_values: the map's child column under the map's offsets.
template <int kPart>
Result<Vector> MapPartKernel(const KernelInput& in) {
  const Column& map = in.args[0].column();
  Column out(in.call.type);
  out.offsets_buffer().assign(map.offsets(), map.offsets() + map.size() + 1);
  if (map.null_count() > 0) {
    out.validity_buffer().assign(map.validity(), map.validity() + map.size());
  }
  out.mutable_child(0) = map.child(kPart);
  out.SetSize(map.size());
  return Vector::Own(std::move(out), in.args[0].constant());
}

// size / cardinality: -1 for NULL (spark.sql.legacy.sizeOfNull, true by default), NULL under
// ANSI.
Result<Vector> SizeKernel(const KernelInput& in) {
  const Vector& v = in.args[0];
  FixedOut<int32_t> out(in.call.type, in.num_rows);
  const int32_t* offsets = v.column().offsets();
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (v.IsNull(i)) {
      if (in.context.ansi) {
        out.SetNull(i);
      } else {
        out.values[i] = -1;
      }
      continue;
    }
    int64_t row = v.Row(i);
    out.values[i] = offsets[row + 1] - offsets[row];
  }
  return out.Finish(AllConstant(in));
}

enum class Access { kElementAt, kTryElementAt, kSubscript };

// element_at (1-based, negative from the end; 0 is an error), try_element_at (out of range
// never marks), x[i] (0-based). Out of range is NULL; under ANSI element_at and x[i] mark the row.
template <Access kAccess>
Result<Vector> ElementAtKernel(const KernelInput& in) {
  const Vector& container = in.args[0];
  const Vector& key = in.args[1];
  const Column& c = container.column();
  const int32_t* offsets = c.offsets();
  bool is_map = c.type_id() == TypeId::kMap;
  std::vector<int64_t> picks(static_cast<size_t>(in.num_rows), -1);
  bool all_rows = AllConstant(in);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (container.IsNull(i) || key.IsNull(i)) continue;
    int64_t row = container.Row(i);
    int32_t begin = offsets[row], end = offsets[row + 1];
    if (is_map) {
      const Column& keys = c.child(0);
      for (int32_t j = begin; j < end; ++j) {
        if (SameKey(keys, j, key.column(), key.Row(i))) {
          picks[i] = j;
          break;
        }
      }
      continue;
    }
    int64_t index = key.column().Value<int32_t>(key.Row(i));
    int64_t n = end - begin;
    int64_t position;
    if (kAccess == Access::kSubscript) {
      position = index;
    } else if (index == 0) {  // an error in Spark even for try_element_at
      in.context.row_errors.Mark(all_rows ? -1 : i,
                                 "element_at: SQL array indices start at 1; the index 0 is "
                                 "invalid");
      continue;
    } else {
      position = index > 0 ? index - 1 : n + index;
    }
    if (position < 0 || position >= n) {
      if (kAccess != Access::kTryElementAt && in.context.ansi) {
        in.context.row_errors.Mark(all_rows ? -1 : i,
                                   "array index " + std::to_string(index) +
                                       " is out of bounds for an array of " + std::to_string(n) +
                                       " elements");
      }
      continue;
    }
    picks[i] = begin + position;
  }
  Column values = GatherOrNull(c.child(is_map ? 1 : 0), picks);
  return Vector::Own(std::move(values), AllConstant(in));
}

// array_contains: true if found; else NULL if the array holds a NULL; else false.
Result<Vector> ArrayContainsKernel(const KernelInput& in) {
  const Vector& list = in.args[0];
  const Vector& value = in.args[1];
  const Column& elements = list.column().child(0);
  const int32_t* offsets = list.column().offsets();
  FixedOut<bool> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (list.IsNull(i) || value.IsNull(i)) {
      out.SetNull(i);
      continue;
    }
    int64_t row = list.Row(i);
    bool found = false, saw_null = false;
    for (int32_t j = offsets[row]; j < offsets[row + 1] && !found; ++j) {
      if (elements.IsNull(j)) {
        saw_null = true;
      } else {
        found = SameKey(elements, j, value.column(), value.Row(i));
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
}

// ------------------------------------------------------------------ lambdas

// The elements of a list vector's rows, contiguous: row r's elements are
// [offsets[r], offsets[r + 1]) of `elements`, and parent[e] is the row of element e.
struct FlatList {
  Column elements;
  std::vector<int32_t> offsets;
  std::vector<int32_t> parent;
  std::vector<uint8_t> valid;  // per row
  bool any_null = false;
};

FlatList Flatten(const Vector& list, int64_t num_rows) {
  const Column& c = list.column();
  const int32_t* offsets = c.offsets();
  const Column& child = c.child(0);
  FlatList flat{Column(child.type()), {}, {}, {}, false};
  flat.offsets.reserve(static_cast<size_t>(num_rows) + 1);
  flat.offsets.push_back(0);
  flat.valid.assign(static_cast<size_t>(num_rows), 1);
  std::vector<int32_t> rows;
  bool contiguous = true;
  int32_t next = 0;
  for (int64_t i = 0; i < num_rows; ++i) {
    int32_t begin = 0, end = 0;
    if (list.IsNull(i)) {
      flat.valid[i] = 0;
      flat.any_null = true;
    } else {
      int64_t row = list.Row(i);
      begin = offsets[row];
      end = offsets[row + 1];
    }
    for (int32_t j = begin; j < end; ++j) {
      contiguous &= j == next;
      ++next;
      rows.push_back(j);
      flat.parent.push_back(static_cast<int32_t>(i));
    }
    flat.offsets.push_back(static_cast<int32_t>(rows.size()));
  }
  if (contiguous && static_cast<int64_t>(rows.size()) == child.size()) {
    flat.elements = child;  // the common case: no copy of string bytes, one of fixed values
  } else {
    flat.elements = TakeRows(child, rows);
  }
  return flat;
}

// Evaluates the body of the lambda argument `k` over `inner` (whose first columns are the
// lambda's parameters, one row per element): appends the captured values, gathered by
// `parent` (the kernel row of each element), and maps the body's row errors back to the rows.
Result<Column> EvaluateLambda(const KernelInput& in, size_t k, Batch* inner,
                              std::span<const int32_t> parent) {
  const BoundExpr& lambda = *in.call.children[k];
  const Vector& closure = in.args[k];
  int64_t count = static_cast<int64_t>(parent.size());
  for (int c = 0; c < closure.column().num_children(); ++c) {
    const Column& captured = closure.column().child(c);
    inner->columns.push_back(closure.constant() ? Broadcast(captured, 0, count)
                                                : TakeRows(captured, parent));
  }
  inner->schema.fields.clear();
  for (const Column& column : inner->columns) inner->schema.fields.push_back({"", column.type()});
  inner->num_rows_without_columns = count;

  EvalContext& context = in.context;
  RowErrors outer_errors = std::move(context.row_errors);
  RowErrors outer_malformed = std::move(context.malformed);
  context.row_errors = RowErrors();
  context.malformed = RowErrors();
  context.row_errors.Reset(count);
  context.malformed.Reset(count);
  Result<Vector> body = EvaluateVector(*lambda.children[0], *inner, context);
  Result<Column> out = body.ok() ? Result<Column>(std::move(*body).Materialize(count))
                                 : Result<Column>(body.status());
  bool all_rows = AllConstant(in);
  for (int64_t e = 0; e < count && (context.row_errors.count() > 0 || context.malformed.count() > 0);
       ++e) {
    if (context.row_errors.IsMarked(e)) {
      outer_errors.Mark(all_rows ? -1 : parent[e], context.row_errors.Reason(e));
    }
    if (context.malformed.IsMarked(e)) {
      outer_malformed.Mark(all_rows ? -1 : parent[e], context.malformed.Reason(e));
    }
  }
  context.row_errors = std::move(outer_errors);
  context.malformed = std::move(outer_malformed);
  return out;
}

// The parameters of an element lambda: the elements, and (for (x, i) -> ...) their positions.
Batch ElementParameters(const BoundExpr& lambda, FlatList* flat) {
  Batch inner;
  if (lambda.index >= 2) {
    Column positions(DataType::Int32());
    std::vector<uint8_t>& fixed = positions.fixed_buffer();
    fixed.resize(flat->parent.size() * sizeof(int32_t));
    auto* values = reinterpret_cast<int32_t*>(fixed.data());
    for (size_t e = 0; e < flat->parent.size(); ++e) {
      values[e] = static_cast<int32_t>(e) - flat->offsets[flat->parent[e]];
    }
    positions.SetSize(static_cast<int64_t>(flat->parent.size()));
    inner.columns.push_back(std::move(flat->elements));
    inner.columns.push_back(std::move(positions));
  } else {
    inner.columns.push_back(std::move(flat->elements));
  }
  return inner;
}

void SetRowValidity(Column* out, const FlatList& flat) {
  if (flat.any_null) out->validity_buffer() = flat.valid;
}

Result<Vector> TransformKernel(const KernelInput& in) {
  FlatList flat = Flatten(in.args[0], in.num_rows);
  Batch inner = ElementParameters(*in.call.children[1], &flat);
  WEIR_ASSIGN_OR_RETURN(Column values, EvaluateLambda(in, 1, &inner, flat.parent));
  Column out(in.call.type);
  out.offsets_buffer() = std::move(flat.offsets);
  SetRowValidity(&out, flat);
  out.mutable_child(0) = std::move(values);
  out.SetSize(in.num_rows);
  return Vector::Own(std::move(out), AllConstant(in));
}

Result<Vector> FilterKernel(const KernelInput& in) {
  FlatList flat = Flatten(in.args[0], in.num_rows);
  Batch inner = ElementParameters(*in.call.children[1], &flat);
  WEIR_ASSIGN_OR_RETURN(Column keep, EvaluateLambda(in, 1, &inner, flat.parent));
  const Column& elements = inner.columns[0];
  std::vector<int32_t> kept;
  Column out(in.call.type);
  std::vector<int32_t>& offsets = out.offsets_buffer();
  offsets.assign(1, 0);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    for (int32_t e = flat.offsets[i]; e < flat.offsets[i + 1]; ++e) {
      if (!keep.IsNull(e) && keep.Value<uint8_t>(e) != 0) kept.push_back(e);
    }
    offsets.push_back(static_cast<int32_t>(kept.size()));
  }
  SetRowValidity(&out, flat);
  out.mutable_child(0) = TakeRows(elements, kept);
  out.SetSize(in.num_rows);
  return Vector::Own(std::move(out), AllConstant(in));
}

// exists: true if the predicate is true for some element, else NULL if it was NULL for some,
// else false; forall: false if false for some, else NULL if NULL for some, else true.
template <bool kExists>
Result<Vector> QuantifierKernel(const KernelInput& in) {
  FlatList flat = Flatten(in.args[0], in.num_rows);
  Batch inner = ElementParameters(*in.call.children[1], &flat);
  WEIR_ASSIGN_OR_RETURN(Column result, EvaluateLambda(in, 1, &inner, flat.parent));
  FixedOut<bool> out(in.call.type, in.num_rows);
  for (int64_t i = 0; i < in.num_rows; ++i) {
    if (!flat.valid[i]) {
      out.SetNull(i);
      continue;
    }
    bool decided = false, saw_null = false;
    for (int32_t e = flat.offsets[i]; e < flat.offsets[i + 1] && !decided; ++e) {
      if (result.IsNull(e)) {
        saw_null = true;
      } else {
        decided = (result.Value<uint8_t>(e) != 0) == kExists;
      }
    }
    if (decided) {
      out.values[i] = kExists;
    } else if (saw_null) {
      out.SetNull(i);
    } else {
      out.values[i] = !kExists;
    }
  }
  return out.Finish(AllConstant(in));
}

// aggregate(array, start, (acc, x) -> merge[, acc -> finish]): step k merges the k-th element
// of every row that has one, all such rows in one evaluation of the merge body.
Result<Vector> AggregateKernel(const KernelInput& in) {
  FlatList flat = Flatten(in.args[0], in.num_rows);
  Column acc = std::move(in.args[1]).Materialize(in.num_rows);
  int64_t longest = 0;
  for (int64_t i = 0; i < in.num_rows; ++i) {
    longest = std::max<int64_t>(longest, flat.offsets[i + 1] - flat.offsets[i]);
  }
  for (int64_t step = 0; step < longest; ++step) {
    std::vector<int32_t> rows, elements;
    for (int64_t i = 0; i < in.num_rows; ++i) {
      if (flat.offsets[i + 1] - flat.offsets[i] > step) {
        rows.push_back(static_cast<int32_t>(i));
        elements.push_back(static_cast<int32_t>(flat.offsets[i] + step));
      }
    }
    Batch inner;
    inner.columns.push_back(TakeRows(acc, rows));
    inner.columns.push_back(TakeRows(flat.elements, elements));
    WEIR_ASSIGN_OR_RETURN(Column merged, EvaluateLambda(in, 2, &inner, rows));
    Column next(acc.type());
    next.Reserve(in.num_rows);
    next.ShareBuffersFrom(acc);
    next.ShareBuffersFrom(merged);
    size_t r = 0;
    for (int64_t i = 0; i < in.num_rows; ++i) {
      if (r < rows.size() && rows[r] == i) {
        AppendRow(&next, merged, static_cast<int64_t>(r++));
      } else {
        AppendRow(&next, acc, i);
      }
    }
    acc = std::move(next);
  }
  Column result = std::move(acc);
  if (in.args.size() > 3) {
    std::vector<int32_t> rows(static_cast<size_t>(in.num_rows));
    for (int64_t i = 0; i < in.num_rows; ++i) rows[i] = static_cast<int32_t>(i);
    Batch inner;
    inner.columns.push_back(std::move(result));
    WEIR_ASSIGN_OR_RETURN(result, EvaluateLambda(in, 3, &inner, rows));
  }
  if (flat.any_null) {
    std::vector<int64_t> picks(static_cast<size_t>(in.num_rows));
    for (int64_t i = 0; i < in.num_rows; ++i) picks[i] = flat.valid[i] ? i : -1;
    result = GatherOrNull(result, picks);
  }
  return Vector::Own(std::move(result), AllConstant(in));
}

// ------------------------------------------------------------------ the table

constexpr char kElementAt[] = "element_at";
constexpr char kTryElementAt[] = "try_element_at";
constexpr char kSubscript[] = "SUBSCRIPT";
constexpr char kSize[] = "size";
constexpr char kCardinality[] = "cardinality";
constexpr char kFilter[] = "filter";
constexpr char kExists[] = "exists";
constexpr char kForall[] = "forall";

constexpr Function kFunctions[] = {
    {"array", 0, -1, &ArrayRule, &ArrayKernel, false},
    {"map", 0, -1, &MapRule, &MapKernel, false},
    {"named_struct", 2, -1, &NamedStructRule, &NamedStructKernel, false},
    {"map_from_entries", 1, 1, &MapFromEntriesRule, &MapFromEntriesKernel, true},
    {"map_from_arrays", 2, 2, &MapFromArraysRule, &MapFromArraysKernel, true},
    {"map_concat", 0, -1, &MapConcatRule, &MapConcatKernel, false},
    {"map_keys", 1, 1, &MapKeysRule, &MapPartKernel<0>, false},
    {"map_values", 1, 1, &MapValuesRule, &MapPartKernel<1>, false},
    {"size", 1, 1, &SizeRule<kSize>, &SizeKernel, false},
    {"cardinality", 1, 1, &SizeRule<kCardinality>, &SizeKernel, false},
    {"element_at", 2, 2, &ElementAtRule<kElementAt>, &ElementAtKernel<Access::kElementAt>, true},
    {"try_element_at", 2, 2, &ElementAtRule<kTryElementAt>,
     &ElementAtKernel<Access::kTryElementAt>, true},
    {"SUBSCRIPT", 2, 2, &ElementAtRule<kSubscript>, &ElementAtKernel<Access::kSubscript>, true},
    {"array_contains", 2, 2, &ArrayContainsRule, &ArrayContainsKernel, true},
    // Higher-order functions: the binder binds their lambdas (BindHigherOrder in binder.cc).
    {"transform", 2, 2, &TransformRule, &TransformKernel, false},
    {"filter", 2, 2, &FilterRule<kFilter>, &FilterKernel, false},
    {"exists", 2, 2, &QuantifierRule<kExists>, &QuantifierKernel<true>, true},
    {"forall", 2, 2, &QuantifierRule<kForall>, &QuantifierKernel<false>, true},
    {"aggregate", 3, 4, &AggregateRule, &AggregateKernel, true},
    {"reduce", 3, 4, &AggregateRule, &AggregateKernel, true},
};

}  // namespace

std::span<const Function> CollectionFunctions() { return kFunctions; }

}  // namespace weir::expr
