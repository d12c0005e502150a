#include "delta/vacuum.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "delta/log_path.h"
#include "delta/optimize.h"
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

constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kDay = 24 * kHour;

void AppendRows(Table& table, const std::string& p, int first, int n) {
  std::vector<std::string> rows;
  for (int i = first; i < first + n; ++i) {
    rows.push_back("{\"id\":" + std::to_string(i) + ",\"p\":\"" + p + "\"}");
  }
  auto batch = BatchFromJson(table.snapshot()->schema(), rows).ValueOrDie();
  ASSERT_OK(table.Append({batch}).status());
}

std::set<std::string> DataFiles(const std::string& root) {
  std::set<std::string> out;
  for (const auto& e : stdfs::recursive_directory_iterator(root)) {
    std::string rel = stdfs::relative(e.path(), root).string();
    if (e.is_regular_file() && rel.rfind("_delta_log", 0) != 0) out.insert(rel);
  }
  return out;
}

std::vector<std::string> LiveFiles(const Snapshot& s) {
  std::vector<std::string> out;
  for (const auto& [k, add] : s.files()) out.push_back(DecodePathUri(add->path));
  return out;
}

// The commitInfo of commit `version` (the only action of a VACUUM commit).
CommitInfo CommitInfoOf(const std::string& root, int64_t version) {
  std::string path = LogDirPath(root) + "/" + CommitFileName(version);
  auto actions = ParseActions(fs::ReadFileToString(Local(), path).ValueOrDie(), path).ValueOrDie();
  EXPECT_EQ(actions.size(), 1u);
  return std::get<CommitInfo>(actions.at(0));
}

// A table whose six small files in p=a and p=b were compacted: the old files are tombstones.
struct Compacted {
  std::unique_ptr<Table> table;
  int64_t before_version = 0;  // the version before OPTIMIZE
  std::vector<std::string> old_files;
  int64_t optimized_at = 0;
};

Compacted MakeCompacted(const std::string& root) {
  Compacted c;
  c.table = Table::Create(Local(), root, Ddl("id BIGINT, p STRING"), {"p"}).ValueOrDie();
  for (int i = 0; i < 3; ++i) AppendRows(*c.table, "a", i * 10, 10);
  for (int i = 0; i < 3; ++i) AppendRows(*c.table, "b", 100 + i * 10, 10);
  c.before_version = c.table->snapshot()->version();
  c.old_files = LiveFiles(*c.table->snapshot());
  c.optimized_at = NowMillis();
  auto result = OptimizeTable(c.table->snapshot()).ValueOrDie();
  EXPECT_EQ(result.num_removed_files, 6);
  c.table->Refresh().ValueOrDie();
  return c;
}

TEST(VacuumTest, ShortRetentionIsRefusedUnlessTheCheckIsOff) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  Compacted c = MakeCompacted(root);
  VacuumOptions options;
  options.retention_ms = 0;
  auto refused = VacuumTable(c.table->snapshot(), options);
  ASSERT_STATUS_CODE(kInvalidArgument, refused);
  EXPECT_NE(refused.status().message().find("delta.deletedFileRetentionDuration (168 hours)"),
            std::string::npos)
      << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("--force-retention"), std::string::npos);
  EXPECT_EQ(DataFiles(root).size(), 8u);  // nothing deleted

  options.retention_ms = -1;
  options.retention_check = false;
  ASSERT_STATUS_CODE(kInvalidArgument, VacuumTable(c.table->snapshot(), options));

  // A longer retention than the table's is always allowed.
  options.retention_ms = 30 * kDay;
  options.retention_check = true;
  ASSERT_OK_AND_ASSIGN(auto longer, VacuumTable(c.table->snapshot(), options));
  EXPECT_TRUE(longer.files.empty());
}

