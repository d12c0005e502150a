// `weir demo`: the main job on embedded defaults. Starts the embedded broker, produces sample order
// events (with duplicates, malformed and late ones), runs the bronze/silver pipeline (examples/orders.sql:
// bronze, then silver with its quarantine table) with trigger availableNow, and prints progress
// and a summary of each table.
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "broker/embedded_broker.h"
#include "broker/sample_producer.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "cli/orders_sql.h"
#include "cli/pipeline_runner.h"
#include "cli/table_output.h"
#include "columnar/json_lines.h"
#include "delta/scan.h"
#include "delta/table.h"
#include "fs/local_file_system.h"

namespace weir::cli {
namespace {

// Prints the first `n` rows of the table at `path` as a text table.
Status PrintFirstRows(fs::FileSystem* fs, const std::string& path, int64_t n) {
  WEIR_ASSIGN_OR_RETURN(auto table, delta::Table::Open(fs, path));
  WEIR_ASSIGN_OR_RETURN(auto scan, delta::TableScan::Make(table->snapshot(), {}));
  WEIR_ASSIGN_OR_RETURN(RowPrinter printer, RowPrinter::Make("table", stdout));
  std::printf("\nfirst rows of sales.silver.orders:\n");
  while (true) {
    WEIR_ASSIGN_OR_RETURN(std::optional<columnar::Batch> batch, scan->Next());
    if (!batch || !printer.Print(*batch, n)) break;
  }
  printer.Finish();
  return Status::OK();
}

int DemoMain(const Flags& flags) {
  auto events = flags.GetInt("events");
  if (!events.ok()) return Fail(events.status());
  std::string dir = flags.Get("dir");
  auto* fs = fs::LocalFileSystem::Default();
  if (Status st = fs->CreateDirs(dir); !st.ok()) return Fail(st);
  // Every run starts a new embedded broker, so the previous run's tables and checkpoints do not
  // belong to it: start them over (only the demo's own folders).
  for (const char* sub :
       {"/sales/bronze/orders_raw", "/sales/silver/orders", "/sales/silver/orders_quarantine",
        "/_checkpoints/sales.bronze.orders_raw", "/_checkpoints/sales.silver.orders",
        "/_checkpoints/sales.silver.orders_quarantine"}) {
    Status st = fs->DeleteDirRecursive(dir + sub);
    if (!st.ok() && !st.IsNotFound()) return Fail(st);
  }

  std::fprintf(stderr, "weir demo: starting the embedded broker (topic orders, 8 partitions)\n");
  broker::EmbeddedBrokerOptions broker_options;
  broker_options.brokers = 1;
  broker_options.topics.push_back(broker::TopicSpec{"orders", 8});
  auto cluster = broker::EmbeddedBroker::Open(broker_options);
  if (!cluster.ok()) return Fail(cluster.status());
  const std::string bootstrap = (*cluster)->bootstrap_servers();

  broker::ProduceOptions produce;
  produce.bootstrap_servers = bootstrap;
  produce.topic = "orders";
  produce.count = *events;
  produce.compression = "lz4";
  produce.events.duplicate_fraction = 0.05;
  produce.events.malformed_fraction = 0.01;
  produce.events.late_fraction = 0.02;
  auto report = broker::ProduceSampleEvents(produce);
  if (!report.ok()) return Fail(report.status());
  std::fprintf(stderr,
               "weir demo: produced %lld events to %s (%llu duplicates, %llu malformed, %llu late) "
               "in %.1f s\n",
               static_cast<long long>(*events), bootstrap.c_str(),
               static_cast<unsigned long long>(report->counts.duplicates),
               static_cast<unsigned long long>(report->counts.malformed),
               static_cast<unsigned long long>(report->counts.late), report->seconds);

  std::fprintf(stderr, "weir demo: running examples/orders.sql with trigger availableNow\n");
  auto pipeline = sql::ParsePipeline(kOrdersSql, {{"bootstrap", bootstrap}}, sql::SecretResolver());
  if (!pipeline.ok()) return Fail(pipeline.status().WithContext("examples/orders.sql"));
  PipelineRunOptions options;
  options.trigger.kind = stream::Trigger::Kind::kAvailableNow;
  options.lakehouse.root = dir;
  std::vector<FlowRunSummary> summaries;
  if (Status st = RunPipeline(*pipeline, options, &summaries); !st.ok()) return Fail(st);

  // A summary of each table: bronze, silver and the quarantine table.
  struct Shown {
    const char* name;
    const char* path;
    std::string rows_this_run;
  };
  std::vector<Shown> shown;
  for (const FlowRunSummary& s : summaries) {
    std::string rows = std::to_string(s.rows_written);
    if (s.table == "sales.bronze.orders_raw")
      shown.push_back({"sales.bronze.orders_raw", "/sales/bronze/orders_raw", rows});
    if (s.table == "sales.silver.orders")
      shown.push_back({"sales.silver.orders", "/sales/silver/orders", rows});
  }
  shown.push_back({"sales.silver.orders_quarantine", "/sales/silver/orders_quarantine", ""});
  for (const Shown& t : shown) {
    auto table = delta::Table::Open(fs, dir + t.path);
    if (!table.ok()) {
      if (table.status().IsNotFound()) continue;
      return Fail(table.status());
    }
    const auto& snapshot = *(*table)->snapshot();
    int64_t rows = 0;
    for (const auto& [path, add] : snapshot.files()) rows += add->NumRecords().value_or(0);
    std::printf("\n%s (%s%s)\n", t.name, dir.c_str(), t.path);
    std::printf("  rows: %lld%s%s\n  files: %lld (%lld bytes)\n  versions: %lld\n",
                static_cast<long long>(rows),
                t.rows_this_run.empty() ? "" : ", written this run: ", t.rows_this_run.c_str(),
                static_cast<long long>(snapshot.num_files()),
                static_cast<long long>(snapshot.total_size()),
                static_cast<long long>(snapshot.version() + 1));
  }
  for (const FlowRunSummary& s : summaries) {
    if (s.table != "sales.silver.orders") continue;
    std::printf(
        "\nsilver this run: %lld events read, %lld duplicates removed, %lld rows quarantined, "
        "%lld late rows dropped\n",
        static_cast<long long>(s.input_rows), static_cast<long long>(s.duplicates_dropped),
        static_cast<long long>(s.quarantined), static_cast<long long>(s.late_rows_dropped));
  }
  if (Status st = PrintFirstRows(fs, dir + "/sales/silver/orders", 5); !st.ok()) return Fail(st);
  std::printf("\nInspect them with: weir table describe %s/sales/silver/orders\n", dir.c_str());
  return 0;
}

int RunDemo(const std::vector<std::string>& args) {
  Flags flags(
      "weir demo [--dir DIR] [--events N]",
      "Runs the main job on embedded defaults: starts the embedded Kafka-protocol broker,\n"
      "produces N sample order events (with duplicates, malformed and late ones), and runs\n"
      "examples/orders.sql with trigger availableNow: the events exactly once into the bronze\n"
      "Delta table sales.bronze.orders_raw, then parsed, validated and deduplicated into\n"
      "sales.silver.orders, with unparseable events in sales.silver.orders_quarantine. Prints\n"
      "progress and a summary of each table. Each run starts a new broker, so it replaces\n"
      "the demo's tables and checkpoints under DIR (and nothing else there).");
  flags.Value("dir", "DIR", "the lakehouse folder", "./lakehouse");
  flags.Value("events", "N", "sample events to produce", "100000");
  return RunWithFlags(flags, args, DemoMain);
}

WEIR_REGISTER_COMMAND(demo_cmd, "demo",
                      "run the main job on the embedded broker and a local lakehouse", RunDemo);

}  // namespace
}  // namespace weir::cli
