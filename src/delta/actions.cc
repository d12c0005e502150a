#include "delta/actions.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

namespace weir::delta {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Reads fields of one action object; the first problem is kept and reported with its field name.
class FieldReader {
 public:
  FieldReader(const Json& object, std::string action) : object_(object), action_(std::move(action)) {}

  const Json* Find(const char* name) const {
    auto it = object_.find(name);
    if (it == object_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  std::string RequiredString(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr || !v->is_string()) {
      Fail(name, v == nullptr ? "is missing" : "must be a string");
      return {};
    }
    return v->get<std::string>();
  }
  std::optional<std::string> OptionalString(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) {
      Fail(name, "must be a string");
      return std::nullopt;
    }
    return v->get<std::string>();
  }
  int64_t RequiredInt(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr) {
      Fail(name, "is missing");
      return 0;
    }
    return ToInt(name, *v).value_or(0);
  }
  std::optional<int64_t> OptionalInt(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr) return std::nullopt;
    return ToInt(name, *v);
  }
  bool RequiredBool(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr || !v->is_boolean()) {
      Fail(name, v == nullptr ? "is missing" : "must be a boolean");
      return false;
    }
    return v->get<bool>();
  }
  std::optional<bool> OptionalBool(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr) return std::nullopt;
    if (!v->is_boolean()) {
      Fail(name, "must be a boolean");
      return std::nullopt;
    }
    return v->get<bool>();
  }
  // A string map; non-string values are kept as their JSON text, null values are dropped.
  std::optional<StringMap> OptionalStringMap(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr) return std::nullopt;
    if (!v->is_object()) {
      Fail(name, "must be an object");
      return std::nullopt;
    }
    StringMap out;
    for (auto it = v->begin(); it != v->end(); ++it) {
      if (it->is_null()) continue;
      out[it.key()] = it->is_string() ? it->get<std::string>() : Dump(*it);
    }
    return out;
  }
  std::optional<PartitionValues> OptionalPartitionValues(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr) return std::nullopt;
    if (!v->is_object()) {
      Fail(name, "must be an object");
      return std::nullopt;
    }
    PartitionValues out;
    for (auto it = v->begin(); it != v->end(); ++it) {
      if (it->is_null()) {
        out[it.key()] = std::nullopt;
      } else {
        out[it.key()] = it->is_string() ? it->get<std::string>() : Dump(*it);
      }
    }
    return out;
  }
  std::optional<std::vector<std::string>> OptionalStringArray(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr) return std::nullopt;
    if (!v->is_array()) {
      Fail(name, "must be an array");
      return std::nullopt;
    }
    std::vector<std::string> out;
    for (const Json& e : *v) {
      if (!e.is_string()) {
        Fail(name, "must hold strings");
        return std::nullopt;
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  std::optional<DeletionVectorDescriptor> OptionalDeletionVector(const char* name) {
    const Json* v = Find(name);
    if (v == nullptr) return std::nullopt;
    if (!v->is_object()) {
      Fail(name, "must be an object");
      return std::nullopt;
    }
    FieldReader r(*v, action_ + "." + name);
    DeletionVectorDescriptor dv;
    dv.storage_type = r.RequiredString("storageType");
    dv.path_or_inline_dv = r.RequiredString("pathOrInlineDv");
    auto offset = r.OptionalInt("offset");
    if (offset) dv.offset = static_cast<int32_t>(*offset);
    dv.size_in_bytes = static_cast<int32_t>(r.RequiredInt("sizeInBytes"));
    dv.cardinality = r.RequiredInt("cardinality");
    if (!r.error().empty()) error_ = r.error();
    return dv;
  }

  const std::string& error() const { return error_; }
  void Fail(std::string_view field, std::string_view what) {
    if (error_.empty()) error_ = action_ + "." + std::string(field) + " " + std::string(what);
  }

 private:
  static std::string Dump(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

  std::optional<int64_t> ToInt(const char* name, const Json& v) {
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float()) {
      double d = v.get<double>();
      if (d >= -9.2e18 && d <= 9.2e18 && d == std::trunc(d)) return static_cast<int64_t>(d);
    }
    Fail(name, "must be an integer");
    return std::nullopt;
  }

  const Json& object_;
  std::string action_;
  std::string error_;
};

// Deepest nesting of JSON arrays/objects in `text`, ignoring brackets inside strings. Deep input is
// refused before parsing: the JSON library recurses on nested values.
int NestingDepth(std::string_view text) {
  int depth = 0, max_depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
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

constexpr int kMaxNestingDepth = 64;

// Parses one action object (the value under its key). Returns the error text, empty on success.
std::string ParseProtocol(const Json& j, Protocol* out) {
  FieldReader r(j, "protocol");
  out->min_reader_version = static_cast<int32_t>(r.RequiredInt("minReaderVersion"));
  out->min_writer_version = static_cast<int32_t>(r.RequiredInt("minWriterVersion"));
  out->reader_features = r.OptionalStringArray("readerFeatures");
  out->writer_features = r.OptionalStringArray("writerFeatures");
  return r.error();
}

std::string ParseMetadata(const Json& j, Metadata* out) {
  FieldReader r(j, "metaData");
  out->id = r.RequiredString("id");
  out->name = r.OptionalString("name");
  out->description = r.OptionalString("description");
  const Json* format = r.Find("format");
  if (format != nullptr && format->is_object()) {
    FieldReader f(*format, "metaData.format");
    out->format.provider = f.OptionalString("provider").value_or("parquet");
    out->format.options = f.OptionalStringMap("options").value_or(StringMap{});
    if (!f.error().empty()) return f.error();
  }
  out->schema_string = r.RequiredString("schemaString");
  out->partition_columns = r.OptionalStringArray("partitionColumns").value_or(std::vector<std::string>{});
  out->configuration = r.OptionalStringMap("configuration").value_or(StringMap{});
  out->created_time = r.OptionalInt("createdTime");
  return r.error();
}

std::string ParseAdd(const Json& j, AddFile* out) {
  FieldReader r(j, "add");
  out->path = r.RequiredString("path");
  out->partition_values = r.OptionalPartitionValues("partitionValues").value_or(PartitionValues{});
  out->size = r.RequiredInt("size");
  out->modification_time = r.OptionalInt("modificationTime").value_or(0);
  out->data_change = r.OptionalBool("dataChange").value_or(true);
  out->stats = r.OptionalString("stats");
  out->tags = r.OptionalStringMap("tags");
  out->deletion_vector = r.OptionalDeletionVector("deletionVector");
  out->base_row_id = r.OptionalInt("baseRowId");
  out->default_row_commit_version = r.OptionalInt("defaultRowCommitVersion");
  out->clustering_provider = r.OptionalString("clusteringProvider");
  if (r.error().empty() && out->path.empty()) r.Fail("path", "is empty");
  return r.error();
}

std::string ParseRemove(const Json& j, RemoveFile* out) {
  FieldReader r(j, "remove");
  out->path = r.RequiredString("path");
  out->deletion_timestamp = r.OptionalInt("deletionTimestamp");
  out->data_change = r.OptionalBool("dataChange").value_or(true);
  out->extended_file_metadata = r.OptionalBool("extendedFileMetadata");
  out->partition_values = r.OptionalPartitionValues("partitionValues");
  out->size = r.OptionalInt("size");
  out->stats = r.OptionalString("stats");
  out->tags = r.OptionalStringMap("tags");
  out->deletion_vector = r.OptionalDeletionVector("deletionVector");
  out->base_row_id = r.OptionalInt("baseRowId");
  out->default_row_commit_version = r.OptionalInt("defaultRowCommitVersion");
  if (r.error().empty() && out->path.empty()) r.Fail("path", "is empty");
  return r.error();
}

std::string ParseTxn(const Json& j, SetTransaction* out) {
  FieldReader r(j, "txn");
  out->app_id = r.RequiredString("appId");
  out->version = r.RequiredInt("version");
  out->last_updated = r.OptionalInt("lastUpdated");
  return r.error();
}

// commitInfo is free-form: fields of an unexpected type are ignored rather than rejected.
std::string ParseCommitInfo(const Json& j, CommitInfo* out) {
  auto int_field = [&](const char* name) -> std::optional<int64_t> {
    auto it = j.find(name);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int64_t>();
  };
  auto string_field = [&](const char* name) -> std::optional<std::string> {
    auto it = j.find(name);
    if (it == j.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  auto map_field = [&](const char* name) {
    StringMap m;
    auto it = j.find(name);
    if (it == j.end() || !it->is_object()) return m;
    for (auto e = it->begin(); e != it->end(); ++e) {
      m[e.key()] = e->is_string() ? e->get<std::string>()
                                  : e->dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    return m;
  };
  out->timestamp = int_field("timestamp");
  out->in_commit_timestamp = int_field("inCommitTimestamp");
  out->operation = string_field("operation");
  out->operation_parameters = map_field("operationParameters");
  out->read_version = int_field("readVersion");
  out->isolation_level = string_field("isolationLevel");
  auto blind = j.find("isBlindAppend");
  if (blind != j.end() && blind->is_boolean()) out->is_blind_append = blind->get<bool>();
  out->operation_metrics = map_field("operationMetrics");
  out->engine_info = string_field("engineInfo");
  out->txn_id = string_field("txnId");
  return {};
}

std::string ParseDomainMetadata(const Json& j, DomainMetadata* out) {
  FieldReader r(j, "domainMetadata");
  out->domain = r.RequiredString("domain");
  out->configuration = r.OptionalString("configuration").value_or("");
  out->removed = r.OptionalBool("removed").value_or(false);
  return r.error();
}

std::string ParseCheckpointMetadata(const Json& j, CheckpointMetadata* out) {
  FieldReader r(j, "checkpointMetadata");
  out->version = r.RequiredInt("version");
  return r.error();
}

std::string ParseSidecar(const Json& j, Sidecar* out) {
  FieldReader r(j, "sidecar");
  out->path = r.RequiredString("path");
  out->size_in_bytes = r.OptionalInt("sizeInBytes").value_or(0);
  out->modification_time = r.OptionalInt("modificationTime").value_or(0);
  return r.error();
}

template <typename T, typename ParseFn>
std::string ParseInto(const Json& value, ParseFn parse, std::vector<Action>* out) {
  if (!value.is_object()) return "the action's value must be an object";
  T action;
  std::string error = parse(value, &action);
  if (error.empty()) out->push_back(std::move(action));
  return error;
}

// Parses the actions of one line object into `out`; returns the error text, empty on success.
std::string ParseLine(const Json& line, std::vector<Action>* out) {
  if (!line.is_object()) return "a line must hold a JSON object";
  for (auto it = line.begin(); it != line.end(); ++it) {
    const std::string& key = it.key();
    const Json& value = *it;
    if (value.is_null()) continue;  // e.g. {"add":null} as some writers emit
    std::string error;
    if (key == "add") {
      error = ParseInto<AddFile>(value, ParseAdd, out);
    } else if (key == "remove") {
      error = ParseInto<RemoveFile>(value, ParseRemove, out);
    } else if (key == "metaData") {
      error = ParseInto<Metadata>(value, ParseMetadata, out);
    } else if (key == "protocol") {
      error = ParseInto<Protocol>(value, ParseProtocol, out);
    } else if (key == "txn") {
      error = ParseInto<SetTransaction>(value, ParseTxn, out);
    } else if (key == "commitInfo") {
      error = ParseInto<CommitInfo>(value, ParseCommitInfo, out);
    } else if (key == "domainMetadata") {
      error = ParseInto<DomainMetadata>(value, ParseDomainMetadata, out);
    } else if (key == "checkpointMetadata") {
      error = ParseInto<CheckpointMetadata>(value, ParseCheckpointMetadata, out);
    } else if (key == "sidecar") {
      error = ParseInto<Sidecar>(value, ParseSidecar, out);
    }  // cdc and unknown actions are not needed to read the table state
    if (!error.empty()) return error;
  }
  return {};
}

// ---- Serialization

OrderedJson ToJson(const StringMap& m) {
  OrderedJson j = OrderedJson::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

OrderedJson ToJson(const PartitionValues& m) {
  OrderedJson j = OrderedJson::object();
  for (const auto& [k, v] : m) {
    if (v) {
      j[k] = *v;
    } else {
      j[k] = nullptr;
    }
  }
  return j;
}

OrderedJson ToJson(const DeletionVectorDescriptor& dv) {
  OrderedJson j;
  j["storageType"] = dv.storage_type;
  j["pathOrInlineDv"] = dv.path_or_inline_dv;
  if (dv.offset) j["offset"] = *dv.offset;
  j["sizeInBytes"] = dv.size_in_bytes;
  j["cardinality"] = dv.cardinality;
  return j;
}

struct ActionToJson {
  OrderedJson operator()(const Protocol& p) const {
    OrderedJson j;
    j["minReaderVersion"] = p.min_reader_version;
    j["minWriterVersion"] = p.min_writer_version;
    if (p.reader_features) j["readerFeatures"] = *p.reader_features;
    if (p.writer_features) j["writerFeatures"] = *p.writer_features;
    return OrderedJson{{"protocol", j}};
  }
  OrderedJson operator()(const Metadata& m) const {
    OrderedJson j;
    j["id"] = m.id;
    if (m.name) j["name"] = *m.name;
    if (m.description) j["description"] = *m.description;
    j["format"] = OrderedJson{{"provider", m.format.provider}, {"options", ToJson(m.format.options)}};
    j["schemaString"] = m.schema_string;
    j["partitionColumns"] = m.partition_columns;
    j["configuration"] = ToJson(m.configuration);
    if (m.created_time) j["createdTime"] = *m.created_time;
    return OrderedJson{{"metaData", j}};
  }
  OrderedJson operator()(const AddFile& a) const {
    OrderedJson j;
    j["path"] = a.path;
    j["partitionValues"] = ToJson(a.partition_values);
    j["size"] = a.size;
    j["modificationTime"] = a.modification_time;
    j["dataChange"] = a.data_change;
    if (a.stats) j["stats"] = *a.stats;
    if (a.tags) j["tags"] = ToJson(*a.tags);
    if (a.deletion_vector) j["deletionVector"] = ToJson(*a.deletion_vector);
    if (a.base_row_id) j["baseRowId"] = *a.base_row_id;
    if (a.default_row_commit_version) j["defaultRowCommitVersion"] = *a.default_row_commit_version;
    if (a.clustering_provider) j["clusteringProvider"] = *a.clustering_provider;
    return OrderedJson{{"add", j}};
  }
  OrderedJson operator()(const RemoveFile& r) const {
    OrderedJson j;
    j["path"] = r.path;
    if (r.deletion_timestamp) j["deletionTimestamp"] = *r.deletion_timestamp;
    j["dataChange"] = r.data_change;
    if (r.extended_file_metadata) j["extendedFileMetadata"] = *r.extended_file_metadata;
    if (r.partition_values) j["partitionValues"] = ToJson(*r.partition_values);
    if (r.size) j["size"] = *r.size;
    if (r.stats) j["stats"] = *r.stats;
    if (r.tags) j["tags"] = ToJson(*r.tags);
    if (r.deletion_vector) j["deletionVector"] = ToJson(*r.deletion_vector);
    if (r.base_row_id) j["baseRowId"] = *r.base_row_id;
    if (r.default_row_commit_version) j["defaultRowCommitVersion"] = *r.default_row_commit_version;
    return OrderedJson{{"remove", j}};
  }
  OrderedJson operator()(const SetTransaction& t) const {
    OrderedJson j;
    j["appId"] = t.app_id;
    j["version"] = t.version;
    if (t.last_updated) j["lastUpdated"] = *t.last_updated;
    return OrderedJson{{"txn", j}};
  }
  OrderedJson operator()(const CommitInfo& c) const {
    OrderedJson j = OrderedJson::object();
    if (c.timestamp) j["timestamp"] = *c.timestamp;
    if (c.in_commit_timestamp) j["inCommitTimestamp"] = *c.in_commit_timestamp;
    if (c.operation) j["operation"] = *c.operation;
    j["operationParameters"] = ToJson(c.operation_parameters);
    if (c.read_version) j["readVersion"] = *c.read_version;
    if (c.isolation_level) j["isolationLevel"] = *c.isolation_level;
    if (c.is_blind_append) j["isBlindAppend"] = *c.is_blind_append;
    if (!c.operation_metrics.empty()) j["operationMetrics"] = ToJson(c.operation_metrics);
    if (c.engine_info) j["engineInfo"] = *c.engine_info;
    if (c.txn_id) j["txnId"] = *c.txn_id;
    return OrderedJson{{"commitInfo", j}};
  }
  OrderedJson operator()(const DomainMetadata& d) const {
    return OrderedJson{{"domainMetadata",
                        OrderedJson{{"domain", d.domain},
                                    {"configuration", d.configuration},
                                    {"removed", d.removed}}}};
  }
  OrderedJson operator()(const CheckpointMetadata& c) const {
    return OrderedJson{{"checkpointMetadata", OrderedJson{{"version", c.version}}}};
  }
  OrderedJson operator()(const Sidecar& s) const {
    return OrderedJson{{"sidecar", OrderedJson{{"path", s.path},
                                               {"sizeInBytes", s.size_in_bytes},
                                               {"modificationTime", s.modification_time}}}};
  }
};

}  // namespace

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id = storage_type + path_or_inline_dv;
  if (offset) id += "@" + std::to_string(*offset);
  return id;
}

std::optional<int64_t> AddFile::NumRecords() const {
  if (!stats || NestingDepth(*stats) > kMaxNestingDepth) return std::nullopt;
  Json j = Json::parse(*stats, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  auto it = j.find("numRecords");
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

Result<std::vector<Action>> ParseActions(std::string_view text, std::string_view source) {
  std::vector<Action> actions;
  size_t start = 0;
  int64_t line_number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::string error;
    if (NestingDepth(line) > kMaxNestingDepth) {
      error = "JSON nested deeper than " + std::to_string(kMaxNestingDepth) + " levels";
      return Status::Corruption("malformed action in " + std::string(source) + " line " +
                                std::to_string(line_number) + ": " + error);
    }
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      error = "not valid JSON";
    } else {
      error = ParseLine(j, &actions);
    }
    if (!error.empty()) {
      return Status::Corruption("malformed action in " + std::string(source) + " line " +
                                std::to_string(line_number) + ": " + error +
                                " (a Delta commit file holds one JSON action per line; restore "
                                "the damaged file from a backup)");
    }
  }
  return actions;
}

std::string SerializeAction(const Action& action) {
  OrderedJson j = std::visit(ActionToJson{}, action);
  return j.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

std::string SerializeActions(const std::vector<Action>& actions) {
  std::string out;
  for (const Action& a : actions) {
    out += SerializeAction(a);
    out += '\n';
  }
  return out;
}

RemoveFile MakeRemove(const AddFile& add, int64_t deletion_timestamp_ms, bool data_change) {
  RemoveFile r;
  r.path = add.path;
  r.deletion_timestamp = deletion_timestamp_ms;
  r.data_change = data_change;
  r.extended_file_metadata = true;
  r.partition_values = add.partition_values;
  r.size = add.size;
  r.stats = add.stats;
  r.tags = add.tags;
  r.deletion_vector = add.deletion_vector;
  r.base_row_id = add.base_row_id;
  r.default_row_commit_version = add.default_row_commit_version;
  return r;
}

}  // namespace weir::delta
