// DeltaSource: a Delta table read as a stream (`FROM STREAM(table)`), with the offsets, file order,
// admission control and errors of Delta's Spark source (delta-io/delta spark/.../sources/
// DeltaSource.scala, DeltaSourceOffset.scala, DeltaOptions.scala), so that an offsets/N line Spark
// wrote for this source resumes in weir and the reverse. The engine plans a batch with
// LatestOffset(previous end, limit), logs the end offset, then lists the batch with
// FilesBetween(start, end) — the same files whenever it is asked, however the table grew — and
// reads each file with ReadFile. Not thread-safe: one thread drives a source.
//
// New commits are found by name, not by listing the log (whose length grows with the table's
// age): a batch reads _delta_log/<v>.json for v = its start, v + 1, ... until one is absent. An
// absent commit is the end of the log unless the log is known to have gone past it: a version
// the source already saw (or the snapshot at Open holds), or one at or before the checkpoint
// _last_checkpoint names (metadata cleanup deletes commits only before a checkpoint it keeps).
// Then, and every kIdleListingIntervalMs while polls find nothing (a writer that does not write
// _last_checkpoint), the log is listed from that version, which reports the gap of a cleaned-up
// log as Delta does.
// REQUIRES: the FileSystem outlives the source.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "delta/actions.h"
#include "delta/scan.h"
#include "delta/snapshot.h"
#include "fs/file_system.h"

namespace weir::delta {

// A position in the stream of a table's added files (Delta's DeltaSourceOffset). Positions are
// ordered by (reservoir_version, index). While is_initial_snapshot, the position is inside the
// snapshot of the table at reservoir_version (its files ordered by (modificationTime, path));
// otherwise inside the changes of commit reservoir_version (its data-changing adds in commit
// order). Indexes of files start at 0; kBaseIndex is "before the version's first file".
struct DeltaSourceOffset {
  // In-memory sentinels, as DeltaSourceOffset.scala keeps them: BASE_INDEX (-100, written as -1
  // with sourceVersion 1), the schema-tracking indexes (written with sourceVersion 3) and
  // END_INDEX, which an offset never holds (the end of version v is rounded to (v + 1, base)).
  static constexpr int64_t kBaseIndex = -100;
  static constexpr int64_t kMetadataChangeIndex = -20;
  static constexpr int64_t kPostMetadataChangeIndex = -19;
  static constexpr int64_t kEndIndex = std::numeric_limits<int64_t>::max() - 100;

  std::string reservoir_id;  // the table id (metaData.id)
  int64_t reservoir_version = 0;
  int64_t index = kBaseIndex;
  bool is_initial_snapshot = false;  // serialised as "isStartingVersion"

  // The JSON Delta writes into offsets/N, byte for byte:
  // {"sourceVersion":1,"reservoirId":"..","reservoirVersion":V,"index":I,"isStartingVersion":B}.
  // REQUIRES: index != kEndIndex.
  std::string ToJson() const;
  // Parses any offset Delta accepts (sourceVersion 1 or 3, fields in any order, unknown fields
  // ignored; index -1 of sourceVersion 1 is kBaseIndex). Errors carry Delta's error class:
  // Corruption [DELTA_INVALID_SOURCE_OFFSET_FORMAT] / [DELTA_INVALID_SOURCE_VERSION];
  // NotImplemented [DELTA_INVALID_FORMAT_FROM_SOURCE_VERSION] for a newer sourceVersion.
  static Result<DeltaSourceOffset> FromJson(std::string_view json);

  friend bool operator==(const DeltaSourceOffset&, const DeltaSourceOffset&) = default;
};

// Internal [Found invalid offsets ...] when `current` is behind `previous` (Delta's
// DeltaSourceOffset.validateOffsets, applied to every planned batch).
Status ValidateOffsetProgress(const DeltaSourceOffset& previous, const DeltaSourceOffset& current);

// The reader options of DeltaOptions.scala that a streaming source honours.
struct DeltaSourceOptions {
  struct StartingVersion {
    bool latest = false;  // 'latest': only commits after the latest version at first start
    int64_t version = 0;
  };

