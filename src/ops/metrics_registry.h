// MetricsRegistry: what the operations endpoint knows about each flow, fed by the flows'
// StreamingQueryProgress records (one Record() per batch). Keeps per flow the run's totals, the
// latest gauges (offsets behind per partition, state size) and a bounded history of batches for
// the last hour (the dashboard and the falling-behind check read it).
// Time behind is estimated from when each partition's latest offset was first seen past the
// committed end (the progress carries no Kafka timestamps): a lower bound of the true age of the
// oldest unprocessed event. Thread-safe: Record() from flow threads, Snapshot() from any.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "stream/progress.h"

namespace weir::ops {

// One source partition's position after a batch. Kafka: topic + partition number. A Delta source
// is one pseudo-partition: topic "delta", partition "version" (offsets are table versions).
struct PartitionPosition {
  std::string topic;
  std::string partition;
  int64_t end_offset = 0;     // committed: the next offset to read
  int64_t latest_offset = 0;  // the newest the source knew of when the batch was planned
  int64_t behind() const { return latest_offset > end_offset ? latest_offset - end_offset : 0; }
};

// One batch, as kept in a flow's history.
struct BatchSample {
  int64_t timestamp_ms = 0;  // trigger start (wall clock, epoch ms)
  int64_t batch_id = 0;
  int64_t num_input_rows = 0;
  double input_rows_per_second = 0;
  double processed_rows_per_second = 0;
  int64_t batch_duration_ms = 0;
  std::map<std::string, int64_t> duration_ms;  // durationMs parts
  // Sums over the source's partitions; -1 when the source reports no offsets we understand.
  int64_t end_offsets_total = -1;
  int64_t latest_offsets_total = -1;
  int64_t offsets_behind = 0;
  std::map<std::string, int64_t> partition_behind;  // "topic/partition" -> offsets behind
  int64_t time_behind_ms = 0;                       // estimated when the batch was recorded
};

struct ExpectationCount {
  std::string name;
  int64_t passed_records = 0;
  int64_t failed_records = 0;
};

struct StateGauge {
  std::string operator_name;
  int64_t num_rows_total = 0;
  int64_t memory_used_bytes = 0;
};

// Everything known about one flow at one moment (a copy; safe to read without locks).
struct FlowMetrics {
  std::string name;  // the streaming table
  std::string id;    // query id
  std::string run_id;
  // Totals of this process's run.
  int64_t batches = 0;
  int64_t input_rows_total = 0;
  int64_t output_rows_total = 0;
  int64_t files_written_total = 0;
  int64_t dropped_records_total = 0;      // by expectations
  int64_t quarantined_records_total = 0;  // routed to the quarantine table
  int64_t data_loss_events_total = 0;     // batches that skipped offsets lost to retention
  int64_t skipped_offsets = 0;            // offsets skipped so far (failOnDataLoss=false)
  int64_t duplicates_dropped_total = 0;
  int64_t late_rows_dropped_total = 0;
  // Other numeric counters the engine reports in the progress's "weir" object (summed per batch),
  // e.g. bytesWritten or commitRetries when the engine reports them.
  std::map<std::string, int64_t> engine_counters;
  std::vector<ExpectationCount> expectations;  // cumulative, in first-seen order
  // Latest values.
  std::vector<StateGauge> state;
  std::vector<PartitionPosition> partitions;
  std::optional<double> estimated_bytes_behind;   // Spark's estimatedTotalBytesBehindLatest
  int64_t time_behind_ms = 0;                     // as of the snapshot's `now`
  int64_t last_progress_ms = 0;                   // when the last progress arrived (wall clock)
  std::string last_progress_json;                 // secrets redacted
  std::vector<std::string> recent_progress_json;  // newest last, a few
  std::optional<std::string> failure;             // the flow stopped with this error
  bool finished = false;                          // the flow's run ended (stopped or trigger done)
  // The flow failed with a transient error and is being retried (stream::Pipeline): the error,
  // since when it has been failing, and the retries of this streak.
  struct Retrying {
    std::string cause;  // secrets redacted
    int64_t since_ms = 0;
    int attempt = 0;
  };
  std::optional<Retrying> retrying;
  int64_t retries_total = 0;  // of this process's run
  std::vector<BatchSample> history;               // oldest first, the last history_ms
};

struct MetricsRegistryOptions {
  int64_t history_ms = 3600 * 1000;    // how far back the history goes
  size_t max_samples_per_flow = 7200;  // bound on the history (oldest dropped first)
  size_t recent_progress = 5;          // progress records kept per flow for the dashboard
  std::function<int64_t()> now_ms;     // wall clock; system clock when empty
};

class MetricsRegistry {
 public:
  explicit MetricsRegistry(MetricsRegistryOptions options = {});

  // Declares a flow before its first batch (so endpoints list it from the start). Optional.
  void AddFlow(const std::string& name);
  // Takes one batch's progress.
  void Record(const stream::QueryProgress& progress);
  // The flow's run ended: `failure` is its error (nullopt: stopped or done normally).
  void MarkFinished(const std::string& name, std::optional<std::string> failure);
  // The flow failed with a transient error and will be reopened (retry `attempt` of a streak
  // failing since `since_ms`); counted in retries_total.
  void MarkRetrying(const std::string& name, const std::string& cause, int64_t since_ms,
                    int attempt);
  // The flow runs (again): a batch succeeded after retries.
  void MarkRunning(const std::string& name);

  // Copies of every flow (in the order first seen) with time behind computed as of now.
  std::vector<FlowMetrics> Snapshot() const;
  int64_t NowMs() const;

 private:
  struct Observation {
    int64_t seen_ms;
    int64_t latest_offset;
  };
  struct FlowState {
    FlowMetrics metrics;
    // Per "topic/partition": when each new latest offset was first seen (oldest first, bounded).
    std::map<std::string, std::deque<Observation>> observations;
  };
  FlowState& FlowLocked(const std::string& name);
  int64_t TimeBehindLocked(const FlowState& flow, int64_t now_ms) const;

  MetricsRegistryOptions options_;
  mutable std::mutex mutex_;
  std::vector<FlowState> flows_;  // GUARDED_BY(mutex_)
};

// Parses a source offset JSON (Kafka {"topic":{"0":12,...}} or Delta {"reservoirVersion":N,...})
// into "topic/partition" -> offset. Empty for null or unknown shapes.
std::map<std::pair<std::string, std::string>, int64_t> ParseSourceOffsets(const std::string& json);

}  // namespace weir::ops
