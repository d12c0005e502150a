// Table: the entry point to a Delta table at a path — create or open it, read snapshots (latest,
// by version, by timestamp), scan, append batches exactly once, checkpoint.
//
// A Table caches the latest snapshot it has seen; Refresh() advances it. Appending writes the data
// files (DataFileWriter), then commits them with the given txn versions (Transaction); a batch
// whose txn is already in the table is skipped without writing anything. Not thread-safe: use one
// Table per thread (snapshots it returns are immutable and may be shared).
// REQUIRES: the FileSystem outlives the Table and everything obtained from it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "delta/checkpoint.h"
#include "delta/data_writer.h"
#include "delta/scan.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"
#include "fs/file_system.h"

namespace weir::delta {

// Hands batches to `sink` one at a time (a file reader, say); returns the first error.
using BatchSink = std::function<Status(const columnar::Batch&)>;
using BatchSource = std::function<Status(const BatchSink& sink)>;

struct AppendOptions {
  // Application progress recorded atomically with the data (see Transaction::SetTxn).
  std::vector<SetTransaction> txns;
  // commitInfo operation; WRITE {mode: Append} when unset.
  std::optional<std::string> operation;
  StringMap operation_parameters;
  DataWriterOptions writer;
  // No rows and no txns: commit nothing (CommitResult::committed false, the table's version).
  bool skip_if_empty = false;
};

class Table {
 public:
  // NotFound when `path` holds no Delta table.
  static Result<std::unique_ptr<Table>> Open(fs::FileSystem* fs, std::string path);
  // Creates a table (version 0: protocol, metaData, commitInfo CREATE TABLE). Protocol reader 1 /
  // writer 2 (3 / 7 with timestampNtz when the schema needs it). `properties` are checked strictly
  // (table_config.h). AlreadyExists when a table exists at `path`.
  static Result<std::unique_ptr<Table>> Create(fs::FileSystem* fs, std::string path,
                                               columnar::Schema schema,
                                               std::vector<std::string> partition_columns,
                                               StringMap properties = {},
                                               std::optional<std::string> description = {});

  const std::string& path() const { return path_; }
  fs::FileSystem* fs() const { return fs_; }
  // The latest snapshot seen (as of Open, Refresh or the last commit).
  const std::shared_ptr<const Snapshot>& snapshot() const { return snapshot_; }
  // From now on this table's snapshots hold no files (Snapshot::WithoutFiles): for a writer that
  // only appends, whose memory should not grow with the table. Scans, MERGE and OPTIMIZE need a
  // snapshot with files (SnapshotAt loads one).
  void DropFileList();
  // Reads commits written since, and returns the new latest snapshot.
  Result<std::shared_ptr<const Snapshot>> Refresh();
  Result<std::shared_ptr<const Snapshot>> SnapshotAt(int64_t version) const;
  Result<std::shared_ptr<const Snapshot>> SnapshotAtTimestamp(int64_t timestamp_ms) const;

  // A transaction on the latest snapshot seen.
  std::unique_ptr<Transaction> NewTransaction() const;
  Result<std::unique_ptr<TableScan>> NewScan(ScanOptions options = {}) const;

  // Writes `batches` as new data files and commits them with `options.txns`. When a txn of the
  // options is already at or past its version in the table, returns already_committed without
  // writing. The files follow Transaction's rule (deleted unless committed or in doubt).
  Result<CommitResult> Append(const std::vector<columnar::Batch>& batches,
                              const AppendOptions& options = {});
  // The same with the batches from `source`, written as they come.
  Result<CommitResult> Append(const BatchSource& source, const AppendOptions& options = {});
  // Changes table properties (ALTER TABLE ... SET / UNSET TBLPROPERTIES) and, when given, the
  // table's description (COMMENT), as one metadata commit (commitInfo SET TBLPROPERTIES or
  // UNSET TBLPROPERTIES, as Spark writes them). The keys set are checked as at creation (a
  // `delta.*` key weir does not honour, or one that needs a table feature, is InvalidArgument
  // naming it); unsetting a key that is not set is InvalidArgument unless `if_exists`. Nothing is
  // committed when nothing changes (CommitResult::committed false).
  Result<CommitResult> AlterProperties(const StringMap& set, const std::vector<std::string>& unset,
                                       std::optional<std::string> description = std::nullopt,
                                       bool if_exists = false);
  // Checkpoints the latest version.
  Result<CheckpointInfo> Checkpoint(CheckpointOptions options = {});

 private:
  Table(fs::FileSystem* fs, std::string path, std::shared_ptr<const Snapshot> snapshot)
      : fs_(fs), path_(std::move(path)), snapshot_(std::move(snapshot)) {}

  fs::FileSystem* fs_;
  std::string path_;
  std::shared_ptr<const Snapshot> snapshot_;
};

}  // namespace weir::delta