  std::optional<int32_t> max_files_per_trigger;  // > 0
  std::optional<int64_t> max_bytes_per_trigger;  // > 0; soft (a batch has at least one file)
  bool ignore_deletes = false;
  bool ignore_changes = false;        // re-emit the adds of commits that also remove data
  bool ignore_file_deletion = false;  // deprecated alias of ignoreChanges
  bool skip_change_commits = false;   // skip every commit that removes data
  bool fail_on_data_loss = true;
  // Used only when there is no start offset (a first start); at most one of them.
  std::optional<StartingVersion> starting_version;
  std::optional<std::string> starting_timestamp;  // 'YYYY-MM-DD[ HH:MM:SS[.f]]', UTC unless zoned

  // From reader option strings (keys case-insensitive, unknown keys ignored), validated with
  // Delta's messages: InvalidArgument [DELTA_ILLEGAL_OPTION] Invalid value '<v>' for option
  // '<name>', <why>; [DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET].
  static Result<DeltaSourceOptions> FromMap(const std::map<std::string, std::string>& options);
};

// How much one batch may admit (Spark's ReadLimit as Delta's AdmissionLimits applies it). Only
// add files count; the batch ends before the first file that arrives when no capacity is left,
// so a batch always holds at least one file when any is available.
struct DeltaReadLimit {
  bool all_available = false;  // ReadLimit.allAvailable(): no limit (Trigger.Once)
  int64_t max_files = 0;
  int64_t max_bytes = 0;

  static DeltaReadLimit AllAvailable() { return DeltaReadLimit{true, 0, 0}; }
};

// An add file of the stream at its position.
struct DeltaSourceFile {
  int64_t version = 0;  // the snapshot version, or the commit that added it
  int64_t index = 0;
  std::shared_ptr<const AddFile> add;
};

class DeltaSource {
 public:
  // Opens the table at `table_root` as of its latest version: that snapshot's schema is the
  // source's read schema and, without startingVersion/startingTimestamp, the first batches read
  // it whole. `scan` selects the columns ReadFile returns. NotFound without a table.
  static Result<std::unique_ptr<DeltaSource>> Open(fs::FileSystem* fs, std::string table_root,
                                                   DeltaSourceOptions options = {},
                                                   ScanOptions scan = {});

  const std::string& table_root() const { return table_root_; }
  const std::string& table_id() const { return snapshot_at_start_->metadata().id; }
  const std::shared_ptr<const Snapshot>& snapshot_at_start() const { return snapshot_at_start_; }
  const DeltaSourceOptions& options() const { return options_; }
  // The schema of ReadFile's batches (the table's at Open, projected by ScanOptions::columns).
  const columnar::Schema& schema() const { return scan_->schema(); }

  // Parses an offset from a checkpoint and checks it belongs to this table: InvalidArgument
  // [DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE] otherwise.
  Result<DeltaSourceOffset> ParseOffset(std::string_view json) const;

  // The limit of every batch unless the trigger says otherwise: maxFilesPerTrigger (1000 when
  // neither option is set) and maxBytesPerTrigger.
  DeltaReadLimit DefaultReadLimit() const;

  // Trigger.AvailableNow: the next LatestOffset call also fixes the end of this run (the latest
  // offset with no limit), and no later offset passes it; limits still apply per batch.
  void PrepareForTriggerAvailableNow() { trigger_available_now_ = true; }
  const std::optional<DeltaSourceOffset>& available_now_end() const { return available_now_end_; }

  // How often a poll that finds no new commit lists the log anyway (see the top of this file).
  static constexpr int64_t kIdleListingIntervalMs = 10 * 60 * 1000;
  void SetIdleListingIntervalForTesting(int64_t ms) { idle_listing_interval_ms_ = ms; }

