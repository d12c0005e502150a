#include "stream/watermark.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace weir::stream {

void EventTimeStats::Add(int64_t event_time_ms) {
  max_ms = std::max(max_ms, event_time_ms);
  min_ms = std::min(min_ms, event_time_ms);
  ++count;
  avg_ms += (static_cast<double>(event_time_ms) - avg_ms) / static_cast<double>(count);
}

void EventTimeStats::Merge(const EventTimeStats& other) {
  if (other.count == 0) return;
  if (count == 0) {
    *this = other;
    return;
  }
  max_ms = std::max(max_ms, other.max_ms);
  min_ms = std::min(min_ms, other.min_ms);
  count += other.count;
  avg_ms += (other.avg_ms - avg_ms) * static_cast<double>(other.count) / static_cast<double>(count);
}

Result<MultipleWatermarkPolicy> ParseMultipleWatermarkPolicy(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "min") return MultipleWatermarkPolicy::kMin;
  if (lower == "max") return MultipleWatermarkPolicy::kMax;
  return Status::InvalidArgument("Could not recognize watermark policy '" + std::string(name) +
                                 "' (spark.sql.streaming.multipleWatermarkPolicy is min or max)");
}

WatermarkTracker::WatermarkTracker(std::vector<int64_t> delays_ms, MultipleWatermarkPolicy policy)
    : policy_(policy) {
  inputs_.resize(delays_ms.size());
  for (size_t i = 0; i < delays_ms.size(); ++i) inputs_[i].delay_ms = delays_ms[i];
}

Status WatermarkTracker::Observe(int input, const columnar::Column& event_time) {
  columnar::TypeId id = event_time.type_id();
  if (id != columnar::TypeId::kTimestamp && id != columnar::TypeId::kTimestampNtz) {
    return Status::InvalidArgument("watermark column must be TIMESTAMP or TIMESTAMP_NTZ, got " +
                                   event_time.type()->ToDdl());
  }
  const int64_t* values = event_time.values<int64_t>();
  EventTimeStats& stats = inputs_[input].stats;
  for (int64_t i = 0; i < event_time.size(); ++i) {
    // Null slots hold zero (column.h), which is what Spark reads for a NULL here.
    stats.Add(event_time.IsNull(i) ? 0 : values[i] / 1000);
  }
  return Status::OK();
}

void WatermarkTracker::ObserveMicros(int input, int64_t event_time_micros) {
  inputs_[input].stats.Add(event_time_micros / 1000);
}

EventTimeStats WatermarkTracker::MergedBatchStats() const {
  EventTimeStats merged;
  for (const Input& in : inputs_) merged.Merge(in.stats);
  return merged;
}

int64_t WatermarkTracker::EndBatch() {
  if (inputs_.empty()) return watermark_ms_;
  for (Input& in : inputs_) {
    if (in.stats.count > 0) {
      int64_t candidate = in.stats.max_ms - in.delay_ms;
      if (!in.watermark_ms.has_value() || candidate > *in.watermark_ms) in.watermark_ms = candidate;
    }
    in.stats = EventTimeStats();
  }
  int64_t chosen = inputs_[0].watermark_ms.value_or(0);
  for (const Input& in : inputs_) {
    int64_t w = in.watermark_ms.value_or(0);
    chosen = policy_ == MultipleWatermarkPolicy::kMin ? std::min(chosen, w) : std::max(chosen, w);
  }
  if (chosen > watermark_ms_) watermark_ms_ = chosen;
  return watermark_ms_;
}

}  // namespace weir::stream
