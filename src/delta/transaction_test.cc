#include "delta/transaction.h"

#include <atomic>
#include <thread>

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

fs::FileSystem* Local() { return fs::LocalFileSystem::Default(); }

AddFile Add(const std::string& path, bool data_change = true) {
  AddFile a;
  a.path = path;
  a.size = 1;
  a.data_change = data_change;
  return a;
}

TEST(ConcurrentCommitTest, BlindAppendsAreCompatible) {
  ConflictIntent intent;
  intent.read_version = 4;
  ASSERT_OK_AND_ASSIGN(auto verdict, CheckConcurrentCommit(intent, 5, {CommitInfo{}, Add("x")}));
  EXPECT_EQ(verdict, ConcurrentCommitVerdict::kCompatible);
}

TEST(ConcurrentCommitTest, SameAppIdWithEqualOrNewerVersionMeansAlreadyCommitted) {
  ConflictIntent intent;
  intent.read_version = 4;
  intent.txns = {{"q", 10, std::nullopt}};
  ASSERT_OK_AND_ASSIGN(auto same, CheckConcurrentCommit(intent, 5, {SetTransaction{"q", 10, 1}, Add("x")}));
  EXPECT_EQ(same, ConcurrentCommitVerdict::kAlreadyCommitted);
  ASSERT_OK_AND_ASSIGN(auto newer, CheckConcurrentCommit(intent, 5, {SetTransaction{"q", 11, 1}}));
  EXPECT_EQ(newer, ConcurrentCommitVerdict::kAlreadyCommitted);
  ASSERT_OK_AND_ASSIGN(auto older, CheckConcurrentCommit(intent, 5, {SetTransaction{"q", 9, 1}}));
  EXPECT_EQ(older, ConcurrentCommitVerdict::kCompatible);
  ASSERT_OK_AND_ASSIGN(auto other, CheckConcurrentCommit(intent, 5, {SetTransaction{"other", 99, 1}}));
  EXPECT_EQ(other, ConcurrentCommitVerdict::kCompatible);
  // Even when the winner also changed the metadata: the work is done.
  ASSERT_OK_AND_ASSIGN(auto with_metadata,
                       CheckConcurrentCommit(intent, 5, {Metadata{}, SetTransaction{"q", 10, 1}}));
  EXPECT_EQ(with_metadata, ConcurrentCommitVerdict::kAlreadyCommitted);
}

TEST(ConcurrentCommitTest, MetadataProtocolAndRemovesOfReadFilesConflict) {
  ConflictIntent intent;
  intent.read_version = 4;
  intent.read_files = {"a.parquet"};
  auto metadata = CheckConcurrentCommit(intent, 6, {Metadata{}});
  ASSERT_STATUS_CODE(kConflict, metadata);
  EXPECT_NE(metadata.status().message().find("version 6 changed the table metadata"), std::string::npos);
  EXPECT_NE(metadata.status().message().find("read version 4"), std::string::npos);
  ASSERT_STATUS_CODE(kConflict, CheckConcurrentCommit(intent, 6, {Protocol{}}));
  RemoveFile r;
  r.path = "a.parquet";
  auto removed = CheckConcurrentCommit(intent, 6, {r});
  ASSERT_STATUS_CODE(kConflict, removed);
  EXPECT_NE(removed.status().message().find("a.parquet"), std::string::npos);
  r.path = "b.parquet";
  ASSERT_OK(CheckConcurrentCommit(intent, 6, {r}).status());
  // A transaction that read the whole table conflicts with any data change.
  intent.read_whole_table = true;
  ASSERT_STATUS_CODE(kConflict, CheckConcurrentCommit(intent, 6, {Add("new")}));
  ASSERT_STATUS_CODE(kConflict, CheckConcurrentCommit(intent, 6, {r}));
  ASSERT_OK(CheckConcurrentCommit(intent, 6, {Add("compacted", /*data_change=*/false)}).status());
}

