#include "delta/table_features.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

namespace weir::delta {

namespace {

bool Contains(const std::optional<std::vector<std::string>>& list, const std::string& name) {
  return list && std::find(list->begin(), list->end(), name) != list->end();
}

bool TypeHas(const columnar::DataType& type, columnar::TypeId id) {
  if (type.id() == id) return true;
  for (const auto& child : type.children()) {
    if (TypeHas(*child.type, id)) return true;
  }
  return false;
}

// True when a field's metadata (at any depth) holds `key`.
bool AnyFieldMetadataHas(const std::vector<columnar::Field>& fields, const std::string& key) {
  for (const auto& f : fields) {
    if (f.metadata.find("\"" + key) != std::string::npos) {
      auto j = nlohmann::json::parse(f.metadata, nullptr, false);
      if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
          if (it.key().rfind(key, 0) == 0) return true;
        }
      }
    }
    if (AnyFieldMetadataHas(f.type->children(), key)) return true;
  }
  return false;
}

Status Refuse(const std::string& table, const std::string& what) {
  return Status::NotImplemented("Delta table " + table + " uses " + what +
                                ", which weir does not support");
}

}  // namespace

bool HasReaderFeature(const Protocol& protocol, const std::string& feature) {
  return Contains(protocol.reader_features, feature);
}

bool HasWriterFeature(const Protocol& protocol, const std::string& feature) {
  return Contains(protocol.writer_features, feature);
}

ColumnMappingMode GetColumnMappingMode(const Protocol& protocol, const Metadata& metadata) {
  bool supported = protocol.min_reader_version == 2 ||
                   (protocol.min_reader_version >= 3 && HasReaderFeature(protocol, "columnMapping"));
  if (!supported) return ColumnMappingMode::kNone;
  auto it = metadata.configuration.find("delta.columnMapping.mode");
  if (it == metadata.configuration.end()) return ColumnMappingMode::kNone;
  if (it->second == "name") return ColumnMappingMode::kName;
  if (it->second == "id") return ColumnMappingMode::kId;
  return ColumnMappingMode::kNone;
}

Status CheckReadSupported(const Protocol& protocol, const Metadata& metadata,
                          const std::string& table) {
  if (protocol.min_reader_version < 1 || protocol.min_reader_version > 3) {
    return Status::NotImplemented("Delta table " + table + " requires reader version " +
                                  std::to_string(protocol.min_reader_version) +
                                  "; weir reads versions 1 to 3");
  }
  if (protocol.min_reader_version == 3) {
    static const std::set<std::string> kSupported = {"timestampNtz", "columnMapping",
                                                     "deletionVectors", "v2Checkpoint",
                                                     "vacuumProtocolCheck"};
    for (const auto& f : protocol.reader_features.value_or(std::vector<std::string>{})) {
      if (!kSupported.count(f)) return Refuse(table, "the reader feature '" + f + "'");
    }
  }
  auto mode = metadata.configuration.find("delta.columnMapping.mode");
  if (mode != metadata.configuration.end() && mode->second != "none" && mode->second != "name" &&
      mode->second != "id" && GetColumnMappingMode(protocol, metadata) != ColumnMappingMode::kNone) {
    return Refuse(table, "the column mapping mode '" + mode->second + "'");
  }
  if (metadata.format.provider != "parquet" && !metadata.format.provider.empty()) {
    return Refuse(table, "data files in the format '" + metadata.format.provider + "'");
  }
  return Status::OK();
}

Status CheckWriteSupported(const Protocol& protocol, const Metadata& metadata,
                           const columnar::Schema& schema, const std::string& table) {
  WEIR_RETURN_NOT_OK(CheckReadSupported(protocol, metadata, table));
  if (protocol.min_writer_version < 1 || protocol.min_writer_version > 7) {
    return Status::NotImplemented("Delta table " + table + " requires writer version " +
                                  std::to_string(protocol.min_writer_version) +
                                  "; weir writes versions 1 to 7");
  }
  const int w = protocol.min_writer_version;
  if (w == 7) {
    static const std::set<std::string> kSupported = {"appendOnly",      "invariants",
                                                     "checkConstraints", "changeDataFeed",
                                                     "timestampNtz",    "vacuumProtocolCheck"};
    for (const auto& f : protocol.writer_features.value_or(std::vector<std::string>{})) {
      if (!kSupported.count(f)) return Refuse(table, "the writer feature '" + f + "' (writing)");
    }
  }
  auto feature_on = [&](const std::string& name, int implied_from_version) {
    return w == 7 ? HasWriterFeature(protocol, name) : w >= implied_from_version;
  };
  if (feature_on("invariants", 2) && AnyFieldMetadataHas(schema.fields, "delta.invariants")) {
    return Refuse(table, "column invariants (delta.invariants), which weir cannot enforce when writing");
  }
  if (feature_on("checkConstraints", 3)) {
    for (const auto& [key, value] : metadata.configuration) {
      if (key.rfind("delta.constraints.", 0) == 0) {
        return Refuse(table, "the CHECK constraint " + key.substr(18) +
                                 ", which weir cannot enforce when writing");
      }
    }
  }
  if (w >= 4 && w < 7 && AnyFieldMetadataHas(schema.fields, "delta.generationExpression")) {
    return Refuse(table, "generated columns (writing)");
  }
  if ((w == 5 || w == 6) && GetColumnMappingMode(protocol, metadata) != ColumnMappingMode::kNone) {
    return Refuse(table, "column mapping (writing)");
  }
  if (w == 6 && AnyFieldMetadataHas(schema.fields, "delta.identity.")) {
    return Refuse(table, "identity columns (writing)");
  }
  if (protocol.min_reader_version == 3) {
    for (const auto& f : protocol.reader_features.value_or(std::vector<std::string>{})) {
      if (f != "timestampNtz" && f != "vacuumProtocolCheck") {
        return Refuse(table, "the reader feature '" + f + "' (writing)");
      }
    }
  }
  return Status::OK();
}

Protocol ProtocolForNewTable(const columnar::Schema& schema) {
  Protocol p;
  for (const auto& f : schema.fields) {
    if (TypeHas(*f.type, columnar::TypeId::kTimestampNtz)) {
      p.min_reader_version = 3;
      p.min_writer_version = 7;
      p.reader_features = std::vector<std::string>{"timestampNtz"};
      p.writer_features = std::vector<std::string>{"timestampNtz"};
      break;
    }
  }
  return p;
}

}  // namespace weir::delta
