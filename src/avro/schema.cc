#include "avro/schema.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace weir::avro {

using Json = nlohmann::json;
using columnar::DataType;
using columnar::Field;

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kBoolean:
      return "boolean";
    case Type::kInt:
      return "int";
    case Type::kLong:
      return "long";
    case Type::kFloat:
      return "float";
    case Type::kDouble:
      return "double";
    case Type::kBytes:
      return "bytes";
    case Type::kString:
      return "string";
    case Type::kRecord:
      return "record";
    case Type::kEnum:
      return "enum";
    case Type::kArray:
      return "array";
    case Type::kMap:
      return "map";
    case Type::kUnion:
      return "union";
    case Type::kFixed:
      return "fixed";
  }
  return "?";
}

namespace {

// The deepest JSON nesting accepted before parsing (a record level takes about three: the
// record object, its fields array and a field object).
constexpr int kMaxJsonDepth = 3 * kMaxNesting + 8;
// Spark type nodes one schema may map to (named types referenced repeatedly multiply).
constexpr int64_t kMaxSparkNodes = 10000;
constexpr int64_t kSizeCap = int64_t{1} << 40;

int JsonDepth(std::string_view text) {
  int depth = 0, max_depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      max_depth = std::max(max_depth, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return max_depth;
}

bool PrimitiveType(std::string_view name, Type* out) {
  static const std::pair<std::string_view, Type> kPrimitives[] = {
      {"null", Type::kNull},   {"boolean", Type::kBoolean}, {"int", Type::kInt},
      {"long", Type::kLong},   {"float", Type::kFloat},     {"double", Type::kDouble},
      {"bytes", Type::kBytes}, {"string", Type::kString},
  };
  for (const auto& [n, t] : kPrimitives) {
    if (n == name) {
      *out = t;
      return true;
    }
  }
  return false;
}

Status Bad(const std::string& msg) { return Status::Corruption("avro schema: " + msg); }

}  // namespace

class SchemaParser {
 public:
  explicit SchemaParser(Schema* schema) : schema_(schema) {}

  Result<const Node*> Parse(const Json& j, const std::string& ns, int depth) {
    if (depth > kMaxNesting) {
      return Status::NotImplemented("avro schema: nested deeper than " +
                                    std::to_string(kMaxNesting) + " levels");
    }
    if (j.is_string()) return Resolve(j.get<std::string>(), ns);
    if (j.is_array()) return ParseUnion(j, ns, depth);
    if (!j.is_object()) return Bad("expected a type name, object or array, got " + Short(j));
    auto t = j.find("type");
    if (t == j.end()) return Bad("no \"type\" in " + Short(j));
    if (!t->is_string()) {
      // {"type": {...}} / {"type": [...]}: the nested form some writers emit.
      return Parse(*t, ns, depth + 1);
    }
    const std::string type = t->get<std::string>();
    Type prim;
    if (PrimitiveType(type, &prim)) {
      Node* n = NewNode(prim);
      if (j.contains("spark.sql.catalyst.type")) n->spark_catalyst_type = true;
      ApplyLogicalType(j, n);
      return n;
    }
    if (type == "record" || type == "error") return ParseRecord(j, ns, depth);
    if (type == "enum") return ParseEnum(j, ns);
    if (type == "fixed") return ParseFixed(j, ns);
    if (type == "array" || type == "map") {
      const char* key = type == "array" ? "items" : "values";
      auto c = j.find(key);
      if (c == j.end()) return Bad(type + " without \"" + key + "\"");
      Node* n = NewNode(type == "array" ? Type::kArray : Type::kMap);
      WEIR_ASSIGN_OR_RETURN(const Node* child, Parse(*c, ns, depth + 1));
      n->children.push_back(child);
      return n;
    }
    return Resolve(type, ns);  // {"type": "SomeNamedType"}
  }

 private:
  static std::string Short(const Json& j) {
    std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (s.size() > 80) s = s.substr(0, 77) + "...";
    return s;
  }

  Node* NewNode(Type type) {
    schema_->nodes_.push_back(std::make_unique<Node>());
    Node* n = schema_->nodes_.back().get();
    n->type = type;
    return n;
  }

