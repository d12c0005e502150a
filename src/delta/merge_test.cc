#include "delta/merge.h"

#include <gtest/gtest.h>

#include "delta/log_path.h"
#include "delta/table.h"
#include "delta/testing.h"
#include "fs/local_file_system.h"

namespace weir::delta {
namespace {

using testing::BatchFromJson;
using testing::Ddl;
using testing::ScratchDir;
using testing::SortedRows;

fs::FileSystem* Local() { return fs::LocalFileSystem::Default(); }

const char* kSchema = "id BIGINT, v STRING, seq INT, ts TIMESTAMP";

std::string Row(int64_t id, const std::string& v, int seq = 0,
                const std::string& ts = "2026-06-08T09:00:00Z") {
  return "{\"id\":" + std::to_string(id) + ",\"v\":\"" + v + "\",\"seq\":" + std::to_string(seq) +
         ",\"ts\":\"" + ts + "\"}";
}

// The scan's JSON form of Row().
std::string Scanned(int64_t id, const std::string& v, int seq = 0,
                    const std::string& ts = "2026-06-08T09:00:00.000000Z") {
  return "{\"id\":" + std::to_string(id) + ",\"v\":\"" + v + "\",\"seq\":" + std::to_string(seq) +
         ",\"ts\":\"" + ts + "\"}";
}

// A table whose files hold disjoint id ranges: file k holds ids 10k+1 .. 10k+3 (value "old"),
// one commit per file.
class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Sub("t");
    schema_ = Ddl(kSchema);
    ASSERT_OK_AND_ASSIGN(table_, Table::Create(Local(), root_, schema_, {}));
  }
  void AppendRows(const std::vector<std::string>& rows) {
    ASSERT_OK_AND_ASSIGN(auto batch, BatchFromJson(schema_, rows));
    ASSERT_OK(table_->Append({batch}).status());
  }
  void AppendFiles(int n) {
    for (int k = 0; k < n; ++k) {
      AppendRows({Row(10 * k + 1, "old"), Row(10 * k + 2, "old"), Row(10 * k + 3, "old")});
    }
  }
  columnar::Batch Source(const std::vector<std::string>& rows) {
    return BatchFromJson(schema_, rows).ValueOrDie();
  }
  std::shared_ptr<const Snapshot> Latest() { return Snapshot::Load(Local(), root_).ValueOrDie(); }

  ScratchDir dir_;
  std::string root_;
  columnar::Schema schema_;
  std::unique_ptr<Table> table_;
};

TEST_F(MergeTest, InsertOnlyAppendsUnmatchedRowsAndRewritesNothing) {
  AppendFiles(2);  // ids 1-3, 11-13
  MergeOptions options;
  options.keys = {"id"};
  ASSERT_OK_AND_ASSIGN(auto result,
                       MergeInto(Latest(), Source({Row(2, "new"), Row(12, "new"), Row(5, "new")}),
                                 options));
  EXPECT_TRUE(result.committed);
  EXPECT_EQ(result.commit.version, 3);
  EXPECT_EQ(result.metrics.num_target_rows_inserted, 1);
  EXPECT_EQ(result.metrics.num_target_rows_updated, 0);
  EXPECT_EQ(result.metrics.num_target_rows_matched_not_updated, 2);
  EXPECT_EQ(result.metrics.num_target_files_removed, 0);
  EXPECT_EQ(result.metrics.num_target_files_added, 1);
  EXPECT_EQ(result.metrics.num_target_files_before_skipping, 2);
  EXPECT_EQ(result.metrics.num_target_files_scanned, 2);
  auto snapshot = Latest();
  EXPECT_EQ(snapshot->num_files(), 3);
  EXPECT_TRUE(snapshot->tombstones().empty());
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(snapshot));
  EXPECT_EQ(rows, (std::vector<std::string>{Scanned(1, "old"), Scanned(11, "old"), Scanned(12, "old"),
                                            Scanned(13, "old"), Scanned(2, "old"), Scanned(3, "old"),
                                            Scanned(5, "new")}));
  // commitInfo: MERGE with its predicates and metrics; not a blind append.
  ASSERT_TRUE(snapshot->commit_info().has_value());
  const CommitInfo& ci = *snapshot->commit_info();
  EXPECT_EQ(ci.operation, "MERGE");
  EXPECT_EQ(ci.operation_parameters.at("predicate"), "[\"(t.id = s.id)\"]");
  EXPECT_EQ(ci.operation_parameters.at("matchedPredicates"), "[]");
  EXPECT_EQ(ci.operation_parameters.at("notMatchedPredicates"), "[{\"actionType\":\"insert\"}]");
  EXPECT_EQ(ci.operation_metrics.at("numTargetRowsInserted"), "1");
  EXPECT_EQ(ci.operation_metrics.at("numSourceRows"), "3");
  EXPECT_EQ(ci.operation_metrics.at("numTargetFilesRemoved"), "0");
  EXPECT_EQ(ci.is_blind_append, false);
}