// Txns a transaction depends on (consumer-group workers handing Kafka partitions to each other):
// a concurrent commit setting one conflicts whatever its version; it never means "already done".
TEST(ConcurrentCommitTest, ConcurrentTxnOfAReadAppIdConflicts) {
  ConflictIntent intent;
  intent.read_version = 4;
  intent.txns = {{"q", 7, std::nullopt}, {"p0", 120, std::nullopt}};
  intent.read_app_ids = {"p0"};
  auto older = CheckConcurrentCommit(intent, 5, {SetTransaction{"p0", 100, 1}, Add("x")});
  ASSERT_STATUS_CODE(kConflict, older);
  EXPECT_NE(older.status().message().find("appId p0"), std::string::npos);
  ASSERT_STATUS_CODE(kConflict, CheckConcurrentCommit(intent, 5, {SetTransaction{"p0", 130, 1}}));
  ASSERT_OK_AND_ASSIGN(auto other, CheckConcurrentCommit(intent, 5, {SetTransaction{"p1", 130, 1}}));
  EXPECT_EQ(other, ConcurrentCommitVerdict::kCompatible);
  ASSERT_OK_AND_ASSIGN(auto ours, CheckConcurrentCommit(intent, 5, {SetTransaction{"q", 7, 1}}));
  EXPECT_EQ(ours, ConcurrentCommitVerdict::kAlreadyCommitted);
}

TEST(TransactionTest, ExpectedTxnsMustHoldInTheReadSnapshotAndAgainstConcurrentCommits) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  ASSERT_OK(Table::Create(Local(), root, Ddl("x INT"), {}, {}).status());
  ASSERT_OK_AND_ASSIGN(auto v0, Snapshot::Load(Local(), root));
  {
    Transaction first(v0);
    first.ExpectTxn("p0", std::nullopt);
    ASSERT_OK(first.SetTxn("p0", 100));
    ASSERT_OK_AND_ASSIGN(auto committed, first.Commit());
    EXPECT_FALSE(committed.already_committed);
  }
  ASSERT_OK_AND_ASSIGN(auto v1, Snapshot::Load(Local(), root));
  {
    Transaction stale(v1);  // planned as if p0 had no progress yet
    stale.ExpectTxn("p0", std::nullopt);
    ASSERT_OK(stale.SetTxn("p0", 50));
    auto result = stale.Commit();
    ASSERT_STATUS_CODE(kConflict, result);
    EXPECT_NE(result.status().message().find("holds version 100 for appId p0"), std::string::npos);
  }
  // Two writers plan from version 1 (p0 at 100); the second loses the race and must re-plan, even
  // though its txn version is beyond the winner's.
  Transaction a(v1), b(v1);
  a.ExpectTxn("p0", 100);
  ASSERT_OK(a.SetTxn("p0", 150));
  a.AddFile(Add("a.parquet"));
  b.ExpectTxn("p0", 100);
  ASSERT_OK(b.SetTxn("p0", 200));
  b.AddFile(Add("b.parquet"));
  ASSERT_OK(a.Commit().status());
  auto lost = b.Commit();
  ASSERT_STATUS_CODE(kConflict, lost);
  EXPECT_NE(lost.status().message().find("appId p0"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto latest, Snapshot::Load(Local(), root));
  EXPECT_EQ(latest->TxnVersion("p0"), 150);
  EXPECT_EQ(latest->num_files(), 1);
}

// Several threads, each with its own Table, append concurrently: every append lands exactly once
// and the log stays contiguous.
TEST(TransactionTest, ConcurrentWritersAllCommit) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("writer INT, seq INT");
  ASSERT_OK(Table::Create(Local(), root, schema, {}, {{"delta.checkpointInterval", "10"}}).status());
  constexpr int kWriters = 4, kAppends = 25;
  std::atomic<int> failures{0}, retried{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      auto table = Table::Open(Local(), root);
      if (!table.ok()) {
        ++failures;
        return;
      }
      for (int i = 0; i < kAppends; ++i) {
        if (!(*table)->Refresh().ok()) ++failures;
        auto batch = BatchFromJson(schema, {"{\"writer\":" + std::to_string(w) + ",\"seq\":" +
                                            std::to_string(i) + "}"});
        AppendOptions options;
        options.txns = {{"writer-" + std::to_string(w), i, std::nullopt}};
        auto result = (*table)->Append({*batch}, options);
        if (!result.ok() || result->already_committed) {
          ++failures;
        } else if (result->attempts > 1) {
          ++retried;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(Local(), root));
  EXPECT_EQ(snapshot->version(), kWriters * kAppends);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(snapshot));
  EXPECT_EQ(rows.size(), static_cast<size_t>(kWriters * kAppends));
  std::set<std::string> unique(rows.begin(), rows.end());
  EXPECT_EQ(unique.size(), rows.size());
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(snapshot->TxnVersion("writer-" + std::to_string(w)), kAppends - 1);
  std::printf("%d of %d appends lost a race and retried\n", retried.load(), kWriters * kAppends);
}

