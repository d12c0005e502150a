// availableNow reads the next batch while the current one commits (StreamingQuery's read-ahead),
// against librdkafka's mock cluster: the checkpoint is still written in Spark's order (commits/N
// before offsets/N+1), every record lands once, and a batch whose commit fails leaves the query
// able to run again from its checkpoint, the next batch's reading stopped.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "base/testing.h"
#include "delta/snapshot.h"
#include "delta/testing.h"
#include "fs/fault_injection_file_system.h"
#include "fs/local_file_system.h"
#include "kafka/testing.h"
#include "stream/streaming_query.h"

namespace weir::stream {
namespace {

constexpr int kRecords = 1000;
constexpr int kPerBatch = 100;

// Forwards to the local file system and records the checkpoint's offsets/N and commits/N files in
// the order they are written.
class RecordingFileSystem final : public fs::FileSystem {
 public:
  explicit RecordingFileSystem(fs::FileSystem* base) : base_(base) {}

  std::vector<std::string> written() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return written_;
  }
  bool HasWritten(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::find(written_.begin(), written_.end(), name) != written_.end();
  }

  Result<std::unique_ptr<fs::RandomAccessFile>> OpenForRead(const std::string& path) override {
    return base_->OpenForRead(path);
  }
  Result<std::unique_ptr<fs::WritableFile>> OpenForWrite(const std::string& path) override {
    return base_->OpenForWrite(path);
  }
  Status PutIfAbsent(const std::string& path, std::string_view data) override {
    WEIR_RETURN_NOT_OK(base_->PutIfAbsent(path, data));
    Record(path);
    return Status::OK();
  }
  Status WriteAtomic(const std::string& path, std::string_view data) override {
    WEIR_RETURN_NOT_OK(base_->WriteAtomic(path, data));
    Record(path);
    return Status::OK();
  }
  Status Rename(const std::string& from, const std::string& to) override {
    WEIR_RETURN_NOT_OK(base_->Rename(from, to));
    Record(to);
    return Status::OK();
  }
  Status RenameNoReplace(const std::string& from, const std::string& to) override {
    WEIR_RETURN_NOT_OK(base_->RenameNoReplace(from, to));
    Record(to);
    return Status::OK();
  }
  Status Delete(const std::string& path) override { return base_->Delete(path); }
  Status DeleteDirRecursive(const std::string& path) override {
    return base_->DeleteDirRecursive(path);
  }
  Status CreateDirs(const std::string& path) override { return base_->CreateDirs(path); }
  Result<bool> Exists(const std::string& path) override { return base_->Exists(path); }
  Result<fs::FileInfo> GetFileInfo(const std::string& path) override {
    return base_->GetFileInfo(path);
  }
  Result<std::vector<fs::FileInfo>> List(const std::string& dir) override {
    return base_->List(dir);
  }
  Result<std::vector<fs::FileInfo>> ListFrom(const std::string& dir,
                                             std::string_view first_name) override {
    return base_->ListFrom(dir, first_name);
  }
  Status SyncDir(const std::string& path) override { return base_->SyncDir(path); }

 private:
  // "offsets/3", "commits/3"; other files are not recorded.
  void Record(const std::string& path) {
    for (const char* dir : {"/offsets/", "/commits/"}) {
      const size_t at = path.rfind(dir);
      if (at == std::string::npos) continue;
      const std::string name = path.substr(at + 1);
      if (name.find("tmp") != std::string::npos) return;
      std::lock_guard<std::mutex> lock(mutex_);
      written_.push_back(name);
    }
  }