TEST_F(MergeTest, UpdateRewritesOnlyFilesWithUpdatedRows) {
  AppendFiles(3);  // ids 1-3, 11-13, 21-23
  auto before = Latest();
  MergeOptions options;
  options.keys = {"id"};
  options.when_matched_update = true;
  ASSERT_OK_AND_ASSIGN(auto result,
                       MergeInto(before, Source({Row(12, "new", 1), Row(30, "ins", 1)}), options));
  EXPECT_EQ(result.metrics.num_target_rows_updated, 1);
  EXPECT_EQ(result.metrics.num_target_rows_copied, 2);
  EXPECT_EQ(result.metrics.num_target_rows_inserted, 1);
  EXPECT_EQ(result.metrics.num_target_files_removed, 1);
  EXPECT_EQ(result.metrics.num_target_files_added, 1);  // one writer: rewrite and inserts together
  // Keys IN (12, 30): only the file of 11-13 may hold them (21-23 is within the key range
  // [12, 30] but holds neither value).
  EXPECT_EQ(result.metrics.num_target_files_scanned, 1);
  auto after = Latest();
  ASSERT_EQ(after->tombstones().size(), 1u);
  const RemoveFile& removed = *after->tombstones().begin()->second;
  EXPECT_TRUE(removed.data_change);
  // The removed file is the one that held id 12 (the second commit's add).
  bool second_file = false;
  for (const auto& [k, add] : before->files()) second_file |= add->path == removed.path;
  EXPECT_TRUE(second_file);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(after));
  EXPECT_EQ(rows, (std::vector<std::string>{Scanned(1, "old"), Scanned(11, "old"), Scanned(12, "new", 1),
                                            Scanned(13, "old"), Scanned(2, "old"), Scanned(21, "old"),
                                            Scanned(22, "old"), Scanned(23, "old"), Scanned(3, "old"),
                                            Scanned(30, "ins", 1)}));
  EXPECT_EQ(after->commit_info()->operation_parameters.at("matchedPredicates"),
            "[{\"actionType\":\"update\"}]");
  EXPECT_EQ(after->commit_info()->operation_metrics.at("numTargetRowsCopied"), "2");
}

TEST_F(MergeTest, SourceIsDeduplicatedOnTheKeysKeepingTheLastOccurrence) {
  AppendFiles(1);  // ids 1-3
  MergeOptions options;
  options.keys = {"id"};
  options.when_matched_update = true;
  ASSERT_OK_AND_ASSIGN(
      auto result,
      MergeInto(Latest(),
                Source({Row(2, "first"), Row(7, "a"), Row(2, "second"), Row(7, "b"), Row(7, "c")}),
                options));
  EXPECT_EQ(result.metrics.num_source_rows, 5);
  EXPECT_EQ(result.metrics.num_source_duplicates, 3);
  EXPECT_EQ(result.metrics.num_target_rows_updated, 1);
  EXPECT_EQ(result.metrics.num_target_rows_inserted, 1);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(Latest()));
  EXPECT_EQ(rows, (std::vector<std::string>{Scanned(1, "old"), Scanned(2, "second"), Scanned(3, "old"),
                                            Scanned(7, "c")}));
}