  // The end offset of the next batch starting at `start` (nullopt: the stream's beginning),
  // admitting files up to `limit`. Returns `start` itself when there is nothing new, and nullopt
  // when there is no start and nothing to read yet. The same (start, limit, table) always gives
  // the same end. Fails on commits the options do not allow (InvalidArgument
  // [DELTA_SOURCE_IGNORE_DELETE] / [DELTA_SOURCE_TABLE_IGNORE_CHANGES]), on a schema change
  // (InvalidArgument [DELTA_SCHEMA_CHANGED_WITH_VERSION]; reopen the source to continue with the
  // new schema when it is additive), and when the needed log is gone (DataLoss
  // [DELTA_MISSING_FILES_UNEXPECTED_VERSION] unless failOnDataLoss=false,
  // [DELTA_LOG_FILE_NOT_FOUND_FOR_STREAMING_SOURCE]).
  Result<std::optional<DeltaSourceOffset>> LatestOffset(
      const std::optional<DeltaSourceOffset>& start, const DeltaReadLimit& limit);

  // The add files after `start` up to and including `end`, in stream order: what the batch
  // (start, end] reads. Independent of later commits. REQUIRES: end came from LatestOffset (of
  // this or an earlier run) for this start.
  Result<std::vector<DeltaSourceFile>> FilesBetween(const std::optional<DeltaSourceOffset>& start,
                                                    const DeltaSourceOffset& end);

  // Reads one file into a batch of schema(). NotImplemented for files with deletion vectors.
  Result<columnar::Batch> ReadFile(const AddFile& add) const;
  // Opens one file to read it a row group at a time (batches of schema()); NotImplemented for
  // files with deletion vectors. REQUIRES: the source outlives the result.
  Result<std::unique_ptr<TableScan::FileRowGroups>> OpenFile(const AddFile& add) const;

 private:
  struct Entry;
  class Admission;

  DeltaSource() = default;

  // Visits the positions after (from_version, from_index), in stream order, up to `end` (or the
  // AvailableNow end) until `visit` returns false (Delta's getFileChanges).
  Status ScanChanges(int64_t from_version, int64_t from_index, bool is_initial_snapshot,
                     const std::optional<DeltaSourceOffset>& end,
                     const std::function<bool(const Entry&)>& visit);
  Result<std::optional<DeltaSourceOffset>> LatestOffsetInternal(
      const std::optional<DeltaSourceOffset>& start, const DeltaReadLimit& limit);
  // The version given by startingVersion / startingTimestamp, resolved once (nullopt: none).
  Result<std::optional<int64_t>> StartingVersion();
  Result<int64_t> VersionForTimestamp(std::string_view timestamp);
  // The live files of the snapshot at `version` in (modificationTime, path) order (cached).
  Result<const std::vector<std::shared_ptr<const AddFile>>*> InitialFiles(int64_t version);
  // Checks a commit's actions; true when the commit is to be skipped (skipChangeCommits).
  Result<bool> ValidateCommit(const std::vector<Action>& actions, int64_t version,
                              const std::optional<DeltaSourceOffset>& end);
  Status CheckSchemaChange(const Metadata& metadata, int64_t version) const;
  Status CheckOnStreamStartOnce(int64_t start_version);
  Status CheckTableId(const DeltaSourceOffset& offset) const;
  // True when commit `version`, found absent, is not simply the end of the log: the log went past
  // it (see the top of this file), or the periodic listing is due.
  bool LogWentPast(int64_t version);

  fs::FileSystem* fs_ = nullptr;
  std::string table_root_;
  DeltaSourceOptions options_;
  std::shared_ptr<const Snapshot> snapshot_at_start_;
  std::unique_ptr<TableScan> scan_;
  bool trigger_available_now_ = false;
  bool available_now_initialized_ = false;
  std::optional<DeltaSourceOffset> available_now_end_;
  bool starting_version_resolved_ = false;
  std::optional<int64_t> starting_version_;
  bool checked_on_start_ = false;
  int64_t initial_files_version_ = -1;
  std::vector<std::shared_ptr<const AddFile>> initial_files_;
  int64_t latest_seen_version_ = -1;  // the newest version known to exist (or to have existed)
  int64_t last_listing_ms_ = 0;       // steady clock, when the log was last listed
  int64_t idle_listing_interval_ms_ = kIdleListingIntervalMs;
};

}  // namespace weir::delta