TEST(VacuumTest, KeepsFilesOfVersionsWithinTheRetention) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  Compacted c = MakeCompacted(root);
  ASSERT_OK_AND_ASSIGN(auto old, Snapshot::Load(Local(), root, c.before_version));
  ASSERT_OK_AND_ASSIGN(auto old_rows, SortedRows(old));

  // Six days after OPTIMIZE, with the default seven-day retention: the old version still reads.
  VacuumOptions options;
  options.now_ms = c.optimized_at + 6 * kDay;
  ASSERT_OK_AND_ASSIGN(auto result, VacuumTable(c.table->snapshot(), options));
  EXPECT_TRUE(result.files.empty());
  EXPECT_EQ(result.retention_ms, 7 * kDay);
  ASSERT_OK_AND_ASSIGN(auto old_again, Snapshot::Load(Local(), root, c.before_version));
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(old_again));
  EXPECT_EQ(rows, old_rows);

  // Eight days after: the compacted-away files go, the live ones stay.
  options.now_ms = c.optimized_at + 8 * kDay;
  ASSERT_OK_AND_ASSIGN(auto later, VacuumTable(c.table->snapshot(), options));
  std::vector<std::string> expected = c.old_files;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(later.files, expected);
  EXPECT_GT(later.bytes, 0);
  auto live = LiveFiles(*c.table->snapshot());
  EXPECT_EQ(DataFiles(root), std::set<std::string>(live.begin(), live.end()));
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(Local(), root));
  ASSERT_OK_AND_ASSIGN(auto latest_rows, SortedRows(latest));
  EXPECT_EQ(latest_rows, old_rows);
  // VACUUM START and VACUUM END were recorded.
  ASSERT_GE(later.start_version, 0);
  EXPECT_EQ(later.end_version, later.start_version + 1);
  CommitInfo start = CommitInfoOf(root, later.start_version);
  EXPECT_EQ(start.operation, "VACUUM START");
  EXPECT_EQ(start.operation_parameters.at("defaultRetentionMillis"), std::to_string(7 * kDay));
  EXPECT_EQ(start.operation_parameters.at("retentionCheckEnabled"), "true");
  EXPECT_EQ(start.operation_metrics.at("numFilesToDelete"), "6");
  EXPECT_EQ(start.operation_metrics.at("sizeOfDataToDelete"), std::to_string(later.bytes));
  CommitInfo end = CommitInfoOf(root, later.end_version);
  EXPECT_EQ(end.operation, "VACUUM END");
  EXPECT_EQ(end.operation_parameters.at("status"), "COMPLETED");
  EXPECT_EQ(end.operation_metrics.at("numDeletedFiles"), "6");
  EXPECT_EQ(latest->num_files(), 2);
}

TEST(VacuumTest, DryRunListsAndDeletesNothing) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  Compacted c = MakeCompacted(root);
  auto files_before = DataFiles(root);
  int64_t version_before = c.table->snapshot()->version();
  VacuumOptions options;
  options.dry_run = true;
  options.now_ms = c.optimized_at + 8 * kDay;
  ASSERT_OK_AND_ASSIGN(auto result, VacuumTable(c.table->snapshot(), options));
  EXPECT_EQ(result.files.size(), 6u);
  EXPECT_EQ(result.start_version, -1);
  EXPECT_EQ(DataFiles(root), files_before);
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(Local(), root));
  EXPECT_EQ(latest->version(), version_before);
}

TEST(VacuumTest, UntrackedFilesGoOnlyOnceOlderThanTheRetention) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = Table::Create(Local(), root, Ddl("id BIGINT, p STRING"), {"p"}).ValueOrDie();
  AppendRows(*table, "a", 0, 5);
  // An uncommitted file (a writer still working, or one that crashed), hidden files, and a file
  // in a hidden directory.
  ASSERT_OK(fs::WriteStringToFile(Local(), root + "/p=a/part-00000-orphan.c000.zstd.parquet", "x"));
  ASSERT_OK(fs::WriteStringToFile(Local(), root + "/.hidden", "x"));
  ASSERT_OK(fs::WriteStringToFile(Local(), root + "/p=a/_SUCCESS", "x"));
  ASSERT_OK(Local()->CreateDirs(root + "/_staging"));
  ASSERT_OK(fs::WriteStringToFile(Local(), root + "/_staging/part-1.parquet", "x"));

  VacuumOptions options;
  ASSERT_OK_AND_ASSIGN(auto now, VacuumTable(table->snapshot(), options));
  EXPECT_TRUE(now.files.empty());  // everything is new

  options.now_ms = NowMillis() + 8 * kDay;
  ASSERT_OK_AND_ASSIGN(auto later, VacuumTable(table->snapshot(), options));
  EXPECT_EQ(later.files, std::vector<std::string>{"p=a/part-00000-orphan.c000.zstd.parquet"});
  EXPECT_TRUE(stdfs::exists(root + "/.hidden"));
  EXPECT_TRUE(stdfs::exists(root + "/p=a/_SUCCESS"));
  EXPECT_TRUE(stdfs::exists(root + "/_staging/part-1.parquet"));
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(table->snapshot()));
  EXPECT_EQ(rows.size(), 5u);
}

