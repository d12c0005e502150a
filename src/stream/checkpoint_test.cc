#include "stream/checkpoint.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "base/testing.h"
#include "fs/local_file_system.h"

namespace weir::stream {
namespace {

namespace stdfs = std::filesystem;

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/weir-checkpoint-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { stdfs::remove_all(dir_); }
  void Write(const std::string& rel, const std::string& content) {
    std::string path = dir_ + "/" + rel;
    stdfs::create_directories(stdfs::path(path).parent_path());
    ASSERT_OK(fs::WriteStringToFile(&fs_, path, content, false));
  }
  // Copies a Spark fixture folder into the temp dir (the corpus is read-only).
  std::string CopyFixture(const std::string& fixtures, const std::string& rel) {
    std::string dst = dir_ + "/copy";
    stdfs::copy(fixtures + "/" + rel, dst, stdfs::copy_options::recursive);
    return dst;
  }

  fs::LocalFileSystem fs_;
  std::string dir_;
};

TEST_F(CheckpointTest, FreshFolderGetsAQueryIdOnce) {
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir_ + "/cp"));
  EXPECT_EQ(cp->query_id().size(), 36u);
  ASSERT_OK_AND_ASSIGN(RestartPlan plan, cp->PlanRestart());
  EXPECT_EQ(plan.kind, RestartPlan::Kind::kFresh);
  ASSERT_OK_AND_ASSIGN(auto again, Checkpoint::Open(&fs_, dir_ + "/cp"));
  EXPECT_EQ(again->query_id(), cp->query_id());
  ASSERT_OK_AND_ASSIGN(std::string metadata, fs::ReadFileToString(&fs_, dir_ + "/cp/metadata"));
  EXPECT_EQ(metadata, "{\"id\":\"" + cp->query_id() + "\"}");
}

TEST_F(CheckpointTest, RestartFollowsSparkRules) {
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir_ + "/cp"));
  OffsetSeq o0{0, 1000, {{"spark.sql.shuffle.partitions", "200"}}, {R"({"t":{"0":5}})"}};
  OffsetSeq o1{0, 2000, {}, {R"({"t":{"0":9}})"}};
  ASSERT_OK(cp->WriteOffsets(0, o0));
  ASSERT_OK_AND_ASSIGN(RestartPlan p, cp->PlanRestart());
  EXPECT_EQ(p.kind, RestartPlan::Kind::kRerun);
  EXPECT_EQ(p.batch_id, 0);
  EXPECT_FALSE(p.start.has_value());
  EXPECT_EQ(p.end->batch_timestamp_ms, 1000);
  ASSERT_OK(cp->WriteCommit(0, {0}));
  ASSERT_OK(cp->WriteOffsets(1, o1));
  ASSERT_OK_AND_ASSIGN(p, cp->PlanRestart());
  EXPECT_EQ(p.kind, RestartPlan::Kind::kRerun);
  EXPECT_EQ(p.batch_id, 1);
  EXPECT_EQ(*p.start->sources[0], R"({"t":{"0":5}})");
  EXPECT_EQ(*p.end->sources[0], R"({"t":{"0":9}})");
  ASSERT_OK(cp->WriteCommit(1, {1234}));
  ASSERT_OK_AND_ASSIGN(p, cp->PlanRestart());
  EXPECT_EQ(p.kind, RestartPlan::Kind::kNextBatch);
  EXPECT_EQ(p.batch_id, 2);
  EXPECT_EQ(p.watermark_ms, 1234);
  EXPECT_EQ(*p.start->sources[0], R"({"t":{"0":9}})");
  // Files are never replaced.
  ASSERT_STATUS_CODE(kAlreadyExists, cp->WriteOffsets(1, o1));
  ASSERT_STATUS_CODE(kAlreadyExists, cp->WriteCommit(1, {0}));
}

