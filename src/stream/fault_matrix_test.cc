// The crash-and-fault matrix: whole pipelines (bronze; bronze + silver with dedup state and
// quarantine; a MERGE flow; bronze with auto-compaction) run over a fault-injecting file system
// against librdkafka's mock cluster. For file-system calls of the run (every kind of call the run
// makes, and a spread of the rest) and every fault mode — the call fails; the call takes effect
// and then reports EIO with the next reads of its path failing too (an ambiguous outcome); the
// call takes effect and the machine crashes right after it — the run is made to fault there,
// then restarted without faults until it completes. After each trial: every produced event is
// exactly once in every table, every file a table's log references exists (and is read back),
// and each flow's checkpoint plans a restart. The counts of calls, modes and restarts are
// printed.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/testing.h"
#include "columnar/json_lines.h"
#include "delta/log_path.h"
#include "delta/scan.h"
#include "delta/snapshot.h"
#include "delta/testing.h"
#include "fs/fault_injection_file_system.h"
#include "fs/local_file_system.h"
#include "kafka/testing.h"
#include "sql/pipeline.h"
#include "stream/checkpoint.h"
#include "stream/pipeline.h"

namespace weir::stream {
namespace {

using fs::FaultMode;
using fs::FileOp;

constexpr int kPartitions = 2;
constexpr int kEventsPerPartition = 90;

// The events of the topic "orders": JSON orders with a duplicate delivery of every 10th event and
// a malformed payload at every 17th offset.
struct Topic {
  std::set<std::pair<int, int64_t>> offsets;      // every (partition, offset)
  std::set<std::string> event_ids;                // distinct valid event ids
  std::set<std::pair<int, int64_t>> malformed;    // (partition, offset) of malformed payloads
};

Topic ProduceOrders(kafka::testing::MockCluster& cluster) {
  Topic topic;
  EXPECT_TRUE(cluster.CreateTopic("orders", kPartitions));
  int next_id = 0;
  for (int p = 0; p < kPartitions; ++p) {
    std::vector<std::pair<std::optional<std::string>, std::string>> records;
    for (int64_t o = 0; o < kEventsPerPartition; ++o) {
      topic.offsets.insert({p, o});
      if (o % 17 == 16) {
        records.emplace_back("k", "{not json");
        topic.malformed.insert({p, o});
        continue;
      }
      // A duplicate delivery repeats the event of the offset before.
      int id = o % 10 == 9 ? next_id - 1 : next_id++;
      std::string event_id = "e" + std::to_string(id);
      topic.event_ids.insert(event_id);
      records.emplace_back("SO-" + std::to_string(id % 7),
                           R"({"event_id":")" + event_id + R"(","order_id":"SO-)" +
                               std::to_string(id % 7) +
                               R"(","status":"created","amount":"10.50","event_time":"2026-06-08T09:00:)" +
                               std::to_string(10 + o % 40) + "Z\"}");
    }
    EXPECT_TRUE(cluster.ProduceKeyed("orders", p, records));
  }
  return topic;
}

constexpr char kBronze[] = R"(
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw ${bronze_clauses} AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '60');
)";

constexpr char kSilver[] = R"(
SET order_schema = 'event_id STRING, order_id STRING, status STRING, amount DECIMAL(18,2), event_time STRING';
CREATE OR REFRESH STREAMING TABLE sales.silver.orders (
  CONSTRAINT has_event_id EXPECT (event_id IS NOT NULL) ON VIOLATION QUARANTINE
) AS
SELECT from_json(raw_value, '${order_schema}').event_id AS event_id,
       to_timestamp(from_json(raw_value, '${order_schema}').event_time) AS event_time,
       eh_partition, eh_offset
FROM STREAM(sales.bronze.orders_raw)
  WATERMARK to_timestamp(from_json(raw_value, '${order_schema}').event_time) AS event_time
  DELAY OF INTERVAL 30 MINUTES
DROP DUPLICATES WITHIN WATERMARK (event_id)
QUARANTINE INTO sales.silver.orders_quarantine;
)";

struct Scenario {
  std::string name;
  std::string sql;
  std::string bronze_clauses;  // between the table name and AS
  std::map<std::string, std::string> settings;
  bool silver = false;
};

