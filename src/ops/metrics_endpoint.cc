#include "ops/metrics_endpoint.h"

#include <nlohmann/json.hpp>

#include "ops/dashboard_page.h"
#include "ops/prometheus.h"

namespace weir::ops {
namespace {

HttpResponse Json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(body);
  r.body += "\n";
  return r;
}

// The durationMs parts drawn as the batch's split (triggerExecution is their total).
bool IsDurationPart(const std::string& part) { return part != "triggerExecution"; }

}  // namespace

MetricsEndpoint::MetricsEndpoint(MetricsEndpointOptions options)
    : options_(std::move(options)),
      registry_(options_.registry),
      monitor_(options_.health, options_.log) {}

Result<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(MetricsEndpointOptions options) {
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint(std::move(options)));
  MetricsEndpoint* self = endpoint.get();
  WEIR_ASSIGN_OR_RETURN(endpoint->server_,
                        HttpServer::Start(endpoint->options_.http, [self](const HttpRequest& r) {
                          return self->Handle(r);
                        }));
  endpoint->checker_ = std::thread([self] {
    std::unique_lock<std::mutex> lock(self->mutex_);
    while (!self->stopping_) {
      self->wake_.wait_for(lock,
                           std::chrono::milliseconds(self->options_.health_check_interval_ms));
      if (self->stopping_) break;
      lock.unlock();
      self->CheckHealth();
      lock.lock();
    }
  });
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() { Stop(); }

void MetricsEndpoint::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (checker_.joinable()) checker_.join();
  if (server_) server_->Stop();
}

HealthReport MetricsEndpoint::CheckHealth() {
  return monitor_.Evaluate(registry_.Snapshot(), registry_.NowMs());
}

HttpResponse MetricsEndpoint::Handle(const HttpRequest& request) {
  if (request.path == "/metrics") {
    std::vector<FlowMetrics> flows = registry_.Snapshot();
    HealthReport health = monitor_.Evaluate(flows, registry_.NowMs());
    HttpResponse r;
    r.content_type = std::string(kPrometheusContentType);
    r.body = RenderPrometheus(flows, health);
    return r;
  }
  if (request.path == "/health") {
    HealthReport health = CheckHealth();
    return Json(health.healthy ? 200 : 503, health.ToJson());
  }
  if (request.path == "/progress") return Json(200, ProgressJson());
  if (request.path == "/queries") return Json(200, QueriesJson());
  // Spark's spark.streams.get(id).lastProgress: one query's latest progress, by query id (or by
  // its flow's name).
  if (request.path.rfind("/progress/", 0) == 0) {
    const std::string key = request.path.substr(10);
    for (const FlowMetrics& f : registry_.Snapshot()) {
      if (f.id != key && f.name != key) continue;
      return Json(200, f.last_progress_json.empty() ? "null" : f.last_progress_json);
    }
    HttpResponse r;
    r.status = 404;
    r.body = "no query with id or name " + key + " (GET /queries lists them)\n";
    return r;
  }
  if (request.path == "/api/history") return Json(200, HistoryJson(CheckHealth()));
  if (request.path == "/" || request.path == "/index.html") {
    HttpResponse r;
    r.content_type = "text/html; charset=utf-8";
    r.body = std::string(DashboardHtml());
    return r;
  }
  HttpResponse r;
  r.status = 404;
  r.body = "not found: the endpoint serves /, /metrics, /progress, /progress/<query id>, /queries, "
           "/health and /api/history\n";
  return r;
}

std::string MetricsEndpoint::QueriesJson() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const FlowMetrics& f : registry_.Snapshot()) {
    out.push_back({{"id", f.id}, {"runId", f.run_id}, {"name", f.name}, {"isActive", !f.finished}});
  }
  return out.dump();
}

std::string MetricsEndpoint::ProgressJson() const {
  std::string out = "{";
  bool first = true;
  for (const FlowMetrics& f : registry_.Snapshot()) {
    if (!first) out += ",";
    first = false;
    out += nlohmann::json(f.name).dump() + ":" +
           (f.last_progress_json.empty() ? std::string("null") : f.last_progress_json);
  }
  return out + "}";
}

