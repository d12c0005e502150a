#include "columnar/types.h"

#include <cctype>
#include <nlohmann/json.hpp>

namespace weir::columnar {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

#define WEIR_PRIMITIVE_TYPE(Name, Id)                                        \
  TypePtr DataType::Name() {                                                 \
    static const TypePtr instance(new DataType(TypeId::Id));                \
    return instance;                                                         \
  }
WEIR_PRIMITIVE_TYPE(Boolean, kBoolean)
WEIR_PRIMITIVE_TYPE(Int8, kInt8)
WEIR_PRIMITIVE_TYPE(Int16, kInt16)
WEIR_PRIMITIVE_TYPE(Int32, kInt32)
WEIR_PRIMITIVE_TYPE(Int64, kInt64)
WEIR_PRIMITIVE_TYPE(Float, kFloat)
WEIR_PRIMITIVE_TYPE(Double, kDouble)
WEIR_PRIMITIVE_TYPE(String, kString)
WEIR_PRIMITIVE_TYPE(Binary, kBinary)
WEIR_PRIMITIVE_TYPE(Date, kDate)
WEIR_PRIMITIVE_TYPE(Timestamp, kTimestamp)
WEIR_PRIMITIVE_TYPE(TimestampNtz, kTimestampNtz)
#undef WEIR_PRIMITIVE_TYPE

TypePtr DataType::Decimal(int precision, int scale) {
  auto* t = new DataType(TypeId::kDecimal);
  t->precision_ = precision;
  t->scale_ = scale;
  return TypePtr(t);
}

TypePtr DataType::Struct(std::vector<Field> fields) {
  auto* t = new DataType(TypeId::kStruct);
  t->children_ = std::move(fields);
  return TypePtr(t);
}

TypePtr DataType::List(TypePtr element, bool contains_null) {
  auto* t = new DataType(TypeId::kList);
  t->children_.push_back(Field{"element", std::move(element), contains_null});
  return TypePtr(t);
}

TypePtr DataType::Map(TypePtr key, TypePtr value, bool value_contains_null) {
  auto* t = new DataType(TypeId::kMap);
  t->children_.push_back(Field{"key", std::move(key), false});
  t->children_.push_back(Field{"value", std::move(value), value_contains_null});
  return TypePtr(t);
}

int DataType::byte_width() const {
  switch (id_) {
    case TypeId::kBoolean:
    case TypeId::kInt8: return 1;
    case TypeId::kInt16: return 2;
    case TypeId::kInt32:
    case TypeId::kFloat:
    case TypeId::kDate: return 4;
    case TypeId::kInt64:
    case TypeId::kDouble:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: return 8;
    case TypeId::kDecimal: return 16;
    default: return 0;
  }
}

std::string DataType::ToDdl() const {
  switch (id_) {
    case TypeId::kBoolean: return "BOOLEAN";
    case TypeId::kInt8: return "TINYINT";
    case TypeId::kInt16: return "SMALLINT";
    case TypeId::kInt32: return "INT";
    case TypeId::kInt64: return "BIGINT";
    case TypeId::kFloat: return "FLOAT";
    case TypeId::kDouble: return "DOUBLE";
    case TypeId::kDecimal:
      return "DECIMAL(" + std::to_string(precision_) + "," + std::to_string(scale_) + ")";
    case TypeId::kString: return "STRING";
    case TypeId::kBinary: return "BINARY";
    case TypeId::kDate: return "DATE";
    case TypeId::kTimestamp: return "TIMESTAMP";
    case TypeId::kTimestampNtz: return "TIMESTAMP_NTZ";
    case TypeId::kStruct: {
      std::string out = "STRUCT<";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i > 0) out += ", ";
        out += children_[i].name + ": " + children_[i].type->ToDdl();
        if (!children_[i].nullable) out += " NOT NULL";
      }
      return out + ">";
    }
    case TypeId::kList: return "ARRAY<" + element().type->ToDdl() + ">";
    case TypeId::kMap: return "MAP<" + key().type->ToDdl() + ", " + value().type->ToDdl() + ">";
  }
  return "?";
}

std::string DataType::ToDeltaName() const {
  switch (id_) {
    case TypeId::kBoolean: return "boolean";
    case TypeId::kInt8: return "byte";
    case TypeId::kInt16: return "short";
    case TypeId::kInt32: return "integer";
    case TypeId::kInt64: return "long";
    case TypeId::kFloat: return "float";
    case TypeId::kDouble: return "double";
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(precision_) + "," + std::to_string(scale_) + ")";
    case TypeId::kString: return "string";
    case TypeId::kBinary: return "binary";
    case TypeId::kDate: return "date";
    case TypeId::kTimestamp: return "timestamp";
    case TypeId::kTimestampNtz: return "timestamp_ntz";
    case TypeId::kStruct: return "struct";
    case TypeId::kList: return "array";
    case TypeId::kMap: return "map";
  }
  return "?";
}

