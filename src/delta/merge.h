// MERGE (upsert) of a source batch into a Delta table on key columns, as Spark's foreachBatch +
// Delta MERGE does it: source deduplicated on the keys (last occurrence wins), candidate target
// files chosen by partition values and add statistics, matched rows updated copy-on-write (only
// files holding updated rows are rewritten), not-matched rows appended. Conditions come in as
// data (ColumnCondition) or callbacks, never as SQL. docs/merge.md states the semantics.
// Not thread-safe; the snapshot's FileSystem must outlive a PreparedMerge.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "columnar/column.h"
#include "delta/data_writer.h"
#include "delta/snapshot.h"
#include "delta/transaction.h"

namespace weir::delta {

// A condition on one target column; a row satisfies it when its value is not null, lies within
// [min, max] (each bound inclusive, absent = unbounded) and, when `in` is set, is one of `in`
// (a nullopt element admits NULL). Values are in the text forms of partition values
// (partition_value.h): "42", "12.50", "2026-06-08", "2026-06-08T09:00:00Z", "abc".
struct ColumnCondition {
  std::string column;
  std::optional<std::string> min;
  std::optional<std::string> max;
  std::optional<std::vector<std::optional<std::string>>> in;

  // "event_time >= '2026-06-08T09:00:00Z'", "p IN (0, 3)", ...
  std::string ToSql() const;
};

// WHEN MATCHED AND <cond>: decides per matched pair whether the target row is updated.
using MatchedCondition = std::function<bool(const columnar::Batch& target, int64_t target_row,
                                            const columnar::Batch& source, int64_t source_row)>;

struct MergeOptions {
  // Target = source equality on these columns (case-insensitive names; NULL never matches).
  std::vector<std::string> keys;
  // WHEN MATCHED [AND matched_condition] THEN UPDATE SET * (the whole target row is replaced by
  // the source row). Without it, matched source rows are dropped (insert-only dedup).
  bool when_matched_update = false;
  MatchedCondition matched_condition;  // empty: every matched row is updated
  std::string matched_condition_sql;   // its text for commitInfo, e.g. "s.seq > t.seq"
  // WHEN NOT MATCHED THEN INSERT * is always on.
  // Target-side conditions ANDed into the match condition (`ON t.k = s.k AND <prune>`): target
  // rows outside them never match, and files that cannot hold such rows are not read.
  std::vector<ColumnCondition> prune;
  // Also skip target files whose key ranges cannot overlap the source's keys (default on).
  bool prune_by_source_keys = true;
  // Exactly-once: txn(app_id, version) is committed with the merge; a table that already holds
  // it makes the merge a no-op (already_committed), before any file is read or written.
  std::optional<SetTransaction> txn;
  DataWriterOptions writer;
  CommitterOptions committer;
};

struct MergeMetrics {
  int64_t num_source_rows = 0;             // as given
  int64_t num_source_duplicates = 0;       // dropped by the deduplication on the keys
  int64_t num_target_rows_inserted = 0;
  int64_t num_target_rows_updated = 0;
  int64_t num_target_rows_matched_not_updated = 0;  // matched, no update (or its condition false)
  int64_t num_target_rows_copied = 0;      // unchanged rows rewritten with updated ones
  int64_t num_target_files_before_skipping = 0;  // live files of the snapshot
  int64_t num_target_files_scanned = 0;    // candidate files read (after pruning)
  int64_t num_target_files_removed = 0;    // rewritten (copy-on-write)
  int64_t num_target_files_added = 0;
  int64_t num_target_bytes_added = 0;
  int64_t num_target_bytes_removed = 0;
};

struct MergeResult {
  MergeMetrics metrics;
  // False when there was nothing to commit (no change and no txn): the table is unchanged.
  bool committed = false;
  // The txn was already in the table (or a concurrent run committed it): nothing was changed.
  bool already_committed = false;
  CommitResult commit;  // when committed or already_committed
};

// A merge whose data files are written but not yet committed: lets a caller add more txns
// (e.g. per-partition offsets) or, in tests, commit after a concurrent writer.
class PreparedMerge {
 public:
  // Reads the candidate files of `target` and writes the new data files. InvalidArgument for
  // unknown key/condition columns, source columns that are not the target's (matched by name,
  // same types, every target column present) or bad condition values.
  static Result<std::unique_ptr<PreparedMerge>> Prepare(std::shared_ptr<const Snapshot> target,
                                                        const columnar::Batch& source,
                                                        MergeOptions options);
  ~PreparedMerge();

  const MergeMetrics& metrics() const { return result_.metrics; }
  // The transaction to be committed (read files, read predicate, removes, adds, txn). Txns set
  // here are committed only when the merge changes data or carries MergeOptions::txn.
  Transaction& transaction() { return *transaction_; }
  // Commits. Conflict when a concurrent commit removed a file this merge read or added files
  // that may hold rows matching what it read: reload the table and run the merge again. The
  // data files written follow Transaction's rule: deleted when the commit is known not to have
  // happened, kept when its outcome is unknown (Unavailable).
  Result<MergeResult> Commit();

 private:
  PreparedMerge() = default;

  std::unique_ptr<Transaction> transaction_;  // owns the merge's data file writer
  DataFileWriter* writer_ = nullptr;
  MergeResult result_;
  bool has_changes_ = false;
  bool has_txn_ = false;
  bool finished_ = false;
};

// Prepare + Commit.
Result<MergeResult> MergeInto(std::shared_ptr<const Snapshot> target, const columnar::Batch& source,
                              MergeOptions options);

}  // namespace weir::delta