TEST_F(CheckpointTest, OffsetsFormatMatchesSpark) {
  OffsetSeq o{7,
              1568508285207,
              {{"spark.sql.shuffle.partitions", "5"}},
              {R"({"t":{"0":3}})", std::nullopt}};
  std::string text = Checkpoint::SerializeOffsets(o);
  EXPECT_EQ(text,
            "v1\n{\"batchTimestampMs\":1568508285207,\"batchWatermarkMs\":7,\"conf\":{\"spark.sql."
            "shuffle.partitions\":\"5\"}}\n{\"t\":{\"0\":3}}\n-");
  ASSERT_OK_AND_ASSIGN(OffsetSeq back, Checkpoint::ParseOffsets(text + "\n", "x"));
  EXPECT_EQ(back.batch_watermark_ms, 7);
  EXPECT_EQ(back.sources.size(), 2u);
  EXPECT_FALSE(back.sources[1].has_value());
  EXPECT_EQ(Checkpoint::SerializeCommit({42}), "v1\n{\"nextBatchWatermarkMs\":42}");
  ASSERT_OK_AND_ASSIGN(CommitMetadata c, Checkpoint::ParseCommit("v1\n{}", "x"));
  EXPECT_EQ(c.next_batch_watermark_ms, 0);
}

// Numbers written as floating point read as longs, saturating (Scala's Double.toLong) instead of
// overflowing (found by fuzz/checkpoint_fuzz.cc under UBSan).
TEST_F(CheckpointTest, FloatingPointTimesSaturate) {
  ASSERT_OK_AND_ASSIGN(OffsetSeq o, Checkpoint::ParseOffsets(
      "v1\n{\"batchTimestampMs\":1.8e67,\"batchWatermarkMs\":-3e30}\n-", "x"));
  EXPECT_EQ(o.batch_timestamp_ms, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(o.batch_watermark_ms, std::numeric_limits<int64_t>::min());
  ASSERT_OK_AND_ASSIGN(o, Checkpoint::ParseOffsets("v1\n{\"batchWatermarkMs\":12.9}\n-", "x"));
  EXPECT_EQ(o.batch_watermark_ms, 12);
}

TEST_F(CheckpointTest, CorruptFilesAreReportedNotRepaired) {
  struct Case {
    const char* content;
    const char* message;
  } cases[] = {
      {"", "Incomplete log file"},
      {"v2\n{}\n{}", "maximum supported log version is v1, but encountered v2"},
      {"x1\n{}", "malformed"},
      {"v1\n{not json", "not valid JSON"},
      {"v1\n{}\n{\"t\":", "source offset (line 3)"},
  };
  for (const auto& c : cases) {
    auto r = Checkpoint::ParseOffsets(c.content, "/cp/offsets/3");
    ASSERT_STATUS_CODE(kCorruption, r);
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("/cp/offsets/3"), std::string::npos);
  }
  ASSERT_STATUS_CODE(kCorruption, Checkpoint::ParseCommit("", "/cp/commits/1"));
  ASSERT_STATUS_CODE(kCorruption, Checkpoint::ParseCommit("v1\n[", "/cp/commits/1"));
}

TEST_F(CheckpointTest, InconsistentFoldersAreCorruption) {
  Write("cp/metadata", R"({"id":"q"})");
  Write("cp/offsets/0", "v1\n{}\n{}");
  Write("cp/offsets/2", "v1\n{}\n{}");
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir_ + "/cp"));
  auto plan = cp->PlanRestart();
  ASSERT_STATUS_CODE(kCorruption, plan);
  EXPECT_NE(plan.status().message().find("batches (1) don't exist (startId: 0, endId: 2)"),
            std::string::npos);
  Write("cp/offsets/1", "v1\n{}\n{}");
  Write("cp/commits/5", "v1\n{}");
  ASSERT_STATUS_CODE(kCorruption, cp->PlanRestart());
  // Offsets without metadata: never a silent fresh start.
  Write("other/offsets/0", "v1\n{}\n{}");
  ASSERT_STATUS_CODE(kCorruption, Checkpoint::Open(&fs_, dir_ + "/other"));
  Write("bad/metadata", "{}");
  ASSERT_STATUS_CODE(kCorruption, Checkpoint::Open(&fs_, dir_ + "/bad"));
}

TEST_F(CheckpointTest, PurgeKeepsTheLastHundred) {
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir_ + "/cp"));
  for (int64_t b = 0; b < 105; ++b) {
    ASSERT_OK(cp->WriteOffsets(b, OffsetSeq{0, b, {}, {"{}"}}));
    ASSERT_OK(cp->WriteCommit(b, {}));
  }
  ASSERT_OK(cp->Purge(104));
  ASSERT_OK_AND_ASSIGN(auto ids, cp->OffsetIds());
  EXPECT_EQ(ids.size(), 100u);
  EXPECT_EQ(ids.front(), 5);
  ASSERT_OK_AND_ASSIGN(RestartPlan p, cp->PlanRestart());
  EXPECT_EQ(p.batch_id, 105);
}