TEST_F(MergeTest, InsertOnlyDeduplicatesAgainstTheTableAndWithinTheSource) {
  AppendFiles(1);
  MergeOptions options;
  options.keys = {"id"};
  ASSERT_OK_AND_ASSIGN(auto first, MergeInto(Latest(), Source({Row(3, "x"), Row(4, "x"), Row(4, "y")}),
                                             options));
  EXPECT_EQ(first.metrics.num_target_rows_inserted, 1);
  // Re-delivering the same rows (an overlap after a restart) adds nothing and commits nothing.
  ASSERT_OK_AND_ASSIGN(auto again, MergeInto(Latest(), Source({Row(3, "x"), Row(4, "y")}), options));
  EXPECT_FALSE(again.committed);
  EXPECT_EQ(again.metrics.num_target_rows_inserted, 0);
  EXPECT_EQ(again.commit.version, first.commit.version);
  EXPECT_EQ(Latest()->version(), first.commit.version);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(Latest()));
  EXPECT_EQ(rows, (std::vector<std::string>{Scanned(1, "old"), Scanned(2, "old"), Scanned(3, "old"),
                                            Scanned(4, "y")}));
}

TEST_F(MergeTest, NullKeysNeverMatch) {
  AppendRows({"{\"id\":null,\"v\":\"t\"}", Row(1, "old")});
  MergeOptions options;
  options.keys = {"id"};
  options.when_matched_update = true;
  ASSERT_OK_AND_ASSIGN(auto result, MergeInto(Latest(), Source({"{\"id\":null,\"v\":\"s\"}"}), options));
  EXPECT_EQ(result.metrics.num_target_rows_inserted, 1);
  EXPECT_EQ(result.metrics.num_target_rows_updated, 0);
  EXPECT_EQ(result.metrics.num_target_files_scanned, 0);  // no source key can match anything
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(Latest()));
  EXPECT_EQ(rows.size(), 3u);
  // Deduplication treats NULLs as equal but keeps (NULL, x) and (x, NULL) apart.
  options.keys = {"id", "seq"};
  ASSERT_OK_AND_ASSIGN(auto composite,
                       MergeInto(Latest(),
                                 Source({"{\"id\":null,\"seq\":1}", "{\"id\":1,\"seq\":null}",
                                         "{\"id\":null,\"seq\":1,\"v\":\"last\"}"}),
                                 options));
  EXPECT_EQ(composite.metrics.num_source_duplicates, 1);
  EXPECT_EQ(composite.metrics.num_target_rows_inserted, 2);
}

TEST_F(MergeTest, MatchedConditionDecidesPerRow) {
  AppendRows({Row(1, "old", 5), Row(2, "old", 5)});
  MergeOptions options;
  options.keys = {"id"};
  options.when_matched_update = true;
  // WHEN MATCHED AND s.seq > t.seq THEN UPDATE SET *
  int seq = schema_.FieldIndex("seq");
  options.matched_condition = [seq](const columnar::Batch& t, int64_t tr, const columnar::Batch& s,
                                    int64_t sr) {
    return s.columns[seq].Value<int32_t>(sr) > t.columns[seq].Value<int32_t>(tr);
  };
  options.matched_condition_sql = "s.seq > t.seq";
  ASSERT_OK_AND_ASSIGN(auto result,
                       MergeInto(Latest(), Source({Row(1, "newer", 6), Row(2, "older", 4)}), options));
  EXPECT_EQ(result.metrics.num_target_rows_updated, 1);
  EXPECT_EQ(result.metrics.num_target_rows_matched_not_updated, 1);
  EXPECT_EQ(result.metrics.num_target_rows_inserted, 0);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(Latest()));
  EXPECT_EQ(rows, (std::vector<std::string>{Scanned(1, "newer", 6), Scanned(2, "old", 5)}));
  EXPECT_EQ(Latest()->commit_info()->operation_parameters.at("matchedPredicates"),
            "[{\"actionType\":\"update\",\"predicate\":\"s.seq > t.seq\"}]");
}

