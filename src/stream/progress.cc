#include "stream/progress.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "columnar/text_format.h"

namespace weir::stream {

namespace {

// Offsets are JSON text, reported with their fields in the source's order; a malformed or empty
// one is reported as null rather than failing.
nlohmann::ordered_json OffsetJson(const std::string& text) {
  if (text.empty()) return nullptr;
  auto j = nlohmann::ordered_json::parse(text, nullptr, false);
  return j.is_discarded() ? nlohmann::ordered_json(text) : j;
}

double Finite(double v) { return std::isfinite(v) ? v : 0.0; }

}  // namespace

std::string FormatProgressTimestamp(int64_t epoch_ms) {
  return columnar::FormatTimestampMillis(epoch_ms * 1000);
}

std::string DataQualityMetrics::ToJson() const {
  nlohmann::ordered_json expectations_json = nlohmann::ordered_json::array();
  for (const Expectation& e : expectations) {
    expectations_json.push_back({{"name", e.name},
                                 {"dataset", e.dataset},
                                 {"passed_records", e.passed_records},
                                 {"failed_records", e.failed_records}});
  }
  nlohmann::ordered_json j = {{"dropped_records", dropped_records},
                              {"expectations", std::move(expectations_json)},
                              {"quarantined_records", quarantined_records}};
  return j.dump();
}

std::string QueryProgress::ToJson() const {
  nlohmann::ordered_json j;
  j["id"] = id;
  j["runId"] = run_id;
  j["name"] = name;
  j["timestamp"] = FormatProgressTimestamp(timestamp_ms);
  j["batchId"] = batch_id;
  j["batchDuration"] = batch_duration_ms;
  j["numInputRows"] = num_input_rows;
  j["inputRowsPerSecond"] = Finite(input_rows_per_second);
  j["processedRowsPerSecond"] = Finite(processed_rows_per_second);
  nlohmann::ordered_json durations = nlohmann::ordered_json::object();
  for (const auto& [k, v] : duration_ms) durations[k] = v;
  j["durationMs"] = durations;
  if (!event_time.empty()) {
    nlohmann::ordered_json et = nlohmann::ordered_json::object();
    for (const auto& [k, v] : event_time) et[k] = v;
    j["eventTime"] = et;
  }
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const auto& op : state_operators) {
    nlohmann::ordered_json o;
    o["operatorName"] = op.operator_name;
    o["numRowsTotal"] = op.num_rows_total;
    o["numRowsUpdated"] = op.num_rows_updated;
    o["allUpdatesTimeMs"] = op.all_updates_time_ms;
    o["numRowsRemoved"] = op.num_rows_removed;
    o["allRemovalsTimeMs"] = op.all_removals_time_ms;
    o["commitTimeMs"] = op.commit_time_ms;
    o["memoryUsedBytes"] = op.memory_used_bytes;
    o["numRowsDroppedByWatermark"] = op.num_rows_dropped_by_watermark;
    nlohmann::ordered_json custom = nlohmann::ordered_json::object();
    for (const auto& [k, v] : op.custom_metrics) custom[k] = v;
    o["customMetrics"] = custom;
    ops.push_back(o);
  }
  j["stateOperators"] = ops;
  nlohmann::ordered_json sources_json = nlohmann::ordered_json::array();
  for (const auto& s : sources) {
    nlohmann::ordered_json o;
    o["description"] = s.description;
    o["startOffset"] = OffsetJson(s.start_offset);
    o["endOffset"] = OffsetJson(s.end_offset);
    o["latestOffset"] = OffsetJson(s.latest_offset);
    o["numInputRows"] = s.num_input_rows;
    o["inputRowsPerSecond"] = Finite(s.input_rows_per_second);
    o["processedRowsPerSecond"] = Finite(s.processed_rows_per_second);
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const auto& [k, v] : s.metrics) metrics[k] = v;
    o["metrics"] = metrics;
    sources_json.push_back(o);
  }
  j["sources"] = sources_json;
  j["sink"] = {{"description", sink_description}, {"numOutputRows", sink_num_output_rows}};
  std::string out = j.dump();
  for (const auto& [key, json] : extra) {  // splice pre-rendered objects before the closing brace
    out.pop_back();
    nlohmann::json tmp = key;
    out += "," + tmp.dump() + ":" + json + "}";
  }
  return out;
}

std::string QueryProgress::Summary() const {
  char buf[512];
  double seconds = static_cast<double>(batch_duration_ms) / 1000.0;
  std::string lag;
  for (const auto& s : sources) {
    auto it = s.metrics.find("maxOffsetsBehindLatest");
    if (it != s.metrics.end()) lag = ", max lag " + it->second + " offsets";
  }
  std::snprintf(buf, sizeof(buf), "%s batch %lld: %lld rows in %.2f s (%.0f rows/s)%s",
                name.c_str(), static_cast<long long>(batch_id),
                static_cast<long long>(num_input_rows), seconds, Finite(processed_rows_per_second),
                lag.c_str());
  std::string line = buf;
  if (sink_num_output_rows >= 0 && sink_num_output_rows != num_input_rows) {
    line += ", " + std::to_string(sink_num_output_rows) + " written";
  }
  auto quality = extra.find("data_quality");
  if (quality != extra.end()) {
    auto j = nlohmann::json::parse(quality->second, nullptr, false);
    if (j.is_object()) {
      int64_t quarantined = j.value("quarantined_records", int64_t{0});
      int64_t dropped = j.value("dropped_records", int64_t{0});
      if (quarantined > 0) line += ", " + std::to_string(quarantined) + " quarantined";
      if (dropped > 0) line += ", " + std::to_string(dropped) + " dropped by expectations";
    }
  }
  for (const StateOperatorProgress& op : state_operators) {
    auto duplicates = op.custom_metrics.find("numDroppedDuplicateRows");
    if (duplicates != op.custom_metrics.end() && duplicates->second > 0) {
      line += ", " + std::to_string(duplicates->second) + " duplicates dropped";
    }
    if (op.num_rows_dropped_by_watermark > 0) {
      line += ", " + std::to_string(op.num_rows_dropped_by_watermark) + " late rows dropped";
    }
  }
  return line;
}

}  // namespace weir::stream
