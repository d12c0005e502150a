// MetricsEndpoint: the operations endpoint of a running pipeline (`weir run --metrics-port`).
// Serves on one port: `/metrics` (Prometheus text), `/progress` (the latest
// StreamingQueryProgress per flow), `/health` (200 healthy / 503 with the reasons), `/` (the live
// dashboard) and `/api/history` (the dashboard's data). Owns the registry the flows report to, the
// health monitor, the HTTP server and a thread that re-checks health every second (so warnings
// are logged even when nobody asks). Secrets never appear: progress JSON is redacted.
// Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/result.h"
#include "ops/health_monitor.h"
#include "ops/http_server.h"
#include "ops/metrics_registry.h"

namespace weir::ops {

struct MetricsEndpointOptions {
  HttpServerOptions http;  // bind address (loopback by default) and port
  HealthOptions health;
  MetricsRegistryOptions registry;
  std::function<void(const std::string&)> log;  // health changes, one line each
  int64_t health_check_interval_ms = 1000;
};

class MetricsEndpoint {
 public:
  static Result<std::unique_ptr<MetricsEndpoint>> Start(MetricsEndpointOptions options);
  ~MetricsEndpoint();

  // The flows report here (QueryOptions::on_progress); outlives them.
  MetricsRegistry* registry() { return &registry_; }
  int port() const { return server_->port(); }
  // Answers one request as the server would (for tests and in-process use).
  HttpResponse Handle(const HttpRequest& request);
  // Evaluates health now (also logs changes).
  HealthReport CheckHealth();
  void Stop();

 private:
  explicit MetricsEndpoint(MetricsEndpointOptions options);
  std::string ProgressJson() const;
  // [{"id","runId","name","isActive"}, ...]: Spark's spark.streams.active.
  std::string QueriesJson() const;
  std::string HistoryJson(const HealthReport& health) const;

  MetricsEndpointOptions options_;
  MetricsRegistry registry_;
  HealthMonitor monitor_;
  std::unique_ptr<HttpServer> server_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // GUARDED_BY(mutex_)
  std::thread checker_;
};

}  // namespace weir::ops
