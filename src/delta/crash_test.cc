// Crash consistency: an append (data files + commit + post-commit checkpoint) and a checkpoint
// (with log cleanup) are run through FaultInjectionFileSystem, failing every file system call in
// turn — with and without a simulated machine crash right after the failure. After each run the
// table must be exactly as before the operation or exactly as after it, never in between: every
// file the log references exists with its recorded size, and the rows match. Re-running the same
// append (same txn) then commits it exactly once.
#include <filesystem>

#include <gtest/gtest.h>

#include "delta/log_path.h"
#include "delta/table.h"
#include "delta/testing.h"
#include "fs/fault_injection_file_system.h"
#include "fs/local_file_system.h"

namespace weir::delta {
namespace {

using testing::BatchFromJson;
using testing::Ddl;
using testing::ScratchDir;
using testing::SortedRows;
namespace stdfs = std::filesystem;

fs::FileSystem* Local() { return fs::LocalFileSystem::Default(); }

const char* kSchema = "id INT, p STRING";

// The base table: version 2 with 2 rows, checkpoint interval 3 (so the append's version 3
// writes a checkpoint too), partitioned (new partition directories need syncing).
void MakeBaseTable(const std::string& root) {
  auto table = Table::Create(Local(), root, Ddl(kSchema), {"p"}, {{"delta.checkpointInterval", "3"}})
                   .ValueOrDie();
  for (int i = 1; i <= 2; ++i) {
    auto b = BatchFromJson(Ddl(kSchema), {"{\"id\":" + std::to_string(i) + ",\"p\":\"old\"}"}).ValueOrDie();
    ASSERT_OK(table->Append({b}).status());
  }
}

Result<CommitResult> RunAppend(fs::FileSystem* fs, const std::string& root) {
  WEIR_ASSIGN_OR_RETURN(auto table, Table::Open(fs, root));
  WEIR_ASSIGN_OR_RETURN(auto batch, BatchFromJson(Ddl(kSchema), {R"({"id":10,"p":"new/part"})",
                                                                 R"({"id":11,"p":null})"}));
  AppendOptions options;
  options.txns = {{"query", 7, std::nullopt}};
  return table->Append({batch}, options);
}

// Checks the table on the real disk: consistent, and either `before` or `after`.
void ExpectConsistent(const std::string& root, const std::vector<std::string>& before,
                      const std::vector<std::string>& after, const std::string& context,
                      bool* is_after) {
  auto snapshot = Snapshot::Load(Local(), root);
  ASSERT_TRUE(snapshot.ok()) << context << ": " << snapshot.status().ToString();
  for (const auto& [key, add] : (*snapshot)->files()) {
    auto path = ResolveDataFilePath(root, add->path).ValueOrDie();
    ASSERT_TRUE(stdfs::exists(path)) << context << ": missing " << add->path;
    ASSERT_EQ(static_cast<int64_t>(stdfs::file_size(path)), add->size) << context << ": " << add->path;
  }
  auto rows = SortedRows(*snapshot);
  ASSERT_TRUE(rows.ok()) << context << ": " << rows.status().ToString();
  if (*rows == before) {
    *is_after = false;
    EXPECT_EQ((*snapshot)->TxnVersion("query"), std::nullopt) << context;
  } else {
    ASSERT_EQ(*rows, after) << context << ": the table is neither before nor after the append";
    EXPECT_EQ((*snapshot)->TxnVersion("query"), 7) << context;
    *is_after = true;
  }
}

class CrashTest : public ::testing::TestWithParam<bool> {};

TEST_P(CrashTest, AppendIsAtomicAtEveryStep) {
  const bool crash = GetParam();
  ScratchDir dir;
  const std::string base = dir.Sub("base");
  MakeBaseTable(base);
  std::vector<std::string> before = SortedRows(Snapshot::Load(Local(), base).ValueOrDie()).ValueOrDie();

  // A clean run gives the "after" state and the number of calls to fail.
  const std::string clean = dir.Sub("clean");
  stdfs::copy(base, clean, stdfs::copy_options::recursive);
  fs::FaultInjectionFileSystem counting(Local());
  ASSERT_OK_AND_ASSIGN(auto clean_result, RunAppend(&counting, clean));
  ASSERT_TRUE(clean_result.checkpoint_written);
  const int64_t calls = counting.TotalCallCount();
  ASSERT_GT(calls, 20);
  std::vector<std::string> after = SortedRows(Snapshot::Load(Local(), clean).ValueOrDie()).ValueOrDie();
  ASSERT_EQ(after.size(), before.size() + 2);

  int committed = 0, not_committed = 0;
  for (int64_t k = 1; k <= calls; ++k) {
    const std::string root = dir.Sub("run" + std::to_string(k));
    stdfs::copy(base, root, stdfs::copy_options::recursive);
    fs::FaultInjectionFileSystem faulty(Local());
    faulty.FailNthCallOfAnyKind(k);
    auto result = RunAppend(&faulty, root);
    if (crash) ASSERT_OK(faulty.SimulateCrash());
    faulty.Reset();
    const std::string context = std::string(crash ? "crash" : "failure") + " at call " +
                                std::to_string(k) + " of " + std::to_string(calls);
    bool is_after = false;
    ExpectConsistent(root, before, after, context, &is_after);
    if (HasFatalFailure()) return;
    if (result.ok() && !crash) {
      EXPECT_TRUE(is_after) << context << ": reported success";
    }
    (is_after ? committed : not_committed)++;

    // Running the same micro-batch again commits it exactly once.
    auto rerun = RunAppend(&faulty, root);
    ASSERT_TRUE(rerun.ok()) << context << ": rerun: " << rerun.status().ToString();
    EXPECT_EQ(rerun->already_committed, is_after) << context;
    bool rerun_after = false;
    ExpectConsistent(root, before, after, context + ", rerun", &rerun_after);
    EXPECT_TRUE(rerun_after) << context;
    ASSERT_OK_AND_ASSIGN(auto final_snapshot, Snapshot::Load(Local(), root));
    EXPECT_EQ(final_snapshot->version(), 3) << context;
    stdfs::remove_all(root);
  }
  EXPECT_GT(committed, 0);
  EXPECT_GT(not_committed, 0);
}

TEST_P(CrashTest, CheckpointIsAtomicAtEveryStep) {
  const bool crash = GetParam();
  ScratchDir dir;
  const std::string base = dir.Sub("base");
  MakeBaseTable(base);
  {
    auto table = Table::Open(Local(), base).ValueOrDie();
    ASSERT_OK(table->Checkpoint().status());  // an older checkpoint and _last_checkpoint exist
    auto b = BatchFromJson(Ddl(kSchema), {R"({"id":3,"p":"x"})"}).ValueOrDie();
    ASSERT_OK(table->Append({b}).status());
  }
  auto base_snapshot = Snapshot::Load(Local(), base).ValueOrDie();
  std::vector<std::string> rows = SortedRows(base_snapshot).ValueOrDie();
  const int64_t version = base_snapshot->version();
  // Far in the future, so that the checkpoint also deletes the older log files.
  CheckpointOptions options;
  options.now_ms = NowMillis() + 40 * kMillisPerDay;

  const std::string clean = dir.Sub("clean");
  stdfs::copy(base, clean, stdfs::copy_options::recursive);
  fs::FaultInjectionFileSystem counting(Local());
  ASSERT_OK_AND_ASSIGN(auto clean_snapshot, Snapshot::Load(&counting, clean));
  counting.ResetCounters();
  ASSERT_OK_AND_ASSIGN(auto info, WriteCheckpoint(*clean_snapshot, options));
  ASSERT_GT(info.log_files_deleted, 0);
  const int64_t calls = counting.TotalCallCount();

  for (int64_t k = 1; k <= calls; ++k) {
    const std::string root = dir.Sub("run" + std::to_string(k));
    stdfs::copy(base, root, stdfs::copy_options::recursive);
    fs::FaultInjectionFileSystem faulty(Local());
    auto snapshot = Snapshot::Load(&faulty, root).ValueOrDie();
    faulty.FailNthCallOfAnyKind(k);
    (void)WriteCheckpoint(*snapshot, options);
    if (crash) ASSERT_OK(faulty.SimulateCrash());
    faulty.Reset();
    const std::string context = std::string(crash ? "crash" : "failure") + " at call " +
                                std::to_string(k) + " of " + std::to_string(calls);
    auto reloaded = Snapshot::Load(Local(), root);
    ASSERT_TRUE(reloaded.ok()) << context << ": " << reloaded.status().ToString();
    EXPECT_EQ((*reloaded)->version(), version) << context;
    EXPECT_EQ(SortedRows(*reloaded).ValueOrDie(), rows) << context;
    // A checkpoint file under its final name is always complete.
    const std::string cp = LogDirPath(root) + "/" + ClassicCheckpointFileName(version);
    if (stdfs::exists(cp)) {
      EXPECT_EQ((*reloaded)->checkpoint_version(), version) << context;
    }
    // Checkpointing again completes the job.
    auto again = Snapshot::Load(&faulty, root).ValueOrDie();
    ASSERT_OK(WriteCheckpoint(*again, options).status());
    auto final_snapshot = Snapshot::Load(Local(), root).ValueOrDie();
    EXPECT_EQ(final_snapshot->checkpoint_version(), version) << context;
    EXPECT_EQ(SortedRows(final_snapshot).ValueOrDie(), rows) << context;
    stdfs::remove_all(root);
  }
}

INSTANTIATE_TEST_SUITE_P(FailureOrCrash, CrashTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Crash" : "Failure"; });

// PutIfAbsent failing with an IOError leaves the outcome unknown: the committer reads the file
// back, and reports success only if its own commit is there.
TEST(CommitterFaultTest, UnknownPutOutcomeIsResolvedByReadingBack) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  MakeBaseTable(root);
  fs::FaultInjectionFileSystem faulty(Local());
  faulty.FailNthCall(fs::FileOp::kPutIfAbsent, 1);
  auto result = RunAppend(&faulty, root);
  ASSERT_STATUS_CODE(kIOError, result);
  EXPECT_NE(result.status().message().find("nothing was committed"), std::string::npos)
      << result.status().message();
  ASSERT_OK_AND_ASSIGN(auto s, Snapshot::Load(Local(), root));
  EXPECT_EQ(s->version(), 2);
}

}  // namespace
}  // namespace weir::delta