std::string MetricsEndpoint::HistoryJson(const HealthReport& health) const {
  nlohmann::ordered_json j;
  j["now"] = registry_.NowMs();
  j["healthy"] = health.healthy;
  j["status"] = health.StatusWord();
  j["windowMs"] = options_.health.behind_window_ms;
  nlohmann::ordered_json flows = nlohmann::ordered_json::array();
  for (const FlowMetrics& f : registry_.Snapshot()) {
    nlohmann::ordered_json o;
    o["name"] = f.name;
    o["id"] = f.id;
    o["runId"] = f.run_id;
    for (const FlowHealth& h : health.flows) {
      if (h.flow != f.name) continue;
      o["healthy"] = h.healthy;
      o["status"] = h.healthy ? "healthy" : h.retrying && !h.failed ? "retrying" : "unhealthy";
      o["reasons"] = h.reasons;
      o["arrivalRowsPerSecond"] = h.arrival_rows_per_second;
      o["committedRowsPerSecond"] = h.committed_rows_per_second;
      o["windowFull"] = h.window_full;
    }
    o["retriesTotal"] = f.retries_total;
    o["finished"] = f.finished;
    o["timeBehindMs"] = f.time_behind_ms;
    if (f.estimated_bytes_behind) o["estimatedBytesBehind"] = *f.estimated_bytes_behind;
    if (f.failure) o["failure"] = *f.failure;
    nlohmann::ordered_json partitions_now = nlohmann::ordered_json::array();
    for (const PartitionPosition& p : f.partitions) {
      partitions_now.push_back({{"topic", p.topic},
                                {"partition", p.partition},
                                {"committed", p.end_offset},
                                {"latest", p.latest_offset},
                                {"behind", p.behind()}});
    }
    o["partitions"] = std::move(partitions_now);
    o["totals"] = {{"batches", f.batches},
                   {"inputRows", f.input_rows_total},
                   {"outputRows", f.output_rows_total},
                   {"filesWritten", f.files_written_total},
                   {"droppedByExpectations", f.dropped_records_total},
                   {"quarantined", f.quarantined_records_total},
                   {"duplicatesDropped", f.duplicates_dropped_total},
                   {"lateRowsDropped", f.late_rows_dropped_total},
                   {"dataLossEvents", f.data_loss_events_total}};
    nlohmann::ordered_json expectations = nlohmann::ordered_json::array();
    for (const ExpectationCount& e : f.expectations) {
      expectations.push_back(
          {{"name", e.name}, {"passed", e.passed_records}, {"failed", e.failed_records}});
    }
    o["expectations"] = std::move(expectations);
    // The history as columns: one array per series, aligned with "t".
    nlohmann::ordered_json t = nlohmann::ordered_json::array(), input = t, processed = t,
                           behind = t, time_behind = t, batch = t;
    nlohmann::ordered_json parts = nlohmann::ordered_json::object();
    nlohmann::ordered_json partitions = nlohmann::ordered_json::object();
    for (size_t i = 0; i < f.history.size(); ++i) {
      const BatchSample& s = f.history[i];
      for (const auto& [part, ms] : s.duration_ms) {
        if (IsDurationPart(part) && !parts.contains(part))
          parts[part] = nlohmann::ordered_json::array();
      }
      for (const auto& [key, n] : s.partition_behind) {
        if (!partitions.contains(key)) partitions[key] = nlohmann::ordered_json::array();
      }
    }
    for (const BatchSample& s : f.history) {
      t.push_back(s.timestamp_ms);
      batch.push_back(s.batch_id);
      input.push_back(s.input_rows_per_second);
      processed.push_back(s.processed_rows_per_second);
      behind.push_back(s.offsets_behind);
      time_behind.push_back(s.time_behind_ms);
      for (auto& [part, series] : parts.items()) {
        auto it = s.duration_ms.find(part);
        series.push_back(it == s.duration_ms.end() ? 0 : it->second);
      }
      for (auto& [key, series] : partitions.items()) {
        auto it = s.partition_behind.find(key);
        if (it == s.partition_behind.end()) {
          series.push_back(nullptr);
        } else {
          series.push_back(it->second);
        }
      }
    }
    o["history"] = {{"t", std::move(t)},
                    {"batchId", std::move(batch)},
                    {"inputRowsPerSecond", std::move(input)},
                    {"processedRowsPerSecond", std::move(processed)},
                    {"durationMs", std::move(parts)},
                    {"offsetsBehind", std::move(behind)},
                    {"partitionOffsetsBehind", std::move(partitions)},
                    {"timeBehindMs", std::move(time_behind)}};
    nlohmann::ordered_json recent = nlohmann::ordered_json::array();
    for (const std::string& p : f.recent_progress_json) {
      recent.push_back(nlohmann::ordered_json::parse(p, nullptr, false));
    }
    o["recentProgress"] = std::move(recent);
    flows.push_back(std::move(o));
  }
  j["flows"] = std::move(flows);
  return j.dump();
}

}  // namespace weir::ops