// What a lakehouse holds, checked against the topic; empty when everything is right.
std::vector<std::string> CheckLakehouse(const std::string& lake, const Scenario& scenario,
                                        const Topic& topic) {
  std::vector<std::string> problems;
  fs::FileSystem* local = fs::LocalFileSystem::Default();
  // Reads a table: every live file must exist and be read; returns the rows' columns.
  auto read_table = [&](const std::string& name, const std::vector<std::string>& columns,
                        std::vector<std::vector<std::string>>* rows) {
    const std::string root = lake + "/" + name;
    auto snapshot = delta::Snapshot::Load(local, root);
    if (!snapshot.ok()) {
      problems.push_back(name + ": " + snapshot.status().ToString());
      return;
    }
    for (const auto& [key, add] : (*snapshot)->files()) {
      auto path = delta::ResolveDataFilePath(root, add->path);
      if (!path.ok() || !*local->Exists(*path)) {
        problems.push_back(name + ": the log references " + add->path + ", which does not exist");
      }
    }
    if (!problems.empty()) return;
    delta::ScanOptions options;
    options.columns = columns;
    auto scan = delta::TableScan::Make(*snapshot, options);
    if (!scan.ok()) {
      problems.push_back(name + ": " + scan.status().ToString());
      return;
    }
    while (true) {
      auto batch = (*scan)->Next();
      if (!batch.ok()) {
        problems.push_back(name + ": " + batch.status().ToString());
        return;
      }
      if (!*batch) break;
      for (int64_t r = 0; r < (*batch)->num_rows(); ++r) {
        std::vector<std::string> row;
        for (const columnar::Column& c : (*batch)->columns) {
          std::string text;
          columnar::AppendTextValue(c, r, &text);
          row.push_back(std::move(text));
        }
        rows->push_back(std::move(row));
      }
    }
  };
  auto same_offsets = [&](const std::string& what, const std::vector<std::vector<std::string>>& rows,
                          const std::set<std::pair<int, int64_t>>& want) {
    std::map<std::pair<int, int64_t>, int> seen;
    for (const auto& row : rows) seen[{std::stoi(row[0]), std::stoll(row[1])}]++;
    int doubled = 0, missing = 0, extra = 0;
    for (const auto& [k, n] : seen) {
      if (n > 1) ++doubled;
      if (!want.count(k)) ++extra;
    }
    for (const auto& k : want) missing += seen.count(k) ? 0 : 1;
    if (doubled + missing + extra > 0) {
      problems.push_back(what + ": " + std::to_string(doubled) + " doubled, " +
                         std::to_string(missing) + " missing, " + std::to_string(extra) +
                         " unexpected (partition, offset)");
    }
  };
  std::vector<std::vector<std::string>> bronze;
  read_table("sales/bronze/orders_raw", {"eh_partition", "eh_offset"}, &bronze);
  same_offsets("bronze", bronze, topic.offsets);
  if (scenario.silver) {
    std::vector<std::vector<std::string>> silver, quarantine;
    read_table("sales/silver/orders", {"event_id"}, &silver);
    read_table("sales/silver/orders_quarantine", {"eh_partition", "eh_offset"}, &quarantine);
    std::map<std::string, int> ids;
    for (const auto& row : silver) ids[row[0]]++;
    int doubled = 0, missing = 0;
    for (const auto& [id, n] : ids) doubled += n > 1 ? 1 : 0;
    for (const std::string& id : topic.event_ids) missing += ids.count(id) ? 0 : 1;
    if (doubled + missing > 0 || ids.size() != topic.event_ids.size()) {
      problems.push_back("silver: " + std::to_string(doubled) + " event ids doubled, " +
                         std::to_string(missing) + " missing, " + std::to_string(ids.size()) +
                         " distinct of " + std::to_string(topic.event_ids.size()));
    }
    same_offsets("quarantine", quarantine, topic.malformed);
  }
  // Every flow's checkpoint plans a restart.
  std::vector<std::string> flows = {"sales.bronze.orders_raw"};
  if (scenario.silver) flows.push_back("sales.silver.orders");
  for (const std::string& flow : flows) {
    auto checkpoint = Checkpoint::Open(local, lake + "/_checkpoints/" + flow);
    auto plan = checkpoint.ok() ? (*checkpoint)->PlanRestart() : Result<RestartPlan>(checkpoint.status());
    if (!plan.ok()) problems.push_back(flow + " checkpoint: " + plan.status().ToString());
  }
  return problems;
}

class FaultMatrixTest : public ::testing::Test {
 protected:
  void SetUp() override { topic_ = ProduceOrders(cluster_); }

  // Runs the scenario's pipeline (availableNow) on `fs` into `lake`: its status.
  Status RunOnce(fs::FileSystem* fs, const std::string& lake, const Scenario& scenario) {
    sql::Variables vars = {{"bootstrap", cluster_.bootstraps()},
                           {"bronze_clauses", scenario.bronze_clauses}};
    std::string text = scenario.sql;
    for (const auto& [k, v] : scenario.settings) text = "SET " + k + " = " + v + ";\n" + text;
    WEIR_ASSIGN_OR_RETURN(sql::Pipeline definition,
                          sql::ParsePipeline(text, vars, sql::SecretResolver()));
    PipelineOptions options;
    options.lakehouse.root = lake;
    WEIR_ASSIGN_OR_RETURN(options.trigger, Trigger::Parse("availableNow"));
    options.retry.max_retries = 0;  // every fault surfaces: the test restarts the run itself
    WEIR_ASSIGN_OR_RETURN(auto pipeline, Pipeline::Open(fs, definition, options));
    return pipeline->Run();
  }

