#include "ops/health_monitor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace weir::ops {
namespace {

// Rates between the newest sample and the newest one at or before `since_ms` (nullptr when the
// history does not reach back that far or has no offsets).
struct WindowRates {
  double arrival = 0;
  double committed = 0;
  bool covered = false;  // the samples reach back to `since_ms`
  bool measured = false;  // two samples with offsets, some time apart
  int64_t over_ms = 0;
};

// Rates between the newest sample and the newest one at or before `since_ms`; when the history
// does not reach that far back, between the newest and the oldest (covered false).
WindowRates RatesSince(const std::vector<BatchSample>& history, int64_t since_ms) {
  WindowRates r;
  if (history.size() < 2) return r;
  const BatchSample& last = history.back();
  const BatchSample* first = nullptr;
  for (const BatchSample& s : history) {
    if (s.timestamp_ms > since_ms) break;
    first = &s;
  }
  r.covered = first != nullptr;
  if (first == nullptr) first = &history.front();
  if (first == &last || first->end_offsets_total < 0 || last.end_offsets_total < 0) return r;
  r.over_ms = last.timestamp_ms - first->timestamp_ms;
  if (r.over_ms <= 0) return r;
  const double seconds = static_cast<double>(r.over_ms) / 1000.0;
  r.arrival =
      static_cast<double>(last.latest_offsets_total - first->latest_offsets_total) / seconds;
  r.committed = static_cast<double>(last.end_offsets_total - first->end_offsets_total) / seconds;
  r.measured = true;
  return r;
}

// Spark's own symptom: every batch of the window read rows faster than it could process them
// (inputRowsPerSecond > processedRowsPerSecond), and the batches cover the window.
bool SparkRatesBehind(const std::vector<BatchSample>& history, int64_t since_ms) {
  bool covered = false;
  int batches = 0;
  for (const BatchSample& s : history) {
    if (s.timestamp_ms <= since_ms) {
      covered = true;
      continue;
    }
    ++batches;
    if (!(s.input_rows_per_second > s.processed_rows_per_second)) return false;
  }
  return covered && batches >= 2;
}

std::string Rate(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

}  // namespace

std::string FormatDurationMs(int64_t ms) {
  char buf[64];
  if (ms < 60000) {
    std::snprintf(buf, sizeof(buf), "%gs", static_cast<double>(ms) / 1000.0);
  } else if (ms < 3600000) {
    std::snprintf(buf, sizeof(buf), "%lldm%llds", static_cast<long long>(ms / 60000),
                  static_cast<long long>((ms % 60000) / 1000));
  } else {
    std::snprintf(buf, sizeof(buf), "%lldh%lldm", static_cast<long long>(ms / 3600000),
                  static_cast<long long>((ms % 3600000) / 60000));
  }
  return buf;
}

namespace {

std::string FlowStatusWord(const FlowHealth& f) {
  if (f.healthy) return "healthy";
  const bool only_retrying = f.retrying && !f.failed && !f.falling_behind && !f.retention_at_risk;
  return only_retrying ? "retrying" : "unhealthy";
}

}  // namespace

std::string HealthReport::StatusWord() const {
  std::string word = "healthy";
  for (const FlowHealth& f : flows) {
    std::string w = FlowStatusWord(f);
    if (w == "unhealthy") return w;
    if (w == "retrying") word = w;
  }
  return word;
}

std::string HealthReport::ToJson() const {
  nlohmann::ordered_json j;
  j["status"] = StatusWord();
  nlohmann::ordered_json reasons = nlohmann::ordered_json::array();
  nlohmann::ordered_json flows_json = nlohmann::ordered_json::array();
  for (const FlowHealth& f : flows) {
    for (const std::string& r : f.reasons) reasons.push_back(f.flow + ": " + r);
    nlohmann::ordered_json o;
    o["flow"] = f.flow;
    o["status"] = FlowStatusWord(f);
    o["fallingBehind"] = f.falling_behind;
    o["retentionAtRisk"] = f.retention_at_risk;
    o["failed"] = f.failed;
    o["retrying"] = f.retrying;
    if (f.retrying) {
      o["retryCause"] = f.retry_cause;
      o["retryingSince"] = f.retrying_since_ms;
      o["retryAttempt"] = f.retry_attempt;
    }
    o["arrivalRowsPerSecond"] = f.arrival_rows_per_second;
    o["committedRowsPerSecond"] = f.committed_rows_per_second;
    o["windowFull"] = f.window_full;
    o["ratesOverMs"] = f.rates_over_ms;
    o["retentionUsed"] = f.retention_used;
    o["reasons"] = f.reasons;
    flows_json.push_back(std::move(o));
  }
  j["reasons"] = std::move(reasons);
  j["flows"] = std::move(flows_json);
  return j.dump();
}

HealthMonitor::HealthMonitor(HealthOptions options, std::function<void(const std::string&)> log)
    : options_(options), log_(std::move(log)) {}

FlowHealth HealthMonitor::Judge(const FlowMetrics& flow, int64_t now_ms) const {
  FlowHealth h;
  h.flow = flow.name;
  if (flow.failure) {
    h.failed = true;
    h.reasons.push_back("the flow stopped with an error: " + *flow.failure);
  }
  if (flow.retrying && !flow.finished) {
    h.retrying = true;
    h.retry_cause = flow.retrying->cause;
    h.retrying_since_ms = flow.retrying->since_ms;
    h.retry_attempt = flow.retrying->attempt;
    h.reasons.push_back("retrying after a transient error for " +
                        FormatDurationMs(std::max<int64_t>(0, now_ms - flow.retrying->since_ms)) +
                        " (retry " + std::to_string(flow.retrying->attempt) +
                        "): " + flow.retrying->cause);
  }
  const int64_t window = options_.behind_window_ms;
  WindowRates whole = RatesSince(flow.history, now_ms - window);
  WindowRates recent = RatesSince(flow.history, now_ms - window / 2);
  const int64_t behind = flow.history.empty() ? 0 : flow.history.back().offsets_behind;
  if (whole.measured) {
    h.arrival_rows_per_second = whole.arrival;
    h.committed_rows_per_second = whole.committed;
    h.window_full = whole.covered;
    h.rates_over_ms = whole.over_ms;
  }
  if (!flow.finished && whole.covered && recent.covered && whole.measured && recent.measured &&
      behind > 0 &&
      whole.arrival > whole.committed && recent.arrival > recent.committed) {
    h.falling_behind = true;
    h.reasons.push_back("falling behind: input " + Rate(whole.arrival) + " rows/s > processing " +
                        Rate(whole.committed) + " rows/s over the last " +
                        FormatDurationMs(window) + ", " + std::to_string(behind) +
                        " offsets behind (raise maxOffsetsPerTrigger or speed up the sink: "
                        "docs/tuning.md)");
  } else if (!flow.finished && SparkRatesBehind(flow.history, now_ms - window)) {
    h.falling_behind = true;
    const BatchSample& last = flow.history.back();
    h.reasons.push_back("falling behind: inputRowsPerSecond " + Rate(last.input_rows_per_second) +
                        " > processedRowsPerSecond " + Rate(last.processed_rows_per_second) +
                        " in every batch of the last " + FormatDurationMs(window) +
                        " (batches take longer than the trigger interval: docs/tuning.md)");
  }
  if (options_.retention_ms > 0) {
    h.retention_used =
        static_cast<double>(flow.time_behind_ms) / static_cast<double>(options_.retention_ms);
    if (flow.time_behind_ms > 0 && h.retention_used >= options_.retention_fraction) {
      h.retention_at_risk = true;
      h.reasons.push_back("the oldest unprocessed event is " +
                          FormatDurationMs(flow.time_behind_ms) + " old, " +
                          Rate(h.retention_used * 100) + "% of the topic's retention (" +
                          FormatDurationMs(options_.retention_ms) +
                          "): events will be deleted before they are read; catch up first "
                          "(see docs/operations.md, \"Catching up\")");
    }
  }
  h.healthy = h.reasons.empty();
  return h;
}

HealthReport HealthMonitor::Evaluate(const std::vector<FlowMetrics>& flows, int64_t now_ms) {
  HealthReport report;
  for (const FlowMetrics& f : flows) {
    report.flows.push_back(Judge(f, now_ms));
    if (!report.flows.back().healthy) report.healthy = false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const FlowHealth& h : report.flows) {
    const std::string word = FlowStatusWord(h);
    auto [it, inserted] = last_status_.try_emplace(h.flow, "healthy");
    if (it->second == word) continue;
    it->second = word;
    if (!log_) continue;
    if (!h.healthy) {
      std::string line = "WARN " + h.flow + " is " + word + ":";
      for (const std::string& r : h.reasons) line += " " + r + ";";
      line.pop_back();
      log_(line);
    } else {
      log_(h.flow + " is healthy again");
    }
  }
  return report;
}

}  // namespace weir::ops