  fs::FileSystem* base_;
  mutable std::mutex mutex_;
  std::vector<std::string> written_;
};

// Passes rows through; notes, for the first record of every batch after the first, whether the
// previous batch's commits/N was written yet (it is not when the batch is read ahead).
class WatchingTransform : public Transform {
 public:
  WatchingTransform(columnar::Schema schema, const RecordingFileSystem* fs)
      : schema_(std::move(schema)), fs_(fs) {}
  const columnar::Schema& output_schema() const override { return schema_; }
  Result<TransformResult> Apply(const columnar::Batch& input, int64_t) override {
    const int offset_column = input.schema.FieldIndex("offset");
    if (offset_column < 0) return Status::Internal("no offset column");
    const int64_t first = input.columns[offset_column].Value<int64_t>(0);
    if (first > 0 && first % kPerBatch == 0) {
      const std::string previous = "commits/" + std::to_string(first / kPerBatch - 1);
      std::lock_guard<std::mutex> lock(mutex_);
      if (!fs_->HasWritten(previous)) ++read_ahead_;
    }
    TransformResult result;
    result.rows = input;
    return result;
  }
  int read_ahead() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return read_ahead_;
  }

 private:
  columnar::Schema schema_;
  const RecordingFileSystem* fs_;
  mutable std::mutex mutex_;
  int read_ahead_ = 0;
};

// Topic "events" of `cluster` (one partition of kRecords records) into a table in `dir`,
// kPerBatch records a batch, rows through a WatchingTransform kept in `*transform`.
Result<FlowSpec> EventsFlow(const kafka::testing::MockCluster& cluster,
                            const delta::testing::ScratchDir& dir,
                            const RecordingFileSystem* recorder,
                            std::shared_ptr<WatchingTransform>* transform) {
  FlowSpec spec;
  spec.name = "sales.bronze.events";
  spec.table_path = dir.Sub("events");
  spec.checkpoint_dir = dir.Sub("checkpoint");
  WEIR_ASSIGN_OR_RETURN(spec.kafka, kafka::KafkaSourceOptions::Parse(
                                        {{"kafka.bootstrap.servers", cluster.bootstraps()},
                                         {"subscribe", "events"},
                                         {"startingOffsets", "earliest"},
                                         {"maxOffsetsPerTrigger", std::to_string(kPerBatch)}}));
  spec.make_transform = [recorder, transform](
                            const columnar::Schema& input) -> Result<std::shared_ptr<Transform>> {
    *transform = std::make_shared<WatchingTransform>(input, recorder);
    return std::shared_ptr<Transform>(*transform);
  };
  return spec;
}

bool ProduceEvents(kafka::testing::MockCluster* cluster) {
  if (!cluster->CreateTopic("events", 1)) return false;
  std::vector<std::string> values;
  for (int i = 0; i < kRecords; ++i) values.push_back("event " + std::to_string(i));
  return cluster->Produce("events", 0, values);
}

// Every offset 0..kRecords-1 of the single partition, once.
void ExpectEveryRecordOnce(const std::string& table_path) {
  ASSERT_OK_AND_ASSIGN(auto snapshot, delta::Snapshot::Load(fs::LocalFileSystem::Default(), table_path));
  ASSERT_OK_AND_ASSIGN(auto rows, delta::testing::SortedRows(snapshot));
  std::vector<int64_t> offsets;
  for (const std::string& row : rows) {
    const size_t at = row.find("\"offset\":");
    ASSERT_NE(at, std::string::npos) << row;
    offsets.push_back(std::stoll(row.substr(at + 9)));
  }
  std::sort(offsets.begin(), offsets.end());
  std::vector<int64_t> expected(kRecords);
  for (int i = 0; i < kRecords; ++i) expected[i] = i;
  EXPECT_EQ(offsets, expected);
  EXPECT_EQ(snapshot->TxnVersion("weir:sales.bronze.events:events:0"), kRecords);
}

