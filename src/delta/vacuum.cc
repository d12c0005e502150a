#include "delta/vacuum.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "delta/log_path.h"
#include "delta/log_segment.h"
#include "delta/transaction.h"

namespace weir::delta {

namespace {

std::string FormatHours(int64_t ms) {
  char text[64];
  if (ms % 3600000 == 0) {
    std::snprintf(text, sizeof(text), "%lld hour%s", static_cast<long long>(ms / 3600000),
                  ms == 3600000 ? "" : "s");
  } else {
    std::snprintf(text, sizeof(text), "%.3f hours", static_cast<double>(ms) / 3600000.0);
  }
  return text;
}

struct Walk {
  fs::FileSystem* fs;
  std::string root;
  const std::vector<std::string>* partition_columns;
  const std::set<std::string>* keep;  // full paths
  int64_t cutoff_ms;
  std::vector<fs::FileInfo> doomed_files;
  std::vector<fs::FileInfo> directories;  // deepest last (pre-order)
};

// Lists `dir` recursively, collecting the files VACUUM may delete.
Status Visit(Walk& walk, const std::string& dir, bool is_root) {
  auto listed = walk.fs->List(dir);
  if (!listed.ok()) {
    if (listed.status().IsNotFound() && !is_root) return Status::OK();  // deleted concurrently
    return listed.status();
  }
  for (const fs::FileInfo& entry : *listed) {
    std::string name = fs::BaseName(entry.path);
    if (is_root && name == "_delta_log") continue;
    if (IsHiddenForVacuum(name, *walk.partition_columns)) continue;
    if (entry.is_dir) {
      walk.directories.push_back(entry);
      WEIR_RETURN_NOT_OK(Visit(walk, entry.path, false));
      continue;
    }
    // Deletion vector files are named by their add's descriptor; weir does not decode those
    // (it refuses tables with live deletion vectors), so it never deletes them.
    if (name.rfind("deletion_vector_", 0) == 0) continue;
    if (walk.keep->count(entry.path)) continue;
    if (entry.mtime_ms >= walk.cutoff_ms) continue;  // new: may belong to an uncommitted write
    walk.doomed_files.push_back(entry);
  }
  return Status::OK();
}

// Adds the path of the file a log `path` names to `keep`. Refuses paths it cannot compare with
// the folder's listing: other URI schemes, and absolute paths under a relative root.
Status Keep(const std::string& root, const std::string& path, std::set<std::string>* keep) {
  auto resolved = ResolveDataFilePath(root, path);
  if (!resolved.ok()) {
    // It might name a file inside the folder by a URI weir cannot compare: refuse rather than
    // risk deleting it.
    return Status::NotImplemented("VACUUM of Delta table " + root + ": the log names the file " +
                                  path + " by a URI weir cannot resolve (" +
                                  resolved.status().message() + "); nothing was deleted");
  }
  const std::string prefix = root.back() == '/' ? root : root + "/";
  if (resolved->rfind(prefix, 0) != 0 && !root.empty() && root[0] != '/' && !resolved->empty() &&
      (*resolved)[0] == '/') {
    return Status::InvalidArgument(
        "the log of Delta table " + root + " names the file " + path +
        " by absolute path; give the table as an absolute path to VACUUM it");
  }
  keep->insert(*resolved);
  return Status::OK();
}

Result<int64_t> CommitVacuumMarker(const std::shared_ptr<const Snapshot>& snapshot,
                                   const std::string& operation, StringMap parameters,
                                   StringMap metrics) {
  auto latest = Snapshot::Update(snapshot);
  Transaction txn(latest.ok() ? *latest : snapshot);
  txn.SetOperation(operation, std::move(parameters));
  txn.SetOperationMetrics(std::move(metrics));
  WEIR_ASSIGN_OR_RETURN(CommitResult committed, txn.Commit());
  return committed.version;
}

}  // namespace

bool IsHiddenForVacuum(const std::string& name, const std::vector<std::string>& partition_columns) {
  if (name.empty() || (name[0] != '.' && name[0] != '_')) return false;
  if (name.rfind("_change_data", 0) == 0 || name.rfind("_delta_index", 0) == 0) return false;
  for (const std::string& c : partition_columns) {
    if (name.rfind(c + "=", 0) == 0) return false;
  }
  return true;
}

Result<VacuumResult> VacuumTable(std::shared_ptr<const Snapshot> snapshot,
                                 const VacuumOptions& options) {
  WEIR_RETURN_NOT_OK(snapshot->CheckWritable());
  const std::string& root = snapshot->table_root();
  const int64_t table_retention = snapshot->config().deleted_file_retention_ms;
  VacuumResult result;
  result.version = snapshot->version();
  result.retention_ms = options.retention_ms.value_or(table_retention);
  if (result.retention_ms < 0) {
    return Status::InvalidArgument("VACUUM retention must not be negative");
  }
  if (options.retention_check && result.retention_ms < table_retention) {
    return Status::InvalidArgument(
        "VACUUM refuses a retention of " + FormatHours(result.retention_ms) + " for Delta table " +
        root + ": it is shorter than delta.deletedFileRetentionDuration (" +
        FormatHours(table_retention) +
        "), so it could delete files that readers of older versions or writers still committing "
        "need. If nothing reads or writes the table, override the check (weir table vacuum "
        "--force-retention; Delta's spark.databricks.delta.retentionDurationCheck.enabled=false)");
  }
  const int64_t now = options.now_ms.value_or(NowMillis());
  result.cutoff_ms = now - result.retention_ms;

  // Files a version within the retention may need: the live ones, and those removed after the
  // cutoff (a version committed after the cutoff may still hold them).
  std::set<std::string> keep;
  for (const auto& [key, add] : snapshot->files()) WEIR_RETURN_NOT_OK(Keep(root, add->path, &keep));
  for (const auto& [key, remove] : snapshot->tombstones()) {
    // A remove without a timestamp cannot be dated: keep its file.
    if (remove->deletion_timestamp.value_or(INT64_MAX) > result.cutoff_ms) {
      WEIR_RETURN_NOT_OK(Keep(root, remove->path, &keep));
    }
  }
  // Checkpoints drop tombstones older than delta.deletedFileRetentionDuration; a longer retention
  // needs the removes of the commits the checkpoint covers.
  if (snapshot->checkpoint_version() && result.retention_ms > table_retention) {
    WEIR_ASSIGN_OR_RETURN(auto log_files, ListLogFiles(snapshot->fs(), LogDirPath(root)));
    for (const LogFile& f : log_files) {
      if (f.name.type != LogFileType::kCommit || f.version() > *snapshot->checkpoint_version() ||
          f.mtime_ms < result.cutoff_ms) {
        continue;
      }
      WEIR_ASSIGN_OR_RETURN(std::string text, fs::ReadFileToString(snapshot->fs(), f.path));
      WEIR_ASSIGN_OR_RETURN(auto actions, ParseActions(text, f.path));
      for (const Action& a : actions) {
        const auto* remove = std::get_if<RemoveFile>(&a);
        if (remove && remove->deletion_timestamp.value_or(INT64_MAX) > result.cutoff_ms) {
          WEIR_RETURN_NOT_OK(Keep(root, remove->path, &keep));
        }
      }
    }
  }

  Walk walk{snapshot->fs(), root, &snapshot->partition_columns(), &keep, result.cutoff_ms, {}, {}};
  WEIR_RETURN_NOT_OK(Visit(walk, root, /*is_root=*/true));
  const std::string prefix = root.back() == '/' ? root : root + "/";
  for (const fs::FileInfo& f : walk.doomed_files) {
    result.files.push_back(f.path.rfind(prefix, 0) == 0 ? f.path.substr(prefix.size()) : f.path);
    result.bytes += f.size;
  }
  std::sort(result.files.begin(), result.files.end());
  if (options.dry_run) return result;

  if (options.log_commits) {
    StringMap parameters = {{"retentionCheckEnabled", options.retention_check ? "true" : "false"},
                            {"defaultRetentionMillis", std::to_string(table_retention)}};
    if (options.retention_ms) {
      parameters["specifiedRetentionMillis"] = std::to_string(*options.retention_ms);
    }
    WEIR_ASSIGN_OR_RETURN(
        result.start_version,
        CommitVacuumMarker(snapshot, "VACUUM START", std::move(parameters),
                           {{"numFilesToDelete", std::to_string(result.files.size())},
                            {"sizeOfDataToDelete", std::to_string(result.bytes)}}));
  }
  Status deleted = Status::OK();
  int64_t num_deleted = 0;
  for (const fs::FileInfo& f : walk.doomed_files) {
    Status st = snapshot->fs()->Delete(f.path);
    if (st.ok()) ++num_deleted;
    if (!st.ok() && !st.IsNotFound()) {  // NotFound: a concurrent VACUUM was first
      deleted = st.WithContext("VACUUM of Delta table " + root +
                               " could not delete a file; run it again");
      break;
    }
  }
  if (deleted.ok()) {
    // Directories left empty, deepest first; a new one may be about to receive a file.
    std::set<std::string> touched;
    for (auto it = walk.directories.rbegin(); it != walk.directories.rend(); ++it) {
      if (it->mtime_ms >= result.cutoff_ms) continue;
      auto children = snapshot->fs()->List(it->path);
      if (!children.ok() || !children->empty()) continue;
      if (snapshot->fs()->Delete(it->path).ok()) {
        ++result.directories_deleted;
        touched.insert(fs::DirName(it->path));
      }
    }
    for (const std::string& d : touched) (void)snapshot->fs()->SyncDir(d);
  }
  if (options.log_commits) {
    WEIR_ASSIGN_OR_RETURN(
        result.end_version,
        CommitVacuumMarker(
            snapshot, "VACUUM END", {{"status", deleted.ok() ? "COMPLETED" : "FAILED"}},
            {{"numDeletedFiles", std::to_string(num_deleted)},
             {"numVacuumedDirectories", std::to_string(result.directories_deleted)}}));
  }
  WEIR_RETURN_NOT_OK(deleted);
  return result;
}

}  // namespace weir::delta
