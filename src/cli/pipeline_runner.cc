#include "cli/pipeline_runner.h"

#include <algorithm>

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/file_systems.h"
#include "cli/progress_bar.h"
#include "fs/fault_injection_file_system.h"
#include "kafka/options.h"
#include "stream/streaming_query.h"

namespace weir::cli {
namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

std::mutex g_stderr_mutex;

}  // namespace

void AddMetricsFlags(Flags& flags) {
  flags.Value("metrics-port", "PORT",
              "serve Prometheus /metrics, /progress, /health and a live dashboard at / on this "
              "port (0: any free port; see docs/operations.md)");
  flags.Value("metrics-bind", "ADDR", "the address the metrics endpoint listens on", "127.0.0.1");
  flags.Value("behind-window", "DURATION", "unhealthy when input outpaces processing for this long",
              "10m");
  flags.Value("retention", "DURATION", "the source topic's retention (retention.ms)", "7d");
  flags.Value("retention-fraction", "F",
              "unhealthy when the oldest unprocessed event is older than F x retention", "0.5");
}

Result<std::unique_ptr<ops::MetricsEndpoint>> StartMetricsEndpoint(const Flags& flags) {
  if (!flags.Has("metrics-port")) return std::unique_ptr<ops::MetricsEndpoint>();
  ops::MetricsEndpointOptions options;
  WEIR_ASSIGN_OR_RETURN(long long port, flags.GetInt("metrics-port"));
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("--metrics-port must be between 0 and 65535, got " +
                                   std::to_string(port));
  }
  options.http.port = static_cast<int>(port);
  options.http.bind_address = flags.Get("metrics-bind");
  auto window = kafka::ParseDurationMs(flags.Get("behind-window"));
  if (!window.ok() || *window <= 0) {
    return Status::InvalidArgument("--behind-window expects a duration such as 10m or 30s, got '" +
                                   flags.Get("behind-window") + "'");
  }
  options.health.behind_window_ms = *window;
  auto retention = kafka::ParseDurationMs(flags.Get("retention"));
  if (!retention.ok() || *retention <= 0) {
    return Status::InvalidArgument("--retention expects a duration such as 7d or 24h, got '" +
                                   flags.Get("retention") + "'");
  }
  options.health.retention_ms = *retention;
  WEIR_ASSIGN_OR_RETURN(double fraction, flags.GetDouble("retention-fraction"));
  if (!(fraction > 0 && fraction <= 1)) {
    return Status::InvalidArgument("--retention-fraction must be in (0, 1], got " +
                                   flags.Get("retention-fraction"));
  }
  options.health.retention_fraction = fraction;
  options.log = [](const std::string& line) {
    std::lock_guard<std::mutex> lock(g_stderr_mutex);
    std::fprintf(stderr, "weir: %s\n", line.c_str());
  };
  WEIR_ASSIGN_OR_RETURN(auto endpoint, ops::MetricsEndpoint::Start(std::move(options)));
  std::string host = flags.Get("metrics-bind");
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  std::fprintf(stderr, "weir: metrics, health and dashboard at http://%s:%d/\n", host.c_str(),
               endpoint->port());
  return endpoint;
}

Status RunPipeline(const sql::Pipeline& pipeline, const PipelineRunOptions& run_options,
                   std::vector<FlowRunSummary>* summaries) {
  // A backfill progress bar when stderr is a terminal and the run ends by itself.
  ProgressBar bar(run_options.trigger.kind == stream::Trigger::Kind::kAvailableNow &&
                  isatty(2) != 0);
  std::FILE* progress_log = run_options.progress_log;
  std::mutex log_mutex;  // flows of a continuous run report from their own threads
  ops::MetricsRegistry* metrics = run_options.metrics;
  stream::PipelineOptions options;
  options.lakehouse = run_options.lakehouse;
  options.trigger = run_options.trigger;
  options.tables = run_options.tables;
  options.workers_group = run_options.workers_group;
  options.retry = run_options.retry;
  options.log = [&bar](const std::string& line) { bar.Print("weir: " + line); };
  options.on_backfill = [&bar](const stream::BackfillStatus& s) {
    bar.Update(s.name, s.done, s.total);
  };
  options.on_progress = [&bar, &log_mutex, progress_log, metrics](const stream::QueryProgress& p) {
    bar.Print(p.Summary());
    if (metrics != nullptr) metrics->Record(p);
    if (progress_log != nullptr) {
      std::lock_guard<std::mutex> lock(log_mutex);
      std::string line = p.ToJson() + "\n";
      std::fwrite(line.data(), 1, line.size(), progress_log);
      std::fflush(progress_log);
    }
  };
  options.on_flow_state = [metrics](const stream::FlowState& state) {
    if (metrics == nullptr) return;
    switch (state.kind) {
      case stream::FlowState::Kind::kRunning:
        metrics->MarkRunning(state.flow);
        break;
      case stream::FlowState::Kind::kRetrying:
        metrics->MarkRetrying(state.flow, state.cause.ToString(), state.since_ms, state.attempt);
        break;
      case stream::FlowState::Kind::kFinished: {
        std::optional<std::string> failure;
        if (!state.cause.ok() && !(state.cause.IsCancelled() && g_stop.load())) {
          failure = state.cause.ToString();
        }
        metrics->MarkFinished(state.flow, std::move(failure));
        break;
      }
    }
  };
  // The next availableNow flow starts without this one's client, buffers and state, and
  // without the pages they held (not after the last flow: the process ends).
  options.between_flows = [] { malloc_trim(0); };
  WEIR_ASSIGN_OR_RETURN(fs::FileSystem * flow_fs, FlowFileSystem(run_options.lakehouse.root));
  WEIR_ASSIGN_OR_RETURN(auto runner, stream::Pipeline::Open(flow_fs, pipeline, std::move(options)));
  if (metrics != nullptr) {
    for (const FlowRunSummary& s : runner->Summaries()) metrics->AddFlow(s.table);
  }

  g_stop.store(false);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  // Forwards a stop request (set by the signal handler) to the pipeline, looking every 50 ms;
  // woken at once when the run ends (a sleep would hold up the exit by up to 50 ms).
  std::mutex watcher_mutex;
  std::condition_variable watcher_wake;
  bool done = false;
  std::thread watcher([&] {
    std::unique_lock<std::mutex> lock(watcher_mutex);
    while (!done) {
      if (g_stop.load() && !runner->stop_requested()) runner->RequestStop();
      watcher_wake.wait_for(lock, std::chrono::milliseconds(50));
    }
  });
  Status result = runner->Run();
  {
    std::lock_guard<std::mutex> lock(watcher_mutex);
    done = true;
  }
  watcher_wake.notify_all();
  watcher.join();
  bar.Clear();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (g_stop.load()) std::fprintf(stderr, "weir: stopped by a signal; interrupted batches re-run on restart\n");
  *summaries = runner->Summaries();
  return result;
}

}  // namespace weir::cli
