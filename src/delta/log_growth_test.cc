// What reading and writing a table costs in storage calls once its log is long (issue 33): a
// table with a synthetic log of kLogLength tiny commits (written directly as files, then a
// checkpoint near the end, as a long-running bronze table's log looks), read and written through
// fs::CountingFileSystem. Loading lists once, from the last checkpoint; a stream discovering
// new commits, a writer's commits and its checkpoints list nothing per batch: new versions are
// found by name. Not timed: the assertions are on counts of calls.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/testing.h"
#include "delta/checkpoint.h"
#include "delta/log_path.h"
#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/streaming_source.h"
#include "delta/table.h"
#include "delta/testing.h"
#include "fs/counting_file_system.h"
#include "fs/local_file_system.h"

namespace weir::delta {
namespace {

using testing::Ddl;
using testing::ScratchDir;
using ::testing::HasSubstr;
using Offset = DeltaSourceOffset;
namespace stdfs = std::filesystem;

constexpr int64_t kLogLength = 10000;     // commits 1..kLogLength after the table's creation
constexpr int64_t kCheckpointAt = 9990;   // a checkpoint (and _last_checkpoint) at this version
constexpr int kRounds = 50;               // batches measured

fs::FileSystem* Local() { return fs::LocalFileSystem::Default(); }

// One commit adding one (nonexistent: only the log is read) data file of one row.
std::string CommitText(int64_t version) {
  CommitInfo info;
  info.timestamp = 1700000000000 + version;
  info.operation = "WRITE";
  info.operation_parameters = {{"mode", "Append"}};
  AddFile add;
  add.path = "part-" + std::to_string(version) + ".parquet";
  add.size = 100;
  add.modification_time = 1700000000000 + version;
  add.data_change = true;
  add.stats = R"({"numRecords":1})";
  return SerializeActions({info, add});
}

Offset BaseOf(const std::string& id, int64_t version) {
  Offset o;
  o.reservoir_id = id;
  o.reservoir_version = version;
  o.index = Offset::kBaseIndex;
  return o;
}

// Parameter: whether the store lacks a listing start key (ListFrom is then a full listing,
// filtered), as Azure Blob's List Blobs does.
class LongLogTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    root_ = dir_.Sub("table");
    ASSERT_OK(Table::Create(Local(), root_, Ddl("id BIGINT"), {}).status());
    // Written plainly (no temporary, no sync: nothing reads them yet), which is fast.
    for (int64_t v = 1; v <= kLogLength; ++v) {
      ASSERT_OK(fs::WriteStringToFile(
          Local(), fs::JoinPath(LogDirPath(root_), CommitFileName(v)), CommitText(v),
          /*sync=*/false));
    }
    ASSERT_OK_AND_ASSIGN(auto at_checkpoint, Snapshot::Load(Local(), root_, kCheckpointAt));
    ASSERT_OK(WriteCheckpoint(*at_checkpoint, {.clean_up_expired_logs = false}).status());
    counting_ = std::make_unique<fs::CountingFileSystem>(
        Local(), fs::CountingFileSystem::Options{.list_from_lists_everything = GetParam()});
  }

  // Writes commit `version` as another writer would (put-if-absent), bypassing the counts.
  void WriteCommit(int64_t version) {
    ASSERT_OK(Local()->PutIfAbsent(fs::JoinPath(LogDirPath(root_), CommitFileName(version)),
                                   CommitText(version)));
  }

  fs::CountingFileSystem::Counts Counts() const { return counting_->counts(); }

  ScratchDir dir_;
  std::string root_;
  std::unique_ptr<fs::CountingFileSystem> counting_;
};

INSTANTIATE_TEST_SUITE_P(Stores, LongLogTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "NoStartKey" : "StartKey"; });