TEST_F(MergeTest, StatisticsPruneFilesByKeyRangeAndPruneConditions) {
  AppendFiles(5);  // ids 1-3, 11-13, 21-23, 31-33, 41-43
  MergeOptions options;
  options.keys = {"id"};
  options.when_matched_update = true;
  ASSERT_OK_AND_ASSIGN(auto one, PreparedMerge::Prepare(Latest(), Source({Row(22, "n")}), options));
  EXPECT_EQ(one->metrics().num_target_files_before_skipping, 5);
  EXPECT_EQ(one->metrics().num_target_files_scanned, 1);
  // Keys 2 and 42: the IN set skips the three files between them.
  ASSERT_OK_AND_ASSIGN(auto two,
                       PreparedMerge::Prepare(Latest(), Source({Row(2, "n"), Row(42, "n")}), options));
  EXPECT_EQ(two->metrics().num_target_files_scanned, 2);
  // Without key pruning every file is read.
  options.prune_by_source_keys = false;
  ASSERT_OK_AND_ASSIGN(auto all, PreparedMerge::Prepare(Latest(), Source({Row(22, "n")}), options));
  EXPECT_EQ(all->metrics().num_target_files_scanned, 5);
  // A prune condition alone: id >= 30.
  options.prune = {ColumnCondition{"id", "30", std::nullopt, std::nullopt}};
  ASSERT_OK_AND_ASSIGN(auto pruned, PreparedMerge::Prepare(Latest(), Source({Row(22, "n")}), options));
  EXPECT_EQ(pruned->metrics().num_target_files_scanned, 2);
  // id 22 is outside the condition: it does not match and is inserted again.
  EXPECT_EQ(pruned->metrics().num_target_rows_inserted, 1);
  EXPECT_EQ(pruned->metrics().num_target_rows_updated, 0);
}

TEST_F(MergeTest, TimePruneConditionIsPartOfTheMatch) {
  // The runbook's "AND t.enqueuedTime >= now - 1 day": old rows are neither read nor matched.
  AppendRows({Row(1, "old", 0, "2026-06-01T00:00:00Z"), Row(2, "old", 0, "2026-06-01T00:00:00Z")});
  AppendRows({Row(3, "old", 0, "2026-06-08T10:00:00.000500Z"), Row(4, "old", 0, "2026-06-08T11:00:00Z")});
  MergeOptions options;
  options.keys = {"id"};
  options.prune_by_source_keys = false;
  options.prune = {ColumnCondition{"ts", "2026-06-08T00:00:00Z", std::nullopt, std::nullopt}};
  ASSERT_OK_AND_ASSIGN(auto result, MergeInto(Latest(), Source({Row(1, "dup"), Row(3, "dup")}), options));
  EXPECT_EQ(result.metrics.num_target_files_scanned, 1);
  EXPECT_EQ(result.metrics.num_target_rows_matched_not_updated, 1);  // id 3
  EXPECT_EQ(result.metrics.num_target_rows_inserted, 1);             // id 1: its old row is outside
  EXPECT_NE(Latest()->commit_info()->operation_parameters.at("predicate").find(
                "t.ts >= '2026-06-08T00:00:00Z'"),
            std::string::npos);
  // Timestamp statistics are truncated to ms: a bound within the last ms still reads the file.
  options.prune = {ColumnCondition{"ts", "2026-06-08T11:00:00.000300Z", std::nullopt, std::nullopt}};
  ASSERT_OK_AND_ASSIGN(auto edge, PreparedMerge::Prepare(Latest(), Source({Row(9, "x")}), options));
  EXPECT_EQ(edge->metrics().num_target_files_scanned, 1);
}

TEST_F(MergeTest, PartitionValueSetsPruneFiles) {
  ScratchDir dir;
  auto schema = Ddl("p INT, id BIGINT, v STRING");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), dir.Sub("p"), schema, {"p"}));
  for (int p = 0; p < 4; ++p) {
    std::vector<std::string> rows;
    for (int i = 0; i < 3; ++i) {
      rows.push_back("{\"p\":" + std::to_string(p) + ",\"id\":" + std::to_string(i) + ",\"v\":\"old\"}");
    }
    ASSERT_OK(table->Append({BatchFromJson(schema, rows).ValueOrDie()}).status());
  }
  ASSERT_OK_AND_ASSIGN(auto snapshot, table->Refresh());
  MergeOptions options;
  options.keys = {"p", "id"};
  options.when_matched_update = true;
  auto source = BatchFromJson(schema, {"{\"p\":1,\"id\":1,\"v\":\"new\"}", "{\"p\":3,\"id\":0,\"v\":\"new\"}",
                                       "{\"p\":3,\"id\":7,\"v\":\"new\"}"})
                    .ValueOrDie();
  ASSERT_OK_AND_ASSIGN(auto result, MergeInto(snapshot, source, options));
  EXPECT_EQ(result.metrics.num_target_files_scanned, 2);  // p IN (1, 3)
  EXPECT_EQ(result.metrics.num_target_rows_updated, 2);
  EXPECT_EQ(result.metrics.num_target_rows_inserted, 1);
  EXPECT_EQ(result.metrics.num_target_files_removed, 2);
  // A prune condition on the partition column: p IN (0).
  options.keys = {"id"};
  options.prune = {ColumnCondition{"p", std::nullopt, std::nullopt,
                                   std::vector<std::optional<std::string>>{"0"}}};
  ASSERT_OK_AND_ASSIGN(auto pruned, PreparedMerge::Prepare(result.commit.snapshot, source, options));
  EXPECT_EQ(pruned->metrics().num_target_files_scanned, 1);
}

