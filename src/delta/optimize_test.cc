#include "delta/optimize.h"

#include <gtest/gtest.h>

#include <filesystem>

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

const char* kSchema = "id BIGINT, v STRING, p STRING";

using testing::ActionsOf;
using testing::ReadCommit;

// Appends `n` rows (ids from `first`) to partition `p` as one commit (one file).
void AppendRows(Table& table, const std::string& p, int first, int n) {
  std::vector<std::string> rows;
  for (int i = first; i < first + n; ++i) {
    rows.push_back("{\"id\":" + std::to_string(i) + ",\"v\":\"value " + std::to_string(i) +
                   "\",\"p\":\"" + p + "\"}");
  }
  auto batch = BatchFromJson(table.snapshot()->schema(), rows).ValueOrDie();
  auto result = table.Append({batch});
  ASSERT_OK(result.status());
}

int CountDataFiles(const std::string& root) {
  int n = 0;
  for (const auto& e : stdfs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".parquet" &&
        e.path().string().find("_delta_log") == std::string::npos) {
      ++n;
    }
  }
  return n;
}

// A table with 10 small files in p=a, 5 in p=b and 1 in p=c.
std::unique_ptr<Table> SmallFilesTable(const std::string& root, StringMap properties = {}) {
  auto table = Table::Create(Local(), root, Ddl(kSchema), {"p"}, properties).ValueOrDie();
  int id = 0;
  for (int i = 0; i < 10; ++i, id += 20) AppendRows(*table, "a", id, 20);
  for (int i = 0; i < 5; ++i, id += 20) AppendRows(*table, "b", id, 20);
  AppendRows(*table, "c", id, 20);
  return table;
}

TEST(OptimizeTest, CompactsSmallFilesPerPartitionWithoutChangingRows) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = SmallFilesTable(root);
  auto before = table->snapshot();
  ASSERT_EQ(before->num_files(), 16);
  ASSERT_OK_AND_ASSIGN(auto rows_before, SortedRows(before));

  ASSERT_OK_AND_ASSIGN(OptimizeResult result, OptimizeTable(before));
  EXPECT_EQ(result.version, before->version() + 1);
  EXPECT_EQ(result.read_version, before->version());
  EXPECT_EQ(result.num_removed_files, 15);  // p=c's single file is left alone
  EXPECT_EQ(result.num_added_files, 2);
  EXPECT_EQ(result.num_bins, 2);
  EXPECT_EQ(result.num_partitions, 2);
  EXPECT_EQ(result.num_rows, 300);
  EXPECT_EQ(result.attempts, 1);

  ASSERT_OK_AND_ASSIGN(auto after, Snapshot::Load(Local(), root));
  EXPECT_EQ(after->num_files(), 3);
  ASSERT_OK_AND_ASSIGN(auto rows_after, SortedRows(after));
  EXPECT_EQ(rows_after, rows_before);

  auto actions = ReadCommit(root, result.version);
  auto removes = ActionsOf<RemoveFile>(actions);
  auto adds = ActionsOf<AddFile>(actions);
  ASSERT_EQ(removes.size(), 15u);
  ASSERT_EQ(adds.size(), 2u);
  for (const auto& r : removes) {
    EXPECT_FALSE(r.data_change);
    EXPECT_TRUE(r.deletion_timestamp.has_value());
    ASSERT_TRUE(r.partition_values.has_value());
    EXPECT_NE((*r.partition_values).at("p"), "c");
  }
  int64_t rows = 0;
  for (const auto& a : adds) {
    EXPECT_FALSE(a.data_change);
    ASSERT_TRUE(a.NumRecords().has_value()) << a.path;  // statistics written
    rows += *a.NumRecords();
    EXPECT_NE(a.stats->find("minValues"), std::string::npos);
  }
  EXPECT_EQ(rows, 300);
  auto infos = ActionsOf<CommitInfo>(actions);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].operation, "OPTIMIZE");
  EXPECT_EQ(infos[0].operation_parameters.at("predicate"), "[]");
  EXPECT_EQ(infos[0].operation_parameters.at("zOrderBy"), "[]");
  EXPECT_EQ(infos[0].operation_parameters.at("auto"), "false");
  EXPECT_EQ(infos[0].is_blind_append, false);
  const StringMap& metrics = infos[0].operation_metrics;
  EXPECT_EQ(metrics.at("numRemovedFiles"), "15");
  EXPECT_EQ(metrics.at("numAddedFiles"), "2");
  EXPECT_EQ(metrics.at("numRemovedBytes"), std::to_string(result.num_removed_bytes));
  EXPECT_EQ(metrics.at("numAddedBytes"), std::to_string(result.num_added_bytes));
  EXPECT_EQ(metrics.at("totalConsideredFiles"), "16");
  EXPECT_EQ(metrics.at("totalFilesSkipped"), "1");
  EXPECT_EQ(std::stoll(metrics.at("minFileSize")) + std::stoll(metrics.at("maxFileSize")),
            result.num_added_bytes);

  // Nothing left to do: no commit.
  ASSERT_OK_AND_ASSIGN(OptimizeResult again, OptimizeTable(after));
  EXPECT_EQ(again.version, -1);
  EXPECT_EQ(again.num_removed_files, 0);
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(Local(), root));
  EXPECT_EQ(latest->version(), after->version());

  // The previous version still reads the old files (time travel).
  ASSERT_OK_AND_ASSIGN(auto old, Snapshot::Load(Local(), root, before->version()));
  ASSERT_OK_AND_ASSIGN(auto rows_old, SortedRows(old));
  EXPECT_EQ(rows_old, rows_before);
}