TEST(ReadAheadTest, TheNextBatchIsReadWhileOneCommitsAndTheCheckpointKeepsSparksOrder) {
  kafka::testing::MockCluster cluster;
  ASSERT_TRUE(ProduceEvents(&cluster));
  delta::testing::ScratchDir dir;
  RecordingFileSystem recorder(fs::LocalFileSystem::Default());
  std::shared_ptr<WatchingTransform> transform;
  ASSERT_OK_AND_ASSIGN(FlowSpec spec, EventsFlow(cluster, dir, &recorder, &transform));
  QueryOptions options;
  ASSERT_OK_AND_ASSIGN(options.trigger, Trigger::Parse("availableNow"));
  std::vector<QueryProgress> progress;
  options.on_progress = [&](const QueryProgress& p) { progress.push_back(p); };
  ASSERT_OK_AND_ASSIGN(auto query, StreamingQuery::Open(&recorder, spec, options));
  ASSERT_OK(query->Run());
  query->Close();

  ExpectEveryRecordOnce(spec.table_path);
  // Spark's order on disk: offsets/N, commits/N, offsets/N+1, ...
  std::vector<std::string> expected;
  for (int n = 0; n < kRecords / kPerBatch; ++n) {
    expected.push_back("offsets/" + std::to_string(n));
    expected.push_back("commits/" + std::to_string(n));
  }
  EXPECT_EQ(recorder.written(), expected);
  // Each batch starts where the previous ended.
  ASSERT_EQ(progress.size(), static_cast<size_t>(kRecords / kPerBatch));
  for (size_t i = 1; i < progress.size(); ++i) {
    ASSERT_EQ(progress[i].sources.size(), 1u);
    EXPECT_EQ(progress[i].sources[0].start_offset, progress[i - 1].sources[0].end_offset) << i;
    EXPECT_EQ(progress[i].sources[0].num_input_rows, kPerBatch) << i;
  }
  // durationMs: the parts never add up to more than triggerExecution (latestOffset and the
  // getBatch of a batch read ahead were measured before the batch began), which is batchDuration.
  for (const QueryProgress& p : progress) {
    int64_t parts = 0;
    for (const auto& [name, ms] : p.duration_ms) {
      if (name != "triggerExecution") parts += ms;
    }
    EXPECT_LE(parts, p.duration_ms.at("triggerExecution")) << p.ToJson();
    EXPECT_EQ(p.batch_duration_ms, p.duration_ms.at("triggerExecution"));
  }
  // The reading of at least one batch began before the previous batch's commit marker (in
  // practice nearly all nine do).
  ASSERT_NE(transform, nullptr);
  EXPECT_GT(transform->read_ahead(), 0);
}

TEST(ReadAheadTest, AFailedCommitStopsTheNextBatchsReadingAndTheQueryRunsAgain) {
  kafka::testing::MockCluster cluster;
  ASSERT_TRUE(ProduceEvents(&cluster));
  delta::testing::ScratchDir dir;
  RecordingFileSystem recorder(fs::LocalFileSystem::Default());
  fs::FaultInjectionFileSystem faults(&recorder);
  std::shared_ptr<WatchingTransform> transform;
  ASSERT_OK_AND_ASSIGN(FlowSpec spec, EventsFlow(cluster, dir, &recorder, &transform));
  QueryOptions options;
  ASSERT_OK_AND_ASSIGN(options.trigger, Trigger::Parse("availableNow"));
  ASSERT_OK_AND_ASSIGN(auto query, StreamingQuery::Open(&faults, spec, options));
  // Batch 3's Delta commit fails (the table's version 4: version 0 created the table), after
  // batch 4 was planned and its reading began.
  faults.FailNthCall(fs::FileOp::kPutIfAbsent, 1, fs::InjectedError::kEIO,
                     "_delta_log/00000000000000000004.json");
  Status first = query->Run();
  ASSERT_FALSE(first.ok());
  EXPECT_NE(first.ToString().find("batch 3"), std::string::npos) << first.ToString();
  EXPECT_FALSE(recorder.HasWritten("commits/3"));
  EXPECT_FALSE(recorder.HasWritten("offsets/4"));
  // The same query runs again: batch 3 from its logged range, then the rest (no reader of the
  // abandoned read-ahead is left behind to refuse the new one).
  ASSERT_OK(query->Run());
  query->Close();
  ExpectEveryRecordOnce(spec.table_path);
}

}  // namespace
}  // namespace weir::stream