TEST_F(MergeTest, ConcurrentAppendThatMayMatchConflicts) {
  AppendFiles(2);  // ids 1-3, 11-13
  MergeOptions options;
  options.keys = {"id"};
  ASSERT_OK_AND_ASSIGN(auto merge, PreparedMerge::Prepare(Latest(), Source({Row(5, "m"), Row(6, "m")}),
                                                          options));
  // A concurrent writer appends id 6 (within the merge's key range [5, 6]).
  AppendRows({Row(6, "concurrent")});
  auto result = merge->Commit();
  ASSERT_STATUS_CODE(kConflict, result);
  EXPECT_NE(result.status().message().find("may hold rows matching"), std::string::npos)
      << result.status().message();
  // Nothing of the merge was committed; its files were deleted.
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(Latest()));
  EXPECT_EQ(rows.size(), 7u);
  EXPECT_EQ(Latest()->version(), 3);
}

TEST_F(MergeTest, ConcurrentAppendThatCannotMatchCommitsOnTop) {
  AppendFiles(2);
  MergeOptions options;
  options.keys = {"id"};
  options.when_matched_update = true;
  ASSERT_OK_AND_ASSIGN(auto merge,
                       PreparedMerge::Prepare(Latest(), Source({Row(2, "m"), Row(5, "m")}), options));
  AppendRows({Row(100, "concurrent"), Row(101, "concurrent")});  // outside [2, 5]
  ASSERT_OK_AND_ASSIGN(auto result, merge->Commit());
  EXPECT_TRUE(result.committed);
  EXPECT_EQ(result.commit.version, 4);
  EXPECT_EQ(result.commit.attempts, 2);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(Latest()));
  EXPECT_EQ(rows, (std::vector<std::string>{Scanned(1, "old"), Scanned(100, "concurrent"),
                                            Scanned(101, "concurrent"), Scanned(11, "old"),
                                            Scanned(12, "old"), Scanned(13, "old"), Scanned(2, "m"),
                                            Scanned(3, "old"), Scanned(5, "m")}));
}

TEST_F(MergeTest, ConcurrentRemoveOfAFileItReadConflicts) {
  AppendFiles(2);
  MergeOptions options;
  options.keys = {"id"};
  // Insert-only: it reads the file of ids 1-3 without rewriting it, and inserts id 5.
  ASSERT_OK_AND_ASSIGN(auto merge,
                       PreparedMerge::Prepare(Latest(), Source({Row(2, "m"), Row(5, "m")}), options));
  EXPECT_EQ(merge->metrics().num_target_files_scanned, 1);
  EXPECT_EQ(merge->metrics().num_target_rows_inserted, 1);
  EXPECT_EQ(merge->metrics().num_target_files_removed, 0);
  // A concurrent update rewrites that file.
  options.when_matched_update = true;
  ASSERT_OK(MergeInto(Latest(), Source({Row(3, "other")}), options).status());
  auto result = merge->Commit();
  ASSERT_STATUS_CODE(kConflict, result);
  EXPECT_NE(result.status().message().find("that this transaction read"), std::string::npos)
      << result.status().message();
}