// Loading the latest snapshot lists the log once, from _last_checkpoint's version on (all names
// only on a store that cannot start a listing at a name), and reads only the checkpoint and the
// commits after it.
TEST_P(LongLogTest, LoadListsOnceFromTheLastCheckpoint) {
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(counting_.get(), root_));
  EXPECT_EQ(snapshot->version(), kLogLength);
  EXPECT_EQ(snapshot->checkpoint_version(), kCheckpointAt);
  EXPECT_EQ(snapshot->num_files(), kLogLength);
  const auto c = Counts();
  EXPECT_EQ(c.listings(), 1) << c.ToString();
  RecordProperty("calls", c.ToString());
  if (!GetParam()) {
    // The checkpoint, its commit, the 10 commits after it and _last_checkpoint.
    EXPECT_LE(c.entries_listed, kLogLength - kCheckpointAt + 5) << c.ToString();
  }
  // _last_checkpoint, the checkpoint and the commits after it: not the log.
  EXPECT_LE(c.open_for_read, kLogLength - kCheckpointAt + 5) << c.ToString();
}

// A stream resumed at the end of the long log (a silver flow over bronze): each batch finds the
// new commit by name, lists nothing, and its cost does not depend on the log's length.
TEST_P(LongLogTest, StreamFindsNewCommitsWithoutListing) {
  ASSERT_OK_AND_ASSIGN(auto source, DeltaSource::Open(counting_.get(), root_));
  EXPECT_LE(Counts().listings(), 1) << Counts().ToString();
  const std::string id = source->table_id();
  std::optional<Offset> start = BaseOf(id, kLogLength + 1);
  const auto limit = source->DefaultReadLimit();

  // Nothing new yet.
  ASSERT_OK_AND_ASSIGN(auto idle, source->LatestOffset(start, limit));
  EXPECT_EQ(idle, start);

  const auto opened = Counts();
  for (int i = 1; i <= kRounds; ++i) {
    const auto before = Counts();
    WriteCommit(kLogLength + i);
    ASSERT_OK_AND_ASSIGN(auto end, source->LatestOffset(start, limit));
    ASSERT_TRUE(end.has_value());
    EXPECT_EQ(*end, BaseOf(id, kLogLength + i + 1));
    ASSERT_OK_AND_ASSIGN(auto files, source->FilesBetween(start, *end));
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].version, kLogLength + i);
    start = end;
    // And a poll that finds nothing.
    ASSERT_OK_AND_ASSIGN(auto again, source->LatestOffset(start, limit));
    EXPECT_EQ(again, start);

    const auto batch = Counts() - before;
    EXPECT_EQ(batch.listings(), 0) << "batch " << i << ": " << batch.ToString();
    EXPECT_EQ(batch.entries_listed, 0) << "batch " << i << ": " << batch.ToString();
    // Six opens: the new commit read by LatestOffset and FilesBetween, the next version probed
    // and _last_checkpoint read by LatestOffset and by the idle poll (the first batch also reads
    // the start version's commit and stats it to check its schema).
    EXPECT_LE(batch.lookups(), i == 1 ? 8 : 6) << "batch " << i << ": " << batch.ToString();
  }
  const auto all = Counts() - opened;
  EXPECT_EQ(all.listings(), 0) << all.ToString();
  RecordProperty("calls_per_50_batches", all.ToString());
}

