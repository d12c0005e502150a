// Worker mode (QueryOptions::workers_group) against librdkafka's mock cluster: a batch whose
// partition another worker committed while it ran is abandoned without writing anything, and the
// next batch starts where the table says — no record twice, none lost. The "other worker" is a
// transform hook that commits the partition's txn in the middle of the first batch.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "base/testing.h"
#include "delta/table.h"
#include "delta/testing.h"
#include "fs/local_file_system.h"
#include "kafka/testing.h"
#include "stream/kafka_rows.h"
#include "stream/streaming_query.h"

namespace weir::stream {
namespace {

constexpr char kFlow[] = "sales.bronze.events";
constexpr char kPartitionAppId[] = "weir:sales.bronze.events:events:0";

// Passes rows through; while the first batch runs, commits offset 40 of partition 0 to the
// table as another worker would.
class RacingTransform : public Transform {
 public:
  RacingTransform(columnar::Schema schema, std::string table_path)
      : schema_(std::move(schema)), table_path_(std::move(table_path)) {}
  const columnar::Schema& output_schema() const override { return schema_; }
  Result<TransformResult> Apply(const columnar::Batch& input, int64_t) override {
    if (!raced_) {
      raced_ = true;
      WEIR_ASSIGN_OR_RETURN(auto table, delta::Table::Open(fs::LocalFileSystem::Default(), table_path_));
      auto txn = table->NewTransaction();
      WEIR_RETURN_NOT_OK(txn->SetTxn(kPartitionAppId, 40));
      WEIR_RETURN_NOT_OK(txn->Commit().status());
    }
    TransformResult result;
    result.rows = input;
    return result;
  }

 private:
  columnar::Schema schema_;
  std::string table_path_;
  bool raced_ = false;
};

// The worker flow of these tests: topic "events" of `cluster` from `starting_offsets` into a table
// in `dir`, rows through `transform` (given the table path).
Result<FlowSpec> WorkerFlow(
    const kafka::testing::MockCluster& cluster, const delta::testing::ScratchDir& dir,
    const std::string& starting_offsets,
    std::function<std::shared_ptr<Transform>(const columnar::Schema&, const std::string&)> transform) {
  FlowSpec spec;
  spec.name = kFlow;
  spec.table_path = dir.Sub("events");
  spec.checkpoint_dir = dir.Sub("checkpoint");
  WEIR_ASSIGN_OR_RETURN(spec.kafka, kafka::KafkaSourceOptions::Parse(
                                        {{"kafka.bootstrap.servers", cluster.bootstraps()},
                                         {"subscribe", "events"},
                                         {"startingOffsets", starting_offsets},
                                         {"kafka.session.timeout.ms", "6000"}}));
  const std::string table_path = spec.table_path;
  spec.make_transform = [table_path, transform](const columnar::Schema& input)
      -> Result<std::shared_ptr<Transform>> { return transform(input, table_path); };
  return spec;
}

// A worker of group "workers" with a 100 ms processingTime trigger.
Result<QueryOptions> WorkerOptions() {
  QueryOptions options;
  WEIR_ASSIGN_OR_RETURN(options.trigger, Trigger::Parse("processingTime=100ms"));
  options.workers_group = "workers";
  return options;
}

TEST(WorkerModeTest, ABatchThatLostItsPartitionIsAbandonedAndTheNextStartsFromTheTable) {
  kafka::testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("events", 1));
  std::vector<std::string> values;
  for (int i = 0; i < 100; ++i) values.push_back("event " + std::to_string(i));
  ASSERT_TRUE(cluster.Produce("events", 0, values));

