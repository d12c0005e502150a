// A Databricks pipeline's settings (the JSON of a Lakeflow / DLT pipeline: "configuration",
// "continuous", "development", "storage", "catalog", "target" or "schema", "libraries",
// "clusters"), read for `weir run --settings FILE`. What weir has no use for (cluster sizes,
// photon, channel, notifications, ...) is listed in `unused`, not refused.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace weir::cli {

struct PipelineSettings {
  // "configuration": the pipeline's parameters, the values of ${name} in its SQL and settings
  // such as hadoop-azure keys (values may be {{secrets/scope/key}}).
  std::map<std::string, std::string> configuration;
  // "spark_conf" of the default cluster (no label, or label "default"): settings beneath
  // `configuration`.
  std::map<std::string, std::string> spark_conf;
  std::optional<bool> continuous;   // true: processingTime; false: a triggered update
  std::optional<bool> development;  // true: a failed update is not retried
  std::optional<std::string> storage;
  std::optional<std::string> catalog;
  std::optional<std::string> schema;  // "schema", or the older "target"
  // Paths of the "libraries" entries ({"file": {"path"}} or {"notebook": {"path"}}).
  std::vector<std::string> libraries;
  // Settings weir has no use for, e.g. "photon", "clusters[0].num_workers"; sorted.
  std::vector<std::string> unused;
};

// Parses the settings JSON; `origin` (the file) names it in errors. Errors never show a value
// of `configuration` or `spark_conf` (they may be keys).
Result<PipelineSettings> ParsePipelineSettings(std::string_view json, std::string_view origin);

}  // namespace weir::cli