TEST(OptimizeTest, WhereSelectsPartitions) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = SmallFilesTable(root);
  OptimizeOptions options;
  options.where = "p = 'b'";
  ASSERT_OK_AND_ASSIGN(OptimizeResult result, OptimizeTable(table->snapshot(), options));
  EXPECT_EQ(result.num_removed_files, 5);
  EXPECT_EQ(result.num_added_files, 1);
  auto infos = ActionsOf<CommitInfo>(ReadCommit(root, result.version));
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].operation_parameters.at("predicate"), "[\"(p = 'b')\"]");
  ASSERT_OK_AND_ASSIGN(auto after, Snapshot::Load(Local(), root));
  EXPECT_EQ(after->num_files(), 10 + 1 + 1);

  options.where = "id = 3";
  ASSERT_STATUS_CODE(kInvalidArgument, OptimizeTable(after, options));
  options.where = "p = 'a' OR p = 'b'";
  ASSERT_STATUS_CODE(kInvalidArgument, OptimizeTable(after, options));
  options.where = "p = ";
  ASSERT_STATUS_CODE(kInvalidArgument, OptimizeTable(after, options));
  options.where = "p = 'nothing'";
  ASSERT_OK_AND_ASSIGN(OptimizeResult none, OptimizeTable(after, options));
  EXPECT_EQ(none.version, -1);
}

TEST(OptimizeTest, PartitionPredicateComparesTypedValues) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(
      auto table,
      Table::Create(Local(), root, Ddl("id BIGINT, n INT, d DATE, s STRING"), {"n", "d", "s"}));
  const Snapshot& s = *table->snapshot();
  PartitionValues values = {{"n", "3"}, {"d", "2024-05-01"}, {"s", std::nullopt}};
  auto matches = [&](const std::string& text) {
    auto p = PartitionPredicate::Parse(text, s);
    EXPECT_TRUE(p.ok()) << text << ": " << p.status().ToString();
    return p.ok() && p->Matches(values);
  };
  EXPECT_TRUE(matches("n = 3"));
  EXPECT_TRUE(matches("n = '03'"));
  EXPECT_TRUE(matches("N = 3 AND d = DATE '2024-05-01' AND s IS NULL"));
  EXPECT_TRUE(matches("(n = 3) and (`d` = '2024-05-01')"));
  EXPECT_FALSE(matches("n = 4"));
  EXPECT_FALSE(matches("s = 'x'"));
  EXPECT_TRUE(matches(""));
  auto bad_value = PartitionPredicate::Parse("n = 'abc'", s);
  ASSERT_STATUS_CODE(kInvalidArgument, bad_value);
  EXPECT_NE(bad_value.status().message().find("INT"), std::string::npos);
  ASSERT_STATUS_CODE(kInvalidArgument, PartitionPredicate::Parse("id = 1", s));
  ASSERT_STATUS_CODE(kInvalidArgument, PartitionPredicate::Parse("n > 1", s));
  ASSERT_OK_AND_ASSIGN(auto p, PartitionPredicate::Parse("n = '03' AND s IS NULL", s));
  EXPECT_EQ(p.text(), "(n = '3') AND (s IS NULL)");
}

