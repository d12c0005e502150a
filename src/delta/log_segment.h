// LogSegment: the files that make up one snapshot of a table — the newest complete checkpoint at or
// below the snapshot version, plus the contiguous commits after it (PROTOCOL.md "Checkpoints",
// "Last Checkpoint File"). The directory listing is authoritative: _last_checkpoint only says
// where the listing may start (the names before its version are not listed when a complete
// checkpoint is found from there on), so an empty, corrupt or stale hint never misleads a reader.
// Multi-part checkpoints with missing parts are ignored. Pure data plus functions that list the
// log through a FileSystem; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "delta/log_path.h"
#include "fs/file_system.h"

namespace weir::delta {

// A file of the log, as listed.
struct LogFile {
  std::string path;  // full path
  ParsedLogName name;
  int64_t size = 0;
  int64_t mtime_ms = 0;

  int64_t version() const { return name.version; }
};

struct LogSegment {
  std::string table_root;
  std::string log_dir;
  int64_t version = -1;                      // the snapshot's version
  std::optional<int64_t> checkpoint_version;  // where replay starts, if from a checkpoint
  std::vector<LogFile> checkpoint_files;      // the checkpoint's parts in order (one if classic)
  std::vector<LogFile> commits;               // versions (checkpoint_version or -1)+1 .. version
  std::vector<LogFile> all_commits;           // every commit file listed, by version (time travel)
  int64_t listed_from_version = 0;            // the listing's first version: 0 (the whole log),
                                              // or the _last_checkpoint version it started at
  std::optional<LastCheckpointHint> last_checkpoint;  // the hint, when present and well-formed
};

// Every recognised file of `log_dir`, sorted by version (then name). NotFound naming the table
// when the directory does not exist.
Result<std::vector<LogFile>> ListLogFiles(fs::FileSystem* fs, const std::string& log_dir);
// The recognised log files of a directory listing, sorted as ListLogFiles sorts them.
std::vector<LogFile> LogFilesOfListing(const std::vector<fs::FileInfo>& listed);
// The same without the files named by a version before `from_version` (their names sort before
// its zero-padded number): reading a long log's new commits does not stat every old one. A log
// compaction file A.B.compacted.json with A < from_version is left out too, so the listing
// serves reading commits from a version, not building a snapshot.
Result<std::vector<LogFile>> ListLogFilesFrom(fs::FileSystem* fs, const std::string& log_dir,
                                              int64_t from_version);

// Chooses the files for `version` (the latest when nullopt) from a listing. Errors:
// NotFound when the log holds no commit, or the version is newer than the latest or older than
// what the log still covers (cleaned up); Corruption when commits are missing in between.
Result<LogSegment> LogSegmentFromListing(const std::string& table_root,
                                         std::vector<LogFile> files,
                                         std::optional<int64_t> version);

// The _last_checkpoint hint of `log_dir`, when present and well-formed (a bad hint is only a
// missed shortcut).
std::optional<LastCheckpointHint> ReadLastCheckpointHint(fs::FileSystem* fs,
                                                         const std::string& log_dir);

// Reads the _last_checkpoint hint, lists `<table_root>/_delta_log` from the hint's version on
// (ListFrom: a store with a listing start key does not return the older names) when that finds a
// complete checkpoint at or after it, else the whole log, and builds the segment. all_commits
// then starts at listed_from_version.
Result<LogSegment> BuildLogSegment(fs::FileSystem* fs, const std::string& table_root,
                                   std::optional<int64_t> version = std::nullopt);

}  // namespace weir::delta
