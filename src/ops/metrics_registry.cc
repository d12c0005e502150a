#include "ops/metrics_registry.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "ops/redaction.h"

namespace weir::ops {
namespace {

constexpr size_t kMaxObservationsPerPartition = 4096;

std::string PartitionKey(const std::string& topic, const std::string& partition) {
  return topic + "/" + partition;
}

// Numeric order for partition numbers ("2" before "10"), text order otherwise.
bool PartitionLess(const PartitionPosition& a, const PartitionPosition& b) {
  if (a.topic != b.topic) return a.topic < b.topic;
  char* end_a = nullptr;
  char* end_b = nullptr;
  long long na = std::strtoll(a.partition.c_str(), &end_a, 10);
  long long nb = std::strtoll(b.partition.c_str(), &end_b, 10);
  if (*end_a == '\0' && *end_b == '\0') return na < nb;
  return a.partition < b.partition;
}

int64_t JsonInt(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  return it->get<int64_t>();
}

}  // namespace

std::map<std::pair<std::string, std::string>, int64_t> ParseSourceOffsets(const std::string& json) {
  std::map<std::pair<std::string, std::string>, int64_t> out;
  auto j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_object()) return out;
  auto version = j.find("reservoirVersion");
  if (version != j.end()) {
    if (version->is_number_integer()) out[{"delta", "version"}] = version->get<int64_t>();
    return out;
  }
  for (const auto& [topic, partitions] : j.items()) {
    if (!partitions.is_object()) continue;
    for (const auto& [partition, offset] : partitions.items()) {
      if (offset.is_number_integer()) out[{topic, partition}] = offset.get<int64_t>();
    }
  }
  return out;
}

MetricsRegistry::MetricsRegistry(MetricsRegistryOptions options) : options_(std::move(options)) {}