TEST_F(CheckpointTest, ReadsSparkKafkaCheckpoint) {
  WEIR_REQUIRE_CONFORMANCE(fixtures, "spark-checkpoints");
  std::string dir = CopyFixture(fixtures,
                                "spark-kafka-0-10-sql/structured-streaming/"
                                "checkpoint-version-2.4.3-kafka-include-headers-default");
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir));
  EXPECT_EQ(cp->query_id(), "fc415a71-f0a2-4c3c-aeaf-f9e258c3f726");
  ASSERT_OK_AND_ASSIGN(RestartPlan plan, cp->PlanRestart());
  EXPECT_EQ(plan.kind, RestartPlan::Kind::kNextBatch);
  EXPECT_EQ(plan.batch_id, 1);
  EXPECT_EQ(plan.start->batch_timestamp_ms, 1568508285207);
  EXPECT_EQ(plan.start->conf.at("spark.sql.shuffle.partitions"), "5");
  ASSERT_EQ(plan.start->sources.size(), 1u);
  EXPECT_NE(plan.start->sources[0]->find("\"2\":3"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto initial, cp->ReadInitialOffsets(0));
  ASSERT_TRUE(initial.has_value());
  EXPECT_EQ(initial->substr(0, 20), "{\"spark-test-topic-2");
  // weir continues the query: the next offsets file is batch 1, readable as Spark writes it.
  OffsetSeq next = *plan.start;
  next.batch_timestamp_ms = 1568508290000;
  ASSERT_OK(cp->WriteOffsets(1, next));
  ASSERT_OK_AND_ASSIGN(RestartPlan rerun, cp->PlanRestart());
  EXPECT_EQ(rerun.kind, RestartPlan::Kind::kRerun);
  EXPECT_EQ(rerun.batch_id, 1);
}

// weir continuing a Spark query keeps the SQL confs Spark recorded (Spark re-applies them from the
// latest offsets file on restart; a changed shuffle partition count would orphan its state).
TEST_F(CheckpointTest, ContinuingASparkCheckpointKeepsItsConf) {
  WEIR_REQUIRE_CONFORMANCE(fixtures, "spark-checkpoints");
  std::string dir = CopyFixture(fixtures,
                                "spark-kafka-0-10-sql/structured-streaming/"
                                "checkpoint-version-2.4.3-kafka-include-headers-default");
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir));
  OffsetSeq next{
      0,
      1568508290000,
      {{"spark.sql.shuffle.partitions", "200"},
       {"spark.sql.streaming.multipleWatermarkPolicy", "min"},
       {"weir.flow", "bronze"}},
      {R"({"spark-test-topic-2b8619f5-d3c4-4c2d-b5d1-8d9d9458aa62":{"0":5,"1":5,"2":5,"3":5,"4":5}})"}};
  ASSERT_OK(cp->WriteOffsets(1, next));
  ASSERT_OK(cp->WriteCommit(1, {0}));
  ASSERT_OK(cp->WriteOffsets(2, next));
  for (int64_t id : {1, 2}) {
    ASSERT_OK_AND_ASSIGN(OffsetSeq written, cp->ReadOffsets(id));
    EXPECT_EQ(written.conf.at("spark.sql.shuffle.partitions"), "5") << id;
    EXPECT_EQ(written.conf.at("spark.sql.streaming.stateStore.providerClass"),
              "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider");
    EXPECT_EQ(written.conf.at("weir.flow"), "bronze");
    EXPECT_EQ(written.batch_timestamp_ms, 1568508290000);
  }
  // Byte layout as Spark writes it: "v1", the metadata line, one source line, no final newline.
  ASSERT_OK_AND_ASSIGN(std::string text, fs::ReadFileToString(&fs_, dir + "/offsets/1"));
  EXPECT_EQ(text.substr(0, 3), "v1\n");
  EXPECT_NE(text.back(), '\n');
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  ASSERT_OK_AND_ASSIGN(std::string commit, fs::ReadFileToString(&fs_, dir + "/commits/1"));
  EXPECT_EQ(commit, "v1\n{\"nextBatchWatermarkMs\":0}");
}