TEST(OptimizeTest, TargetSizeMakesSeveralBins) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, Ddl(kSchema), {"p"}));
  for (int i = 0; i < 9; ++i) AppendRows(*table, "a", i * 20, 20);
  int64_t largest = 0;
  for (const auto& [k, add] : table->snapshot()->files()) largest = std::max(largest, add->size);
  OptimizeOptions options;
  options.target_file_size = largest * 3 + largest / 2;  // three files per bin
  options.min_file_size = largest + 1;
  ASSERT_OK_AND_ASSIGN(OptimizeResult result, OptimizeTable(table->snapshot(), options));
  EXPECT_EQ(result.num_bins, 3);
  EXPECT_EQ(result.num_removed_files, 9);
  EXPECT_GE(result.num_added_files, 3);
  ASSERT_OK_AND_ASSIGN(auto after, Snapshot::Load(Local(), root));
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(after));
  EXPECT_EQ(rows.size(), 180u);

  options.target_file_size = 0;
  ASSERT_STATUS_CODE(kInvalidArgument, OptimizeTable(after, options));
}

TEST(OptimizeTest, ConcurrentBlindAppendDoesNotConflict) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = SmallFilesTable(root);
  auto stale = table->snapshot();
  // Another writer appends after OPTIMIZE read the table.
  ASSERT_OK_AND_ASSIGN(auto other, Table::Open(Local(), root));
  AppendRows(*other, "a", 1000, 7);
  ASSERT_OK_AND_ASSIGN(OptimizeResult result, OptimizeTable(stale));
  EXPECT_EQ(result.version, stale->version() + 2);  // retried after the append
  EXPECT_EQ(result.attempts, 1);
  ASSERT_OK_AND_ASSIGN(auto after, Snapshot::Load(Local(), root));
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(after));
  EXPECT_EQ(rows.size(), 320u + 7u);
  // The appended file is live next to the compacted ones.
  EXPECT_EQ(after->num_files(), 2 + 1 + 1);
}

TEST(OptimizeTest, ConcurrentRemoveOfARewrittenFileConflictsOrReplans) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = SmallFilesTable(root);
  auto stale = table->snapshot();
  int files_before = CountDataFiles(root);
  // Another writer deletes one of p=a's files after OPTIMIZE read the table.
  std::string victim;
  for (const auto& [k, add] : stale->files()) {
    if (add->partition_values.at("p") == "a") victim = add->path;
  }
  Transaction remove(stale);
  ASSERT_OK(remove.RemoveLiveFile(victim, /*data_change=*/true));
  ASSERT_OK_AND_ASSIGN(auto removed, remove.Commit());

  OptimizeOptions once;
  once.max_attempts = 1;
  auto failed = OptimizeTable(stale, once);
  ASSERT_STATUS_CODE(kConflict, failed);
  EXPECT_NE(failed.status().message().find(victim), std::string::npos)
      << failed.status().ToString();
  EXPECT_EQ(CountDataFiles(root), files_before);  // its new files were deleted
  ASSERT_OK_AND_ASSIGN(auto unchanged, Snapshot::Load(Local(), root));
  EXPECT_EQ(unchanged->version(), removed.version);

  ASSERT_OK_AND_ASSIGN(auto rows_expected, SortedRows(unchanged));
  ASSERT_OK_AND_ASSIGN(OptimizeResult result, OptimizeTable(stale));  // replans on the new version
  EXPECT_EQ(result.attempts, 2);
  EXPECT_EQ(result.read_version, removed.version);
  EXPECT_EQ(result.num_removed_files, 9 + 5);
  ASSERT_OK_AND_ASSIGN(auto after, Snapshot::Load(Local(), root));
  ASSERT_OK_AND_ASSIGN(auto rows_after, SortedRows(after));
  EXPECT_EQ(rows_after, rows_expected);
}

TEST(OptimizeTest, AppendOnlyTableMayBeCompacted) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = SmallFilesTable(root, {{"delta.appendOnly", "true"}});
  ASSERT_OK_AND_ASSIGN(OptimizeResult result, OptimizeTable(table->snapshot()));
  EXPECT_EQ(result.num_removed_files, 15);
}

// OPTIMIZE through a file system that fails (and, with the parameter, crashes right after) each
// call in turn: the table always reads the same rows, every file the log references exists with
// its size, and a clean re-run then compacts it.
class OptimizeFaultTest : public ::testing::TestWithParam<bool> {};