  Result<const Node*> Resolve(const std::string& name, const std::string& ns) {
    Type prim;
    if (PrimitiveType(name, &prim)) return static_cast<const Node*>(NewNode(prim));
    if (name.find('.') == std::string::npos && !ns.empty()) {
      auto it = named_.find(ns + "." + name);
      if (it != named_.end()) return static_cast<const Node*>(it->second);
    }
    auto it = named_.find(name);
    if (it != named_.end()) return static_cast<const Node*>(it->second);
    return Bad("undefined name '" + name + "'");
  }

  // The full name of a named type and the namespace its nested definitions default to.
  Result<std::pair<std::string, std::string>> FullName(const Json& j, const std::string& ns) {
    auto n = j.find("name");
    if (n == j.end() || !n->is_string() || n->get<std::string>().empty()) {
      return Bad("a named type without a \"name\": " + Short(j));
    }
    std::string name = n->get<std::string>();
    std::string space = ns;
    if (auto s = j.find("namespace"); s != j.end() && s->is_string()) space = s->get<std::string>();
    std::string full;
    if (name.find('.') != std::string::npos) {
      full = name;
      space = name.substr(0, name.rfind('.'));
    } else {
      full = space.empty() ? name : space + "." + name;
    }
    Type prim;
    if (PrimitiveType(name, &prim)) return Bad("a named type may not be called '" + name + "'");
    return std::make_pair(full, space);
  }

  Status Define(const std::string& full, Node* n) {
    if (!named_.emplace(full, n).second) return Bad("'" + full + "' is defined twice");
    n->name = full;
    return Status::OK();
  }

  Result<const Node*> ParseRecord(const Json& j, const std::string& ns, int depth) {
    WEIR_ASSIGN_OR_RETURN(auto names, FullName(j, ns));
    Node* n = NewNode(Type::kRecord);
    WEIR_RETURN_NOT_OK(Define(names.first, n));  // before the fields: they may refer to it
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) {
      return Bad("record '" + names.first + "' has no \"fields\" array");
    }
    std::set<std::string> seen;
    for (const Json& f : *fields) {
      if (!f.is_object()) return Bad("record '" + names.first + "': a field is not an object");
      auto fname = f.find("name");
      if (fname == f.end() || !fname->is_string()) {
        return Bad("record '" + names.first + "': a field without a \"name\"");
      }
      std::string field_name = fname->get<std::string>();
      if (!seen.insert(field_name).second) {
        return Bad("record '" + names.first + "' has two fields named '" + field_name + "'");
      }
      auto ftype = f.find("type");
      if (ftype == f.end()) {
        return Bad("field '" + field_name + "' of record '" + names.first + "' has no \"type\"");
      }
      WEIR_ASSIGN_OR_RETURN(const Node* child, Parse(*ftype, names.second, depth + 1));
      n->field_names.push_back(std::move(field_name));
      n->children.push_back(child);
    }
    return static_cast<const Node*>(n);
  }

