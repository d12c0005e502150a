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

// The file system flows use: the one of the lakehouse root (local or Azure, cli/file_systems.h).
// Test hook: WEIR_TEST_FAIL_NTH_FS_CALL=N makes the N-th file-system call of this process fail
// with EIO (the crash tests walk N over every step of a batch).
Result<fs::FileSystem*> FlowFileSystem(const std::string& lakehouse_root) {
  WEIR_ASSIGN_OR_RETURN(fs::FileSystem * base, FileSystemFor(lakehouse_root));
  const char* nth = std::getenv("WEIR_TEST_FAIL_NTH_FS_CALL");
  if (nth == nullptr || *nth == '\0') return base;
  static fs::FaultInjectionFileSystem faulty(base);
  static bool armed = [&] {
    faulty.FailNthCallOfAnyKind(std::atoll(nth));
    return true;
  }();
  (void)armed;
  return static_cast<fs::FileSystem*>(&faulty);
}

// Adds a batch's counts to a flow's totals.
void AddToTotals(const stream::QueryProgress& p, FlowRunSummary* total) {
  total->input_rows += p.num_input_rows;
  for (const stream::StateOperatorProgress& op : p.state_operators) {
    auto duplicates = op.custom_metrics.find("numDroppedDuplicateRows");
    if (duplicates != op.custom_metrics.end()) total->duplicates_dropped += duplicates->second;
    total->late_rows_dropped += op.num_rows_dropped_by_watermark;
  }
  auto quality = p.extra.find("data_quality");
  if (quality == p.extra.end()) return;
  auto j = nlohmann::json::parse(quality->second, nullptr, false);
  if (!j.is_object()) return;
  total->quarantined += j.value("quarantined_records", int64_t{0});
  total->dropped_by_expectations += j.value("dropped_records", int64_t{0});
}

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
  std::vector<const sql::StreamingTableDefinition*> selected;
  for (const auto& table : pipeline.tables) {
    const std::string name = table.name.ToString();
    if (run_options.tables.empty() ||
        std::find(run_options.tables.begin(), run_options.tables.end(), name) !=
            run_options.tables.end()) {
      selected.push_back(&table);
    }
  }
  for (const std::string& name : run_options.tables) {
    auto defined = std::find_if(selected.begin(), selected.end(),
                                [&](const auto* t) { return t->name.ToString() == name; });
    if (defined == selected.end()) {
      return Status::InvalidArgument("--tables names " + name +
                                     ", which the pipeline does not define as a streaming table");
    }
  }
  std::vector<std::unique_ptr<stream::StreamingQuery>> queries;
  // Per flow, the totals of its progress reports (each flow reports from one thread).
  auto totals = std::make_unique<FlowRunSummary[]>(selected.size());
  std::FILE* progress_log = run_options.progress_log;
  std::mutex log_mutex;  // flows of a continuous run report from their own threads
  // A backfill progress bar when stderr is a terminal and the run ends by itself.
  ProgressBar bar(run_options.trigger.kind == stream::Trigger::Kind::kAvailableNow &&
                  isatty(2) != 0);
  WEIR_ASSIGN_OR_RETURN(fs::FileSystem * flow_fs, FlowFileSystem(run_options.lakehouse.root));
  for (size_t t = 0; t < selected.size(); ++t) {
    const auto& table = *selected[t];
    WEIR_ASSIGN_OR_RETURN(stream::FlowSpec spec,
                          stream::MakeFlow(table, run_options.lakehouse, pipeline.settings));
    stream::QueryOptions options;
    options.trigger = run_options.trigger;
    options.workers_group = run_options.workers_group;
    options.log = [&bar](const std::string& line) { bar.Print("weir: " + line); };
    options.on_backfill = [&bar](const stream::BackfillStatus& s) {
      bar.Update(s.name, s.done, s.total);
    };
    FlowRunSummary* total = &totals[t];
    ops::MetricsRegistry* metrics = run_options.metrics;
    if (metrics != nullptr) metrics->AddFlow(table.name.ToString());
    options.on_progress = [&bar, &log_mutex, progress_log, total,
                           metrics](const stream::QueryProgress& p) {
      bar.Print(p.Summary());
      AddToTotals(p, total);
      if (metrics != nullptr) metrics->Record(p);
      if (progress_log != nullptr) {
        std::lock_guard<std::mutex> lock(log_mutex);
        std::string line = p.ToJson() + "\n";
        std::fwrite(line.data(), 1, line.size(), progress_log);
        std::fflush(progress_log);
      }
    };
    auto query =
        stream::StreamingQuery::Open(flow_fs, std::move(spec), std::move(options));
    if (!query.ok()) return query.status().WithContext(table.name.ToString());
    queries.push_back(std::move(*query));
  }
  if (queries.empty()) return Status::InvalidArgument("the pipeline defines no streaming table");

  g_stop.store(false);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  // Forwards a stop request (set by the signal handler) to the running queries, looking every
  // 50 ms; woken at once when the run ends (a sleep would hold up the exit by up to 50 ms).
  std::mutex watcher_mutex;
  std::condition_variable watcher_wake;
  bool done = false;
  std::thread watcher([&] {
    std::unique_lock<std::mutex> lock(watcher_mutex);
    while (!done) {
      if (g_stop.load()) {
        for (auto& q : queries) q->RequestStop();
      }
      watcher_wake.wait_for(lock, std::chrono::milliseconds(50));
    }
  });
  std::vector<Status> results(queries.size());
  // Tells the metrics endpoint a flow's run ended (its error, unless it was stopped by a signal).
  auto mark_finished = [&](size_t i) {
    if (run_options.metrics == nullptr) return;
    std::optional<std::string> failure;
    if (!results[i].ok() && !(results[i].IsCancelled() && g_stop.load())) {
      failure = results[i].ToString();
    }
    run_options.metrics->MarkFinished(selected[i]->name.ToString(), std::move(failure));
  };
  if (run_options.trigger.kind == stream::Trigger::Kind::kProcessingTime && queries.size() > 1) {
    // Continuous mode: every flow at once, each on its own thread; one failing stops the others.
    std::vector<std::thread> threads;
    for (size_t i = 0; i < queries.size(); ++i) {
      threads.emplace_back([&, i] {
        results[i] = queries[i]->Run();
        queries[i]->Close();
        mark_finished(i);
        if (!results[i].ok()) {
          for (auto& q : queries) q->RequestStop();
        }
      });
    }
    for (auto& t : threads) t.join();
  } else {
    // availableNow / once: flows in the file's order (upstream tables first).
    for (size_t i = 0; i < queries.size() && !g_stop.load(); ++i) {
      results[i] = queries[i]->Run();
      queries[i]->Close();  // the next flow starts without this one's client, buffers and state
      // ... and from the pages they held (not after the last flow: the process ends).
      if (i + 1 < queries.size()) malloc_trim(0);
      mark_finished(i);
      if (!results[i].ok()) break;
    }
  }
  {
    std::lock_guard<std::mutex> lock(watcher_mutex);
    done = true;
  }
  watcher_wake.notify_all();
  watcher.join();
  bar.Clear();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  Status first_failure;
  for (size_t i = 0; i < queries.size(); ++i) {
    FlowRunSummary summary = totals[i];
    summary.table = selected[i]->name.ToString();
    summary.batches = queries[i]->batches_run();
    summary.rows_written = queries[i]->rows_written();
    summaries->push_back(std::move(summary));
    if (results[i].ok()) continue;
    if (results[i].IsCancelled() && g_stop.load()) {
      std::fprintf(stderr, "weir: stopped: %s\n", results[i].message().c_str());
      continue;
    }
    if (first_failure.ok())
      first_failure = results[i].WithContext(selected[i]->name.ToString());
  }
  return first_failure;
}

}  // namespace weir::cli