TEST(VacuumTest, DeletesDirectoriesLeftEmpty) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = Table::Create(Local(), root, Ddl("id BIGINT, p STRING"), {"p"}).ValueOrDie();
  AppendRows(*table, "a", 0, 5);
  AppendRows(*table, "x", 10, 5);
  // Delete partition x's data.
  Transaction txn(table->snapshot());
  for (const auto& [k, add] : table->snapshot()->files()) {
    if (add->partition_values.at("p") == "x") ASSERT_OK(txn.RemoveLiveFile(add->path, true));
  }
  ASSERT_OK(txn.Commit().status());
  ASSERT_OK(table->Refresh().status());
  VacuumOptions options;
  options.now_ms = NowMillis() + 8 * kDay;
  ASSERT_OK_AND_ASSIGN(auto result, VacuumTable(table->snapshot(), options));
  EXPECT_EQ(result.files.size(), 1u);
  EXPECT_EQ(result.directories_deleted, 1);
  EXPECT_FALSE(stdfs::exists(root + "/p=x"));
  EXPECT_TRUE(stdfs::exists(root + "/p=a"));
  EXPECT_TRUE(stdfs::exists(root + "/_delta_log"));
}

TEST(VacuumTest, RetentionFromTheTableProperty) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = Table::Create(Local(), root, Ddl("id BIGINT, p STRING"), {"p"},
                             {{"delta.deletedFileRetentionDuration", "interval 1 hour"}})
                   .ValueOrDie();
  AppendRows(*table, "a", 0, 5);
  AppendRows(*table, "a", 5, 5);
  ASSERT_OK(OptimizeTable(table->snapshot()).status());
  ASSERT_OK(table->Refresh().status());
  VacuumOptions options;
  options.now_ms = NowMillis() + 2 * kHour;
  ASSERT_OK_AND_ASSIGN(auto result, VacuumTable(table->snapshot(), options));
  EXPECT_EQ(result.retention_ms, kHour);
  EXPECT_EQ(result.files.size(), 2u);
  // 30 minutes is below the table's hour.
  options.retention_ms = kHour / 2;
  ASSERT_STATUS_CODE(kInvalidArgument, VacuumTable(table->snapshot(), options));
}

TEST(VacuumTest, KeepsFilesTheLogNamesByAbsoluteUri) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = Table::Create(Local(), root, Ddl("id BIGINT"), {}).ValueOrDie();
  ASSERT_OK(fs::WriteStringToFile(Local(), root + "/absolute.parquet", "x"));
  ASSERT_OK(fs::WriteStringToFile(Local(), root + "/orphan.parquet", "x"));
  AddFile add;
  add.path = "file://" + root + "/absolute.parquet";
  add.size = 1;
  add.modification_time = NowMillis();
  Transaction txn(table->snapshot());
  txn.AddFile(add);
  ASSERT_OK(txn.Commit().status());
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(Local(), root));
  VacuumOptions options;
  options.now_ms = NowMillis() + 8 * kDay;
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(auto result, VacuumTable(snapshot, options));
  EXPECT_EQ(result.files, std::vector<std::string>{"orphan.parquet"});

  // A URI of another scheme cannot be compared with the folder: refused.
  add.path = "s3://bucket/t/remote.parquet";
  Transaction remote(snapshot);
  remote.AddFile(add);
  ASSERT_OK(remote.Commit().status());
  ASSERT_OK_AND_ASSIGN(snapshot, Snapshot::Load(Local(), root));
  ASSERT_STATUS_CODE(kNotImplemented, VacuumTable(snapshot, options));
}