// A writer that only appends (its snapshot without files, as a streaming sink keeps it) commits
// and checkpoints every delta.checkpointInterval (10) commits without listing the log: the
// checkpoint's segment is the previous checkpoint (_last_checkpoint) and the commits after it,
// by name. The first checkpoint of the process lists the log once for metadata cleanup.
TEST_P(LongLogTest, WriterCommitsAndCheckpointsWithoutListing) {
  ASSERT_OK_AND_ASSIGN(auto table, Table::Open(counting_.get(), root_));
  table->DropFileList();
  columnar::Schema schema = Ddl("id BIGINT");
  int checkpoints = 0;
  fs::CountingFileSystem::Counts after_first_checkpoint;
  for (int i = 1; i <= 30; ++i) {
    ASSERT_OK_AND_ASSIGN(auto batch, testing::BatchFromJson(schema, {R"({"id":1})"}));
    AppendOptions options;
    options.txns.push_back(SetTransaction{"writer", i, std::nullopt});
    ASSERT_OK_AND_ASSIGN(auto result, table->Append({batch}, options));
    ASSERT_TRUE(result.committed);
    ASSERT_OK(result.checkpoint_status);
    ASSERT_OK_AND_ASSIGN(auto refreshed, table->Refresh());
    EXPECT_EQ(refreshed->version(), kLogLength + i);
    if (result.checkpoint_written && ++checkpoints == 1) after_first_checkpoint = Counts();
  }
  EXPECT_EQ(checkpoints, 3);
  const auto since = Counts() - after_first_checkpoint;
  EXPECT_EQ(since.listings(), 0) << since.ToString();
  RecordProperty("calls_of_the_last_20_commits", since.ToString());
  RecordProperty("calls_of_30_commits", Counts().ToString());
  EXPECT_LE(Counts().listings(), 2) << Counts().ToString();  // Open's, and cleanup's first
  ASSERT_OK_AND_ASSIGN(auto reloaded, Snapshot::Load(Local(), root_));
  EXPECT_EQ(reloaded->version(), kLogLength + 30);
  EXPECT_EQ(reloaded->checkpoint_version(), kLogLength + 30);
  EXPECT_EQ(reloaded->num_files(), kLogLength + 30);
  EXPECT_EQ(reloaded->TxnVersion("writer"), 30);
}

// ------------------------------------------------------------------------------------------------
// Correctness where probing by name could be misled: a log cleaned up past the stream, a stale or
// wrong _last_checkpoint.

class LogProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Sub("table");
    ASSERT_OK(Table::Create(Local(), root_, Ddl("id BIGINT"), {}).status());
    for (int64_t v = 1; v <= 20; ++v) WriteCommit(v);
  }
  void WriteCommit(int64_t version) {
    ASSERT_OK(Local()->PutIfAbsent(Log(CommitFileName(version)), CommitText(version)));
  }
  void Checkpoint(int64_t version) {
    ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(Local(), root_, version));
    ASSERT_OK(WriteCheckpoint(*snapshot, {.clean_up_expired_logs = false}).status());
  }
  // What metadata cleanup does: deletes the log files before `version` (oldest first).
  void DeleteBefore(int64_t version) {
    for (int64_t v = 0; v < version; ++v) {
      std::error_code ec;
      stdfs::remove(Log(CommitFileName(v)), ec);
      stdfs::remove(Log(ClassicCheckpointFileName(v)), ec);
    }
  }
  std::string Log(const std::string& name) const {
    return fs::JoinPath(LogDirPath(root_), name);
  }
  std::vector<int64_t> Versions(const std::vector<DeltaSourceFile>& files) {
    std::vector<int64_t> out;
    for (const auto& f : files) out.push_back(f.version);
    return out;
  }

  ScratchDir dir_;
  std::string root_;
};

// The stream is at version 21 (caught up at 20) when another writer commits 21..40, checkpoints
// at 35 and cleans up everything before it: version 21 is absent, and _last_checkpoint (35) says
// the log went past it, so the source lists the log and reports the gap as Delta does.
TEST_F(LogProbeTest, CleanupPastTheStreamIsDataLossFoundThroughTheHint) {
  ASSERT_OK_AND_ASSIGN(auto source, DeltaSource::Open(Local(), root_));
  ASSERT_OK_AND_ASSIGN(auto lenient,
                       DeltaSource::Open(Local(), root_, *DeltaSourceOptions::FromMap(
                                                             {{"failOnDataLoss", "false"}})));
  const std::string id = source->table_id();
  const Offset start = BaseOf(id, 21);
  ASSERT_OK_AND_ASSIGN(auto idle, source->LatestOffset(start, source->DefaultReadLimit()));
  EXPECT_EQ(idle, start);

  for (int64_t v = 21; v <= 40; ++v) WriteCommit(v);
  Checkpoint(35);
  DeleteBefore(35);

  auto gap = source->LatestOffset(start, source->DefaultReadLimit());
  ASSERT_STATUS_CODE(kDataLoss, gap);
  EXPECT_THAT(gap.status().message(),
              HasSubstr("was expecting process data from version 21, but the earliest available "
                        "version in the _delta_log directory is 35."));

  ASSERT_OK_AND_ASSIGN(auto end, lenient->LatestOffset(start, lenient->DefaultReadLimit()));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(*end, BaseOf(id, 41));
  ASSERT_OK_AND_ASSIGN(auto files, lenient->FilesBetween(start, *end));
  EXPECT_EQ(Versions(files), (std::vector<int64_t>{35, 36, 37, 38, 39, 40}));
}