bool DataType::Equals(const DataType& other) const {
  if (id_ != other.id_ || precision_ != other.precision_ || scale_ != other.scale_ ||
      children_.size() != other.children_.size()) {
    return false;
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    const Field& a = children_[i];
    const Field& b = other.children_[i];
    if (a.name != b.name || a.nullable != b.nullable || !a.type->Equals(*b.type)) return false;
  }
  return true;
}

bool DataType::EqualsIgnoringNullability(const DataType& other) const {
  if (id_ != other.id_ || precision_ != other.precision_ || scale_ != other.scale_ ||
      children_.size() != other.children_.size()) {
    return false;
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    const Field& a = children_[i];
    const Field& b = other.children_[i];
    if (a.name != b.name || !a.type->EqualsIgnoringNullability(*b.type)) return false;
  }
  return true;
}

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreCase(fields[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

bool Schema::Equals(const Schema& other) const {
  return DataType::Struct(fields)->Equals(*DataType::Struct(other.fields));
}

std::string Schema::ToDdl() const {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += fields[i].name + " " + fields[i].type->ToDdl();
    if (!fields[i].nullable) out += " NOT NULL";
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Spark DDL parser: a small recursive-descent parser over the text.

namespace {

class DdlParser {
 public:
  explicit DdlParser(std::string_view text) : text_(text) {}

  Result<Schema> ParseSchema() {
    Schema schema;
    SkipSpace();
    if (AtEnd()) return Error("an empty schema");
    while (true) {
      WEIR_ASSIGN_OR_RETURN(Field field, ParseField(/*colon_allowed=*/true));
      schema.fields.push_back(std::move(field));
      SkipSpace();
      if (AtEnd()) break;
      if (!Consume(',')) return Error("',' between columns");
    }
    return schema;
  }

  Result<TypePtr> ParseTypeOnly() {
    WEIR_ASSIGN_OR_RETURN(TypePtr type, ParseType());
    SkipSpace();
    if (!AtEnd()) return Error("end of type");
    return type;
  }

 private:
  Status Error(std::string_view expected) const {
    return Status::InvalidArgument("schema DDL: expected " + std::string(expected) +
                                   " at position " + std::to_string(pos_ + 1) + " in '" +
                                   std::string(text_) + "'");
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  void SkipSpace() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (!AtEnd() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // Identifier: letters, digits, underscore; or `back-quoted` with `` as an escaped backquote.
  Result<std::string> ParseIdentifier() {
    SkipSpace();
    if (AtEnd()) return Error("a name");
    if (text_[pos_] == '`') {
      std::string out;
      ++pos_;
      while (true) {
        if (AtEnd()) return Error("closing '`'");
        char c = text_[pos_++];
        if (c == '`') {
          if (!AtEnd() && text_[pos_] == '`') {
            out += '`';
            ++pos_;
            continue;
          }
          return out;
        }
        out += c;
      }
    }
    size_t start = pos_;
    while (!AtEnd() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (start == pos_) return Error("a name");
    return std::string(text_.substr(start, pos_ - start));
  }
  Result<int> ParseInt() {
    SkipSpace();
    size_t start = pos_;
    while (!AtEnd() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (start == pos_ || pos_ - start > 4) return Error("a small integer");
    return std::stoi(std::string(text_.substr(start, pos_ - start)));
  }
  bool ConsumeKeyword(std::string_view word) {
    SkipSpace();
    size_t save = pos_;
    auto ident = ParseIdentifier();
    if (ident.ok() && EqualsIgnoreCase(*ident, word)) return true;
    pos_ = save;
    return false;
  }
  Result<std::string> ParseStringLiteral() {
    SkipSpace();
    if (AtEnd() || (text_[pos_] != '\'' && text_[pos_] != '"')) return Error("a quoted string");
    char quote = text_[pos_++];
    std::string out;
    while (true) {
      if (AtEnd()) return Error("a closing quote");
      char c = text_[pos_++];
      if (c == '\\' && !AtEnd()) {
        out += text_[pos_++];
        continue;
      }
      if (c == quote) return out;
      out += c;
    }
  }

  // name [:] type [NOT NULL] [COMMENT 'text']
  Result<Field> ParseField(bool colon_allowed) {
    Field field;
    WEIR_ASSIGN_OR_RETURN(field.name, ParseIdentifier());
    if (colon_allowed) Consume(':');
    WEIR_ASSIGN_OR_RETURN(field.type, ParseType());
    if (ConsumeKeyword("NOT")) {
      if (!ConsumeKeyword("NULL")) return Error("NULL after NOT");
      field.nullable = false;
    }
    if (ConsumeKeyword("COMMENT")) {
      WEIR_ASSIGN_OR_RETURN(std::string comment, ParseStringLiteral());
      field.metadata = nlohmann::json{{"comment", comment}}.dump();
    }
    return field;
  }

  Result<TypePtr> ParseType() {
    size_t type_start = pos_;
    WEIR_ASSIGN_OR_RETURN(std::string name, ParseIdentifier());
    auto is = [&](std::string_view n) { return EqualsIgnoreCase(name, n); };
    if (is("STRING") || is("TEXT")) return DataType::String();
    if (is("VARCHAR") || is("CHAR")) {
      if (Consume('(')) {
        WEIR_RETURN_NOT_OK(ParseInt().status());
        if (!Consume(')')) return Error("')'");
      }
      return DataType::String();
    }
    if (is("BIGINT") || is("LONG")) return DataType::Int64();
    if (is("INT") || is("INTEGER")) return DataType::Int32();
    if (is("SMALLINT") || is("SHORT")) return DataType::Int16();
    if (is("TINYINT") || is("BYTE")) return DataType::Int8();
    if (is("BOOLEAN") || is("BOOL")) return DataType::Boolean();
    if (is("FLOAT") || is("REAL")) return DataType::Float();
    if (is("DOUBLE")) return DataType::Double();
    if (is("BINARY")) return DataType::Binary();
    if (is("DATE")) return DataType::Date();
    if (is("TIMESTAMP") || is("TIMESTAMP_LTZ")) return DataType::Timestamp();
    if (is("TIMESTAMP_NTZ")) return DataType::TimestampNtz();
    if (is("DECIMAL") || is("DEC") || is("NUMERIC")) {
      int precision = 10, scale = 0;  // Spark's default DECIMAL is DECIMAL(10,0)
      if (Consume('(')) {
        WEIR_ASSIGN_OR_RETURN(precision, ParseInt());
        if (Consume(',')) {
          WEIR_ASSIGN_OR_RETURN(scale, ParseInt());
        }
        if (!Consume(')')) return Error("')' after the decimal precision and scale");
      }
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
        pos_ = type_start;
        return Error("DECIMAL(p,s) with 1 <= p <= 38 and 0 <= s <= p");
      }
      return DataType::Decimal(precision, scale);
    }
    if (is("ARRAY")) {
      if (!Consume('<')) return Error("'<' after ARRAY");
      WEIR_ASSIGN_OR_RETURN(TypePtr element, ParseType());
      if (!Consume('>')) return Error("'>' closing ARRAY");
      return DataType::List(std::move(element));
    }
    if (is("MAP")) {
      if (!Consume('<')) return Error("'<' after MAP");
      WEIR_ASSIGN_OR_RETURN(TypePtr key, ParseType());
      if (!Consume(',')) return Error("',' between MAP key and value types");
      WEIR_ASSIGN_OR_RETURN(TypePtr value, ParseType());
      if (!Consume('>')) return Error("'>' closing MAP");
      return DataType::Map(std::move(key), std::move(value));
    }
    if (is("STRUCT")) {
      if (!Consume('<')) return Error("'<' after STRUCT");
      std::vector<Field> fields;
      if (!Consume('>')) {
        while (true) {
          WEIR_ASSIGN_OR_RETURN(Field f, ParseField(/*colon_allowed=*/true));
          fields.push_back(std::move(f));
          if (Consume('>')) break;
          if (!Consume(',')) return Error("',' or '>' in STRUCT");
        }
      }
      return DataType::Struct(std::move(fields));
    }
    pos_ = type_start;
    SkipSpace();
    return Error("a type name (STRING, BIGINT, INT, DECIMAL(p,s), TIMESTAMP, ARRAY<..>, ...), not '" +
                 name + "'");
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Delta schema JSON.

nlohmann::ordered_json TypeToJson(const DataType& type);

nlohmann::ordered_json FieldToJson(const Field& f) {
  nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
  if (!f.metadata.empty() && f.metadata != "{}") {
    metadata = nlohmann::ordered_json::parse(f.metadata, nullptr, /*allow_exceptions=*/false);
    if (metadata.is_discarded()) metadata = nlohmann::ordered_json::object();
  }
  return nlohmann::ordered_json{
      {"name", f.name}, {"type", TypeToJson(*f.type)}, {"nullable", f.nullable},
      {"metadata", metadata}};
}

nlohmann::ordered_json TypeToJson(const DataType& type) {
  switch (type.id()) {
    case TypeId::kStruct: {
      nlohmann::ordered_json fields = nlohmann::ordered_json::array();
      for (const Field& f : type.children()) fields.push_back(FieldToJson(f));
      return nlohmann::ordered_json{{"type", "struct"}, {"fields", fields}};
    }
    case TypeId::kList:
      return nlohmann::ordered_json{{"type", "array"},
                            {"elementType", TypeToJson(*type.element().type)},
                            {"containsNull", type.element().nullable}};
    case TypeId::kMap:
      return nlohmann::ordered_json{{"type", "map"},
                            {"keyType", TypeToJson(*type.key().type)},
                            {"valueType", TypeToJson(*type.value().type)},
                            {"valueContainsNull", type.value().nullable}};
    default:
      return type.ToDeltaName();
  }
}

Result<TypePtr> TypeFromJson(const nlohmann::json& j, int depth);

Result<Field> FieldFromJson(const nlohmann::json& j, int depth) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("type")) {
    return Status::Corruption("Delta schema: a field needs \"name\" and \"type\": " + j.dump());
  }
  Field f;
  f.name = j["name"].get<std::string>();
  WEIR_ASSIGN_OR_RETURN(f.type, TypeFromJson(j["type"], depth + 1));
  f.nullable = !j.contains("nullable") || !j["nullable"].is_boolean() || j["nullable"].get<bool>();
  if (j.contains("metadata") && j["metadata"].is_object()) f.metadata = j["metadata"].dump();
  return f;
}

Result<TypePtr> TypeFromJson(const nlohmann::json& j, int depth) {
  if (depth > 64) return Status::Corruption("Delta schema: nesting deeper than 64 levels");
  if (j.is_string()) {
    std::string name = j.get<std::string>();
    if (name == "integer") return DataType::Int32();
    if (name == "long") return DataType::Int64();
    if (name == "short") return DataType::Int16();
    if (name == "byte") return DataType::Int8();
    if (name == "timestamp_ntz") return DataType::TimestampNtz();
    auto parsed = DdlParser(name).ParseTypeOnly();
    if (!parsed.ok() || (*parsed)->is_nested()) {
      return Status::NotImplemented("Delta schema: unsupported type '" + name + "'");
    }
    return parsed;
  }
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    return Status::Corruption("Delta schema: a type must be a name or an object: " + j.dump());
  }
  std::string kind = j["type"].get<std::string>();
  if (kind == "struct") {
    if (!j.contains("fields") || !j["fields"].is_array()) {
      return Status::Corruption("Delta schema: struct without \"fields\"");
    }
    std::vector<Field> fields;
    for (const auto& fj : j["fields"]) {
      WEIR_ASSIGN_OR_RETURN(Field f, FieldFromJson(fj, depth + 1));
      fields.push_back(std::move(f));
    }
    return DataType::Struct(std::move(fields));
  }
  if (kind == "array") {
    if (!j.contains("elementType")) return Status::Corruption("Delta schema: array without elementType");
    WEIR_ASSIGN_OR_RETURN(TypePtr element, TypeFromJson(j["elementType"], depth + 1));
    bool contains_null = !j.contains("containsNull") || !j["containsNull"].is_boolean() ||
                         j["containsNull"].get<bool>();
    return DataType::List(std::move(element), contains_null);
  }
  if (kind == "map") {
    if (!j.contains("keyType") || !j.contains("valueType")) {
      return Status::Corruption("Delta schema: map without keyType/valueType");
    }
    WEIR_ASSIGN_OR_RETURN(TypePtr key, TypeFromJson(j["keyType"], depth + 1));
    WEIR_ASSIGN_OR_RETURN(TypePtr value, TypeFromJson(j["valueType"], depth + 1));
    bool contains_null = !j.contains("valueContainsNull") || !j["valueContainsNull"].is_boolean() ||
                         j["valueContainsNull"].get<bool>();
    return DataType::Map(std::move(key), std::move(value), contains_null);
  }
  return Status::NotImplemented("Delta schema: unsupported type '" + kind + "'");
}

}  // namespace

Result<Schema> ParseDdlSchema(std::string_view ddl) { return DdlParser(ddl).ParseSchema(); }

Result<TypePtr> ParseDdlType(std::string_view ddl) { return DdlParser(ddl).ParseTypeOnly(); }

std::string SchemaToDeltaJson(const Schema& schema) {
  return TypeToJson(*DataType::Struct(schema.fields)).dump();
}

Result<Schema> SchemaFromDeltaJson(std::string_view json) {
  auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption("Delta schema: schemaString is not valid JSON");
  WEIR_ASSIGN_OR_RETURN(TypePtr type, TypeFromJson(j, 0));
  if (type->id() != TypeId::kStruct) {
    return Status::Corruption("Delta schema: schemaString must be a struct");
  }
  return Schema{type->children()};
}

}  // namespace weir::columnar
