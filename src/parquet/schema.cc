#include "parquet/schema.h"

#include <cmath>
#include <optional>

namespace weir::parquet {

using columnar::DataType;
using columnar::Field;
using columnar::TypePtr;

int32_t DecimalByteWidth(int precision) {
  // Smallest n with 2^(8n-1) > 10^precision.
  int32_t n = 1;
  while ((8.0 * n - 1) * std::log10(2.0) < precision) ++n;
  return n;
}

namespace {

struct Converted {
  Field field;
  LevelNode node;
};

class SchemaReader {
 public:
  explicit SchemaReader(const std::vector<SchemaElement>& elements) : elements_(elements) {}

  Result<FileSchema> Read() {
    if (elements_.empty()) return Status::Corruption("Parquet schema: no elements");
    const SchemaElement& root = elements_[0];
    int children = root.num_children.value_or(0);
    if (children < 0 || static_cast<size_t>(children) >= elements_.size() + 1) {
      return Status::Corruption("Parquet schema: the root claims " + std::to_string(children) +
                                " children");
    }
    pos_ = 1;
    FileSchema out;
    for (int i = 0; i < children; ++i) {
      WEIR_ASSIGN_OR_RETURN(Converted c, Convert(0, 0, /*force_required=*/false, {}));
      if (std::optional<std::string> message = UnreadableMessage(c.field.name, c.node)) {
        out.unreadable.push_back(UnreadableField{c.field.name, std::move(*message)});
        continue;
      }
      out.schema.fields.push_back(std::move(c.field));
      out.fields.push_back(std::move(c.node));
    }
    if (pos_ != elements_.size()) {
      return Status::Corruption("Parquet schema: " + std::to_string(elements_.size() - pos_) +
                                " elements outside the tree");
    }
    out.leaves = std::move(leaves_);
    return out;
  }

 private:
  Result<const SchemaElement*> Next() {
    if (pos_ >= elements_.size()) {
      return Status::Corruption("Parquet schema: a group claims more children than exist");
    }
    if (++depth_guard_ > 100000) return Status::Corruption("Parquet schema: too many elements");
    return &elements_[pos_++];
  }

  // Why the top-level field `name` cannot be read, if one of its leaves has a type weir does not
  // read.
  std::optional<std::string> UnreadableMessage(const std::string& name,
                                               const LevelNode& node) const {
    for (int l = node.leaf_begin; l < node.leaf_end; ++l) {
      const LeafDescriptor& leaf = leaves_[l];
      if (leaf.unsupported_type.empty()) continue;
      std::string path;
      for (const auto& part : leaf.path) path += (path.empty() ? "" : ".") + part;
      std::string message = "column '" + name + "'";
      if (path != name) message += " (its field '" + path + "')";
      message += " has Parquet type " + leaf.unsupported_type + ", which weir does not read";
      if (leaf.unsupported_type.find("TIME") != std::string::npos) {
        message += " (weir, like Delta Lake, has no TIME type)";
      }
      return message + "; read the file's other columns by naming them";
    }
    return std::nullopt;
  }

  static bool IsGroup(const SchemaElement& e) { return !e.type.has_value(); }

  static const char* UnitName(TimeUnit unit) {
    switch (unit) {
      case TimeUnit::kMillis: return "MILLIS";
      case TimeUnit::kMicros: return "MICROS";
      case TimeUnit::kNanos: return "NANOS";
    }
    return "UNKNOWN";
  }

  // A leaf weir does not read: kept (so column chunks still line up with leaves) with the
  // columnar type of its physical values, and its Parquet type for the error message.
  static LeafDescriptor Unsupported(LeafDescriptor leaf, const std::string& annotation) {
    leaf.unsupported_type = std::string(TypeName(leaf.physical_type)) + " " + annotation;
    switch (leaf.physical_type) {
      case Type::kBoolean: leaf.type = DataType::Boolean(); break;
      case Type::kInt32: leaf.type = DataType::Int32(); break;
      case Type::kInt64: leaf.type = DataType::Int64(); break;
      case Type::kFloat: leaf.type = DataType::Float(); break;
      case Type::kDouble: leaf.type = DataType::Double(); break;
      default: leaf.type = DataType::Binary(); break;
    }
    leaf.conversion = Conversion::kNone;
    return leaf;
  }
  static bool Annotated(const SchemaElement& e, LogicalType::Kind kind, ConvertedType converted) {
    if (e.logical_type && e.logical_type->kind == kind) return true;
    return e.converted_type && *e.converted_type == converted;
  }

