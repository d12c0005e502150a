#include "delta/checkpoint.h"

#include <chrono>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "delta/log_path.h"
#include "delta/table.h"
#include "delta/testing.h"
#include "fs/local_file_system.h"
#include "parquet/reader.h"

namespace weir::delta {
namespace {

using testing::BatchFromJson;
using testing::Ddl;
using testing::ScratchDir;
using testing::SortedRows;
namespace stdfs = std::filesystem;

fs::FileSystem* Local() { return fs::LocalFileSystem::Default(); }

Status AppendId(Table* table, int id, std::vector<SetTransaction> txns = {}) {
  auto schema = table->snapshot()->schema();
  std::string row = "{\"id\":" + std::to_string(id) + ",\"p\":\"" + (id % 2 ? "odd" : "even") + "\"}";
  WEIR_ASSIGN_OR_RETURN(auto batch, BatchFromJson(schema, {row}));
  AppendOptions options;
  options.txns = std::move(txns);
  return table->Append({batch}, options).status();
}

TEST(CheckpointTest, WrittenEveryIntervalAndEquivalentToTheLog) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, Ddl("id INT, p STRING"), {"p"},
                                                 {{"delta.checkpointInterval", "3"}}));
  for (int i = 1; i <= 7; ++i) ASSERT_OK(AppendId(table.get(), i, {{"app", i, std::nullopt}}));
  const std::string log = LogDirPath(root);
  EXPECT_TRUE(stdfs::exists(log + "/" + ClassicCheckpointFileName(3)));
  EXPECT_TRUE(stdfs::exists(log + "/" + ClassicCheckpointFileName(6)));
  EXPECT_FALSE(stdfs::exists(log + "/" + ClassicCheckpointFileName(7)));
  ASSERT_OK_AND_ASSIGN(auto hint_text, fs::ReadFileToString(Local(), log + "/_last_checkpoint"));
  ASSERT_OK_AND_ASSIGN(auto hint, ParseLastCheckpoint(hint_text, "hint"));
  EXPECT_EQ(hint.version, 6);
  EXPECT_EQ(hint.num_of_add_files, 6);
  EXPECT_EQ(hint.size, 6 + 1 + 1 + 1);  // adds, protocol, metaData, one txn
  EXPECT_EQ(hint.size_in_bytes, static_cast<int64_t>(stdfs::file_size(log + "/" + ClassicCheckpointFileName(6))));

  ASSERT_OK_AND_ASSIGN(auto from_checkpoint, Snapshot::Load(Local(), root));
  EXPECT_EQ(from_checkpoint->checkpoint_version(), 6);
  EXPECT_EQ(from_checkpoint->TxnVersion("app"), 7);
  // Without the checkpoints, replaying the JSON log gives the same table.
  stdfs::remove(log + "/" + ClassicCheckpointFileName(3));
  stdfs::remove(log + "/" + ClassicCheckpointFileName(6));
  ASSERT_OK_AND_ASSIGN(auto from_json, Snapshot::Load(Local(), root));
  EXPECT_FALSE(from_json->checkpoint_version());
  ASSERT_OK_AND_ASSIGN(auto a, SortedRows(from_checkpoint));
  ASSERT_OK_AND_ASSIGN(auto b, SortedRows(from_json));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 7u);
  EXPECT_EQ(from_checkpoint->metadata().id, from_json->metadata().id);
  EXPECT_EQ(from_checkpoint->metadata().configuration, from_json->metadata().configuration);
  EXPECT_EQ(from_checkpoint->metadata().partition_columns, from_json->metadata().partition_columns);
  ASSERT_EQ(from_checkpoint->files().size(), from_json->files().size());
  for (auto it = from_checkpoint->files().begin(), jt = from_json->files().begin();
       it != from_checkpoint->files().end(); ++it, ++jt) {
    EXPECT_EQ(it->second->path, jt->second->path);
    EXPECT_EQ(it->second->partition_values, jt->second->partition_values);
    EXPECT_EQ(it->second->size, jt->second->size);
    EXPECT_EQ(it->second->stats, jt->second->stats);
  }
}

