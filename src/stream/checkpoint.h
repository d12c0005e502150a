// A streaming query's checkpoint folder in Spark's layout and formats (docs/checkpoint-format.md):
// metadata (query id), offsets/N (write-ahead log, before batch N runs), commits/N (after its sink
// commit), sources/i/0 (initial offsets). Files are created with put-if-absent and never replaced.
// Restart decisions follow Spark's MicroBatchExecution. The SQL confs an offsets file records are
// fixed by the query's first batch and carried into every later offsets file (Spark's
// OffsetSeqMetadata.setSessionConf), so a checkpoint Spark started stays resumable by Spark.
// Not thread-safe; one writer per folder.
//
// A Checkpoint opened for writing (Open) on the local disk holds an advisory lock on
// <dir>/.weir-run.lock (a POSIX record lock, released when the object goes or the process ends)
// while it lives, so that `weir checkpoint reset` can tell a flow that is running from one that
// stopped (RunningQuery). Best effort: a lock another process holds does not stop Open (two writers
// are still caught by put-if-absent), and object storage has no locks.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "fs/file_system.h"

namespace weir::stream {

// The contents of offsets/N.
struct OffsetSeq {
  int64_t batch_watermark_ms = 0;
  int64_t batch_timestamp_ms = 0;
  std::map<std::string, std::string> conf;
  // One entry per source, in source order: the offset JSON, or nullopt for "-".
  std::vector<std::optional<std::string>> sources;
};

// The contents of commits/N.
struct CommitMetadata {
  int64_t next_batch_watermark_ms = 0;
  // A Spark 4.0 v2 commit names state store checkpoints (stateUniqueIds): the query had state.
  bool has_state_unique_ids = false;
};

// What to do on (re)start.
struct RestartPlan {
  enum class Kind {
    kFresh,     // no batch yet: run batch 0 from the sources' initial offsets
    kNextBatch, // batch `batch_id - 1` is committed: run `batch_id` starting at `start`
    kRerun,     // batch `batch_id` was logged but not committed: run it again over [start, end]
  };
  Kind kind = Kind::kFresh;
  int64_t batch_id = 0;
  std::optional<OffsetSeq> start;  // offsets/(batch_id - 1); absent for batch 0
  std::optional<OffsetSeq> end;    // kRerun: offsets/batch_id (its exact range, timestamp, watermark)
  int64_t watermark_ms = 0;        // the watermark the next batch uses
};

class Checkpoint {
 public:
  ~Checkpoint();
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  // Opens (creating when absent) the folder; writes `metadata` with a new query id on first use.
  static Result<std::unique_ptr<Checkpoint>> Open(fs::FileSystem* fs, std::string dir);
  // Opens an existing folder without creating anything (inspection). NotFound when absent.
  static Result<std::unique_ptr<Checkpoint>> OpenExisting(fs::FileSystem* fs, std::string dir);

  const std::string& query_id() const { return query_id_; }
  const std::string& dir() const { return dir_; }

  // Batch ids present, ascending.
  Result<std::vector<int64_t>> OffsetIds() const;
  Result<std::vector<int64_t>> CommitIds() const;
  Result<OffsetSeq> ReadOffsets(int64_t batch_id) const;
  Result<CommitMetadata> ReadCommit(int64_t batch_id) const;
  // Decides where to resume, per Spark's rules; Corruption for inconsistent folders.
  Result<RestartPlan> PlanRestart() const;
  // InvalidArgument when the folder holds the state of a Spark stateful query (dedup,
  // aggregations: Spark's state store files under state/, or a commit naming state store
  // checkpoints), which weir cannot continue; OK otherwise (weir's own state, or none).
  Status CheckNoSparkState() const;

  // Initial offsets of source `index` (sources/index/0): read, or write once.
  Result<std::optional<std::string>> ReadInitialOffsets(int index) const;
  Status WriteInitialOffsets(int index, const std::string& json);

  // AlreadyExists when the file exists (another query is using this checkpoint). Keys of
  // `offsets.conf` that offsets/(batch_id - 1) already records are written with the recorded value
  // (e.g. Spark's spark.sql.shuffle.partitions = 5 stays 5); new keys are added.
  Status WriteOffsets(int64_t batch_id, const OffsetSeq& offsets);
  Status WriteCommit(int64_t batch_id, const CommitMetadata& commit);
  // Deletes offsets and commits older than `latest_batch_id - (keep - 1)`.
  Status Purge(int64_t latest_batch_id, int64_t keep = 100);

  // Another process running a query on the checkpoint `dir`, or on a worker's checkpoint below
  // <dir>/workers/ (weir run --workers-group): "process 1234 (<lock file>)", nullopt when none
  // (nor when `dir` does not exist). Only on the local disk: on object storage (or any other file
  // system) weir cannot tell, and this is nullopt. This process's own locks do not count.
  static Result<std::optional<std::string>> RunningQuery(fs::FileSystem* fs,
                                                         const std::string& dir);
  // The lock file's name inside a checkpoint folder.
  static constexpr const char* kRunLockName = ".weir-run.lock";

  // File formats, exposed for tests and for `weir checkpoint inspect`.
  static std::string SerializeOffsets(const OffsetSeq& offsets);
  static Result<OffsetSeq> ParseOffsets(std::string_view text, const std::string& path);
  static std::string SerializeCommit(const CommitMetadata& commit);
  static Result<CommitMetadata> ParseCommit(std::string_view text, const std::string& path);

 private:
  Checkpoint(fs::FileSystem* fs, std::string dir) : fs_(fs), dir_(std::move(dir)) {}
  Result<RestartPlan> PlanRestartUnadvised() const;
  Status LoadMetadata(bool create);
  Result<std::vector<int64_t>> ListIds(const std::string& sub) const;

  // The conf recorded by the offsets file before the first one this object writes.
  Result<std::map<std::string, std::string>> RecordedConf(int64_t batch_id);

  fs::FileSystem* fs_;
  std::string dir_;
  std::string query_id_;
  std::string run_lock_;  // the lock file this object holds a reference to ("" when none)
  std::optional<std::map<std::string, std::string>> recorded_conf_;
};

// A random version-4 UUID, as Spark makes query ids.
std::string NewUuid();

}  // namespace weir::stream