  // Converts the next element (and its subtree). `force_required`: the element is a repeated
  // field already accounted for as a list's element.
  Result<Converted> Convert(int16_t parent_def, int16_t parent_rep, bool force_required,
                            std::vector<std::string> path) {
    if (path.size() > 64) return Status::Corruption("Parquet schema: nesting deeper than 64");
    WEIR_ASSIGN_OR_RETURN(const SchemaElement* e, Next());
    path.push_back(e->name);
    auto repetition = e->repetition_type.value_or(FieldRepetitionType::kRequired);
    if (repetition == FieldRepetitionType::kRepeated && !force_required) {
      // A bare repeated field: a list of required elements (legacy 2-level / unannotated).
      --pos_;
      LevelNode list;
      list.kind = LevelNode::Kind::kList;
      list.def_present = parent_def;
      list.def_element = static_cast<int16_t>(parent_def + 1);
      list.rep_context = parent_rep;
      list.leaf_begin = static_cast<int>(leaves_.size());
      path.pop_back();
      WEIR_ASSIGN_OR_RETURN(Converted element,
                            Convert(list.def_element, static_cast<int16_t>(parent_rep + 1),
                                    /*force_required=*/true, path));
      Field field{element.field.name, DataType::List(element.field.type, false), false};
      list.type = field.type;
      list.children.push_back(std::move(element.node));
      list.leaf_end = static_cast<int>(leaves_.size());
      return Converted{std::move(field), std::move(list)};
    }
    const bool optional = repetition == FieldRepetitionType::kOptional && !force_required;
    const int16_t def_here = static_cast<int16_t>(parent_def + (optional ? 1 : 0));
    LevelNode node;
    node.def_present = def_here;
    node.rep_context = parent_rep;
    node.leaf_begin = static_cast<int>(leaves_.size());
    Field field;
    field.name = e->name;
    field.nullable = optional;

    if (!IsGroup(*e)) {
      WEIR_ASSIGN_OR_RETURN(LeafDescriptor leaf, DescribeLeaf(*e));
      leaf.path = path;
      leaf.max_def = def_here;
      leaf.max_rep = parent_rep;
      node.kind = LevelNode::Kind::kLeaf;
      node.type = leaf.type;
      field.type = leaf.type;
      leaves_.push_back(std::move(leaf));
      node.leaf_end = static_cast<int>(leaves_.size());
      return Converted{std::move(field), std::move(node)};
    }

    const int children = e->num_children.value_or(0);
    if (children < 0 || static_cast<size_t>(children) > elements_.size() - pos_) {
      return Status::Corruption("Parquet schema: group '" + e->name + "' claims " +
                                std::to_string(children) + " children");
    }
    const bool is_list = Annotated(*e, LogicalType::Kind::kList, ConvertedType::kList);
    const bool is_map = Annotated(*e, LogicalType::Kind::kMap, ConvertedType::kMap) ||
                        Annotated(*e, LogicalType::Kind::kMap, ConvertedType::kMapKeyValue);
    if ((is_list || is_map) && children == 1 &&
        elements_[pos_].repetition_type == FieldRepetitionType::kRepeated) {
      const SchemaElement& repeated = elements_[pos_];
      node.def_element = static_cast<int16_t>(def_here + 1);
      const int16_t element_rep = static_cast<int16_t>(parent_rep + 1);
      if (is_map && IsGroup(repeated) && repeated.num_children.value_or(0) == 2) {
        // MAP { repeated group key_value { key; value } }
        node.kind = LevelNode::Kind::kMap;
        ++pos_;
        path.push_back(repeated.name);
        WEIR_ASSIGN_OR_RETURN(Converted key, Convert(node.def_element, element_rep, false, path));
        WEIR_ASSIGN_OR_RETURN(Converted value, Convert(node.def_element, element_rep, false, path));
        field.type = DataType::Map(key.field.type, value.field.type, value.field.nullable);
        node.children.push_back(std::move(key.node));
        node.children.push_back(std::move(value.node));
      } else if (is_map && !(IsGroup(repeated) && repeated.num_children.value_or(0) == 1)) {
        return Status::NotImplemented("Parquet schema: map '" + e->name +
                                      "' without a key and a value field");
      } else {
        // A list, or a map whose key_value group holds only keys: read as a list of the keys.
        node.kind = LevelNode::Kind::kList;
        bool element_is_repeated_field =
            !IsGroup(repeated) || repeated.num_children.value_or(0) != 1 ||
            repeated.name == "array" || repeated.name == e->name + "_tuple";
        Converted element;
        if (element_is_repeated_field) {
          // 2-level: the repeated field itself is the (required) element.
          WEIR_ASSIGN_OR_RETURN(element, Convert(node.def_element, element_rep, true, path));
        } else {
          // 3-level: repeated group list { element }.
          ++pos_;
          path.push_back(repeated.name);
          WEIR_ASSIGN_OR_RETURN(element, Convert(node.def_element, element_rep, false, path));
        }
        field.type = DataType::List(element.field.type, element.field.nullable);
        node.children.push_back(std::move(element.node));
      }
      node.type = field.type;
      node.leaf_end = static_cast<int>(leaves_.size());
      return Converted{std::move(field), std::move(node)};
    }
    // A plain group: a struct.
    node.kind = LevelNode::Kind::kStruct;
    std::vector<Field> fields;
    for (int i = 0; i < children; ++i) {
      WEIR_ASSIGN_OR_RETURN(Converted child, Convert(def_here, parent_rep, false, path));
      fields.push_back(std::move(child.field));
      node.children.push_back(std::move(child.node));
    }
    if (fields.empty()) {
      return Status::NotImplemented("Parquet schema: empty group '" + e->name + "'");
    }
    field.type = DataType::Struct(std::move(fields));
    node.type = field.type;
    node.leaf_end = static_cast<int>(leaves_.size());
    return Converted{std::move(field), std::move(node)};
  }