void ExpectIntact(const std::string& root, const std::vector<std::string>& rows,
                  const std::string& context) {
  auto snapshot = Snapshot::Load(Local(), root);
  ASSERT_TRUE(snapshot.ok()) << context << ": " << snapshot.status().ToString();
  for (const auto& [key, add] : (*snapshot)->files()) {
    auto path = ResolveDataFilePath(root, add->path).ValueOrDie();
    ASSERT_TRUE(stdfs::exists(path)) << context << ": missing " << add->path;
    ASSERT_EQ(static_cast<int64_t>(stdfs::file_size(path)), add->size) << context;
  }
  auto read = SortedRows(*snapshot);
  ASSERT_TRUE(read.ok()) << context << ": " << read.status().ToString();
  ASSERT_EQ(*read, rows) << context << ": OPTIMIZE changed the rows";
}

TEST_P(OptimizeFaultTest, RowsSurviveAFailureAtEveryStep) {
  const bool crash = GetParam();
  ScratchDir dir;
  const std::string base = dir.Sub("base");
  {
    // Checkpoint interval 5: the OPTIMIZE commit (version 5) also writes a checkpoint.
    auto table =
        Table::Create(Local(), base, Ddl(kSchema), {"p"}, {{"delta.checkpointInterval", "5"}})
            .ValueOrDie();
    for (int i = 0; i < 4; ++i) AppendRows(*table, "a", i * 5, 5);
  }
  const std::vector<std::string> rows =
      SortedRows(Snapshot::Load(Local(), base).ValueOrDie()).ValueOrDie();
  fs::FaultInjectionFileSystem counting(Local());
  {
    const std::string clean = dir.Sub("clean");
    stdfs::copy(base, clean, stdfs::copy_options::recursive);
    ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(&counting, clean));
    counting.ResetCounters();
    ASSERT_OK_AND_ASSIGN(auto result, OptimizeTable(snapshot));
    ASSERT_EQ(result.version, 5);
    ASSERT_TRUE(result.checkpoint_written);
  }
  const int64_t calls = counting.TotalCallCount();
  ASSERT_GT(calls, 10);
  int succeeded = 0, failed = 0;
  for (int64_t k = 1; k <= calls; ++k) {
    const std::string root = dir.Sub("run" + std::to_string(k));
    stdfs::copy(base, root, stdfs::copy_options::recursive);
    fs::FaultInjectionFileSystem faulty(Local());
    auto snapshot = Snapshot::Load(&faulty, root).ValueOrDie();
    faulty.FailNthCallOfAnyKind(k);
    auto result = OptimizeTable(snapshot);
    if (crash) ASSERT_OK(faulty.SimulateCrash());
    faulty.Reset();
    const std::string context = std::string(crash ? "crash" : "failure") + " at call " +
                                std::to_string(k) + " of " + std::to_string(calls);
    ExpectIntact(root, rows, context);
    if (HasFatalFailure()) return;
    (result.ok() ? succeeded : failed)++;
    // A clean re-run finishes the job (or finds it done).
    ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(Local(), root));
    ASSERT_OK(OptimizeTable(latest).status());
    ExpectIntact(root, rows, context + ", rerun");
    ASSERT_OK_AND_ASSIGN(auto final_snapshot, Snapshot::Load(Local(), root));
    EXPECT_EQ(final_snapshot->num_files(), 1) << context;
    stdfs::remove_all(root);
  }
  EXPECT_GT(failed, 0);
}

INSTANTIATE_TEST_SUITE_P(FailureAndCrash, OptimizeFaultTest, ::testing::Bool());

// A copy of `source`'s table at `root` whose version 0 carries extra properties (Table::Create
// validates delta.* keys strictly; tables written by Databricks may hold keys weir does not set).
void CreateWithProperties(const std::string& root, const StringMap& properties) {
  ScratchDir scratch;
  ASSERT_OK(Table::Create(Local(), scratch.Sub("t"), Ddl(kSchema), {"p"}).status());
  auto actions = ReadCommit(scratch.Sub("t"), 0);
  for (auto& a : actions) {
    if (auto* m = std::get_if<Metadata>(&a)) {
      for (const auto& [k, v] : properties) m->configuration[k] = v;
    }
  }
  ASSERT_OK(Local()->CreateDirs(LogDirPath(root)));
  ASSERT_OK(
      Local()->PutIfAbsent(LogDirPath(root) + "/" + CommitFileName(0), SerializeActions(actions)));
}

