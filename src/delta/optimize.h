// OPTIMIZE (bin-packing compaction): rewrites a table's small live files as fewer, larger files
// without changing its rows, committed as removes and adds with dataChange=false (operation
// OPTIMIZE), so streaming readers of the table skip the commit and blind appends never conflict.
// Only a concurrent commit that removes a file being rewritten conflicts: the work is then
// discarded (new files deleted) and planned again from the newer version, a bounded number of
// times. Also the autoCompact hook a streaming sink calls after its commits.
// Stateless functions; thread-safe given a thread-safe FileSystem.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "columnar/types.h"
#include "delta/actions.h"
#include "delta/snapshot.h"

namespace weir::delta {

// Databricks' defaults: OPTIMIZE targets 1 GiB files; auto compaction 128 MiB files, and only
// once a partition holds at least 50 small files.
inline constexpr int64_t kOptimizeDefaultTargetSize = 1LL << 30;
inline constexpr int64_t kAutoCompactDefaultMaxFileSize = 128LL << 20;
inline constexpr int64_t kAutoCompactDefaultMinNumFiles = 50;

// A conjunction of equality / IS NULL tests on partition columns, the `--where` of OPTIMIZE:
//   region = 'eu' AND day = '2024-05-01'    p = 3    p IS NULL
// Values compare as the column's type (so `p = 3` and `p = '03'` match the INT value 3).
class PartitionPredicate {
 public:
  // Everything matches.
  PartitionPredicate() = default;
  // InvalidArgument for other syntax, or a column that is not a partition column of `snapshot`.
  static Result<PartitionPredicate> Parse(std::string_view text, const Snapshot& snapshot);

  bool Matches(const PartitionValues& values) const;
  bool empty() const { return terms_.empty(); }
  // The normalised text, e.g. "(region = 'eu') AND (p IS NULL)"; "" when empty.
  const std::string& text() const { return text_; }

 private:
  struct Term {
    std::string column;                // as named in metaData.partitionColumns
    std::optional<std::string> value;  // normalised text form; nullopt: IS NULL
    columnar::TypePtr type;
  };
  std::vector<Term> terms_;
  std::string text_;
};

struct OptimizeOptions {
  // Files are packed into bins of at most this many bytes, each rewritten as one file
  // (delta.targetFileSize is not used: OPTIMIZE has its own target, as in Databricks).
  int64_t target_file_size = kOptimizeDefaultTargetSize;
  // Only files smaller than this are rewritten (nullopt: target_file_size).
  std::optional<int64_t> min_file_size;
  // Only partitions matching this predicate (partition columns only). Empty: every partition.
  std::string where;
  // A bin is rewritten only when it holds at least this many files (never fewer than 2:
  // rewriting one file alone gains nothing).
  int64_t min_files_per_bin = 2;
  // A partition is compacted only when it holds at least this many small files (auto compaction).
  int64_t min_files_per_partition = 2;
  // Only these partitions (auto compaction: those a commit wrote to). nullopt: all.
  std::optional<std::vector<PartitionValues>> partitions;
  // commitInfo.operationParameters.auto.
  bool is_auto = false;
  // Plans after a conflicting concurrent commit (a removed file) before giving up with Conflict.
  int max_attempts = 3;
};

struct OptimizeResult {
  int64_t version = -1;  // the committed version; -1 when there was nothing to compact
  int64_t read_version = -1;
  int64_t num_removed_files = 0;
  int64_t num_removed_bytes = 0;
  int64_t num_added_files = 0;
  int64_t num_added_bytes = 0;
  int64_t num_rows = 0;        // rows rewritten
  int64_t num_partitions = 0;  // partitions with at least one bin rewritten
  int64_t num_bins = 0;
  int attempts = 0;  // plans made (1 + replans after conflicts)
  bool checkpoint_written = false;
};

// Compacts the table of `snapshot` (the latest version is read again on a conflict).
// Errors: InvalidArgument (bad options or --where), NotImplemented for tables weir cannot write
// (deletion vectors, column mapping, ...), Conflict when concurrent removals kept winning,
// IOError. On any error no file written is left referenced, and the ones written are deleted.
Result<OptimizeResult> OptimizeTable(std::shared_ptr<const Snapshot> snapshot,
                                     const OptimizeOptions& options = {});

// delta.autoOptimize.autoCompact and its thresholds. The property takes true / auto / legacy
// (enabled) or false; the thresholds are Databricks' Spark settings
// spark.databricks.delta.autoCompact.minNumFiles / .maxFileSize, which a pipeline passes in
// `overrides`; spark.databricks.delta.autoCompact.enabled there enables it for tables whose
// properties do not say.
struct AutoCompactSettings {
  bool enabled = false;
  int64_t min_num_files = kAutoCompactDefaultMinNumFiles;
  int64_t max_file_size = kAutoCompactDefaultMaxFileSize;
};
// InvalidArgument naming the key for a value that does not parse. `overrides` (Spark settings
// by their full names) win over the table's properties.
Result<AutoCompactSettings> ParseAutoCompactSettings(const StringMap& table_properties,
                                                     const StringMap& overrides = {});

// The hook a writer calls after each successful commit, with the snapshot the commit produced
// (CommitResult::snapshot) and the adds it committed: when autoCompact is enabled and a partition
// written to holds at least min_num_files files smaller than max_file_size, those files are
// compacted into max_file_size files (operation OPTIMIZE, auto=true). nullopt when nothing was
// due, also when `snapshot` is nullptr (CommitResult::snapshot when the commit could not be read
// back). Errors are those of OptimizeTable; the caller's commit stands either way, so a caller
// should log the error and go on (a Conflict just means a concurrent writer removed a file).
Result<std::optional<OptimizeResult>> MaybeAutoCompact(std::shared_ptr<const Snapshot> snapshot,
                                                       const std::vector<AddFile>& committed_adds,
                                                       const StringMap& overrides = {});

}  // namespace weir::delta