TEST(TransactionTest, CreatingATableTwiceIsAlreadyExists) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  auto schema = Ddl("id INT");
  std::atomic<int> created{0}, existed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      auto t = Table::Create(Local(), root, schema, {});
      if (t.ok()) ++created;
      if (!t.ok() && t.status().IsAlreadyExists()) ++existed;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(existed.load(), 3);
}

TEST(TransactionTest, PartitionValuesMustMatchThePartitionColumns) {
  ScratchDir dir;
  ASSERT_OK_AND_ASSIGN(auto table, Table::Create(Local(), dir.Sub("t"), Ddl("id INT, p STRING"), {"p"}));
  Transaction missing(table->snapshot());
  missing.AddFile(Add("x.parquet"));
  ASSERT_STATUS_CODE(kInvalidArgument, missing.Commit());
  Transaction extra(table->snapshot());
  AddFile a = Add("y.parquet");
  a.partition_values = {{"p", "v"}, {"q", "w"}};
  extra.AddFile(a);
  ASSERT_STATUS_CODE(kInvalidArgument, extra.Commit());
  Transaction twice(table->snapshot());
  a.partition_values = {{"p", std::nullopt}};
  twice.AddFile(a);
  twice.AddFile(a);
  ASSERT_STATUS_CODE(kInvalidArgument, twice.Commit());
  Transaction once(table->snapshot());
  once.AddFile(a);
  ASSERT_OK_AND_ASSIGN(auto ok, once.Commit());
  EXPECT_EQ(ok.version, 1);
  ASSERT_STATUS_CODE(kInvalidArgument, once.Commit());  // committed once only
}

TEST(TransactionTest, RefusesTablesWithUnsupportedWriterFeatures) {
  ScratchDir dir;
  const std::string root = dir.Sub("t");
  ASSERT_OK(Local()->CreateDirs(LogDirPath(root)));
  Protocol p;
  p.min_reader_version = 3;
  p.min_writer_version = 7;
  p.reader_features = std::vector<std::string>{"deletionVectors"};
  p.writer_features = std::vector<std::string>{"deletionVectors", "rowTracking"};
  Metadata m;
  m.id = "x";
  m.schema_string = columnar::SchemaToDeltaJson(Ddl("id INT"));
  ASSERT_OK(Local()->PutIfAbsent(LogDirPath(root) + "/" + CommitFileName(0), SerializeActions({p, m})));
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(Local(), root));  // readable: no DV in use
  auto writable = snapshot->CheckWritable();
  ASSERT_STATUS_CODE(kNotImplemented, writable);
  EXPECT_NE(writable.message().find("deletionVectors"), std::string::npos) << writable.message();
  Transaction txn(snapshot);
  ASSERT_STATUS_CODE(kNotImplemented, txn.Commit());
  ASSERT_STATUS_CODE(kNotImplemented, DataFileWriter::Open(*snapshot));
}


// --- The rule for a transaction's data files (transaction.h) ------------------------------------

// A table (id BIGINT) at dir/t with one writer's worth of rows staged in `txn`.
struct StagedAppend {
  std::unique_ptr<Table> table;
  std::unique_ptr<Transaction> txn;
  std::vector<std::string> written;  // the data files' paths, once finished
};

