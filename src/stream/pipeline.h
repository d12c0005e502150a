// Pipeline: runs the streaming tables of a pipeline file as a Lakeflow pipeline update or a
// continuous job runs its flows. availableNow / once: one flow after another in file order
// (upstream tables first); processingTime: every flow at once, each on its own thread, and one
// that fails stops the others.
//
// Transient failures are ridden out within the run: a flow that fails with Unavailable (a broker
// unreachable, metadata or fetch timeouts, storage 5xx or timeouts after the clients' own
// retries, a Delta commit whose outcome is unknown) is closed, reopened from its checkpoint and
// run again after an exponential backoff, as Databricks' continuous jobs restart a failed run:
// the first retry after RetryPolicy::initial_backoff_ms, doubling up to max_backoff_ms, back to
// the start after a batch succeeds. The reopened flow settles an interrupted batch from its
// checkpoint and tables exactly as a restarted process would. processingTime flows retry for as
// long as it takes; availableNow / once runs give up after max_retries retries in a row. Every
// other error (InvalidArgument, Corruption, DataLoss, a schema mismatch, ...) stops the pipeline
// at once.
//
// Thread safety: Open() and Run() from one thread; RequestStop() from any. The observers of
// PipelineOptions are called from the flows' threads (several at once under processingTime).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "fs/file_system.h"
#include "sql/pipeline.h"
#include "stream/sql_flow.h"
#include "stream/streaming_query.h"

namespace weir::stream {

struct RetryPolicy {
  int64_t initial_backoff_ms = 1000;
  int64_t max_backoff_ms = 60000;
  // availableNow / once: retries in a row after which the run fails.
  int max_retries = 5;
};

// What a flow is doing, for health reporting (ops::MetricsRegistry) and logs.
struct FlowState {
  enum class Kind {
    kRunning,   // started, or running again after a retry succeeded
    kRetrying,  // failed with a transient error; reopened after `retry_in_ms`
    kFinished,  // its run ended: `cause` is its error (OK when done or stopped)
  };
  std::string flow;
  Kind kind = Kind::kRunning;
  Status cause;
  int64_t since_ms = 0;  // kRetrying: when the first failure of this streak happened
  int attempt = 0;       // kRetrying: 1 for the first retry of a streak
  int64_t retry_in_ms = 0;
};

// Totals of one flow's run (over every reopening).
struct FlowRunSummary {
  std::string table;
  int64_t batches = 0;
  int64_t rows_written = 0;
  int64_t retries = 0;
  // Totals of its progress reports.
  int64_t input_rows = 0;
  int64_t duplicates_dropped = 0;
  int64_t late_rows_dropped = 0;
  int64_t quarantined = 0;
  int64_t dropped_by_expectations = 0;
};

// SET weir.trigger.coalesceMs = N: QueryOptions::coalesce_ms of every Kafka flow.
inline constexpr char kCoalesceSetting[] = "weir.trigger.coalesceMs";

struct PipelineOptions {
  LakehouseLayout lakehouse;
  Trigger trigger;
  // Only these streaming tables (full names; empty: all).
  std::vector<std::string> tables;
  std::optional<std::string> workers_group;  // QueryOptions::workers_group
  RetryPolicy retry;
  std::function<void(const QueryProgress&)> on_progress;
  std::function<void(const std::string&)> log;  // one line each
  std::function<void(const BackfillStatus&)> on_backfill;
  std::function<void(const FlowState&)> on_flow_state;
  // Called between an availableNow run's flows, once a flow is closed (the cli trims malloc's
  // arenas there).
  std::function<void()> between_flows;
};

class Pipeline {
 public:
  // Makes every selected table's flow and opens it. InvalidArgument when options.tables names a
  // table the pipeline does not define, or the pipeline defines none; a flow that cannot be made
  // or opened for a permanent reason fails the whole pipeline here, before any flow runs. A flow
  // whose open fails with Unavailable is opened again, with retries, when it is run.
  // REQUIRES: `fs` and `definition` outlive the Pipeline.
  static Result<std::unique_ptr<Pipeline>> Open(fs::FileSystem* fs,
                                                const sql::Pipeline& definition,
                                                PipelineOptions options);
  ~Pipeline();

  // Runs the flows until their trigger is done or RequestStop(). Returns the first failure with
  // the flow's table name; a stop is not a failure.
  Status Run();
  void RequestStop();
  bool stop_requested() const { return stop_.load(); }

  // Per flow, in the pipeline's order.
  std::vector<FlowRunSummary> Summaries() const;

 private:
  struct Flow;
  Pipeline(fs::FileSystem* fs, PipelineOptions options);
  // Checks every flow without writing anything: its SELECT binds against its source's schema
  // (Kafka's, an upstream flow's output, or the existing table's) and its output fits an existing
  // table. Unreachable storage is left to the flows' opening (and retries).
  Status Validate();
  // The keys ALTER TABLE statements set are ones weir honours (checked before anything is
  // written); then the statements are applied: to an existing table as a metadata commit, to a
  // table the pipeline creates as properties at creation.
  Status ValidateAlterations(const sql::Pipeline& definition) const;
  Status ApplyAlterations(const sql::Pipeline& definition);
  Status OpenQuery(Flow& flow);
  void CloseQuery(Flow& flow);
  Status RunFlow(Flow& flow);
  void Report(const FlowState& state);
  // Sleeps `ms` unless a stop is requested first; false when stopped.
  bool Backoff(int64_t ms);

  fs::FileSystem* fs_;
  PipelineOptions options_;
  std::vector<std::unique_ptr<Flow>> flows_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;  // guards Flow::query against RequestStop(); the backoff's wake-up
  std::condition_variable wake_;
};

}  // namespace weir::stream