  Result<LeafDescriptor> DescribeLeaf(const SchemaElement& e) {
    LeafDescriptor leaf;
    leaf.physical_type = *e.type;
    leaf.type_length = e.type_length.value_or(0);
    const auto& lt = e.logical_type;
    auto converted = e.converted_type;
    auto has = [&](LogicalType::Kind k, std::optional<ConvertedType> c) {
      return (lt && lt->kind == k) || (c && converted && *converted == *c);
    };
    // Decimal in any physical type.
    if (has(LogicalType::Kind::kDecimal, ConvertedType::kDecimal)) {
      int precision = lt && lt->kind == LogicalType::Kind::kDecimal ? lt->precision
                                                                    : e.precision.value_or(0);
      int scale = lt && lt->kind == LogicalType::Kind::kDecimal ? lt->scale : e.scale.value_or(0);
      if (precision < 1 || scale < 0 || scale > precision) {
        return Status::Corruption("Parquet column '" + e.name + "': invalid DECIMAL(" +
                                  std::to_string(precision) + "," + std::to_string(scale) + ")");
      }
      if (precision > 38) {
        return Unsupported(leaf, "DECIMAL(" + std::to_string(precision) + "," +
                                     std::to_string(scale) + ") (more than 38 digits)");
      }
      leaf.type = DataType::Decimal(precision, scale);
      switch (leaf.physical_type) {
        case Type::kInt32: leaf.conversion = Conversion::kInt32ToDecimal; break;
        case Type::kInt64: leaf.conversion = Conversion::kInt64ToDecimal; break;
        case Type::kByteArray:
        case Type::kFixedLenByteArray: leaf.conversion = Conversion::kBytesToDecimal; break;
        default: return Status::Corruption("Parquet column '" + e.name + "': DECIMAL on a " +
                                           "boolean/float/int96 column");
      }
      return leaf;
    }
    if (lt && lt->kind == LogicalType::Kind::kTime) {
      return Unsupported(leaf, std::string("TIME(") + UnitName(lt->unit) + ", isAdjustedToUTC=" +
                                   (lt->is_adjusted_to_utc ? "true" : "false") + ")");
    }
    if (converted && *converted == ConvertedType::kTimeMillis) {
      return Unsupported(leaf, "TIME_MILLIS");
    }
    if (converted && *converted == ConvertedType::kTimeMicros) {
      return Unsupported(leaf, "TIME_MICROS");
    }
    if (converted && *converted == ConvertedType::kInterval) return Unsupported(leaf, "INTERVAL");
    switch (leaf.physical_type) {
      case Type::kBoolean: leaf.type = DataType::Boolean(); return leaf;
      case Type::kFloat: leaf.type = DataType::Float(); return leaf;
      case Type::kDouble: leaf.type = DataType::Double(); return leaf;
      case Type::kInt96:
        leaf.type = DataType::Timestamp();
        leaf.conversion = Conversion::kInt96ToMicros;
        return leaf;
      case Type::kInt32: {
        if (has(LogicalType::Kind::kDate, ConvertedType::kDate)) {
          leaf.type = DataType::Date();
          return leaf;
        }
        int bits = 32;
        bool is_signed = true;
        if (lt && lt->kind == LogicalType::Kind::kInteger) {
          bits = lt->bit_width;
          is_signed = lt->is_signed;
        } else if (converted) {
          switch (*converted) {
            case ConvertedType::kInt8: bits = 8; break;
            case ConvertedType::kInt16: bits = 16; break;
            case ConvertedType::kUint8: bits = 8; is_signed = false; break;
            case ConvertedType::kUint16: bits = 16; is_signed = false; break;
            case ConvertedType::kUint32: bits = 32; is_signed = false; break;
            default: break;
          }
        }
        if (is_signed) {
          leaf.type = bits == 8 ? DataType::Int8() : bits == 16 ? DataType::Int16() : DataType::Int32();
          leaf.conversion = bits == 8    ? Conversion::kInt32ToInt8
                            : bits == 16 ? Conversion::kInt32ToInt16
                                         : Conversion::kNone;
        } else {
          leaf.type = bits == 8 ? DataType::Int16() : bits == 16 ? DataType::Int32() : DataType::Int64();
          leaf.conversion = bits == 8    ? Conversion::kUint8ToInt16
                            : bits == 16 ? Conversion::kUint16ToInt32
                                         : Conversion::kUint32ToInt64;
        }
        return leaf;
      }
      case Type::kInt64: {
        if (lt && lt->kind == LogicalType::Kind::kTimestamp) {
          leaf.type = lt->is_adjusted_to_utc ? DataType::Timestamp() : DataType::TimestampNtz();
          leaf.conversion = lt->unit == TimeUnit::kMillis  ? Conversion::kMillisToMicros
                            : lt->unit == TimeUnit::kNanos ? Conversion::kNanosToMicros
                                                           : Conversion::kNone;
          return leaf;
        }
        if (converted && (*converted == ConvertedType::kTimestampMillis ||
                          *converted == ConvertedType::kTimestampMicros)) {
          leaf.type = DataType::Timestamp();
          leaf.conversion = *converted == ConvertedType::kTimestampMillis
                                ? Conversion::kMillisToMicros
                                : Conversion::kNone;
          return leaf;
        }
        bool is_unsigned = (lt && lt->kind == LogicalType::Kind::kInteger && !lt->is_signed) ||
                           (converted && *converted == ConvertedType::kUint64);
        if (is_unsigned) {
          leaf.type = DataType::Decimal(20, 0);
          leaf.conversion = Conversion::kUint64ToDecimal;
        } else {
          leaf.type = DataType::Int64();
        }
        return leaf;
      }
      case Type::kByteArray:
        if (has(LogicalType::Kind::kString, ConvertedType::kUtf8) ||
            has(LogicalType::Kind::kEnum, ConvertedType::kEnum) ||
            has(LogicalType::Kind::kJson, ConvertedType::kJson)) {
          leaf.type = DataType::String();
        } else {
          leaf.type = DataType::Binary();
        }
        return leaf;
      case Type::kFixedLenByteArray:
        if (leaf.type_length < 0) {
          return Status::Corruption("Parquet column '" + e.name + "': negative type_length");
        }
        if (lt && lt->kind == LogicalType::Kind::kUuid) {
          if (leaf.type_length != 16) return Status::Corruption("Parquet UUID column '" + e.name + "' is not 16 bytes");
          leaf.type = DataType::String();
          leaf.conversion = Conversion::kUuidToString;
        } else if (lt && lt->kind == LogicalType::Kind::kFloat16) {
          if (leaf.type_length != 2) return Status::Corruption("Parquet FLOAT16 column '" + e.name + "' is not 2 bytes");
          leaf.type = DataType::Float();
          leaf.conversion = Conversion::kFloat16ToFloat;
        } else {
          leaf.type = DataType::Binary();
        }
        return leaf;
    }
    return Status::Corruption("Parquet column '" + e.name + "': unknown physical type");
  }

