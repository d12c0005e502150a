#include "ops/prometheus.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>

namespace weir::ops {
namespace {

std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.6g", v);
  }
  return buf;
}

// "bytesWritten" -> "bytes_written".
std::string SnakeCase(std::string_view camel) {
  std::string out;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!out.empty()) out.push_back('_');
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (std::isalnum(static_cast<unsigned char>(c))) {
      out.push_back(c);
    } else {
      out.push_back('_');
    }
  }
  return out;
}

class Writer {
 public:
  // Starts a family; samples follow with Sample().
  void Family(const std::string& name, const char* type, const std::string& help) {
    name_ = name;
    out_ += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void Sample(const std::vector<std::pair<std::string, std::string>>& labels, double value) {
    out_ += name_;
    if (!labels.empty()) {
      out_ += "{";
      for (size_t i = 0; i < labels.size(); ++i) {
        if (i > 0) out_ += ",";
        out_ += labels[i].first;
        out_ += "=\"";
        out_ += EscapeLabelValue(labels[i].second);
        out_.push_back('"');
      }
      out_ += "}";
    }
    out_.push_back(' ');
    out_ += Number(value);
    out_.push_back('\n');
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string name_;
  std::string out_;
};

using Labels = std::vector<std::pair<std::string, std::string>>;

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string RenderPrometheus(const std::vector<FlowMetrics>& flows, const HealthReport& health) {
  Writer w;
  auto flow_label = [](const FlowMetrics& f) { return Labels{{"flow", f.name}}; };
  auto per_flow = [&](const std::string& name, const char* type, const std::string& help,
                      const std::function<double(const FlowMetrics&)>& value) {
    w.Family(name, type, help);
    for (const FlowMetrics& f : flows) w.Sample(flow_label(f), value(f));
  };
  auto last = [](const FlowMetrics& f) -> const BatchSample* {
    return f.history.empty() ? nullptr : &f.history.back();
  };

  w.Family("weir_up", "gauge", "1 while the weir process serves metrics.");
  w.Sample({}, 1);
  w.Family("weir_healthy", "gauge", "1 when every flow is healthy (see /health), else 0.");
  w.Sample({}, health.healthy ? 1 : 0);

  // Latest batch.
  per_flow(
      "weir_flow_batch_id", "gauge", "The latest batch's id (batchId).",
      [&](const FlowMetrics& f) { return last(f) ? static_cast<double>(last(f)->batch_id) : -1; });
  per_flow("weir_flow_input_rows_per_second", "gauge",
           "inputRowsPerSecond of the latest batch (rows read / time since the previous trigger).",
           [&](const FlowMetrics& f) { return last(f) ? last(f)->input_rows_per_second : 0; });
  per_flow("weir_flow_processed_rows_per_second", "gauge",
           "processedRowsPerSecond of the latest batch (rows read / batch duration).",
           [&](const FlowMetrics& f) { return last(f) ? last(f)->processed_rows_per_second : 0; });
  per_flow("weir_flow_batch_input_rows", "gauge", "numInputRows of the latest batch.",
           [&](const FlowMetrics& f) {
             return last(f) ? static_cast<double>(last(f)->num_input_rows) : 0;
           });
  per_flow("weir_flow_batch_duration_seconds", "gauge", "batchDuration of the latest batch.",
           [&](const FlowMetrics& f) {
             return last(f) ? static_cast<double>(last(f)->batch_duration_ms) / 1000.0 : 0;
           });
  w.Family(
      "weir_flow_batch_duration_part_seconds", "gauge",
      "durationMs of the latest batch by part (latestOffset, walCommit, getBatch, addBatch, ...).");
  for (const FlowMetrics& f : flows) {
    if (!last(f)) continue;
    for (const auto& [part, ms] : last(f)->duration_ms) {
      w.Sample({{"flow", f.name}, {"part", part}}, static_cast<double>(ms) / 1000.0);
    }
  }
  per_flow("weir_flow_last_progress_timestamp_seconds", "gauge",
           "When the latest progress was reported (Unix time).",
           [](const FlowMetrics& f) { return static_cast<double>(f.last_progress_ms) / 1000.0; });

  // Lag.
  w.Family("weir_flow_partition_offsets_behind", "gauge",
           "Offsets between the committed end and the latest offset, per source partition "
           "(a Delta source: table versions, partition=\"version\").");
  for (const FlowMetrics& f : flows) {
    for (const PartitionPosition& p : f.partitions) {
      w.Sample({{"flow", f.name}, {"topic", p.topic}, {"partition", p.partition}},
               static_cast<double>(p.behind()));
    }
  }
  w.Family("weir_flow_partition_committed_offset", "gauge",
           "The committed end offset (the next offset to read), per source partition.");
  for (const FlowMetrics& f : flows) {
    for (const PartitionPosition& p : f.partitions) {
      w.Sample({{"flow", f.name}, {"topic", p.topic}, {"partition", p.partition}},
               static_cast<double>(p.end_offset));
    }
  }
  w.Family("weir_flow_partition_latest_offset", "gauge",
           "The latest offset the source knew of at the latest batch, per source partition.");
  for (const FlowMetrics& f : flows) {
    for (const PartitionPosition& p : f.partitions) {
      w.Sample({{"flow", f.name}, {"topic", p.topic}, {"partition", p.partition}},
               static_cast<double>(p.latest_offset));
    }
  }
  per_flow("weir_flow_offsets_behind", "gauge", "Offsets behind latest, summed over partitions.",
           [&](const FlowMetrics& f) {
             return last(f) ? static_cast<double>(last(f)->offsets_behind) : 0;
           });
  w.Family("weir_flow_estimated_bytes_behind", "gauge",
           "estimatedTotalBytesBehindLatest: offsets behind x the average record size seen.");
  for (const FlowMetrics& f : flows) {
    if (f.estimated_bytes_behind) w.Sample(flow_label(f), *f.estimated_bytes_behind);
  }
  w.Family("weir_flow_partition_estimated_bytes_behind", "gauge",
           "A partition's share of estimatedTotalBytesBehindLatest (its offsets behind x the "
           "average record size).");
  for (const FlowMetrics& f : flows) {
    const BatchSample* b = last(f);
    if (!f.estimated_bytes_behind || b == nullptr || b->offsets_behind <= 0) continue;
    const double per_offset = *f.estimated_bytes_behind / static_cast<double>(b->offsets_behind);
    for (const PartitionPosition& p : f.partitions) {
      w.Sample({{"flow", f.name}, {"topic", p.topic}, {"partition", p.partition}},
               std::round(static_cast<double>(p.behind()) * per_offset));
    }
  }
  per_flow("weir_flow_time_behind_seconds", "gauge",
           "Estimated age of the oldest unprocessed event (0 when caught up): now minus when the "
           "source was first seen past the committed offsets.",
           [](const FlowMetrics& f) { return static_cast<double>(f.time_behind_ms) / 1000.0; });

  // State.
  w.Family("weir_flow_state_rows", "gauge", "Rows in a state operator's store (numRowsTotal).");
  for (const FlowMetrics& f : flows) {
    for (const StateGauge& s : f.state) {
      w.Sample({{"flow", f.name}, {"operator", s.operator_name}},
               static_cast<double>(s.num_rows_total));
    }
  }
  w.Family("weir_flow_state_memory_bytes", "gauge", "A state operator's memoryUsedBytes.");
  for (const FlowMetrics& f : flows) {
    for (const StateGauge& s : f.state) {
      w.Sample({{"flow", f.name}, {"operator", s.operator_name}},
               static_cast<double>(s.memory_used_bytes));
    }
  }

  // Totals of this run.
  per_flow("weir_flow_batches_total", "counter", "Batches completed by this process.",
           [](const FlowMetrics& f) { return static_cast<double>(f.batches); });
  per_flow("weir_flow_input_rows_total", "counter", "Rows read from the source (numInputRows).",
           [](const FlowMetrics& f) { return static_cast<double>(f.input_rows_total); });
  per_flow("weir_flow_output_rows_total", "counter",
           "Rows written to the table (sink numOutputRows).",
           [](const FlowMetrics& f) { return static_cast<double>(f.output_rows_total); });
  per_flow("weir_flow_files_written_total", "counter", "Data files committed to the table.",
           [](const FlowMetrics& f) { return static_cast<double>(f.files_written_total); });
  // Counters the engine adds to the progress's "weir" object (bytesWritten, commitRetries, ...).
  std::vector<std::string> engine_names;
  for (const FlowMetrics& f : flows) {
    for (const auto& [name, value] : f.engine_counters) {
      if (std::find(engine_names.begin(), engine_names.end(), name) == engine_names.end())
        engine_names.push_back(name);
    }
  }
  for (const std::string& name : engine_names) {
    w.Family("weir_flow_" + SnakeCase(name) + "_total", "counter",
             "The engine's " + name + " counter, summed over this run's batches.");
    for (const FlowMetrics& f : flows) {
      auto it = f.engine_counters.find(name);
      if (it != f.engine_counters.end()) w.Sample(flow_label(f), static_cast<double>(it->second));
    }
  }
  per_flow("weir_flow_data_loss_events_total", "counter",
           "Batches that skipped offsets lost to retention (failOnDataLoss=false).",
           [](const FlowMetrics& f) { return static_cast<double>(f.data_loss_events_total); });
  per_flow("weir_flow_skipped_offsets", "gauge",
           "Offsets skipped because they aged out before being read (failOnDataLoss=false).",
           [](const FlowMetrics& f) { return static_cast<double>(f.skipped_offsets); });
  per_flow("weir_flow_dropped_records_total", "counter",
           "Rows dropped by expectations (ON VIOLATION DROP ROW).",
           [](const FlowMetrics& f) { return static_cast<double>(f.dropped_records_total); });
  per_flow("weir_flow_quarantined_records_total", "counter", "Rows routed to the quarantine table.",
           [](const FlowMetrics& f) { return static_cast<double>(f.quarantined_records_total); });
  per_flow("weir_flow_duplicates_dropped_total", "counter", "Rows dropped as duplicates.",
           [](const FlowMetrics& f) { return static_cast<double>(f.duplicates_dropped_total); });
  per_flow("weir_flow_late_rows_dropped_total", "counter", "Rows dropped behind the watermark.",
           [](const FlowMetrics& f) { return static_cast<double>(f.late_rows_dropped_total); });
  w.Family("weir_flow_expectation_passed_records_total", "counter",
           "Rows that met an expectation.");
  for (const FlowMetrics& f : flows) {
    for (const ExpectationCount& e : f.expectations) {
      w.Sample({{"flow", f.name}, {"expectation", e.name}}, static_cast<double>(e.passed_records));
    }
  }
  w.Family("weir_flow_expectation_failed_records_total", "counter",
           "Rows that failed an expectation.");
  for (const FlowMetrics& f : flows) {
    for (const ExpectationCount& e : f.expectations) {
      w.Sample({{"flow", f.name}, {"expectation", e.name}}, static_cast<double>(e.failed_records));
    }
  }

  // Health.
  auto health_of = [&](const FlowMetrics& f) -> const FlowHealth* {
    for (const FlowHealth& h : health.flows) {
      if (h.flow == f.name) return &h;
    }
    return nullptr;
  };
  per_flow("weir_flow_healthy", "gauge", "1 when the flow is healthy.",
           [&](const FlowMetrics& f) { return health_of(f) && !health_of(f)->healthy ? 0 : 1; });
  per_flow(
      "weir_flow_falling_behind", "gauge",
      "1 when input outpaced processing over the falling-behind window.",
      [&](const FlowMetrics& f) { return health_of(f) && health_of(f)->falling_behind ? 1 : 0; });
  per_flow("weir_flow_retention_at_risk", "gauge",
           "1 when the oldest unprocessed event is within the configured fraction of retention.",
           [&](const FlowMetrics& f) {
             return health_of(f) && health_of(f)->retention_at_risk ? 1 : 0;
           });
  per_flow("weir_flow_retention_used_ratio", "gauge", "Time behind / the topic's retention.",
           [&](const FlowMetrics& f) { return health_of(f) ? health_of(f)->retention_used : 0; });
  per_flow("weir_flow_arrival_rows_per_second", "gauge",
           "Growth of the source's latest offsets over the falling-behind window.",
           [&](const FlowMetrics& f) {
             return health_of(f) ? health_of(f)->arrival_rows_per_second : 0;
           });
  per_flow("weir_flow_committed_rows_per_second", "gauge",
           "Growth of the committed offsets over the falling-behind window.",
           [&](const FlowMetrics& f) {
             return health_of(f) ? health_of(f)->committed_rows_per_second : 0;
           });
  per_flow("weir_flow_failed", "gauge", "1 when the flow stopped with an error.",
           [](const FlowMetrics& f) { return f.failure ? 1 : 0; });
  per_flow("weir_flow_retrying", "gauge",
           "1 while the flow is being retried after a transient error.",
           [](const FlowMetrics& f) { return f.retrying && !f.finished ? 1 : 0; });
  per_flow("weir_flow_retries_total", "counter",
           "Times the flow was reopened after a transient error (broker or storage unavailable).",
           [](const FlowMetrics& f) { return static_cast<double>(f.retries_total); });
  return w.Take();
}

}  // namespace weir::ops