// Without _last_checkpoint to say so (a writer that does not write it), the gap is found by the
// listing the source still makes now and then while it finds nothing (at every idle poll here).
TEST_F(LogProbeTest, CleanupPastTheStreamWithoutAHintIsFoundByThePeriodicListing) {
  ASSERT_OK_AND_ASSIGN(auto source, DeltaSource::Open(Local(), root_));
  const std::string id = source->table_id();
  const Offset start = BaseOf(id, 21);
  for (int64_t v = 21; v <= 40; ++v) WriteCommit(v);
  Checkpoint(35);
  DeleteBefore(35);
  ASSERT_OK(Local()->Delete(Log(std::string(kLastCheckpointName))));

  source->SetIdleListingIntervalForTesting(0);
  auto gap = source->LatestOffset(start, source->DefaultReadLimit());
  ASSERT_STATUS_CODE(kDataLoss, gap);
  EXPECT_THAT(gap.status().message(), HasSubstr("the earliest available version in the "
                                                "_delta_log directory is 35."));
}

// A stream restarted from an offset whose commits were cleaned up: the version is one the table
// is known to have passed (the snapshot at Open is newer), so its absence is a gap, not the end.
TEST_F(LogProbeTest, ResumingBehindACleanedUpLogIsDataLoss) {
  Checkpoint(15);
  DeleteBefore(15);
  ASSERT_OK_AND_ASSIGN(auto source, DeltaSource::Open(Local(), root_));
  auto gap = source->LatestOffset(BaseOf(source->table_id(), 3), source->DefaultReadLimit());
  ASSERT_STATUS_CODE(kDataLoss, gap);
  EXPECT_THAT(gap.status().message(), HasSubstr("expecting process data from version 3, but the "
                                                "earliest available version in the _delta_log "
                                                "directory is 15."));
}

// A writer's snapshot left at version 20 while another writer committed, checkpointed and cleaned
// up past it: Update() must not take the absent version 21 for the end of the log (committing
// there would write under a checkpoint readers start after); it reloads the table.
TEST_F(LogProbeTest, UpdateOfASnapshotTheCleanupPassedReloads) {
  ASSERT_OK_AND_ASSIGN(auto stale, Snapshot::Load(Local(), root_));
  ASSERT_EQ(stale->version(), 20);
  auto lean = stale->WithoutFiles();
  for (int64_t v = 21; v <= 40; ++v) WriteCommit(v);
  Checkpoint(35);
  DeleteBefore(35);
  ASSERT_OK_AND_ASSIGN(auto updated, Snapshot::Update(stale));
  EXPECT_EQ(updated->version(), 40);
  EXPECT_EQ(updated->num_files(), 40);
  ASSERT_OK_AND_ASSIGN(auto updated_lean, Snapshot::Update(lean));
  EXPECT_EQ(updated_lean->version(), 40);
  EXPECT_FALSE(updated_lean->has_files());
  // Nothing new: the same snapshot.
  ASSERT_OK_AND_ASSIGN(auto same, Snapshot::Update(updated));
  EXPECT_EQ(same, updated);
}