// A writer that keeps no file list (Table::DropFileList, as streaming sinks do) writes its
// checkpoints from the latest checkpoint, a row group at a time, and the commits after it: the
// table is the same as a full replay's, with files removed by another writer in between.
TEST(CheckpointTest, SnapshotWithoutFilesCheckpointsTheSameTable) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, Ddl("id INT, p STRING"), {"p"},
                                                 {{"delta.checkpointInterval", "4"}}));
  table->DropFileList();
  EXPECT_FALSE(table->snapshot()->has_files());
  ASSERT_OK_AND_ASSIGN(auto other, Table::Open(Local(), root));  // a writer with files
  int removed = 0;
  for (int i = 1; i <= 14; ++i) {
    ASSERT_OK(AppendId(table.get(), i, {{"app", i, std::nullopt}}));
    EXPECT_FALSE(table->snapshot()->has_files());
    EXPECT_EQ(table->snapshot()->num_files(), 0);
    if (i % 3 != 0) continue;
    // The other writer removes a file of an earlier checkpoint, or the one just added.
    ASSERT_OK_AND_ASSIGN(auto s, other->Refresh());
    const AddFile* victim = s->files().begin()->second.get();
    if (i % 2 == 0) {
      for (const auto& [key, add] : s->files()) {
        if (add->stats->find("\"id\":" + std::to_string(i) + "}") != std::string::npos) {
          victim = add.get();
        }
      }
    }
    Transaction remove(s);
    ASSERT_OK(remove.RemoveLiveFile(victim->path, true));
    ASSERT_OK(remove.Commit().status());
    ++removed;
  }
  // A file of the last checkpoint removed after it, so that the final checkpoint (below) has a
  // removal to apply.
  ASSERT_OK_AND_ASSIGN(auto s, other->Refresh());
  if (s->version() % 4 == 3) {  // the removal would write the checkpoint itself
    ASSERT_OK(AppendId(table.get(), 15, {{"app", 15, std::nullopt}}));
    ASSERT_OK_AND_ASSIGN(s, other->Refresh());
  }
  const int appended = s->version() - removed;
  Transaction remove(s);
  ASSERT_OK(remove.RemoveLiveFile(s->files().begin()->second->path, true));
  ASSERT_OK(remove.Commit().status());
  ++removed;
  ASSERT_OK(table->Refresh().status());
  const int64_t latest = table->snapshot()->version();
  EXPECT_EQ(latest, appended + removed);
  const std::string log = LogDirPath(root);
  // Checkpoints at 4, 8, ... written by both writers; then one of several row groups.
  CheckpointOptions small_groups;
  small_groups.row_group_rows = 2;
  small_groups.rows_per_batch = 3;
  ASSERT_OK_AND_ASSIGN(auto info, WriteCheckpoint(*table->snapshot(), small_groups));
  EXPECT_EQ(info.version, latest);
  EXPECT_EQ(info.num_add_files, appended - removed);
  ASSERT_OK_AND_ASSIGN(auto reader, parquet::ParquetReader::Open(Local(), info.path));
  EXPECT_GT(reader->num_row_groups(), 3);
  // Each file once: as a live file or as a tombstone, never both.
  std::map<std::string, int> seen;
  ASSERT_OK(ReadParquetCheckpoint(Local(), info.path, [&](Action&& a) {
    if (auto* add = std::get_if<AddFile>(&a)) ++seen[add->path];
    if (auto* remove = std::get_if<RemoveFile>(&a)) ++seen[remove->path];
  }));
  EXPECT_EQ(seen.size(), static_cast<size_t>(appended));
  for (const auto& [path, count] : seen) EXPECT_EQ(count, 1) << path;
  ASSERT_OK_AND_ASSIGN(auto from_checkpoint, Snapshot::Load(Local(), root));
  EXPECT_EQ(from_checkpoint->checkpoint_version(), latest);
  EXPECT_EQ(from_checkpoint->TxnVersion("app"), appended);
  for (int64_t v = 0; v <= latest; ++v) stdfs::remove(log + "/" + ClassicCheckpointFileName(v));
  stdfs::remove(log + "/_last_checkpoint");
  ASSERT_OK_AND_ASSIGN(auto from_json, Snapshot::Load(Local(), root));
  EXPECT_FALSE(from_json->checkpoint_version());
  ASSERT_OK_AND_ASSIGN(auto a, SortedRows(from_checkpoint));
  ASSERT_OK_AND_ASSIGN(auto b, SortedRows(from_json));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), static_cast<size_t>(appended - removed));
  ASSERT_EQ(from_checkpoint->files().size(), from_json->files().size());
  for (auto it = from_checkpoint->files().begin(), jt = from_json->files().begin();
       it != from_checkpoint->files().end(); ++it, ++jt) {
    EXPECT_EQ(it->second->path, jt->second->path);
    EXPECT_EQ(it->second->stats, jt->second->stats);
  }
  ASSERT_EQ(from_checkpoint->tombstones().size(), static_cast<size_t>(removed));
  for (auto it = from_checkpoint->tombstones().begin(), jt = from_json->tombstones().begin();
       it != from_checkpoint->tombstones().end(); ++it, ++jt) {
    EXPECT_EQ(it->second->path, jt->second->path);
  }
  // What needs the files says so, instead of seeing an empty table.
  EXPECT_EQ(table->NewScan().status().code(), StatusCode::kInternal);
}

