// Checkpoints (PROTOCOL.md "Checkpoints", V1 spec, classic naming) and metadata cleanup.
//
// WriteCheckpoint writes `%020d.checkpoint.parquet` for a snapshot: one row per action, with
// nullable struct columns txn, add, remove, metaData, protocol (and domainMetadata when the table
// has domains), in the schema Spark writes (partitionValues/configuration/tags/format.options as
// map<string,string>, partitionColumns and features as array<string>, add.stats as a JSON string).
// It holds the protocol, the metadata, every live file, tombstones younger than
// delta.deletedFileRetentionDuration and txns not expired per delta.setTransactionRetentionDuration.
// Rows are streamed to the Parquet writer in bounded batches. A snapshot without files
// (Snapshot::WithoutFiles) takes them from the table's latest checkpoint, read a row group at a
// time, and the commits after it — found by name from `_last_checkpoint` (no listing of a log
// that grows by a commit a batch; a listing only when those files are not all there). The file
// is written under a
// temporary name, synced, renamed into place and its directory synced, so readers see a complete
// checkpoint or none; then `_last_checkpoint` is replaced atomically. Then, unless
// delta.enableExpiredLogCleanup is false, log files older than delta.logRetentionDuration that the
// new state no longer needs are deleted. Thread-safe for distinct snapshots; two processes may
// write the same checkpoint concurrently (both write identical content; the last rename wins).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "delta/snapshot.h"

namespace weir::delta {

struct CheckpointOptions {
  int64_t now_ms = 0;               // 0: the current time (retention is measured from it)
  bool clean_up_expired_logs = true;  // also subject to delta.enableExpiredLogCleanup
  int64_t rows_per_batch = 4096;    // actions buffered before they are handed to Parquet
  int64_t row_group_rows = 4096;    // actions per Parquet row group
};

struct CheckpointInfo {
  int64_t version = -1;
  std::string path;
  int64_t num_actions = 0;
  int64_t num_add_files = 0;
  int64_t size_in_bytes = 0;
  int64_t log_files_deleted = 0;
};

// Writes the checkpoint of `snapshot` and updates _last_checkpoint. NotImplemented for tables
// weir may not write (and with delta.checkpoint.writeStatsAsStruct=true).
Result<CheckpointInfo> WriteCheckpoint(const Snapshot& snapshot, CheckpointOptions options = {});

// Metadata cleanup (PROTOCOL.md "Metadata Cleanup"): with cutoff = now - delta.logRetentionDuration
// (rounded down to midnight UTC), keeps the newest checkpoint at or below the newest commit older
// than the cutoff and everything after it; deletes older commits, checkpoints, checksums and
// stale temporaries, oldest first. Returns the number of files deleted. The log is listed only
// once the oldest file that had not expired at this process's last cleanup of it may have:
// a long-running writer's log grows by a commit a batch.
Result<int64_t> CleanUpExpiredLogs(const Snapshot& snapshot, int64_t now_ms);

}  // namespace weir::delta