  Result<const Node*> ParseEnum(const Json& j, const std::string& ns) {
    WEIR_ASSIGN_OR_RETURN(auto names, FullName(j, ns));
    Node* n = NewNode(Type::kEnum);
    WEIR_RETURN_NOT_OK(Define(names.first, n));
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) {
      return Bad("enum '" + names.first + "' has no \"symbols\" array");
    }
    for (const Json& s : *symbols) {
      if (!s.is_string()) return Bad("enum '" + names.first + "': a symbol is not a string");
      n->symbols.push_back(s.get<std::string>());
    }
    return static_cast<const Node*>(n);
  }

  Result<const Node*> ParseFixed(const Json& j, const std::string& ns) {
    WEIR_ASSIGN_OR_RETURN(auto names, FullName(j, ns));
    Node* n = NewNode(Type::kFixed);
    WEIR_RETURN_NOT_OK(Define(names.first, n));
    auto size = j.find("size");
    if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
        size->get<int64_t>() > INT32_MAX) {
      return Bad("fixed '" + names.first + "' needs a \"size\" from 0 to 2^31-1");
    }
    n->fixed_size = size->get<int64_t>();
    ApplyLogicalType(j, n);
    return static_cast<const Node*>(n);
  }

  Result<const Node*> ParseUnion(const Json& j, const std::string& ns, int depth) {
    Node* n = NewNode(Type::kUnion);
    std::set<std::string> seen;
    for (const Json& b : j) {
      WEIR_ASSIGN_OR_RETURN(const Node* branch, Parse(b, ns, depth + 1));
      if (branch->type == Type::kUnion) return Bad("a union directly inside a union");
      std::string key = branch->name.empty() ? std::string(TypeName(branch->type)) : branch->name;
      if (!seen.insert(key).second)
        return Bad("the union " + Short(j) + " lists " + key + " twice");
      n->children.push_back(branch);
    }
    if (n->children.empty()) return Bad("an empty union");
    return static_cast<const Node*>(n);
  }

  // Avro's Java library ignores a logical type it does not know, that is on the wrong base type,
  // or whose attributes are invalid (LogicalTypes.fromSchemaIgnoreInvalid): the base type stays.
  static void ApplyLogicalType(const Json& j, Node* n) {
    auto lt = j.find("logicalType");
    if (lt == j.end() || !lt->is_string()) return;
    const std::string name = lt->get<std::string>();
    const Type t = n->type;
    if (name == "date" && t == Type::kInt)
      n->logical = LogicalType::kDate;
    else if (name == "time-millis" && t == Type::kInt)
      n->logical = LogicalType::kTimeMillis;
    else if (name == "time-micros" && t == Type::kLong)
      n->logical = LogicalType::kTimeMicros;
    else if (name == "timestamp-millis" && t == Type::kLong)
      n->logical = LogicalType::kTimestampMillis;
    else if (name == "timestamp-micros" && t == Type::kLong)
      n->logical = LogicalType::kTimestampMicros;
    else if (name == "local-timestamp-millis" && t == Type::kLong)
      n->logical = LogicalType::kLocalTimestampMillis;
    else if (name == "local-timestamp-micros" && t == Type::kLong)
      n->logical = LogicalType::kLocalTimestampMicros;
    else if (name == "uuid" && t == Type::kString)
      n->logical = LogicalType::kUuid;
    else if (name == "decimal" && (t == Type::kBytes || t == Type::kFixed)) {
      auto p = j.find("precision");
      auto s = j.find("scale");
      if (p == j.end() || !p->is_number_integer()) return;
      if (s != j.end() && !s->is_number_integer()) return;
      const int64_t precision = p->get<int64_t>();
      const int64_t scale = s == j.end() ? 0 : s->get<int64_t>();
      if (precision <= 0 || scale < 0 || scale > precision || precision > INT32_MAX) return;
      if (t == Type::kFixed) {
        // Avro: floor(log10(2) * (8 * size - 1)) digits fit in `size` bytes.
        const double max_digits =
            std::floor(std::log10(2.0) * (8.0 * static_cast<double>(n->fixed_size) - 1));
        if (static_cast<double>(precision) > max_digits) return;
      }
      n->logical = LogicalType::kDecimal;
      n->precision = static_cast<int>(precision);
      n->scale = static_cast<int>(scale);
    }
  }

  Schema* schema_;
  std::map<std::string, Node*> named_;
};

