// Runs a parsed pipeline's flows: shared by `weir run` and `weir demo`. Prints one summary line
// per batch on stderr, appends progress JSON to an optional log, and stops gracefully on
// SIGINT/SIGTERM. Optionally serves metrics, /progress, /health and the dashboard
// (--metrics-port, ops::MetricsEndpoint). cli/ only (prints).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "cli/flags.h"
#include "ops/metrics_endpoint.h"
#include "sql/pipeline.h"
#include "stream/pipeline.h"
#include "stream/sql_flow.h"
#include "stream/trigger.h"

namespace weir::cli {

using stream::FlowRunSummary;

struct PipelineRunOptions {
  stream::LakehouseLayout lakehouse;
  stream::Trigger trigger;
  std::FILE* progress_log = nullptr;  // borrowed; may be null
  ops::MetricsRegistry* metrics = nullptr;  // borrowed; may be null; receives every progress
  // Only these streaming tables (full names; empty: all).
  std::vector<std::string> tables;
  // Worker mode (stream::QueryOptions::workers_group).
  std::optional<std::string> workers_group;
  stream::RetryPolicy retry;
};

// Declares --metrics-port, --metrics-bind, --behind-window, --retention and
// --retention-fraction (shared by the commands that run pipelines).
void AddMetricsFlags(Flags& flags);
// Starts the metrics endpoint when --metrics-port is given (nullptr otherwise) and prints where
// it listens on stderr. Health changes are logged on stderr.
Result<std::unique_ptr<ops::MetricsEndpoint>> StartMetricsEndpoint(const Flags& flags);

// Runs the flows of `pipeline` (stream::Pipeline: availableNow / once in file order,
// processingTime all at once, transient failures retried). InvalidArgument when options.tables
// names a table the pipeline does not define. Returns the first failure; a stop by signal is not
// a failure.
Status RunPipeline(const sql::Pipeline& pipeline, const PipelineRunOptions& options,
                   std::vector<FlowRunSummary>* summaries);

}  // namespace weir::cli
