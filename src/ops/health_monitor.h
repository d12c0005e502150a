// HealthMonitor: decides whether the flows keep up (the lag incident of docs/operations.md). A flow is
// unhealthy when, over the whole falling-behind window (default 10 minutes) and over its most
// recent half, data arrived faster than it was committed (the source's latest offsets grew more
// than its committed offsets, and it is behind at the end) or every batch had Spark's
// inputRowsPerSecond > processedRowsPerSecond; when the oldest unprocessed event is within
// `retention_fraction` of the topic's retention; or when the flow failed. A flow that failed with a
// transient error and is being retried is `retrying` (not healthy, with the cause and since when).
// The window's rates are reported from the first batches on, over the history there is while the
// window is not yet full (`window_full` false). Each change of a flow's state is logged once
// (WARN when it turns unhealthy or starts retrying). Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ops/metrics_registry.h"

namespace weir::ops {

struct HealthOptions {
  int64_t behind_window_ms = 10 * 60 * 1000;
  int64_t retention_ms = 7LL * 24 * 3600 * 1000;  // the topic's retention (Kafka's default)
  double retention_fraction = 0.5;  // unhealthy when time behind >= fraction x retention
};

struct FlowHealth {
  std::string flow;
  bool healthy = true;
  bool falling_behind = false;
  bool retention_at_risk = false;
  bool failed = false;
  bool retrying = false;
  std::string retry_cause;       // when retrying
  int64_t retrying_since_ms = 0;
  int retry_attempt = 0;
  // Over the window, or over the history there is when it does not cover the window yet.
  double arrival_rows_per_second = 0;    // growth of the source's latest offsets
  double committed_rows_per_second = 0;  // growth of the committed offsets
  bool window_full = false;              // the rates cover the whole window
  int64_t rates_over_ms = 0;             // the time the rates were measured over
  double retention_used = 0;             // time behind / retention
  std::vector<std::string> reasons;      // one sentence each; empty when healthy
};

struct HealthReport {
  bool healthy = true;
  std::vector<FlowHealth> flows;
  // {"status":"healthy"|"retrying"|"unhealthy","reasons":[...],"flows":[{...}]}: unhealthy when a
  // flow is unhealthy for another reason than retrying, retrying when one retries.
  std::string ToJson() const;
  std::string StatusWord() const;
};

class HealthMonitor {
 public:
  // `log` receives one line per state change (may be empty).
  HealthMonitor(HealthOptions options, std::function<void(const std::string&)> log);

  // Judges `flows` as of `now_ms`; logs flows whose state changed since the last call.
  HealthReport Evaluate(const std::vector<FlowMetrics>& flows, int64_t now_ms);
  const HealthOptions& options() const { return options_; }

 private:
  FlowHealth Judge(const FlowMetrics& flow, int64_t now_ms) const;

  HealthOptions options_;
  std::function<void(const std::string&)> log_;
  std::mutex mutex_;
  std::map<std::string, std::string> last_status_;  // GUARDED_BY(mutex_) flow -> status word
};

// "10m0s", "3.5s": a duration for messages.
std::string FormatDurationMs(int64_t ms);

}  // namespace weir::ops