namespace {

// Fewest bytes a value of `n` takes; in-progress (recursive) records count as 0.
int64_t MinSize(const Node* n, std::map<const Node*, int64_t>* memo) {
  auto it = memo->find(n);
  if (it != memo->end()) return it->second;
  (*memo)[n] = 0;
  int64_t size = 0;
  switch (n->type) {
    case Type::kNull:
      size = 0;
      break;
    case Type::kBoolean:
    case Type::kInt:
    case Type::kLong:
    case Type::kBytes:
    case Type::kString:
    case Type::kEnum:
    case Type::kArray:
    case Type::kMap:
    case Type::kUnion:
      size = 1;  // a varint (a union's branch index precedes its value, which may be null)
      break;
    case Type::kFloat:
      size = 4;
      break;
    case Type::kDouble:
      size = 8;
      break;
    case Type::kFixed:
      size = n->fixed_size;
      break;
    case Type::kRecord:
      for (const Node* c : n->children) size = std::min(kSizeCap, size + MinSize(c, memo));
      break;
  }
  if (n->type == Type::kUnion) {
    int64_t smallest = kSizeCap;
    for (const Node* c : n->children) smallest = std::min(smallest, MinSize(c, memo));
    size = std::min(kSizeCap, 1 + smallest);
  }
  (*memo)[n] = size;
  return size;
}

void Annotate(Schema* schema, const std::vector<std::unique_ptr<Node>>& nodes) {
  std::map<const Node*, int64_t> memo;
  for (const auto& n : nodes) {
    n->min_size = MinSize(n.get(), &memo);
    if (n->type != Type::kUnion) continue;
    std::vector<const Node*> non_null;
    for (const Node* c : n->children) {
      if (c->type != Type::kNull) non_null.push_back(c);
    }
    bool direct = non_null.size() <= 1;
    if (non_null.size() == 2) {
      std::set<Type> types = {non_null[0]->type, non_null[1]->type};
      direct = types == std::set<Type>{Type::kInt, Type::kLong} ||
               types == std::set<Type>{Type::kFloat, Type::kDouble};
    }
    n->union_as_struct = !direct;
    n->union_member.clear();
    int member = 0;
    for (const Node* c : n->children)
      n->union_member.push_back(c->type == Type::kNull ? -1 : member++);
  }
}

}  // namespace

Result<Schema> ParseSchema(std::string_view json) {
  if (JsonDepth(json) > kMaxJsonDepth) {
    return Status::NotImplemented("avro schema: JSON nested deeper than " +
                                  std::to_string(kMaxJsonDepth) + " levels");
  }
  Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad("avro.schema is not JSON");
  Schema schema;
  schema.json_ = std::string(json);
  SchemaParser parser(&schema);
  WEIR_ASSIGN_OR_RETURN(schema.root_, parser.Parse(j, "", 0));
  Annotate(&schema, schema.nodes_);
  return schema;
}

