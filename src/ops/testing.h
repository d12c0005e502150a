// Test-only: builds StreamingQueryProgress records as a Kafka flow reports them.
#pragma once

#include <map>
#include <string>

#include "stream/progress.h"

namespace weir::ops::testing {

// Offsets JSON of one topic: {"orders":{"0":10,"1":20}}.
inline std::string KafkaOffsets(const std::string& topic, const std::map<int, int64_t>& offsets) {
  std::string out = "{\"" + topic + "\":{";
  bool first = true;
  for (const auto& [p, o] : offsets) {
    if (!first) out += ",";
    first = false;
    out += "\"" + std::to_string(p) + "\":" + std::to_string(o);
  }
  return out + "}}";
}

// A batch of flow `name` that started at `timestamp_ms` and read topic "orders" up to `end`
// while `latest` was the newest offset.
inline stream::QueryProgress KafkaBatch(const std::string& name, int64_t batch_id,
                                        int64_t timestamp_ms, const std::map<int, int64_t>& start,
                                        const std::map<int, int64_t>& end,
                                        const std::map<int, int64_t>& latest) {
  stream::QueryProgress p;
  p.id = "query-" + name;
  p.run_id = "run-1";
  p.name = name;
  p.timestamp_ms = timestamp_ms;
  p.batch_id = batch_id;
  int64_t rows = 0;
  for (const auto& [part, o] : end) rows += o - (start.count(part) ? start.at(part) : 0);
  p.num_input_rows = rows;
  p.batch_duration_ms = 500;
  p.input_rows_per_second = static_cast<double>(rows);
  p.processed_rows_per_second = static_cast<double>(rows) * 2;
  p.duration_ms = {{"latestOffset", 10},     {"walCommit", 20}, {"getBatch", 5},
                   {"queryPlanning", 0},     {"addBatch", 400}, {"commitOffsets", 15},
                   {"triggerExecution", 500}};
  stream::SourceProgress s;
  s.description = "KafkaV2[Subscribe[orders]]";
  s.start_offset = KafkaOffsets("orders", start);
  s.end_offset = KafkaOffsets("orders", end);
  s.latest_offset = KafkaOffsets("orders", latest);
  s.num_input_rows = rows;
  p.sources.push_back(s);
  p.sink_description = "DeltaSink[/lake/sales/bronze/" + name + "]";
  p.sink_num_output_rows = rows;
  p.extra["weir"] = "{\"filesWritten\":2}";
  return p;
}

}  // namespace weir::ops::testing