  const std::vector<SchemaElement>& elements_;
  size_t pos_ = 0;
  size_t depth_guard_ = 0;
  std::vector<LeafDescriptor> leaves_;
};

// ---- Writing

void AppendElements(const Field& field, std::vector<SchemaElement>* out) {
  SchemaElement e;
  e.name = field.name;
  e.repetition_type =
      field.nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired;
  const auto& type = *field.type;
  switch (type.id()) {
    case columnar::TypeId::kBoolean: e.type = Type::kBoolean; break;
    case columnar::TypeId::kInt8:
      e.type = Type::kInt32;
      e.logical_type = LogicalType::Integer(8, true);
      e.converted_type = ConvertedType::kInt8;
      break;
    case columnar::TypeId::kInt16:
      e.type = Type::kInt32;
      e.logical_type = LogicalType::Integer(16, true);
      e.converted_type = ConvertedType::kInt16;
      break;
    case columnar::TypeId::kInt32: e.type = Type::kInt32; break;
    case columnar::TypeId::kInt64: e.type = Type::kInt64; break;
    case columnar::TypeId::kFloat: e.type = Type::kFloat; break;
    case columnar::TypeId::kDouble: e.type = Type::kDouble; break;
    case columnar::TypeId::kDecimal:
      if (type.precision() <= 9) {
        e.type = Type::kInt32;
      } else if (type.precision() <= 18) {
        e.type = Type::kInt64;
      } else {
        e.type = Type::kFixedLenByteArray;
        e.type_length = DecimalByteWidth(type.precision());
      }
      e.logical_type = LogicalType::Decimal(type.scale(), type.precision());
      e.converted_type = ConvertedType::kDecimal;
      e.scale = type.scale();
      e.precision = type.precision();
      break;
    case columnar::TypeId::kString:
      e.type = Type::kByteArray;
      e.logical_type = LogicalType::Simple(LogicalType::Kind::kString);
      e.converted_type = ConvertedType::kUtf8;
      break;
    case columnar::TypeId::kBinary: e.type = Type::kByteArray; break;
    case columnar::TypeId::kDate:
      e.type = Type::kInt32;
      e.logical_type = LogicalType::Simple(LogicalType::Kind::kDate);
      e.converted_type = ConvertedType::kDate;
      break;
    case columnar::TypeId::kTimestamp:
      e.type = Type::kInt64;
      e.logical_type = LogicalType::Timestamp(true, TimeUnit::kMicros);
      e.converted_type = ConvertedType::kTimestampMicros;
      break;
    case columnar::TypeId::kTimestampNtz:
      e.type = Type::kInt64;
      e.logical_type = LogicalType::Timestamp(false, TimeUnit::kMicros);
      break;
    case columnar::TypeId::kStruct:
      e.num_children = static_cast<int32_t>(type.children().size());
      out->push_back(e);
      for (const Field& child : type.children()) AppendElements(child, out);
      return;
    case columnar::TypeId::kList:
    case columnar::TypeId::kMap: {
      bool is_list = type.id() == columnar::TypeId::kList;
      e.num_children = 1;
      e.logical_type = LogicalType::Simple(is_list ? LogicalType::Kind::kList : LogicalType::Kind::kMap);
      e.converted_type = is_list ? ConvertedType::kList : ConvertedType::kMap;
      out->push_back(e);
      SchemaElement repeated;
      repeated.name = is_list ? "list" : "key_value";
      repeated.repetition_type = FieldRepetitionType::kRepeated;
      repeated.num_children = static_cast<int32_t>(type.children().size());
      out->push_back(repeated);
      for (const Field& child : type.children()) AppendElements(child, out);
      return;
    }
  }
  out->push_back(e);
}

}  // namespace

Result<FileSchema> SchemaFromParquet(const std::vector<SchemaElement>& elements) {
  return SchemaReader(elements).Read();
}

std::vector<SchemaElement> SchemaToParquet(const columnar::Schema& schema) {
  std::vector<SchemaElement> out;
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(schema.fields.size());
  out.push_back(root);
  for (const Field& f : schema.fields) AppendElements(f, &out);
  return out;
}

}  // namespace weir::parquet