int64_t MetricsRegistry::NowMs() const {
  if (options_.now_ms) return options_.now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

MetricsRegistry::FlowState& MetricsRegistry::FlowLocked(const std::string& name) {
  for (FlowState& f : flows_) {
    if (f.metrics.name == name) return f;
  }
  flows_.emplace_back();
  flows_.back().metrics.name = name;
  return flows_.back();
}

void MetricsRegistry::AddFlow(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  FlowLocked(name);
}

void MetricsRegistry::MarkFinished(const std::string& name, std::optional<std::string> failure) {
  std::lock_guard<std::mutex> lock(mutex_);
  FlowState& flow = FlowLocked(name);
  flow.metrics.finished = true;
  flow.metrics.retrying.reset();
  if (failure)
    flow.metrics.failure = LooksLikeSecretValue(*failure) ? std::string(kRedacted) : *failure;
}

void MetricsRegistry::MarkRetrying(const std::string& name, const std::string& cause,
                                   int64_t since_ms, int attempt) {
  std::lock_guard<std::mutex> lock(mutex_);
  FlowMetrics& m = FlowLocked(name).metrics;
  m.retrying = FlowMetrics::Retrying{LooksLikeSecretValue(cause) ? std::string(kRedacted) : cause,
                                     since_ms, attempt};
  m.retries_total += 1;
}

void MetricsRegistry::MarkRunning(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  FlowLocked(name).metrics.retrying.reset();
}

int64_t MetricsRegistry::TimeBehindLocked(const FlowState& flow, int64_t now_ms) const {
  int64_t oldest_seen = -1;
  for (const PartitionPosition& p : flow.metrics.partitions) {
    if (p.behind() <= 0) continue;
    auto it = flow.observations.find(PartitionKey(p.topic, p.partition));
    if (it == flow.observations.end() || it->second.empty()) continue;
    // The first time a latest offset past the committed end was seen: the oldest unprocessed
    // event was in the topic by then.
    int64_t seen = it->second.back().seen_ms;
    for (const Observation& o : it->second) {
      if (o.latest_offset > p.end_offset) {
        seen = o.seen_ms;
        break;
      }
    }
    if (oldest_seen < 0 || seen < oldest_seen) oldest_seen = seen;
  }
  return oldest_seen < 0 ? 0 : std::max<int64_t>(0, now_ms - oldest_seen);
}

void MetricsRegistry::Record(const stream::QueryProgress& p) {
  const int64_t now = NowMs();
  std::lock_guard<std::mutex> lock(mutex_);
  FlowState& flow = FlowLocked(p.name);
  FlowMetrics& m = flow.metrics;
  if (m.run_id != p.run_id) {
    m.run_id = p.run_id;
    m.finished = false;
    m.failure.reset();
  }
  m.id = p.id;
  m.batches += 1;
  m.input_rows_total += p.num_input_rows;
  if (p.sink_num_output_rows > 0) m.output_rows_total += p.sink_num_output_rows;
  m.last_progress_ms = now;

  BatchSample sample;
  sample.timestamp_ms = p.timestamp_ms > 0 ? p.timestamp_ms : now;
  sample.batch_id = p.batch_id;
  sample.num_input_rows = p.num_input_rows;
  sample.input_rows_per_second = p.input_rows_per_second;
  sample.processed_rows_per_second = p.processed_rows_per_second;
  sample.batch_duration_ms = p.batch_duration_ms;
  sample.duration_ms = p.duration_ms;

  // Offsets: per partition of the latest offsets (a partition new to the end counts from 0).
  m.partitions.clear();
  m.estimated_bytes_behind.reset();
  bool understood = false;
  int64_t end_total = 0, latest_total = 0;
  for (const stream::SourceProgress& s : p.sources) {
    auto end = ParseSourceOffsets(s.end_offset);
    auto latest = ParseSourceOffsets(s.latest_offset);
    for (const auto& [tp, offset] : end) {
      if (latest.find(tp) == latest.end()) latest[tp] = offset;
    }
    for (const auto& [tp, latest_offset] : latest) {
      PartitionPosition pos;
      pos.topic = tp.first;
      pos.partition = tp.second;
      auto e = end.find(tp);
      pos.end_offset = e == end.end() ? 0 : e->second;
      pos.latest_offset = latest_offset;
      end_total += pos.end_offset;
      latest_total += pos.latest_offset;
      sample.offsets_behind += pos.behind();
      sample.partition_behind[PartitionKey(pos.topic, pos.partition)] = pos.behind();
      std::deque<Observation>& seen = flow.observations[PartitionKey(pos.topic, pos.partition)];
      if (seen.empty() || latest_offset > seen.back().latest_offset) {
        seen.push_back({sample.timestamp_ms, latest_offset});
        if (seen.size() > kMaxObservationsPerPartition) seen.pop_front();
      }
      m.partitions.push_back(std::move(pos));
      understood = true;
    }
    auto bytes = s.metrics.find("estimatedTotalBytesBehindLatest");
    if (bytes != s.metrics.end()) {
      m.estimated_bytes_behind =
          m.estimated_bytes_behind.value_or(0) + std::atof(bytes->second.c_str());
    }
    auto skipped = s.metrics.find("weir.skippedOffsets");
    if (skipped != s.metrics.end()) {
      int64_t value = std::atoll(skipped->second.c_str());
      if (value > m.skipped_offsets) m.data_loss_events_total += 1;
      m.skipped_offsets = value;
    }
  }
  std::sort(m.partitions.begin(), m.partitions.end(), PartitionLess);
  // Observations of partitions that are caught up and older than the history are not needed.
  for (auto& [key, seen] : flow.observations) {
    while (seen.size() > 1 && seen.front().seen_ms < now - options_.history_ms) seen.pop_front();
  }
  if (understood) {
    sample.end_offsets_total = end_total;
    sample.latest_offsets_total = latest_total;
  }
  m.time_behind_ms = TimeBehindLocked(flow, now);
  sample.time_behind_ms = m.time_behind_ms;

  m.state.clear();
  for (const stream::StateOperatorProgress& op : p.state_operators) {
    m.state.push_back({op.operator_name, op.num_rows_total, op.memory_used_bytes});
    auto duplicates = op.custom_metrics.find("numDroppedDuplicateRows");
    if (duplicates != op.custom_metrics.end()) m.duplicates_dropped_total += duplicates->second;
    m.late_rows_dropped_total += op.num_rows_dropped_by_watermark;
  }

  for (const auto& [key, text] : p.extra) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) continue;
    if (key == "weir") {
      for (const auto& [name, value] : j.items()) {
        if (!value.is_number_integer()) continue;
        if (name == "filesWritten") {
          m.files_written_total += value.get<int64_t>();
        } else {
          m.engine_counters[name] += value.get<int64_t>();
        }
      }
    } else if (key == "data_quality") {
      m.dropped_records_total += JsonInt(j, "dropped_records");
      m.quarantined_records_total += JsonInt(j, "quarantined_records");
      auto expectations = j.find("expectations");
      if (expectations == j.end() || !expectations->is_array()) continue;
      for (const auto& e : *expectations) {
        if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) continue;
        const std::string name = e["name"].get<std::string>();
        auto it = std::find_if(m.expectations.begin(), m.expectations.end(),
                               [&](const ExpectationCount& c) { return c.name == name; });
        if (it == m.expectations.end()) {
          m.expectations.push_back({name, 0, 0});
          it = m.expectations.end() - 1;
        }
        it->passed_records += JsonInt(e, "passed_records");
        it->failed_records += JsonInt(e, "failed_records");
      }
    }
  }

  m.last_progress_json = RedactJson(p.ToJson());
  m.recent_progress_json.push_back(m.last_progress_json);
  if (m.recent_progress_json.size() > options_.recent_progress) {
    m.recent_progress_json.erase(m.recent_progress_json.begin());
  }
  m.history.push_back(std::move(sample));
  const int64_t horizon = now - options_.history_ms;
  size_t drop = 0;
  while (drop < m.history.size() && m.history[drop].timestamp_ms < horizon) ++drop;
  if (m.history.size() - drop > options_.max_samples_per_flow) {
    drop = m.history.size() - options_.max_samples_per_flow;
  }
  if (drop > 0) m.history.erase(m.history.begin(), m.history.begin() + static_cast<long>(drop));
}

std::vector<FlowMetrics> MetricsRegistry::Snapshot() const {
  const int64_t now = NowMs();
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<FlowMetrics> out;
  out.reserve(flows_.size());
  for (const FlowState& f : flows_) {
    out.push_back(f.metrics);
    out.back().time_behind_ms = TimeBehindLocked(f, now);
  }
  return out;
}

}  // namespace weir::ops