TEST(AutoCompactTest, Settings) {
  ASSERT_OK_AND_ASSIGN(auto off, ParseAutoCompactSettings({}));
  EXPECT_FALSE(off.enabled);
  EXPECT_EQ(off.min_num_files, 50);
  EXPECT_EQ(off.max_file_size, 128LL << 20);
  ASSERT_OK_AND_ASSIGN(auto on,
                       ParseAutoCompactSettings({{"delta.autoOptimize.autoCompact", "Auto"}}));
  EXPECT_TRUE(on.enabled);
  ASSERT_OK_AND_ASSIGN(
      auto session,
      ParseAutoCompactSettings({}, {{"spark.databricks.delta.autoCompact.enabled", "true"},
                                    {"spark.databricks.delta.autoCompact.minNumFiles", "4"},
                                    {"spark.databricks.delta.autoCompact.maxFileSize", "1mb"}}));
  EXPECT_TRUE(session.enabled);
  EXPECT_EQ(session.min_num_files, 4);
  EXPECT_EQ(session.max_file_size, 1LL << 20);
  // The table's own setting wins over the session's.
  ASSERT_OK_AND_ASSIGN(
      auto table_off,
      ParseAutoCompactSettings({{"delta.autoOptimize.autoCompact", "false"}},
                               {{"spark.databricks.delta.autoCompact.enabled", "true"}}));
  EXPECT_FALSE(table_off.enabled);
  ASSERT_STATUS_CODE(kInvalidArgument,
                     ParseAutoCompactSettings({{"delta.autoOptimize.autoCompact", "yes"}}));
  ASSERT_STATUS_CODE(
      kInvalidArgument,
      ParseAutoCompactSettings({}, {{"spark.databricks.delta.autoCompact.minNumFiles", "0"}}));
}

// The adds of the table's latest commit.
std::vector<AddFile> LastCommitAdds(const std::string& root) {
  auto latest = Snapshot::Load(Local(), root).ValueOrDie();
  return ActionsOf<AddFile>(ReadCommit(root, latest->version()));
}

TEST(AutoCompactTest, CompactsAPartitionOnceItHoldsEnoughSmallFiles) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  CreateWithProperties(root, {{"delta.autoOptimize.autoCompact", "true"}});
  ASSERT_OK_AND_ASSIGN(auto table, Table::Open(Local(), root));
  const StringMap settings = {{"spark.databricks.delta.autoCompact.minNumFiles", "5"}};
  AppendRows(*table, "b", 1000, 3);
  for (int i = 0; i < 4; ++i) {
    AppendRows(*table, "a", i * 10, 10);
    ASSERT_OK_AND_ASSIGN(auto none,
                         MaybeAutoCompact(table->snapshot(), LastCommitAdds(root), settings));
    EXPECT_FALSE(none.has_value()) << "after " << i + 1 << " files";
  }
  AppendRows(*table, "a", 40, 10);
  ASSERT_OK_AND_ASSIGN(auto rows_before, SortedRows(table->snapshot()));
  ASSERT_OK_AND_ASSIGN(auto done,
                       MaybeAutoCompact(table->snapshot(), LastCommitAdds(root), settings));
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->num_removed_files, 5);  // p=b was not written to: left alone
  EXPECT_EQ(done->num_added_files, 1);
  auto infos = ActionsOf<CommitInfo>(ReadCommit(root, done->version));
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].operation, "OPTIMIZE");
  EXPECT_EQ(infos[0].operation_parameters.at("auto"), "true");
  ASSERT_OK_AND_ASSIGN(auto after, Snapshot::Load(Local(), root));
  ASSERT_OK_AND_ASSIGN(auto rows_after, SortedRows(after));
  EXPECT_EQ(rows_after, rows_before);
  EXPECT_EQ(after->num_files(), 2);
}

TEST(AutoCompactTest, DisabledTableIsLeftAlone) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto table = SmallFilesTable(root);
  std::vector<AddFile> adds = {*table->snapshot()->files().begin()->second};
  ASSERT_OK_AND_ASSIGN(auto none,
                       MaybeAutoCompact(table->snapshot(), adds,
                                        {{"spark.databricks.delta.autoCompact.minNumFiles", "2"}}));
  EXPECT_FALSE(none.has_value());
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(Local(), root));
  EXPECT_EQ(latest->version(), table->snapshot()->version());
}

}  // namespace
}  // namespace weir::delta
