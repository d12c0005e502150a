// Snapshot: the immutable state of a Delta table at one version — protocol, metadata (schema,
// partition columns, properties), live files with their add actions, tombstones and the
// application transaction versions (txn) used for exactly-once writes.
//
// Load() lists the log (from the _last_checkpoint version on when it can, log_segment.h) and
// replays the newest checkpoint plus the commits after it; Update() advances a snapshot by reading
// the commits after it one by one by name (no listing), which is what a long-running writer does
// between micro-batches. Loading refuses tables weir cannot read
// (table_features.h), naming the feature. Snapshots are shared, immutable and thread-safe.
// REQUIRES: the FileSystem outlives every snapshot loaded through it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "columnar/types.h"
#include "delta/actions.h"
#include "delta/log_replay.h"
#include "delta/log_segment.h"
#include "delta/table_config.h"
#include "delta/table_features.h"
#include "fs/file_system.h"

namespace weir::delta {

class Snapshot {
 public:
  // The table at `table_root` as of `version` (the latest when nullopt). NotFound when there is
  // no Delta table (or no such version); Corruption for a broken log; NotImplemented for tables
  // using features weir cannot read.
  static Result<std::shared_ptr<const Snapshot>> Load(fs::FileSystem* fs,
                                                      const std::string& table_root,
                                                      std::optional<int64_t> version = std::nullopt);
  // The newest version whose commit time (commit file modification time, made increasing as
  // Spark does) is at or before `timestamp_ms`. NotFound when the table's history starts later.
  static Result<std::shared_ptr<const Snapshot>> LoadAtTimestamp(fs::FileSystem* fs,
                                                                 const std::string& table_root,
                                                                 int64_t timestamp_ms);
  // `base` advanced over the commits written after it (up to `up_to` when given), or `base` itself
  // when there are none. The commits are read by name, base + 1, base + 2, ... until one is
  // absent: no listing. Without `up_to`, an absent base + 1 is also checked against
  // _last_checkpoint: when that names a newer version the log went past `base` and cleaned it up,
  // and the latest snapshot is loaded instead (without files if `base` had none).
  static Result<std::shared_ptr<const Snapshot>> Update(const std::shared_ptr<const Snapshot>& base,
                                                        std::optional<int64_t> up_to = std::nullopt);

  fs::FileSystem* fs() const { return fs_; }
  const std::string& table_root() const { return table_root_; }
  int64_t version() const { return version_; }
  // Modification time of this version's commit file in ms (0 when unknown).
  int64_t timestamp_ms() const { return timestamp_ms_; }

  const Protocol& protocol() const { return *state_.protocol; }
  const Metadata& metadata() const { return *state_.metadata; }
  // The logical schema (column mapping resolved to display names).
  const columnar::Schema& schema() const { return schema_; }
  const std::vector<std::string>& partition_columns() const { return metadata().partition_columns; }
  const StringMap& properties() const { return metadata().configuration; }
  // Settings from the properties, and whether they parsed (writes fail with this status if not).
  const TableConfig& config() const { return config_; }
  const Status& config_status() const { return config_status_; }
  ColumnMappingMode column_mapping_mode() const { return column_mapping_mode_; }

  // This snapshot without its files: what a writer that only appends needs (protocol, metadata,
  // txns, domains), in memory that does not grow with the table. Snapshots advanced from it
  // (Update) have no files either; WriteCheckpoint reads them from the log.
  std::shared_ptr<const Snapshot> WithoutFiles() const;
  // False for WithoutFiles() snapshots, whose files(), tombstones(), num_files() and
  // total_size() are empty.
  bool has_files() const { return state_.track_files; }
  // OK, or Internal naming `what` when the snapshot has no files.
  Status CheckHasFiles(std::string_view what) const;

  // Live files by logical key (path, plus deletion vector id), in path order.
  const FileMap<AddFile>& files() const { return state_.files; }
  int64_t num_files() const { return static_cast<int64_t>(state_.files.size()); }
  int64_t total_size() const { return total_size_; }
  const FileMap<RemoveFile>& tombstones() const { return state_.tombstones; }
  const std::map<std::string, DomainMetadata>& domains() const { return state_.domains; }
  // Every txn in the log, including expired ones.
  const std::map<std::string, SetTransaction>& transactions() const { return state_.txns; }
  // The latest committed version for `app_id`, unless it expired per
  // delta.setTransactionRetentionDuration. The streaming engine skips a batch whose id is <= this.
  std::optional<int64_t> TxnVersion(std::string_view app_id) const;
  // True when `txn` expired at `now_ms` per delta.setTransactionRetentionDuration.
  bool IsTxnExpired(const SetTransaction& txn, int64_t now_ms) const;

  // The commitInfo of this version, when its commit was replayed from JSON.
  const std::optional<CommitInfo>& commit_info() const { return commit_info_; }
  // The checkpoint replay started from, and the _last_checkpoint hint seen by Load().
  std::optional<int64_t> checkpoint_version() const { return checkpoint_version_; }
  const std::optional<LastCheckpointHint>& last_checkpoint() const { return last_checkpoint_; }

  // OK when weir may write this table: its protocol and features (table_features.h) and its
  // properties (config_status()).
  Status CheckWritable() const;

 private:
  Snapshot() = default;
  // Validates the replayed state and derives schema, config and sizes.
  Status Finish();

  fs::FileSystem* fs_ = nullptr;
  std::string table_root_;
  int64_t version_ = -1;
  int64_t timestamp_ms_ = 0;
  TableState state_;
  columnar::Schema schema_;
  TableConfig config_;
  Status config_status_;
  ColumnMappingMode column_mapping_mode_ = ColumnMappingMode::kNone;
  int64_t total_size_ = 0;
  std::optional<CommitInfo> commit_info_;
  std::optional<int64_t> checkpoint_version_;
  std::optional<LastCheckpointHint> last_checkpoint_;
};

// The current time in ms since the epoch (system clock).
int64_t NowMillis();

}  // namespace weir::delta
