// VACUUM: deletes the files in a table's folder that no version within the retention period
// needs — files neither live in the latest version nor removed (remove.deletionTimestamp) less
// than the retention ago — once they are older than the retention themselves, so files a
// concurrent writer has not committed yet survive. Time travel to any version committed within
// the retention keeps working. _delta_log and hidden names (starting with '_' or '.', except
// partition directories `_col=value` and _change_data) are never touched, nor is anything outside
// the table folder. As Delta does, a retention shorter than delta.deletedFileRetentionDuration is
// refused unless the check is turned off explicitly. Stateless; thread-safe given a thread-safe
// FileSystem.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "delta/snapshot.h"

namespace weir::delta {

struct VacuumOptions {
  // How long removed and untracked files are kept; nullopt: delta.deletedFileRetentionDuration.
  std::optional<int64_t> retention_ms;
  // Delta's spark.databricks.delta.retentionDurationCheck.enabled: refuse a retention shorter
  // than delta.deletedFileRetentionDuration.
  bool retention_check = true;
  // List what would be deleted; delete nothing, commit nothing.
  bool dry_run = false;
  // Record VACUUM START / VACUUM END commits (commitInfo only), as Delta does.
  bool log_commits = true;
  // "Now" for the cutoff (tests); nullopt: the system clock.
  std::optional<int64_t> now_ms;
};

struct VacuumResult {
  int64_t version = -1;  // the table version whose live files were kept
  int64_t retention_ms = 0;
  int64_t cutoff_ms = 0;  // files removed or modified before this instant may go
  // Paths relative to the table root, sorted: deleted (or, in a dry run, to be deleted).
  std::vector<std::string> files;
  int64_t bytes = 0;
  int64_t directories_deleted = 0;  // directories left empty and old enough
  int64_t start_version = -1;       // VACUUM START / END commits (-1: none written)
  int64_t end_version = -1;
};

// Vacuums the table of `snapshot` (normally the latest version). Errors: InvalidArgument for a
// retention refused by the check (the message says how to override) or a negative one; the
// checks of Snapshot::CheckWritable (weir does not vacuum tables it could not write);
// InvalidArgument when the table root is relative but the log names files by absolute path,
// NotImplemented when it names files by URIs of another scheme (both: nothing is deleted);
// IOError naming the file that could not be deleted (files deleted before stay deleted; running
// VACUUM again finishes the work).
Result<VacuumResult> VacuumTable(std::shared_ptr<const Snapshot> snapshot,
                                 const VacuumOptions& options = {});

// Delta's rule for names VACUUM never touches: starting with '.' or '_', except `<partition
// column>=...` directories and _change_data / _delta_index.
bool IsHiddenForVacuum(const std::string& name, const std::vector<std::string>& partition_columns);

}  // namespace weir::delta
