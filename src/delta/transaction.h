// Transaction: a set of changes (files added and removed, txn versions, metadata) committed
// atomically as one new version of a table, on top of the snapshot it read. It is weir's one
// write-and-commit path: the data files a commit adds are written by the transaction's own
// writers (NewDataFileWriter), and one rule decides their fate.
//
// Typical streaming micro-batch:
//   Transaction txn(table.snapshot());
//   if (txn.read_snapshot().TxnVersion(query_id) >= batch_id) skip;  // done before a crash
//   DataFileWriter* writer = txn.NewDataFileWriter();  writer->Write(rows) ...
//   txn.SetTxn(query_id, batch_id);
//   txn.SetTxn("weir:<flow>:<topic>:<partition>", next_offset);  // one per Kafka partition
//   txn.SetStreamingUpdate(query_id, batch_id);
//   auto result = txn.Commit();  // result->already_committed: a concurrent/previous run won
//
// Commit() validates (table features, delta.appendOnly, partition values), writes the commit with
// the Committer (put-if-absent, retries after compatible concurrent commits, see committer.h),
// then writes a checkpoint when the committed version is a multiple of delta.checkpointInterval.
// A failed checkpoint does not fail the commit (CommitResult::checkpoint_status).
//
// The rule for the files of the transaction's writers: they are deleted only when the commit is
// known not to have happened — the transaction is destroyed or Abort()ed without committing,
// Commit() fails for any reason but an unknown outcome, or the work was already committed by
// another run. When the commit's outcome is unknown (Unavailable, commit_outcome_unknown(): the
// put of the log entry failed and reading it back failed too) the files stay: the commit may be
// in the log and reference them. A flow then stops and its next run settles the batch from the
// log (its txn present: skipped; absent: re-run; the first try's files are orphans VACUUM
// removes after the retention period). Files added with AddFile(s) are the caller's to manage
// by the same rule.
// A Transaction is used by one thread at a time and committed once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "delta/actions.h"
#include "delta/committer.h"
#include "delta/data_writer.h"
#include "delta/snapshot.h"

namespace weir::delta {

struct CommitResult {
  // The version written; when already_committed, the version that already holds the work
  // (the read snapshot's, or a concurrent winner's).
  int64_t version = -1;
  bool committed = false;  // this transaction wrote `version`
  bool already_committed = false;
  int attempts = 0;
  int64_t files_added = 0;  // add actions of the commit written
  // The table as of `version` (nullptr if it could not be read back after the commit).
  std::shared_ptr<const Snapshot> snapshot;
  bool checkpoint_written = false;
  Status checkpoint_status;  // error of the post-commit checkpoint, if one was attempted and failed
};

class Transaction {
 public:
  // A transaction on the table of `read_snapshot`.
  explicit Transaction(std::shared_ptr<const Snapshot> read_snapshot);
  // A transaction that creates the table at `table_root` (version 0): SetProtocol and SetMetadata
  // are required. REQUIRES: `fs` outlives the transaction.
  Transaction(fs::FileSystem* fs, std::string table_root);
  // Deletes the files of its writers unless Commit() was called (see the rule above).
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // nullptr for a transaction creating the table.
  const std::shared_ptr<const Snapshot>& read_snapshot() const { return read_snapshot_; }
  int64_t read_version() const { return read_snapshot_ ? read_snapshot_->version() : -1; }

  // A writer of new data files into the read snapshot's table (partitioning, codec and file size
  // from the table, `options` overriding), owned by the transaction: Commit() finishes it and
  // adds its files. Fails when weir may not write the table; InvalidArgument for a transaction
  // that creates its table. The pointer lives as long as the transaction.
  Result<DataFileWriter*> NewDataFileWriter(DataWriterOptions options = {});
  // Finishes every writer and adds its files (Commit() does it too): for callers that look at
  // adds() before committing. On an error the writers' files are deleted.
  Status FinishDataFiles();
  // Gives up before committing: deletes the writers' files. Commit() fails afterwards.
  void Abort();