Result<StagedAppend> Stage(fs::FileSystem* fs, const std::string& dir) {
  StagedAppend staged;
  WEIR_ASSIGN_OR_RETURN(staged.table, Table::Create(fs, dir + "/t", Ddl("id BIGINT"), {}));
  staged.txn = staged.table->NewTransaction();
  WEIR_ASSIGN_OR_RETURN(DataFileWriter * writer, staged.txn->NewDataFileWriter());
  WEIR_ASSIGN_OR_RETURN(auto batch, BatchFromJson(Ddl("id BIGINT"), {R"({"id":1})", R"({"id":2})"}));
  WEIR_RETURN_NOT_OK(writer->Write(batch));
  WEIR_RETURN_NOT_OK(staged.txn->FinishDataFiles());
  for (const AddFile& a : staged.txn->adds()) staged.written.push_back(dir + "/t/" + a.path);
  WEIR_RETURN_NOT_OK(staged.txn->SetTxn("query", 0));
  return staged;
}

bool AllExist(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    if (!*Local()->Exists(p)) return false;
  }
  return !paths.empty();
}

bool NoneExist(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    if (*Local()->Exists(p)) return false;
  }
  return true;
}

TEST(TransactionFilesTest, AnUnknownOutcomeKeepsTheFilesAndTheNextReaderFindsTheCommit) {
  ScratchDir dir;
  fs::FaultInjectionFileSystem faulty(Local());
  ASSERT_OK_AND_ASSIGN(StagedAppend staged, Stage(&faulty, dir.path()));
  // The put of version 1 lands, then reports EIO, and the read-back fails too.
  faulty.AddRule(fs::FaultRule{.op = fs::FileOp::kPutIfAbsent,
                               .path_substring = CommitFileName(1),
                               .mode = fs::FaultMode::kTakeEffectThenFail,
                               .then_fail_reads = 5});
  auto result = staged.txn->Commit();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsUnavailable()) << result.status().ToString();
  EXPECT_TRUE(staged.txn->commit_outcome_unknown());
  EXPECT_NE(result.status().message().find("unknown outcome"), std::string::npos);
  EXPECT_NE(result.status().message().find("version 1"), std::string::npos);
  EXPECT_TRUE(AllExist(staged.written)) << "files of a commit that may have landed were deleted";
  staged.txn.reset();  // destroying it deletes nothing either
  EXPECT_TRUE(AllExist(staged.written));
  // The commit did land: a reader sees it, with the query's txn, and reads every row.
  ASSERT_OK_AND_ASSIGN(auto snapshot, Snapshot::Load(Local(), dir.Sub("t")));
  EXPECT_EQ(snapshot->version(), 1);
  EXPECT_EQ(snapshot->TxnVersion("query"), 0);
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(snapshot));
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"id":1})", R"({"id":2})"}));
}

TEST(TransactionFilesTest, APutThatFailsWithoutEffectDeletesTheFiles) {
  ScratchDir dir;
  fs::FaultInjectionFileSystem faulty(Local());
  ASSERT_OK_AND_ASSIGN(StagedAppend staged, Stage(&faulty, dir.path()));
  faulty.AddRule(fs::FaultRule{.op = fs::FileOp::kPutIfAbsent, .path_substring = CommitFileName(1)});
  auto result = staged.txn->Commit();
  ASSERT_FALSE(result.ok());
  EXPECT_FALSE(staged.txn->commit_outcome_unknown());  // read back: absent
  EXPECT_TRUE(NoneExist(staged.written));
}

TEST(TransactionFilesTest, AnUncommittedTransactionDeletesItsFiles) {
  ScratchDir dir;
  ASSERT_OK_AND_ASSIGN(StagedAppend staged, Stage(Local(), dir.path()));
  EXPECT_TRUE(AllExist(staged.written));
  staged.txn.reset();
  EXPECT_TRUE(NoneExist(staged.written));
}