// A fresh checkpoint records the first batch's conf and keeps it.
TEST_F(CheckpointTest, FirstBatchConfIsKept) {
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir_ + "/cp"));
  ASSERT_OK(cp->WriteOffsets(0, {0, 1000, {{"spark.sql.shuffle.partitions", "7"}}, {"{}"}}));
  ASSERT_OK(cp->WriteCommit(0, {0}));
  ASSERT_OK_AND_ASSIGN(auto reopened, Checkpoint::Open(&fs_, dir_ + "/cp"));
  ASSERT_OK(
      reopened->WriteOffsets(1, {0, 2000, {{"spark.sql.shuffle.partitions", "200"}}, {"{}"}}));
  ASSERT_OK_AND_ASSIGN(OffsetSeq written, reopened->ReadOffsets(1));
  EXPECT_EQ(written.conf.at("spark.sql.shuffle.partitions"), "7");
}

TEST_F(CheckpointTest, SparkFixturesResumeAsExpected) {
  WEIR_REQUIRE_CONFORMANCE(fixtures, "spark-checkpoints");
  struct Case {
    const char* dir;
    RestartPlan::Kind kind;
    int64_t batch;
    bool corrupt;
  } cases[] = {
      {"spark-sql-core/structured-streaming/checkpoint-version-2.1.0", RestartPlan::Kind::kRerun, 1,
       false},
      {"spark-sql-core/structured-streaming/checkpoint-version-2.3.1-without-commit-log-metadata",
       RestartPlan::Kind::kNextBatch, 2, false},
      {"spark-sql-core/structured-streaming/checkpoint-version-2.3.1-for-multi-watermark-policy",
       RestartPlan::Kind::kNextBatch, 2, false},
      {"spark-sql-core/structured-streaming/checkpoint-test-offsetId-commitId-inconsistent",
       RestartPlan::Kind::kFresh, 0, true},
  };
  for (const auto& c : cases) {
    stdfs::remove_all(dir_ + "/copy");
    std::string dir = CopyFixture(fixtures, c.dir);
    ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir));
    auto plan = cp->PlanRestart();
    if (c.corrupt) {
      ASSERT_STATUS_CODE(kCorruption, plan);
      continue;
    }
    ASSERT_OK(plan.status());
    EXPECT_EQ(plan->kind, c.kind) << c.dir;
    EXPECT_EQ(plan->batch_id, c.batch) << c.dir;
  }
}

// Spark 4.0's commit log v2 (stateUniqueIds): read, not taken for damage. A stateful query's
// checkpoint (the fixture's `limit` query, RocksDB checkpoint format v2) is refused clearly; the
// same checkpoint with its state gone and empty stateUniqueIds (a stateless query) resumes.
TEST_F(CheckpointTest, SparkFourCommitLogV2IsReadAndStatefulQueriesAreRefused) {
  WEIR_REQUIRE_CONFORMANCE(fixtures, "spark-checkpoints");
  std::string dir = CopyFixture(
      fixtures, "spark-sql-core/structured-streaming/checkpoint-version-4.0.0-checkpoint-v2/rocksdb/limit");
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir));
  ASSERT_OK_AND_ASSIGN(CommitMetadata commit, cp->ReadCommit(3));
  EXPECT_TRUE(commit.has_state_unique_ids);
  ASSERT_OK_AND_ASSIGN(RestartPlan plan, cp->PlanRestart());
  EXPECT_EQ(plan.kind, RestartPlan::Kind::kNextBatch);
  EXPECT_EQ(plan.batch_id, 4);
  Status refused = cp->CheckNoSparkState();
  ASSERT_TRUE(refused.IsInvalidArgument()) << refused.ToString();
  EXPECT_NE(refused.message().find("Spark stateful query"), std::string::npos) << refused.ToString();
  EXPECT_NE(refused.message().find("new checkpoint"), std::string::npos) << refused.ToString();
  // Stateless: no state folder, and commits naming no state store checkpoints.
  stdfs::remove_all(dir + "/state");
  for (int b = 0; b <= 3; ++b) {
    ASSERT_OK(fs::WriteStringToFile(&fs_, dir + "/commits/" + std::to_string(b),
                                    "v2\n{\"nextBatchWatermarkMs\":0,\"stateUniqueIds\":{}}"));
  }
  ASSERT_OK_AND_ASSIGN(auto stateless, Checkpoint::Open(&fs_, dir));
  EXPECT_OK(stateless->CheckNoSparkState());
  ASSERT_OK_AND_ASSIGN(RestartPlan next, stateless->PlanRestart());
  EXPECT_EQ(next.batch_id, 4);
  // weir writes the next commit as v1, which Spark 4 reads too.
  ASSERT_OK(stateless->WriteOffsets(4, *next.start));
  ASSERT_OK(stateless->WriteCommit(4, {0}));
  ASSERT_OK_AND_ASSIGN(std::string text, fs::ReadFileToString(&fs_, dir + "/commits/4"));
  EXPECT_EQ(text.substr(0, 3), "v1\n");
}