  void AddFile(AddFile add);
  void AddFiles(std::vector<delta::AddFile> adds);
  // Removes a file; the transaction counts it as read (a concurrent remove of it conflicts).
  void RemoveFile(delta::RemoveFile remove);
  void RemoveFiles(std::vector<delta::RemoveFile> removes);
  // Removes the live file of the read snapshot with this log path. NotFound if there is none.
  Status RemoveLiveFile(const std::string& path, bool data_change);
  // Records progress of application `app_id` (at most one per appId per commit; InvalidArgument
  // for a repeated appId).
  Status SetTxn(std::string app_id, int64_t version);
  // The transaction is valid only while the table's txn of `app_id` is `version` (nullopt: the
  // table has none) — Delta's readTxn, for writers that share a table and hand work to each other
  // (consumer-group workers): Commit() fails with Conflict when the read snapshot holds another
  // version or a concurrent commit sets `app_id`, and a txn of `app_id` at or beyond the one this
  // transaction sets then means "another writer got there", never "already committed".
  void ExpectTxn(std::string app_id, std::optional<int64_t> version);
  void SetMetadata(Metadata metadata);
  void SetProtocol(Protocol protocol);
  // The result depends on every file of the read snapshot (overwrite, compaction planning):
  // any concurrent data change conflicts.
  void MarkReadWholeTable() { intent_.read_whole_table = true; }
  // The transaction read this live file (without removing it): a concurrent remove of it
  // conflicts (Delta's ConcurrentDeleteReadException).
  void MarkFileRead(const delta::AddFile& add);
  // The transaction's result depends on the rows matching `predicate`: a concurrent data-change
  // add that may hold such rows conflicts (Delta's ConcurrentAppendException). Makes the commit
  // not a blind append.
  void AddReadPredicate(ReadPredicate predicate);

  // commitInfo.operation and operationParameters. Default: WRITE {mode: Append, partitionBy}.
  void SetOperation(std::string operation, StringMap parameters);
  // STREAMING UPDATE {outputMode: Append, queryId, epochId}, as Spark's streaming sink writes.
  void SetStreamingUpdate(const std::string& query_id, int64_t epoch_id);
  // commitInfo.operationMetrics, replacing the default ones (numFiles, numOutputRows, ...).
  void SetOperationMetrics(StringMap metrics) { operation_metrics_ = std::move(metrics); }
  void SetCheckpointAfterCommit(bool enabled) { checkpoint_after_commit_ = enabled; }
  void SetCommitterOptions(CommitterOptions options) { committer_options_ = options; }

  // Commits (once). Errors: InvalidArgument for invalid changes (e.g. removes on an append-only
  // table), NotImplemented for tables weir cannot write, Conflict when a concurrent commit
  // invalidated this transaction, AlreadyExists when creating a table that exists, IOError;
  // Unavailable with commit_outcome_unknown() when the commit may have landed.
  Result<CommitResult> Commit();
  // After Commit() failed: true when the commit may nevertheless be in the log.
  bool commit_outcome_unknown() const { return outcome_unknown_; }

  const std::vector<delta::AddFile>& adds() const { return adds_; }
  const std::vector<delta::RemoveFile>& removes() const { return removes_; }

 private:
  Result<CommitResult> CommitActions();
  void DeleteDataFiles();
  Status Validate(const Protocol& protocol, const Metadata& metadata,
                  const columnar::Schema& schema) const;
  CommitInfo BuildCommitInfo(int64_t now_ms) const;

  fs::FileSystem* fs_ = nullptr;
  std::string table_root_;
  std::shared_ptr<const Snapshot> read_snapshot_;
  std::vector<delta::AddFile> adds_;
  std::vector<delta::RemoveFile> removes_;
  std::optional<Metadata> new_metadata_;
  std::optional<Protocol> new_protocol_;
  ConflictIntent intent_;
  std::map<std::string, std::optional<int64_t>> expected_txns_;
  std::optional<std::string> operation_;
  StringMap operation_parameters_;
  std::optional<StringMap> operation_metrics_;
  bool checkpoint_after_commit_ = true;
  CommitterOptions committer_options_;
  std::string txn_id_;
  std::vector<std::unique_ptr<DataFileWriter>> writers_;
  bool writers_finished_ = false;
  bool committed_ = false;  // Commit() or Abort() was called
  bool outcome_unknown_ = false;
};

}  // namespace weir::delta