namespace {

std::string Join(const std::string& where, const std::string& name) {
  return where.empty() ? name : where + "." + name;
}

class SparkMapper {
 public:
  // `path`: the value's column path ("a.b.element"); messages say "avro field <path>".
  Result<SparkType> Map(const Node& n, const std::string& path, int depth) {
    const std::string where = "avro field " + (path.empty() ? std::string("(top level)") : path);
    if (++visited_ > kMaxSparkNodes) {
      return Status::NotImplemented("avro schema maps to more than " +
                                    std::to_string(kMaxSparkNodes) +
                                    " Spark types (named types used many times)");
    }
    if (depth > kMaxNesting) {
      return Status::NotImplemented(where + ": nested deeper than " + std::to_string(kMaxNesting) +
                                    " levels");
    }
    if (n.spark_catalyst_type) {
      return Status::NotImplemented(where + ": an Avro " + std::string(TypeName(n.type)) +
                                    " with spark.sql.catalyst.type (a Spark interval): weir has no "
                                    "interval type");
    }
    switch (n.type) {
      case Type::kNull:
        return Status::NotImplemented(where +
                                      ": Avro null outside a union is Spark's NullType, which "
                                      "weir (and Delta's Parquet files) cannot store");
      case Type::kBoolean:
        return SparkType{DataType::Boolean(), false};
      case Type::kInt:
        return SparkType{n.logical == LogicalType::kDate ? DataType::Date() : DataType::Int32(),
                         false};
      case Type::kLong:
        switch (n.logical) {
          case LogicalType::kTimestampMillis:
          case LogicalType::kTimestampMicros:
            return SparkType{DataType::Timestamp(), false};
          case LogicalType::kLocalTimestampMillis:
          case LogicalType::kLocalTimestampMicros:
            return SparkType{DataType::TimestampNtz(), false};
          default:
            return SparkType{DataType::Int64(), false};
        }
      case Type::kFloat:
        return SparkType{DataType::Float(), false};
      case Type::kDouble:
        return SparkType{DataType::Double(), false};
      case Type::kString:
      case Type::kEnum:
        return SparkType{DataType::String(), false};
      case Type::kBytes:
      case Type::kFixed:
        if (n.logical == LogicalType::kDecimal) {
          if (n.precision > 38) {
            return Status::NotImplemented(where + ": decimal(" + std::to_string(n.precision) + "," +
                                          std::to_string(n.scale) +
                                          ") has more than 38 digits (Spark's maximum)");
          }
          return SparkType{DataType::Decimal(n.precision, n.scale), false};
        }
        return SparkType{DataType::Binary(), false};
      case Type::kRecord: {
        if (in_progress_.count(&n)) {
          return Status::NotImplemented(where + ": recursive reference to record '" + n.name +
                                        "', which Spark cannot process either");
        }
        if (n.children.empty()) {
          return Status::NotImplemented(where + ": record '" + n.name +
                                        "' has no fields (an empty struct Parquet cannot store)");
        }
        in_progress_.insert(&n);
        std::vector<Field> fields;
        for (size_t i = 0; i < n.children.size(); ++i) {
          WEIR_ASSIGN_OR_RETURN(SparkType t,
                                Map(*n.children[i], Join(path, n.field_names[i]), depth + 1));
          fields.push_back(Field{n.field_names[i], t.type, t.nullable});
        }
        in_progress_.erase(&n);
        return SparkType{DataType::Struct(std::move(fields)), false};
      }
      case Type::kArray: {
        const Node& items = *n.children[0];
        WEIR_ASSIGN_OR_RETURN(SparkType t, Map(items, Join(path, "element"), depth + 1));
        if (items.min_size == 0) {
          return Status::NotImplemented(where +
                                        ": array items that take no bytes are not supported");
        }
        return SparkType{DataType::List(t.type, t.nullable), false};
      }
      case Type::kMap: {
        WEIR_ASSIGN_OR_RETURN(SparkType t, Map(*n.children[0], Join(path, "value"), depth + 1));
        return SparkType{DataType::Map(DataType::String(), t.type, t.nullable), false};
      }
      case Type::kUnion: {
        std::vector<const Node*> non_null;
        for (const Node* c : n.children) {
          if (c->type != Type::kNull) non_null.push_back(c);
        }
        const bool has_null = non_null.size() < n.children.size();
        if (non_null.empty()) {
          return Status::NotImplemented(where +
                                        ": a union of null alone is Spark's NullType, which weir "
                                        "cannot store");
        }
        if (!n.union_as_struct) {
          if (non_null.size() == 1) {
            WEIR_ASSIGN_OR_RETURN(SparkType t, Map(*non_null[0], path, depth + 1));
            return SparkType{t.type, t.nullable || has_null};
          }
          const bool floating =
              non_null[0]->type == Type::kFloat || non_null[0]->type == Type::kDouble;
          return SparkType{floating ? DataType::Double() : DataType::Int64(), has_null};
        }
        std::vector<Field> fields;
        for (size_t i = 0; i < non_null.size(); ++i) {
          std::string name = "member" + std::to_string(i);
          WEIR_ASSIGN_OR_RETURN(SparkType t, Map(*non_null[i], Join(path, name), depth + 1));
          fields.push_back(Field{name, t.type, true});
        }
        return SparkType{DataType::Struct(std::move(fields)), has_null};
      }
    }
    return Status::Internal("unknown Avro type");
  }

 private:
  int64_t visited_ = 0;
  std::set<const Node*> in_progress_;
};

}  // namespace

Result<SparkType> ToSparkType(const Node& node, const std::string& path) {
  SparkMapper mapper;
  return mapper.Map(node, path, 0);
}

Result<columnar::Schema> ToSparkSchema(const Schema& schema) {
  const Node& root = schema.root();
  if (root.type != Type::kRecord) {
    return Status::NotImplemented("the Avro schema is " + std::string(TypeName(root.type)) +
                                  ", not a record: it cannot be converted to a table's columns "
                                  "(as Spark cannot convert it to a StructType)");
  }
  WEIR_ASSIGN_OR_RETURN(SparkType t, ToSparkType(root, ""));
  if (root.min_size == 0) {
    return Status::NotImplemented("avro record " + root.name +
                                  ": records that take no bytes are not supported");
  }
  columnar::Schema out;
  out.fields = t.type->children();
  return out;
}

}  // namespace weir::avro