TEST_F(MergeTest, TxnMakesARerunANoOp) {
  AppendFiles(1);
  MergeOptions options;
  options.keys = {"id"};
  options.when_matched_update = true;
  options.txn = SetTransaction{"query-1", 7, std::nullopt};
  auto source = Source({Row(1, "new"), Row(9, "new")});
  ASSERT_OK_AND_ASSIGN(auto first, MergeInto(Latest(), source, options));
  EXPECT_TRUE(first.committed);
  EXPECT_EQ(Latest()->TxnVersion("query-1"), 7);
  // The same batch again (a restart after the commit): nothing is read, written or committed.
  ASSERT_OK_AND_ASSIGN(auto again, MergeInto(Latest(), source, options));
  EXPECT_TRUE(again.already_committed);
  EXPECT_FALSE(again.committed);
  EXPECT_EQ(again.metrics.num_target_files_scanned, 0);
  EXPECT_EQ(Latest()->version(), first.commit.version);
  // A concurrent run of the same batch that committed first: already committed, files deleted.
  options.txn = SetTransaction{"query-1", 8, std::nullopt};
  auto base = Latest();
  ASSERT_OK_AND_ASSIGN(auto racer, PreparedMerge::Prepare(base, source, options));
  ASSERT_OK(MergeInto(base, source, options).status());
  ASSERT_OK_AND_ASSIGN(auto lost, racer->Commit());
  EXPECT_TRUE(lost.already_committed);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(Latest()));
  EXPECT_EQ(rows, (std::vector<std::string>{Scanned(1, "new"), Scanned(2, "old"), Scanned(3, "old"),
                                            Scanned(9, "new")}));
  // A batch with no change still records its txn.
  options.txn = SetTransaction{"query-1", 9, std::nullopt};
  ASSERT_OK_AND_ASSIGN(auto empty, MergeInto(Latest(), Source({}), options));
  EXPECT_TRUE(empty.committed);
  EXPECT_EQ(Latest()->TxnVersion("query-1"), 9);
}

TEST_F(MergeTest, BadInputsAreInvalidArgument) {
  AppendFiles(1);
  MergeOptions options;
  ASSERT_STATUS_CODE(kInvalidArgument, MergeInto(Latest(), Source({Row(1, "x")}), options));
  options.keys = {"nope"};
  ASSERT_STATUS_CODE(kInvalidArgument, MergeInto(Latest(), Source({Row(1, "x")}), options));
  options.keys = {"id"};
  auto narrow = BatchFromJson(Ddl("id BIGINT, v STRING"), {"{\"id\":1,\"v\":\"x\"}"}).ValueOrDie();
  ASSERT_STATUS_CODE(kInvalidArgument, MergeInto(Latest(), narrow, options));
  auto wrong = BatchFromJson(Ddl("id INT, v STRING, seq INT, ts TIMESTAMP"), {"{\"id\":1}"}).ValueOrDie();
  ASSERT_STATUS_CODE(kInvalidArgument, MergeInto(Latest(), wrong, options));
  options.prune = {ColumnCondition{"ts", "yesterday", std::nullopt, std::nullopt}};
  auto bad_value = MergeInto(Latest(), Source({Row(1, "x")}), options);
  ASSERT_STATUS_CODE(kInvalidArgument, bad_value);
  EXPECT_NE(bad_value.status().message().find("yesterday"), std::string::npos);
  EXPECT_EQ(Latest()->version(), 1);
}

TEST(ColumnConditionTest, ToSql) {
  EXPECT_EQ((ColumnCondition{"a", "1", "1", std::nullopt}.ToSql()), "a = '1'");
  EXPECT_EQ((ColumnCondition{"a", "1", "9", std::nullopt}.ToSql()), "a >= '1' AND a <= '9'");
  EXPECT_EQ((ColumnCondition{"p", std::nullopt, std::nullopt,
                             std::vector<std::optional<std::string>>{"x'y", std::nullopt}}
                 .ToSql()),
            "p IN ('x''y', NULL)");
}

TEST(ConcurrentCommitTest, ReadPredicatesJudgeConcurrentAdds) {
  ConflictIntent intent;
  intent.read_version = 4;
  intent.read_predicates.push_back(
      ReadPredicate{"id = 1", [](const AddFile& add) { return add.path == "hit.parquet"; }});
  AddFile hit;
  hit.path = "hit.parquet";
  auto conflict = CheckConcurrentCommit(intent, 5, {hit});
  ASSERT_STATUS_CODE(kConflict, conflict);
  EXPECT_NE(conflict.status().message().find("id = 1"), std::string::npos);
  AddFile miss;
  miss.path = "miss.parquet";
  ASSERT_OK(CheckConcurrentCommit(intent, 5, {miss}).status());
  hit.data_change = false;  // rearranged data (compaction) adds no rows
  ASSERT_OK(CheckConcurrentCommit(intent, 5, {hit}).status());
}

}  // namespace
}  // namespace weir::delta
