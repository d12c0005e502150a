// `weir run PIPELINE.sql`: runs a pipeline's streaming tables (Databricks Lakeflow / DLT SQL) as
// Spark Structured Streaming queries would run them: each table is one flow with its own
// checkpoint, exactly once into Delta. Progress JSON per batch to --progress-log; one summary line
// per batch on stderr. SIGINT/SIGTERM stop gracefully (no partial commit).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "cli/pipeline_runner.h"
#include "cli/pipeline_settings.h"

namespace weir::cli {
namespace {

// The pipeline file of a settings file's single library: relative to the settings file's folder,
// ".sql" added when the path has no extension (a workspace notebook path).
Result<std::string> LibraryPath(const PipelineSettings& settings, const std::string& origin) {
  if (settings.libraries.size() != 1) {
    return Status::InvalidArgument(
        "weir run needs PIPELINE.sql: " + origin + " lists " +
        std::to_string(settings.libraries.size()) +
        " libraries (weir runs one pipeline file; give it on the command line)");
  }
  std::filesystem::path library = settings.libraries[0];
  if (library.is_relative()) library = std::filesystem::path(origin).parent_path() / library;
  std::error_code ec;
  if (!std::filesystem::exists(library, ec) && !library.has_extension()) library += ".sql";
  return library.string();
}

// What a settings file decided, and what of it weir does not use: one line on stderr.
void NoteSettings(const std::string& origin, const PipelineSettings& settings,
                  const std::vector<std::string>& overridden) {
  std::string used;
  auto add = [&](const std::string& what) { used += (used.empty() ? "" : ", ") + what; };
  if (!settings.configuration.empty()) {
    add(std::to_string(settings.configuration.size()) + " configuration values");
  }
  if (settings.continuous) add(std::string("continuous: ") + (*settings.continuous ? "true" : "false"));
  if (settings.development) add(std::string("development: ") + (*settings.development ? "true" : "false"));
  if (settings.storage) add("storage");
  if (settings.catalog) add("catalog " + *settings.catalog);
  if (settings.schema) add("schema " + *settings.schema);
  if (!settings.spark_conf.empty()) add("the default cluster's spark_conf");
  std::string line = "weir: " + origin + ": using " + (used.empty() ? "nothing" : used);
  std::string over;
  for (const std::string& o : overridden) over += (over.empty() ? "" : ", ") + o;
  if (!over.empty()) line += " (command-line flags win: " + over + ")";
  std::string unused;
  for (const std::string& u : settings.unused) unused += (unused.empty() ? "" : ", ") + u;
  if (!unused.empty()) line += "; not used by weir: " + unused;
  std::fprintf(stderr, "%s\n", line.c_str());
}

int RunMain(const Flags& flags) {
  std::optional<PipelineSettings> settings;
  const std::string settings_path = flags.Get("settings");
  if (flags.Has("settings")) {
    auto json = ReadText(settings_path);
    if (!json.ok()) return Fail(json.status());
    auto parsed = ParsePipelineSettings(*json, settings_path);
    if (!parsed.ok()) return Fail(parsed.status());
    settings = std::move(*parsed);
  }
  std::string path;
  if (!flags.positional().empty()) {
    path = flags.positional()[0];
  } else if (settings) {
    auto library = LibraryPath(*settings, settings_path);
    if (!library.ok()) return Fail(library.status());
    path = *library;
  } else {
    return Fail(Status::InvalidArgument("weir run needs PIPELINE.sql (or --settings FILE naming "
                                        "one library); see weir run --help"));
  }
  auto text = ReadText(path);
  if (!text.ok()) return Fail(text.status());
  // ${name} values: the settings' cluster spark_conf, then its configuration, then --set.
  sql::Variables vars;
  std::map<std::string, std::string> storage_settings;
  sql::PipelineDefaults defaults;
  if (settings) {
    for (const auto* m : {&settings->spark_conf, &settings->configuration}) {
      for (const auto& [key, value] : *m) vars[key] = value;
    }
    storage_settings = vars;
    defaults.catalog = settings->catalog.value_or("");
    defaults.schema = settings->schema.value_or("");
    std::vector<std::string> overridden;
    for (const char* flag : {"trigger", "lakehouse", "max-retries"}) {
      if (flags.Has(flag)) overridden.push_back(std::string("--") + flag);
    }
    NoteSettings(settings_path, *settings, overridden);
  }
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
  auto pipeline = sql::ParsePipeline(*text, vars, secrets, defaults);
  if (!pipeline.ok()) return Fail(pipeline.status().WithContext(path));
  PipelineRunOptions options;
  // A continuous pipeline runs as processingTime; a triggered one processes what is there and
  // stops (availableNow); --trigger wins.
  std::string trigger_text = flags.Get("trigger");
  if (!flags.Has("trigger") && settings && settings->continuous) {
    trigger_text = *settings->continuous ? "processingTime=0" : "availableNow";
  }
  auto trigger = stream::Trigger::Parse(trigger_text);
  if (!trigger.ok()) return Fail(trigger.status());
  options.trigger = *trigger;
  // Storage credentials: the settings file's values, the pipeline's SET values (hadoop-azure
  // keys), --set, --secrets, env.
  for (const auto& [key, value] : pipeline->settings) storage_settings[key] = value;
  if (Status st = ConfigureStorageFromFlags(flags, storage_settings); !st.ok()) return Fail(st);
  options.lakehouse.root = flags.Get("lakehouse");
  if (!flags.Has("lakehouse") && settings && settings->storage) {
    options.lakehouse.root = *settings->storage;
  }
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
  } else if (settings && settings->development.value_or(false)) {
    options.retry.max_retries = 0;  // development mode: a failed update is not retried
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
  Flags flags("weir run [PIPELINE.sql] [--settings pipeline.json] [--lakehouse DIR|URL]\n"
              "                [--trigger availableNow|once|processingTime=10s]\n"
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
              "added, stopped or killed at any time (docs/deployment.md).\n"
              "--settings reads a Databricks pipeline's settings JSON as it is: `configuration`\n"
              "gives the ${name} values (and settings such as storage keys), `continuous` picks\n"
              "processingTime (true) or availableNow (false), `development: true` turns retries\n"
              "off, `storage` is the lakehouse, `catalog` and `target` (or `schema`) the default\n"
              "catalog and schema, the default cluster's `spark_conf` adds settings, and a single\n"
              "`libraries` entry is the pipeline file when none is given. Settings weir has no use\n"
              "for (cluster sizes, photon, channel, ...) are listed in one note. Command-line\n"
              "flags win (docs/migration.md).");
  flags.Positional("PIPELINE.sql", 0, 1);
  flags.Value("settings", "FILE",
              "a Databricks pipeline settings JSON (configuration, continuous, development, "
              "storage, catalog, target, libraries)");
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
