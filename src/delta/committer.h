// Committer: publishes a commit as the next version of a table with put-if-absent, and resolves
// races with concurrent writers (optimistic concurrency, PROTOCOL.md "Creation of New Log Entries").
//
// Version N is written only with FileSystem::PutIfAbsent, so a log entry is never overwritten and
// two writers never both win N. A loser reads the winning commit and decides:
//  - the winner carries a txn for one of our appIds with a version >= ours: our work is already
//    in the table ("already committed"; the caller skips it);
//  - the winner changed the metadata or protocol, removed a file we read, changed data of a
//    table we read in full, or added data files that could hold rows matching a predicate we read
//    with (Delta's ConcurrentAppendException under Serializable isolation; blind appends
//    included): Conflict naming both versions (the caller must redo its work);
//  - otherwise (e.g. both are blind appends) we retry as N+1.
// A winner holding exactly our bytes is our own commit (a retried put whose first try landed).
// An error from PutIfAbsent leaves the outcome unknown: the file is read back to decide (our
// bytes: committed; absent: not committed; another commit: lost, as above). When the read-back
// fails too — or the winner of an AlreadyExists cannot be read to tell it from our own bytes —
// the outcome stays unknown: Unavailable naming the table and version, with
// `*outcome_unknown` set. The commit may then be in the log; whoever wrote its data files must
// keep them (the next run of a writer that records a txn settles it from the log: txn present,
// the work is done; absent, redo it; files of a commit that never landed are orphans VACUUM
// removes). Every other error means nothing was committed.
// Stateless functions; thread-safe given a thread-safe FileSystem.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "delta/actions.h"
#include "fs/file_system.h"

namespace weir::delta {

// A condition on the rows a transaction read (e.g. a MERGE's target rows), judged per data file:
// `may_match(add)` is true when the file could hold a row satisfying it, from its partition
// values and statistics (true when unsure). REQUIRES: may_match is thread-safe and cheap.
struct ReadPredicate {
  std::string description;  // for Conflict messages, e.g. "id BETWEEN 1 AND 9"
  std::function<bool(const AddFile& add)> may_match;
};

// What a transaction read and changes, to judge concurrent commits.
struct ConflictIntent {
  int64_t read_version = -1;  // -1: the transaction creates the table
  std::vector<SetTransaction> txns;
  // AppIds whose txn version the transaction read and depends on (Delta's readTxn): a concurrent
  // commit setting any of them conflicts (ConcurrentTransactionException), and a txn of these is
  // never taken as proof that the work is already committed.
  std::set<std::string> read_app_ids;
  bool changes_metadata = false;    // writes metaData or protocol
  bool read_whole_table = false;    // its result depends on every file (e.g. an overwrite)
  std::set<std::string> read_files;  // logical keys (LogicalFileKey) of the files it read/removes
  // The rows it read: a concurrent data-change add that may match any of them conflicts.
  std::vector<ReadPredicate> read_predicates;
};

enum class ConcurrentCommitVerdict { kCompatible, kAlreadyCommitted };

// Judges the commit `winner` at `winner_version`, which a transaction with `intent` lost to.
// Conflict (naming both versions and the reason) when the transaction cannot simply retry.
Result<ConcurrentCommitVerdict> CheckConcurrentCommit(const ConflictIntent& intent,
                                                      int64_t winner_version,
                                                      const std::vector<Action>& winner);

struct CommitOutcome {
  int64_t version = -1;            // the version written, or of the winner that made it redundant
  bool already_committed = false;
  int attempts = 0;
};

struct CommitterOptions {
  int max_attempts = 1000;
};

// Writes `content(version)` as version read_version+1 of the table at `table_root`, retrying
// after compatible concurrent commits. `content` is called for each attempt (its commitInfo
// carries the attempt's version and time). For read_version -1, losing version 0 is
// AlreadyExists ("the table already exists"). On an error, `*outcome_unknown` (if given) says
// whether the commit may have been written nevertheless (see the top of this file).
Result<CommitOutcome> CommitWithRetries(fs::FileSystem* fs, const std::string& table_root,
                                        const ConflictIntent& intent,
                                        const std::function<std::string(int64_t version)>& content,
                                        CommitterOptions options = {},
                                        bool* outcome_unknown = nullptr);

}  // namespace weir::delta