// After a cleanup, the log is not listed again until its oldest unexpired file may have expired:
// a stale temporary appearing meanwhile waits for that cleanup.
TEST(CheckpointTest, CleanupListsTheLogOnlyWhenSomethingMayHaveExpired) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, Ddl("id INT, p STRING"), {"p"},
                                                 {{"delta.logRetentionDuration", "interval 1 day"}}));
  ASSERT_OK(AppendId(table.get(), 1));
  const int64_t now = NowMillis();
  ASSERT_OK_AND_ASSIGN(int64_t deleted, CleanUpExpiredLogs(*table->snapshot(), now));
  EXPECT_EQ(deleted, 0);
  const std::string temp = LogDirPath(root) + "/" + std::string(fs::kTempFilePrefix) + "stale.json";
  ASSERT_OK(fs::WriteStringToFile(Local(), temp, "x"));
  stdfs::last_write_time(temp, stdfs::file_time_type::clock::now() - std::chrono::hours(24 * 30));
  ASSERT_OK_AND_ASSIGN(deleted, CleanUpExpiredLogs(*table->snapshot(), now));
  EXPECT_EQ(deleted, 0);  // not listed: nothing was due
  EXPECT_TRUE(stdfs::exists(temp));
  ASSERT_OK_AND_ASSIGN(deleted, CleanUpExpiredLogs(*table->snapshot(), now + 3 * kMillisPerDay));
  EXPECT_GE(deleted, 1);
  EXPECT_FALSE(stdfs::exists(temp));
}

TEST(CheckpointTest, UsesTheProtocolSchema) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, Ddl("id INT, p STRING"), {"p"}));
  ASSERT_OK(AppendId(table.get(), 1, {{"q", 0, std::nullopt}}));
  ASSERT_OK_AND_ASSIGN(auto info, table->Checkpoint());
  EXPECT_EQ(info.version, 1);
  ASSERT_OK_AND_ASSIGN(auto reader, parquet::ParquetReader::Open(Local(), info.path));
  EXPECT_EQ(reader->schema().ToDdl(),
            "txn STRUCT<appId: STRING, version: BIGINT, lastUpdated: BIGINT>, "
            "add STRUCT<path: STRING, partitionValues: MAP<STRING, STRING>, size: BIGINT, "
            "modificationTime: BIGINT, dataChange: BOOLEAN, stats: STRING, tags: MAP<STRING, STRING>>, "
            "remove STRUCT<path: STRING, deletionTimestamp: BIGINT, dataChange: BOOLEAN, "
            "extendedFileMetadata: BOOLEAN, partitionValues: MAP<STRING, STRING>, size: BIGINT>, "
            "metaData STRUCT<id: STRING, name: STRING, description: STRING, format: STRUCT<provider: "
            "STRING, options: MAP<STRING, STRING>>, schemaString: STRING, partitionColumns: "
            "ARRAY<STRING>, configuration: MAP<STRING, STRING>, createdTime: BIGINT>, "
            "protocol STRUCT<minReaderVersion: INT, minWriterVersion: INT, readerFeatures: "
            "ARRAY<STRING>, writerFeatures: ARRAY<STRING>>");
  EXPECT_EQ(reader->num_rows(), 4);  // protocol, metaData, txn, add
  EXPECT_EQ(info.num_actions, 4);
  EXPECT_EQ(info.num_add_files, 1);
}