  delta::testing::ScratchDir dir;
  ASSERT_OK_AND_ASSIGN(FlowSpec spec,
                       WorkerFlow(cluster, dir, "earliest",
                                  [](const columnar::Schema& input, const std::string& table) {
                                    return std::make_shared<RacingTransform>(input, table);
                                  }));
  const std::string table_path = spec.table_path;
  ASSERT_OK_AND_ASSIGN(QueryOptions options, WorkerOptions());
  std::mutex mutex;
  std::vector<std::string> lines;
  options.log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex);
    lines.push_back(line);
  };
  ASSERT_OK_AND_ASSIGN(auto query,
                       StreamingQuery::Open(fs::LocalFileSystem::Default(), spec, options));
  Status run;
  std::thread runner([&] { run = query->Run(); });
  std::shared_ptr<const delta::Snapshot> snapshot;
  for (int i = 0; i < 300; ++i) {
    auto loaded = delta::Snapshot::Load(fs::LocalFileSystem::Default(), table_path);
    if (loaded.ok() && (*loaded)->TxnVersion(kPartitionAppId) == 100) {
      snapshot = *loaded;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  query->RequestStop();
  runner.join();
  ASSERT_OK(run);
  ASSERT_NE(snapshot, nullptr) << "partition 0 never reached offset 100";
  // Offsets 0..39 are the other worker's (it wrote no rows here); this worker wrote 40..99 once.
  ASSERT_OK_AND_ASSIGN(auto rows, delta::testing::SortedRows(snapshot));
  EXPECT_EQ(rows.size(), 60u);
  EXPECT_EQ(query->rows_written(), 60);
  std::lock_guard<std::mutex> lock(mutex);
  bool abandoned = false;
  for (const auto& line : lines) abandoned |= line.find("abandoned") != std::string::npos;
  EXPECT_TRUE(abandoned);
}

// Passes rows through.
class PassThrough : public Transform {
 public:
  explicit PassThrough(columnar::Schema schema) : schema_(std::move(schema)) {}
  const columnar::Schema& output_schema() const override { return schema_; }
  Result<TransformResult> Apply(const columnar::Batch& input, int64_t) override {
    TransformResult result;
    result.rows = input;
    return result;
  }

 private:
  columnar::Schema schema_;
};

// Polls the table until partition 0's txn is `offset` (30 s at most).
std::shared_ptr<const delta::Snapshot> WaitForTxn(const std::string& table_path, int64_t offset) {
  for (int i = 0; i < 300; ++i) {
    auto loaded = delta::Snapshot::Load(fs::LocalFileSystem::Default(), table_path);
    if (loaded.ok() && (*loaded)->TxnVersion(kPartitionAppId) == offset) return *loaded;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return nullptr;
}

// startingOffsets=latest: a worker pins where it started in the table at once, even without new
// records, so that a later owner of the partition starts there and not at its own "latest".
TEST(WorkerModeTest, TheStartingOffsetIsPinnedInTheTableBeforeAnyRecordArrives) {
  kafka::testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("events", 1));
  std::vector<std::string> old_values(100, "before the start");
  ASSERT_TRUE(cluster.Produce("events", 0, old_values));
  delta::testing::ScratchDir dir;
  ASSERT_OK_AND_ASSIGN(FlowSpec spec,
                       WorkerFlow(cluster, dir, "latest",
                                  [](const columnar::Schema& input, const std::string&) {
                                    return std::make_shared<PassThrough>(input);
                                  }));
  ASSERT_OK_AND_ASSIGN(QueryOptions options, WorkerOptions());
  ASSERT_OK_AND_ASSIGN(auto query,
                       StreamingQuery::Open(fs::LocalFileSystem::Default(), spec, options));
  Status run;
  std::thread runner([&] { run = query->Run(); });
  auto pinned = WaitForTxn(spec.table_path, 100);
  std::shared_ptr<const delta::Snapshot> after;
  if (pinned) {
    std::vector<std::string> new_values(10, "after the start");
    if (cluster.Produce("events", 0, new_values)) after = WaitForTxn(spec.table_path, 110);
  }
  query->RequestStop();
  runner.join();
  ASSERT_OK(run);
  ASSERT_NE(pinned, nullptr) << "the starting offset was not pinned";
  EXPECT_EQ(pinned->num_files(), 0);
  ASSERT_NE(after, nullptr);
  ASSERT_OK_AND_ASSIGN(auto rows, delta::testing::SortedRows(after));
  EXPECT_EQ(rows.size(), 10u);
}

TEST(WorkerModeTest, StatefulOrTableReadingFlowsAndAvailableNowAreRefused) {
  delta::testing::ScratchDir dir;
  FlowSpec spec;
  spec.name = kFlow;
  spec.table_path = dir.Sub("events");
  spec.checkpoint_dir = dir.Sub("checkpoint");
  spec.delta = FlowSpec::DeltaTable{"sales.bronze.other", dir.Sub("other"), {}};
  QueryOptions options;
  ASSERT_OK_AND_ASSIGN(options.trigger, Trigger::Parse("processingTime=1s"));
  options.workers_group = "workers";
  ASSERT_STATUS_CODE(kNotImplemented, StreamingQuery::Open(fs::LocalFileSystem::Default(), spec, options));
  spec.delta.reset();
  ASSERT_OK_AND_ASSIGN(spec.kafka, kafka::KafkaSourceOptions::Parse(
                                       {{"kafka.bootstrap.servers", "127.0.0.1:1"},
                                        {"subscribe", "events"}}));
  spec.drop_duplicates = FlowSpec::Deduplication{false, {"value"}};
  ASSERT_STATUS_CODE(kNotImplemented, StreamingQuery::Open(fs::LocalFileSystem::Default(), spec, options));
  spec.drop_duplicates.reset();
  ASSERT_OK_AND_ASSIGN(options.trigger, Trigger::Parse("availableNow"));
  ASSERT_STATUS_CODE(kInvalidArgument, StreamingQuery::Open(fs::LocalFileSystem::Default(), spec, options));
}

}  // namespace
}  // namespace weir::stream