// VACUUM through a file system that fails each call in turn: the latest version always reads
// the same rows, and running it again finishes the work.
TEST(VacuumTest, FailureAtEveryStepLeavesTheLatestVersionReadable) {
  ScratchDir dir;
  const std::string base = dir.Sub("base");
  Compacted c = MakeCompacted(base);
  const auto rows = SortedRows(Snapshot::Load(Local(), base).ValueOrDie()).ValueOrDie();
  const auto live = LiveFiles(*Snapshot::Load(Local(), base).ValueOrDie());
  VacuumOptions options;
  options.now_ms = c.optimized_at + 8 * kDay;
  fs::FaultInjectionFileSystem counting(Local());
  {
    const std::string clean = dir.Sub("clean");
    stdfs::copy(base, clean, stdfs::copy_options::recursive);
    ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(&counting, clean));
    counting.ResetCounters();
    ASSERT_OK_AND_ASSIGN(auto result, VacuumTable(snapshot, options));
    ASSERT_EQ(result.files.size(), 6u);
  }
  const int64_t calls = counting.TotalCallCount();
  ASSERT_GT(calls, 6);
  for (int64_t k = 1; k <= calls; ++k) {
    const std::string root = dir.Sub("run" + std::to_string(k));
    stdfs::copy(base, root, stdfs::copy_options::recursive);
    fs::FaultInjectionFileSystem faulty(Local());
    auto snapshot = Snapshot::Load(&faulty, root).ValueOrDie();
    faulty.FailNthCallOfAnyKind(k);
    auto result = VacuumTable(snapshot, options);
    faulty.Reset();
    const std::string context =
        "failure at call " + std::to_string(k) + " of " + std::to_string(calls);
    ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(Local(), root));
    ASSERT_OK_AND_ASSIGN(auto read, SortedRows(latest));
    ASSERT_EQ(read, rows) << context;
    auto rerun = VacuumTable(latest, options);
    ASSERT_TRUE(rerun.ok()) << context << ": " << rerun.status().ToString();
    EXPECT_EQ(DataFiles(root), std::set<std::string>(live.begin(), live.end())) << context;
    stdfs::remove_all(root);
  }
}

TEST(VacuumTest, KeepsLiveFilesInEscapedPartitionDirectories) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = Table::Create(Local(), root, Ddl("id BIGINT, p STRING"), {"p"}).ValueOrDie();
  AppendRows(*table, "a b/c%d=e", 0, 3);  // directory p=a b%2Fc%25d%3De, URI-encoded in the log
  AppendRows(*table, "é", 3, 3);
  VacuumOptions options;
  options.now_ms = NowMillis() + 30 * kDay;
  ASSERT_OK_AND_ASSIGN(auto result, VacuumTable(table->snapshot(), options));
  EXPECT_TRUE(result.files.empty());
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(table->snapshot()));
  EXPECT_EQ(rows.size(), 6u);
}

TEST(VacuumTest, HiddenNames) {
  std::vector<std::string> partitions = {"_date", "p"};
  EXPECT_TRUE(IsHiddenForVacuum("_delta_log", partitions));
  EXPECT_TRUE(IsHiddenForVacuum(".weir-tmp-x", partitions));
  EXPECT_TRUE(IsHiddenForVacuum("_SUCCESS", partitions));
  EXPECT_FALSE(IsHiddenForVacuum("_date=2024-01-01", partitions));
  EXPECT_FALSE(IsHiddenForVacuum("_change_data", partitions));
  EXPECT_FALSE(IsHiddenForVacuum("p=1", partitions));
  EXPECT_FALSE(IsHiddenForVacuum("part-0.parquet", partitions));
}

}  // namespace
}  // namespace weir::delta