  // The matrix for one scenario. Positions: the first call of every kind, every publishing call
  // (put-if-absent, rename, write-atomic), and calls spread evenly over the run (about `spread`).
  void RunMatrix(const Scenario& scenario, int spread) {
    fs::FaultInjectionFileSystem faulty(fs::LocalFileSystem::Default());
    std::vector<FileOp> log;
    {
      delta::testing::ScratchDir dir;
      ASSERT_OK(RunOnce(&faulty, dir.path(), scenario));
      std::vector<std::string> problems = CheckLakehouse(dir.path(), scenario, topic_);
      ASSERT_TRUE(problems.empty()) << scenario.name << " without faults: " << problems[0];
      log = faulty.CallLog();
    }
    const int64_t calls = static_cast<int64_t>(log.size());
    std::set<int64_t> positions;
    std::set<FileOp> kinds;
    for (int64_t n = 1; n <= calls; ++n) {
      if (kinds.insert(log[n - 1]).second) positions.insert(n);
      // Every publishing call: Delta commits, checkpoint entries, renames into place.
      const FileOp op = log[n - 1];
      if (op == FileOp::kPutIfAbsent || op == FileOp::kRename || op == FileOp::kWriteAtomic) {
        positions.insert(n);
      }
    }
    const int64_t stride = std::max<int64_t>(1, calls / spread);
    for (int64_t n = 1; n <= calls; n += stride) positions.insert(n);
    positions.insert(calls);

    const std::vector<std::pair<FaultMode, std::string>> modes = {
        {FaultMode::kFail, "fail"},
        {FaultMode::kTakeEffectThenFail, "take effect, then fail"},
        {FaultMode::kCrashAfter, "crash right after"}};
    int64_t trials = 0, faulted_runs = 0, restarts = 0;
    std::vector<std::string> failures;
    for (int64_t n : positions) {
      for (const auto& [mode, mode_name] : modes) {
        delta::testing::ScratchDir dir;
        faulty.Reset();
        faulty.InjectNthCallOfAnyKind(n, mode, /*then_fail_reads=*/2);
        Status faulted = RunOnce(&faulty, dir.path(), scenario);
        ++trials;
        if (!faulted.ok() || faulty.crashed()) ++faulted_runs;
        faulty.Reset();
        Status restarted;
        int runs = 0;
        do {  // a run that fails again without faults is a finding, but gets a few tries
          restarted = RunOnce(&faulty, dir.path(), scenario);
          ++runs;
        } while (!restarted.ok() && runs < 3);
        restarts += runs;
        const std::string where = scenario.name + ", call " + std::to_string(n) + " (" +
                                  std::string(fs::FileOpName(log[n - 1])) + "), " + mode_name;
        if (!restarted.ok()) {
          failures.push_back(where + ": the restart failed: " + restarted.ToString());
          continue;
        }
        for (const std::string& p : CheckLakehouse(dir.path(), scenario, topic_)) {
          failures.push_back(where + ": " + p);
        }
      }
    }
    std::printf("%s: %lld file-system calls in a run (%zu kinds); %zu positions x %zu modes = "
                "%lld trials, %lld runs faulted, %lld restarts; %zu problems\n",
                scenario.name.c_str(), static_cast<long long>(calls), kinds.size(),
                positions.size(), modes.size(), static_cast<long long>(trials),
                static_cast<long long>(faulted_runs), static_cast<long long>(restarts),
                failures.size());
    for (size_t i = 0; i < failures.size() && i < 20; ++i) ADD_FAILURE() << failures[i];
    EXPECT_TRUE(failures.empty());
    EXPECT_GT(faulted_runs, trials / 2) << "faults should make most runs fail";
  }

  kafka::testing::MockCluster cluster_;
  Topic topic_;
};

TEST_F(FaultMatrixTest, Bronze) {
  RunMatrix({.name = "bronze", .sql = kBronze, .bronze_clauses = "", .settings = {}},
            /*spread=*/50);
}

TEST_F(FaultMatrixTest, BronzeSilverQuarantineWithDedupState) {
  RunMatrix({.name = "bronze + silver",
             .sql = std::string(kBronze) + kSilver,
             .bronze_clauses = "",
             .settings = {},
             .silver = true},
            /*spread=*/70);
}

TEST_F(FaultMatrixTest, MergeFlow) {
  RunMatrix({.name = "merge",
             .sql = kBronze,
             .bronze_clauses = "MERGE ON (eh_partition, eh_offset)",
             .settings = {}},
            /*spread=*/40);
}

TEST_F(FaultMatrixTest, AutoCompaction) {
  RunMatrix({.name = "auto-compaction",
             .sql = kBronze,
             .bronze_clauses = "TBLPROPERTIES ('delta.autoOptimize.autoCompact' = 'true')",
             .settings = {{"spark.databricks.delta.autoCompact.minNumFiles", "'2'"}}},
            /*spread=*/40);
}

}  // namespace
}  // namespace weir::stream
