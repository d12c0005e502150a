// Event-time watermark of a streaming query, as Spark's WatermarkTracker computes it: each
// watermark input (a WATERMARK clause / withWatermark) proposes max event time seen in the batch
// minus its delay, never moving back; the global watermark is the min (or max) over inputs and only
// advances. It is computed at the end of batch N and used by batch N+1 (offsets/N+1
// batchWatermarkMs). Times are milliseconds, as Spark keeps them. Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"

namespace weir::stream {

// Event-time statistics of one batch (Spark's EventTimeStats), milliseconds since the epoch.
struct EventTimeStats {
  int64_t max_ms = INT64_MIN;
  int64_t min_ms = INT64_MAX;
  double avg_ms = 0;
  int64_t count = 0;

  void Add(int64_t event_time_ms);
  void Merge(const EventTimeStats& other);
};

// spark.sql.streaming.multipleWatermarkPolicy.
enum class MultipleWatermarkPolicy { kMin, kMax };
// "min" or "max", case-insensitive; InvalidArgument otherwise (Spark's message).
Result<MultipleWatermarkPolicy> ParseMultipleWatermarkPolicy(std::string_view name);

class WatermarkTracker {
 public:
  // One entry per watermark input: its delay in milliseconds (>= 0).
  explicit WatermarkTracker(std::vector<int64_t> delays_ms,
                            MultipleWatermarkPolicy policy = MultipleWatermarkPolicy::kMin);

  // Restores the global watermark on restart (offsets/N's batchWatermarkMs). Per-input watermarks
  // start unknown again, as in Spark: an input counts as 0 until it sees rows.
  void SetWatermark(int64_t watermark_ms) { watermark_ms_ = watermark_ms; }
  int64_t watermark_ms() const { return watermark_ms_; }

  // Records the event times of the rows passing watermark input `input` in this batch.
  // `event_time` is TIMESTAMP or TIMESTAMP_NTZ (microseconds; converted to ms truncating toward
  // zero, like Spark). A NULL counts as 0 (the epoch): Spark reads a NULL timestamp as 0 here.
  // InvalidArgument for another type; REQUIRES: 0 <= input < number of inputs.
  Status Observe(int input, const columnar::Column& event_time);
  void ObserveMicros(int input, int64_t event_time_micros);

  // The current batch's statistics of one input, and of all inputs merged (progress "eventTime").
  const EventTimeStats& batch_stats(int input) const { return inputs_[input].stats; }
  EventTimeStats MergedBatchStats() const;

  // Ends the batch: updates per-input watermarks from this batch's statistics, advances the
  // global watermark per the policy, clears the statistics. Returns the watermark for the next
  // batch (nextBatchWatermarkMs / the next offsets' batchWatermarkMs).
  int64_t EndBatch();

 private:
  struct Input {
    int64_t delay_ms = 0;
    std::optional<int64_t> watermark_ms;  // unknown until the input sees a row
    EventTimeStats stats;
  };
  std::vector<Input> inputs_;
  MultipleWatermarkPolicy policy_;
  int64_t watermark_ms_ = 0;
};

}  // namespace weir::stream
