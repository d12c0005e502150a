// `weir run PIPELINE.sql`: runs a pipeline's streaming tables (Databricks Lakeflow / DLT SQL) as
// Spark Structured Streaming queries would run them: each table is one flow with its own
// checkpoint, exactly once into Delta. Progress JSON per batch to --progress-log; one summary line
// per batch on stderr. SIGINT/SIGTERM stop gracefully (no partial commit).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "cli/pipeline_runner.h"

namespace weir::cli {
namespace {

int RunMain(const Flags& flags) {
  const std::string path = flags.positional()[0];
  auto text = ReadText(path);
  if (!text.ok()) return Fail(text.status());
  sql::Variables vars;
  for (const auto& kv : flags.GetAll("set")) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Fail(Status::InvalidArgument("--set expects name=value, got a value without '='"));
    }
    vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  sql::SecretResolver secrets;
  if (flags.Has("secrets")) {
    auto json = ReadText(flags.Get("secrets"));
    if (!json.ok()) return Fail(json.status());
    if (Status st = secrets.AddSecretsJson(*json, flags.Get("secrets")); !st.ok()) return Fail(st);
  }
  auto pipeline = sql::ParsePipeline(*text, vars, secrets);
  if (!pipeline.ok()) return Fail(pipeline.status().WithContext(path));
  PipelineRunOptions options;
  auto trigger = stream::Trigger::Parse(flags.Get("trigger"));
  if (!trigger.ok()) return Fail(trigger.status());
  options.trigger = *trigger;
  // Storage credentials: the pipeline's SET values (hadoop-azure keys), --set, --secrets, env.
  if (Status st = ConfigureStorageFromFlags(flags, pipeline->settings); !st.ok()) return Fail(st);
  options.lakehouse.root = flags.Get("lakehouse");
  while (options.lakehouse.root.size() > 1 && options.lakehouse.root.back() == '/') {
    options.lakehouse.root.pop_back();
  }
  if (flags.Has("progress-log")) {
    options.progress_log = std::fopen(flags.Get("progress-log").c_str(), "a");
    if (options.progress_log == nullptr) {
      return Fail(Status::IOError("cannot open the progress log " + flags.Get("progress-log")));
    }
  }
  if (flags.Has("tables")) options.tables = SplitList(flags.Get("tables"));
  if (flags.Has("workers-group")) {
    options.workers_group = flags.Get("workers-group");
    if (options.workers_group->empty()) {
      return Fail(Status::InvalidArgument("--workers-group needs a group name"));
    }
  }
  if (flags.Has("max-retries")) {
    auto retries = flags.GetInt("max-retries");
    if (!retries.ok() || *retries < 0) {
      return Fail(Status::InvalidArgument("--max-retries expects a count of 0 or more, got '" +
                                          flags.Get("max-retries") + "'"));
    }
    options.retry.max_retries = static_cast<int>(*retries);
  }
  auto endpoint = StartMetricsEndpoint(flags);
  if (!endpoint.ok()) return Fail(endpoint.status());
  if (*endpoint) options.metrics = (*endpoint)->registry();
  std::vector<FlowRunSummary> summaries;
  Status st = RunPipeline(*pipeline, options, &summaries);
  if (*endpoint) (*endpoint)->Stop();
  if (options.progress_log != nullptr) std::fclose(options.progress_log);
  for (const auto& s : summaries) {
    std::fprintf(stderr, "weir: %s: %lld batches, %lld rows written this run\n", s.table.c_str(),
                 static_cast<long long>(s.batches), static_cast<long long>(s.rows_written));
  }
  if (!st.ok()) return Fail(st.WithContext(path));
  return 0;
}

int RunRun(const std::vector<std::string>& args) {
  Flags flags("weir run PIPELINE.sql [--lakehouse DIR|URL] [--trigger availableNow|once|processingTime=10s]\n"
              "                [--set name=value ...] [--progress-log FILE] [--secrets FILE]\n"
              "                [--tables NAME,...] [--workers-group NAME] [--max-retries N]\n"
              "                [--metrics-port P [--metrics-bind ADDR] [--behind-window D] [--retention D]]",
              "Runs every streaming table of a pipeline file (CREATE OR REFRESH STREAMING TABLE ... AS\n"
              "SELECT ... FROM STREAM read_kafka(...) or FROM STREAM(other_table)) exactly once into\n"
              "Delta tables under the lakehouse folder (<lakehouse>/<catalog>/<schema>/<table>,\n"
              "checkpoints in <lakehouse>/_checkpoints/<table>). With availableNow or once, flows run\n"
              "in file order (bronze before silver); with processingTime, all at once. Expectations,\n"
              "WATERMARK, DROP DUPLICATES and QUARANTINE INTO are described in docs/sql-extensions.md.\n"
              "Restarting resumes from the checkpoints; a batch that was interrupted is re-run over\n"
              "exactly its range. ${name} in the file is replaced by --set name=value;\n"
              "secret('scope','key') reads WEIR_SECRET_<SCOPE>_<KEY> or --secrets. SIGINT / SIGTERM\n"
              "stop after (or abandon) the current batch without a partial commit.\n"
              "A flow that fails with a transient error (broker or storage unreachable, a Delta commit\n"
              "whose outcome is unknown) is reopened from its checkpoint after a backoff (1 s,\n"
              "doubling up to 60 s): processingTime flows retry without end and show as `retrying`\n"
              "on /health; availableNow / once runs give up after --max-retries retries in a row.\n"
              "Permanent errors (bad options, a schema mismatch, corruption, data loss) stop at once.\n"
              "The lakehouse may be an Azure storage URL such as\n"
              "abfss://container@account.dfs.core.windows.net/path, with credentials given as\n"
              "hadoop-azure settings (SET or --set), e.g.\n"
              "fs.azure.account.key.ACCOUNT.dfs.core.windows.net (docs/azure.md).\n"
              "--metrics-port serves Prometheus /metrics, /progress (the latest progress per flow),\n"
              "/health (503 when a flow falls behind for --behind-window, nears --retention, or\n"
              "fails) and a live dashboard at /; `weir status URL` prints it (docs/operations.md).\n"
              "--workers-group NAME runs this process as one of several workers of the pipeline's\n"
              "Kafka flows: the consumer group NAME splits the partitions between the workers and\n"
              "each resumes partitions from the table's per-partition progress, so workers may be\n"
              "added, stopped or killed at any time (docs/deployment.md).");
  flags.Positional("PIPELINE.sql", 1, 1);
  flags.Value("lakehouse", "DIR|URL",
              "where tables and checkpoints live: a folder or an Azure storage URL "
              "(abfss://container@account.dfs.core.windows.net/path; docs/azure.md)",
              "./lakehouse");
  flags.Value("trigger", "TRIGGER", "availableNow (all data now, then stop), once, or processingTime=INTERVAL",
              "processingTime=0");
  flags.Repeated("set", "name=value", "a value for ${name} in the pipeline file, or a setting such as "
                 "fs.azure.account.key.ACCOUNT.dfs.core.windows.net=secret('scope','key')");
  flags.Value("progress-log", "FILE", "append each batch's StreamingQueryProgress JSON here");
  flags.Value("secrets", "FILE", "JSON {\"scope\": {\"key\": \"value\"}} for secret('scope','key')");
  flags.Value("tables", "NAME,...",
              "run only these streaming tables (full names, e.g. sales.bronze.orders_raw)");
  flags.Value("workers-group", "NAME",
              "worker mode: share the Kafka flows with the other workers of consumer group NAME "
              "(processingTime only; flows without state, merge or quarantine)");
  flags.Value("max-retries", "N",
              "availableNow / once: retries of a flow after transient errors before the run fails",
              "5");
  AddMetricsFlags(flags);
  return RunWithFlags(flags, args, RunMain);
}

WEIR_REGISTER_COMMAND(run_cmd, "run", "run a pipeline's streaming tables (SQL) exactly once into Delta", RunRun);

}  // namespace
}  // namespace weir::cli