TEST(CheckpointTest, DropsExpiredTombstonesAndTxnsAndCleansUpOldLogs) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), root, Ddl("id INT, p STRING"), {"p"},
                                                 {{"delta.checkpointInterval", "1000"},
                                                  {"delta.logRetentionDuration", "interval 1 day"},
                                                  {"delta.deletedFileRetentionDuration", "interval 1 day"},
                                                  {"delta.setTransactionRetentionDuration", "interval 2 days"}}));
  ASSERT_OK(AppendId(table.get(), 1, {{"old-app", 5, std::nullopt}}));
  ASSERT_OK(AppendId(table.get(), 2));
  ASSERT_OK(table->Refresh().status());
  Transaction remove(table->snapshot());
  ASSERT_OK(remove.RemoveLiveFile(table->snapshot()->files().begin()->second->path, true));
  ASSERT_OK(remove.Commit().status());
  ASSERT_OK(AppendId(table.get(), 3));
  ASSERT_OK_AND_ASSIGN(auto info, table->Checkpoint());  // now: nothing expired yet
  EXPECT_EQ(info.log_files_deleted, 0);
  ASSERT_OK_AND_ASSIGN(auto reader, parquet::ParquetReader::Open(Local(), info.path));
  EXPECT_EQ(reader->num_rows(), 2 + 1 + 2 + 1);  // protocol, metaData, txn, 2 adds, 1 tombstone

  // Three days later: tombstone and txn expired; every commit before the checkpoint goes.
  CheckpointOptions later;
  later.now_ms = NowMillis() + 3 * kMillisPerDay;
  ASSERT_OK_AND_ASSIGN(auto info2, WriteCheckpoint(*table->snapshot(), later));
  ASSERT_OK_AND_ASSIGN(auto reader2, parquet::ParquetReader::Open(Local(), info2.path));
  EXPECT_EQ(reader2->num_rows(), 2 + 2);
  EXPECT_EQ(info2.log_files_deleted, 4);  // commits 0..3 (the checkpoint at 4 stays)
  const std::string log = LogDirPath(root);
  EXPECT_FALSE(stdfs::exists(log + "/" + CommitFileName(0)));
  EXPECT_TRUE(stdfs::exists(log + "/" + CommitFileName(4)));
  ASSERT_OK_AND_ASSIGN(auto after, Snapshot::Load(Local(), root));
  EXPECT_EQ(after->version(), 4);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(after));
  EXPECT_EQ(rows.size(), 2u);
  ASSERT_STATUS_CODE(kNotFound, Snapshot::Load(Local(), root, 2));
  EXPECT_EQ(after->TxnVersion("old-app"), std::nullopt);  // expired: not kept by the checkpoint
}

TEST(CheckpointTest, RefusesStatsAsStruct) {
  ScratchDir dir;
  auto create = Table::Create(Local(), dir.Sub("t"), Ddl("id INT"), {},
                              {{"delta.checkpoint.writeStatsAsStruct", "true"}});
  ASSERT_STATUS_CODE(kInvalidArgument, create);
}

}  // namespace
}  // namespace weir::delta