TEST_F(CheckpointTest, ANewerLogVersionIsWrittenByANewerSparkNotDamaged) {
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(&fs_, dir_ + "/cp"));
  ASSERT_OK(cp->WriteOffsets(0, OffsetSeq{0, 1, {}, {"{}"}}));
  ASSERT_OK(fs_.CreateDirs(dir_ + "/cp/commits"));
  ASSERT_OK(fs::WriteStringToFile(&fs_, dir_ + "/cp/commits/0", "v3\n{\"nextBatchWatermarkMs\":0}"));
  auto commit = cp->ReadCommit(0);
  ASSERT_FALSE(commit.ok());
  EXPECT_NE(commit.status().message().find("newer version of Spark"), std::string::npos)
      << commit.status().ToString();
  EXPECT_EQ(commit.status().message().find("damaged:"), std::string::npos) << commit.status().ToString();
}

// A query holds its checkpoint's run lock while it lives: another process sees it (with its pid),
// this process does not count, and a lock goes with the process.
TEST_F(CheckpointTest, RunningQuerySeesTheRunLockOfAnotherProcess) {
  const std::string dir = dir_ + "/cp";
  ASSERT_OK_AND_ASSIGN(auto none, Checkpoint::RunningQuery(&fs_, dir));
  EXPECT_FALSE(none.has_value()) << "no folder: nothing runs";
  int ready[2], done[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(done), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // holds a checkpoint open until told to stop
    auto cp = Checkpoint::Open(&fs_, dir);
    char c = cp.ok() ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1) _exit(1);
    if (read(done[0], &c, 1) != 1) _exit(1);
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  ASSERT_OK_AND_ASSIGN(auto running, Checkpoint::RunningQuery(&fs_, dir));
  ASSERT_TRUE(running.has_value());
  EXPECT_NE(running->find("process " + std::to_string(child)), std::string::npos) << *running;
  EXPECT_NE(running->find(Checkpoint::kRunLockName), std::string::npos);
  {
    // This process opening (and closing) the same checkpoint changes nothing for the other one.
    ASSERT_OK_AND_ASSIGN(auto mine, Checkpoint::Open(&fs_, dir));
  }
  ASSERT_OK_AND_ASSIGN(running, Checkpoint::RunningQuery(&fs_, dir));
  EXPECT_TRUE(running.has_value());
  ASSERT_EQ(write(done[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_OK_AND_ASSIGN(running, Checkpoint::RunningQuery(&fs_, dir));
  EXPECT_FALSE(running.has_value()) << *running;
  // Our own lock does not count; a worker's checkpoint below workers/ is looked at too.
  ASSERT_OK_AND_ASSIGN(auto mine, Checkpoint::Open(&fs_, dir));
  ASSERT_OK_AND_ASSIGN(running, Checkpoint::RunningQuery(&fs_, dir));
  EXPECT_FALSE(running.has_value());
  for (int fd : {ready[0], ready[1], done[0], done[1]}) close(fd);
}

TEST_F(CheckpointTest, RunningQueryLooksAtWorkersCheckpoints) {
  const std::string dir = dir_ + "/cp";
  int ready[2], done[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(done), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto cp = Checkpoint::Open(&fs_, dir + "/workers/group-a/run-1");
    char c = cp.ok() ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1) _exit(1);
    if (read(done[0], &c, 1) != 1) _exit(1);
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_OK_AND_ASSIGN(auto running, Checkpoint::RunningQuery(&fs_, dir));
  ASSERT_TRUE(running.has_value());
  EXPECT_NE(running->find("workers/group-a/run-1"), std::string::npos) << *running;
  ASSERT_EQ(write(done[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  for (int fd : {ready[0], ready[1], done[0], done[1]}) close(fd);
}

}  // namespace
}  // namespace weir::stream