TEST(TransactionFilesTest, WorkAlreadyCommittedByAnotherRunDeletesTheFiles) {
  ScratchDir dir;
  ASSERT_OK_AND_ASSIGN(StagedAppend staged, Stage(Local(), dir.path()));
  auto other = staged.table->NewTransaction();  // another run of the same batch wins
  ASSERT_OK(other->SetTxn("query", 0));
  ASSERT_OK(other->Commit().status());
  ASSERT_OK_AND_ASSIGN(CommitResult result, staged.txn->Commit());
  EXPECT_TRUE(result.already_committed);
  EXPECT_TRUE(NoneExist(staged.written));
}

// A store whose put of a log entry lands and then answers "already exists" (an HTTP client
// retrying a PUT whose first try landed): the committer must see its own bytes, not a concurrent
// winner holding the same txn (which would make it delete the files its commit references).
class RetriedPutFileSystem final : public fs::FileSystem {
 public:
  // Reads of log entries fail once a put was answered "already exists".
  bool fail_reads_after_put = false;

  Result<std::unique_ptr<fs::RandomAccessFile>> OpenForRead(const std::string& p) override {
    if (fail_reads_after_put && puts_ > 1 && p.find("_delta_log/") != std::string::npos) {
      return Status::Unavailable("open for read " + p + ": HTTP 503");
    }
    return base_->OpenForRead(p);
  }
  Result<std::unique_ptr<fs::WritableFile>> OpenForWrite(const std::string& p) override {
    return base_->OpenForWrite(p);
  }
  Status PutIfAbsent(const std::string& path, std::string_view data) override {
    Status st = base_->PutIfAbsent(path, data);
    if (st.ok() && path.find("_delta_log/") != std::string::npos && ++puts_ > 1) {
      return Status::AlreadyExists("put-if-absent " + path + ": exists (retried request)");
    }
    return st;
  }
  Status WriteAtomic(const std::string& p, std::string_view d) override { return base_->WriteAtomic(p, d); }
  Status Rename(const std::string& f, const std::string& t) override { return base_->Rename(f, t); }
  Status RenameNoReplace(const std::string& f, const std::string& t) override {
    return base_->RenameNoReplace(f, t);
  }
  Status Delete(const std::string& p) override { return base_->Delete(p); }
  Status DeleteDirRecursive(const std::string& p) override { return base_->DeleteDirRecursive(p); }
  Status CreateDirs(const std::string& p) override { return base_->CreateDirs(p); }
  Result<bool> Exists(const std::string& p) override { return base_->Exists(p); }
  Result<fs::FileInfo> GetFileInfo(const std::string& p) override { return base_->GetFileInfo(p); }
  Result<std::vector<fs::FileInfo>> List(const std::string& d) override { return base_->List(d); }
  Status SyncDir(const std::string& p) override { return base_->SyncDir(p); }

 private:
  fs::FileSystem* base_ = Local();
  int puts_ = 0;  // the first (version 0, the table's creation) answers normally
};

TEST(TransactionFilesTest, OurOwnCommitSeenAsAlreadyExistingIsCommittedAndKeepsItsFiles) {
  ScratchDir dir;
  RetriedPutFileSystem retried;
  ASSERT_OK_AND_ASSIGN(StagedAppend staged, Stage(&retried, dir.path()));
  ASSERT_OK_AND_ASSIGN(CommitResult result, staged.txn->Commit());
  EXPECT_TRUE(result.committed);
  EXPECT_FALSE(result.already_committed);
  EXPECT_EQ(result.version, 1);
  EXPECT_TRUE(AllExist(staged.written));
  ASSERT_OK_AND_ASSIGN(auto rows, SortedRows(result.snapshot));
  EXPECT_EQ(rows.size(), 2u);
}
TEST(TransactionFilesTest, AnAlreadyExistsWhoseWinnerCannotBeReadIsAnUnknownOutcome) {
  ScratchDir dir;
  RetriedPutFileSystem retried;
  retried.fail_reads_after_put = true;
  ASSERT_OK_AND_ASSIGN(StagedAppend staged, Stage(&retried, dir.path()));
  auto result = staged.txn->Commit();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsUnavailable()) << result.status().ToString();
  EXPECT_TRUE(staged.txn->commit_outcome_unknown());
  EXPECT_TRUE(AllExist(staged.written)) << "the commit that landed lost its files";
}

}  // namespace
}  // namespace weir::delta
