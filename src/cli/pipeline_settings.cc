#include "cli/pipeline_settings.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace weir::cli {
namespace {

using Json = nlohmann::json;

Status Invalid(std::string_view origin, const std::string& what) {
  return Status::InvalidArgument(std::string(origin) + ": " + what);
}

// A map of text values: strings as they are, numbers and booleans as JSON writes them (the
// Databricks UI stores every configuration value as a string).
Status ReadTextMap(const Json& object, const std::string& name, std::string_view origin,
                   std::map<std::string, std::string>* out) {
  if (!object.is_object()) return Invalid(origin, "\"" + name + "\" must be an object");
  for (const auto& [key, value] : object.items()) {
    if (value.is_string()) {
      (*out)[key] = value.get<std::string>();
    } else if (value.is_number() || value.is_boolean()) {
      (*out)[key] = value.dump();
    } else {
      return Invalid(origin, "\"" + name + "\" value of " + key +
                                 " must be a string, a number or a boolean");
    }
  }
  return Status::OK();
}

Result<bool> ReadBool(const Json& value, const std::string& name, std::string_view origin) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
      return static_cast<char>(std::tolower(c));
    });
    if (text == "true") return true;
    if (text == "false") return false;
  }
  return Invalid(origin, "\"" + name + "\" must be true or false");
}

Result<std::string> ReadString(const Json& value, const std::string& name,
                               std::string_view origin) {
  if (!value.is_string() || value.get<std::string>().empty()) {
    return Invalid(origin, "\"" + name + "\" must be a non-empty string");
  }
  return value.get<std::string>();
}

Status ReadClusters(const Json& clusters, std::string_view origin, PipelineSettings* settings) {
  if (!clusters.is_array()) return Invalid(origin, "\"clusters\" must be an array");
  for (size_t i = 0; i < clusters.size(); ++i) {
    const Json& cluster = clusters[i];
    const std::string where = "clusters[" + std::to_string(i) + "]";
    if (!cluster.is_object()) return Invalid(origin, where + " must be an object");
    const std::string label = cluster.value("label", std::string("default"));
    for (const auto& [key, value] : cluster.items()) {
      if (key == "spark_conf" && label == "default") {
        WEIR_RETURN_NOT_OK(ReadTextMap(value, where + ".spark_conf", origin, &settings->spark_conf));
      } else if (key != "label") {
        settings->unused.push_back(where + "." + key);
      }
    }
  }
  return Status::OK();
}

Status ReadLibraries(const Json& libraries, std::string_view origin, PipelineSettings* settings) {
  if (!libraries.is_array()) return Invalid(origin, "\"libraries\" must be an array");
  for (size_t i = 0; i < libraries.size(); ++i) {
    const Json& library = libraries[i];
    const std::string where = "libraries[" + std::to_string(i) + "]";
    bool found = false;
    for (const char* kind : {"file", "notebook"}) {
      if (!library.is_object() || !library.contains(kind)) continue;
      const Json& entry = library[kind];
      if (!entry.is_object() || !entry.contains("path")) {
        return Invalid(origin, where + "." + kind + " needs a \"path\"");
      }
      WEIR_ASSIGN_OR_RETURN(std::string path,
                            ReadString(entry["path"], where + "." + kind + ".path", origin));
      settings->libraries.push_back(std::move(path));
      found = true;
    }
    if (!found) settings->unused.push_back(where);
  }
  return Status::OK();
}

}  // namespace

Result<PipelineSettings> ParsePipelineSettings(std::string_view json, std::string_view origin) {
  Json doc = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Invalid(origin, "not a JSON document");
  if (!doc.is_object()) return Invalid(origin, "expected a JSON object of pipeline settings");
  PipelineSettings settings;
  for (const auto& [key, value] : doc.items()) {
    if (key == "configuration") {
      WEIR_RETURN_NOT_OK(ReadTextMap(value, key, origin, &settings.configuration));
    } else if (key == "continuous") {
      WEIR_ASSIGN_OR_RETURN(settings.continuous, ReadBool(value, key, origin));
    } else if (key == "development") {
      WEIR_ASSIGN_OR_RETURN(settings.development, ReadBool(value, key, origin));
    } else if (key == "storage") {
      WEIR_ASSIGN_OR_RETURN(settings.storage, ReadString(value, key, origin));
    } else if (key == "catalog") {
      WEIR_ASSIGN_OR_RETURN(settings.catalog, ReadString(value, key, origin));
    } else if (key == "target" || key == "schema") {
      if (settings.schema) {
        return Invalid(origin, "give one of \"target\" and \"schema\" (they name the same thing)");
      }
      WEIR_ASSIGN_OR_RETURN(settings.schema, ReadString(value, key, origin));
    } else if (key == "clusters") {
      WEIR_RETURN_NOT_OK(ReadClusters(value, origin, &settings));
    } else if (key == "libraries") {
      WEIR_RETURN_NOT_OK(ReadLibraries(value, origin, &settings));
    } else {
      settings.unused.push_back(key);
    }
  }
  std::sort(settings.unused.begin(), settings.unused.end());
  return settings;
}

}  // namespace weir::cli
