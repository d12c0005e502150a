// Log replay (PROTOCOL.md "Action Reconciliation"): folds checkpoint rows and commits, oldest
// first, into the table state — the latest protocol and metadata, the live files keyed by
// (path, deletion vector id), tombstones, the latest txn version per appId and domain metadata.
// Checkpoints are read with the Parquet reader (nested struct/map/list columns; `stats_parsed`
// when `stats` is absent), V2 checkpoints (JSON or Parquet) with their sidecar files too.
// TableState is a value: copies share the immutable file entries and most of the maps holding
// them (file_map.h). Thread-compatible.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "delta/actions.h"
#include "delta/file_map.h"
#include "delta/log_segment.h"
#include "fs/file_system.h"

namespace weir::delta {

// Identity of a logical file: its path, plus the deletion vector's unique id when it has one.
std::string LogicalFileKey(const std::string& path,
                           const std::optional<DeletionVectorDescriptor>& dv);

struct TableState {
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  FileMap<AddFile> files;                         // by LogicalFileKey
  FileMap<RemoveFile> tombstones;                 // by LogicalFileKey
  std::map<std::string, SetTransaction> txns;     // by appId
  std::map<std::string, DomainMetadata> domains;  // live domains by name
  int64_t live_bytes = 0;                         // sum of the live files' sizes
  int64_t live_files_with_dv = 0;                 // live files with a deletion vector
  // False: add and remove actions are not kept (files, tombstones and the counts stay empty), for
  // writers that only append (Snapshot::WithoutFiles).
  bool track_files = true;

  // Applies one action of a newer commit (commitInfo, checkpoint-only actions are ignored).
  void Apply(Action&& action);
};

// Calls `fn` with every action stored in the Parquet checkpoint (or sidecar) file at `path`, one
// row group at a time. Corruption naming the file and row for rows missing required fields.
Status ReadParquetCheckpoint(fs::FileSystem* fs, const std::string& path,
                             const std::function<void(Action&&)>& fn);

// Calls `fn` with every action of the checkpoint of `segment` (all parts, and the sidecars a V2
// checkpoint references; not the sidecar actions themselves), Parquet a row group at a time.
Status ForEachCheckpointAction(fs::FileSystem* fs, const LogSegment& segment,
                               const std::function<void(Action&&)>& fn);

// Applies the checkpoint of `segment` (all parts, and the sidecars a V2 checkpoint references).
Status ReplayCheckpoint(fs::FileSystem* fs, const LogSegment& segment, TableState* state);

// The actions of the commit file at `path` (its text given). Corruption when a line is not an
// action, and when the file holds none: every writer puts at least one action in a commit, so an
// empty file was cut short, and replaying it as empty would silently drop the files it added.
Result<std::vector<Action>> ParseCommitActions(std::string_view text, const std::string& path);

// The actions of commit `version` of the table at `table_root`, in file order (for a streaming
// source reading a table's changes, and for history). NotFound when the commit does not exist.
Result<std::vector<Action>> ReadCommitActions(fs::FileSystem* fs, const std::string& table_root,
                                              int64_t version);

// Reads and applies one commit file. Returns its commitInfo when it has one.
Result<std::optional<CommitInfo>> ReplayCommitFile(fs::FileSystem* fs, const std::string& path,
                                                   TableState* state);

}  // namespace weir::delta