// _last_checkpoint is a hint: one naming a checkpoint that is gone, or a version past the log,
// or an older checkpoint than the newest, does not change what Load() finds.
TEST_F(LogProbeTest, LoadIsNotMisledByTheHint) {
  Checkpoint(10);
  Checkpoint(15);
  // A newer checkpoint than the hint names (a writer stopped between the two writes).
  LastCheckpointHint older;
  older.version = 10;
  ASSERT_OK(Local()->WriteAtomic(Log(std::string(kLastCheckpointName)),
                                 SerializeLastCheckpoint(older)));
  ASSERT_OK_AND_ASSIGN(auto s, Snapshot::Load(Local(), root_));
  EXPECT_EQ(s->version(), 20);
  EXPECT_EQ(s->checkpoint_version(), 15);
  EXPECT_EQ(s->num_files(), 20);

  // A hint naming a checkpoint that does not exist, and one past the log.
  for (int64_t bad : {12, 500}) {
    LastCheckpointHint hint;
    hint.version = bad;
    ASSERT_OK(Local()->WriteAtomic(Log(std::string(kLastCheckpointName)),
                                   SerializeLastCheckpoint(hint)));
    ASSERT_OK_AND_ASSIGN(auto loaded, Snapshot::Load(Local(), root_));
    EXPECT_EQ(loaded->version(), 20) << bad;
    EXPECT_EQ(loaded->checkpoint_version(), 15) << bad;
    EXPECT_EQ(loaded->num_files(), 20) << bad;
  }
  // Time travel before the hint's checkpoint still reads the whole log.
  ASSERT_OK_AND_ASSIGN(auto old, Snapshot::Load(Local(), root_, 7));
  EXPECT_EQ(old->version(), 7);
  EXPECT_EQ(old->num_files(), 7);
}

// A writer's checkpoint after one of another kind: a multi-part checkpoint (_last_checkpoint
// says how many parts) is found by name; a UUID-named (V2) one, whose name the hint's version
// and parts do not give, by a listing from the hint's version on. Either way the new checkpoint
// holds every file.
TEST_F(LogProbeTest, WriterCheckpointsAfterAMultiPartOrUuidNamedCheckpoint) {
  for (bool uuid_named : {false, true}) {
    SCOPED_TRACE(uuid_named ? "UUID-named" : "multi-part");
    root_ = dir_.Sub(uuid_named ? "uuid" : "multi");
    ASSERT_OK(Table::Create(Local(), root_, Ddl("id BIGINT"), {}).status());
    for (int64_t v = 1; v <= 20; ++v) WriteCommit(v);
    Checkpoint(20);
    const std::string name =
        uuid_named ? "00000000000000000020.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.parquet"
                   : MultiPartCheckpointFileName(20, 1, 1);
    stdfs::rename(Log(ClassicCheckpointFileName(20)), Log(name));
    LastCheckpointHint hint;
    hint.version = 20;
    if (!uuid_named) hint.parts = 1;
    ASSERT_OK(Local()->WriteAtomic(Log(std::string(kLastCheckpointName)),
                                   SerializeLastCheckpoint(hint)));

    fs::CountingFileSystem counting(Local());
    ASSERT_OK_AND_ASSIGN(auto table, Table::Open(&counting, root_));
    EXPECT_EQ(table->snapshot()->checkpoint_version(), 20);
    EXPECT_EQ(counting.counts().listings(), 1);
    table->DropFileList();
    bool written = false;
    for (int i = 1; i <= 10; ++i) {
      ASSERT_OK_AND_ASSIGN(auto batch, testing::BatchFromJson(Ddl("id BIGINT"), {R"({"id":1})"}));
      ASSERT_OK_AND_ASSIGN(auto result, table->Append({batch}));
      ASSERT_OK(result.checkpoint_status);
      written = result.checkpoint_written;
    }
    EXPECT_TRUE(written);
    // Open's listing, cleanup's first, and for the UUID-named checkpoint the segment's.
    EXPECT_EQ(counting.counts().listings(), uuid_named ? 3 : 2) << counting.counts().ToString();
    ASSERT_OK_AND_ASSIGN(auto reloaded, Snapshot::Load(Local(), root_));
    EXPECT_EQ(reloaded->version(), 30);
    EXPECT_EQ(reloaded->checkpoint_version(), 30);
    EXPECT_EQ(reloaded->num_files(), 30);
  }
}

}  // namespace
}  // namespace weir::delta
