#include "delta/committer.h"

#include <optional>
#include <variant>

#include "delta/log_path.h"
#include "delta/log_replay.h"

namespace weir::delta {

Result<ConcurrentCommitVerdict> CheckConcurrentCommit(const ConflictIntent& intent,
                                                      int64_t winner_version,
                                                      const std::vector<Action>& winner) {
  // A txn of ours already recorded wins over every conflict: the work is done.
  for (const Action& a : winner) {
    const auto* txn = std::get_if<SetTransaction>(&a);
    if (txn == nullptr) continue;
    for (const SetTransaction& ours : intent.txns) {
      if (ours.app_id == txn->app_id && txn->version >= ours.version &&
          !intent.read_app_ids.count(ours.app_id)) {
        return ConcurrentCommitVerdict::kAlreadyCommitted;
      }
    }
  }
  auto conflict = [&](const std::string& why) {
    return Status::Conflict("concurrent commit: version " + std::to_string(winner_version) + " " +
                            why + " after this transaction read version " +
                            std::to_string(intent.read_version) +
                            "; reload the table and retry the operation");
  };
  for (const Action& a : winner) {
    const auto* txn = std::get_if<SetTransaction>(&a);
    if (txn != nullptr && intent.read_app_ids.count(txn->app_id)) {
      return conflict("set the txn of appId " + txn->app_id + " (to " +
                      std::to_string(txn->version) + "), which this transaction depends on");
    }
  }
  for (const Action& a : winner) {
    if (std::holds_alternative<Metadata>(a)) return conflict("changed the table metadata");
    if (std::holds_alternative<Protocol>(a)) return conflict("changed the table protocol");
    if (const auto* remove = std::get_if<RemoveFile>(&a)) {
      std::string key = LogicalFileKey(remove->path, remove->deletion_vector);
      if (intent.read_files.count(key)) {
        return conflict("removed the file " + remove->path + " that this transaction read");
      }
      if (intent.read_whole_table && remove->data_change) {
        return conflict("deleted data (" + remove->path + ") of a table this transaction read in full");
      }
    }
    if (const auto* add = std::get_if<AddFile>(&a)) {
      if (intent.read_whole_table && add->data_change) {
        return conflict("added data (" + add->path + ") to a table this transaction read in full");
      }
      if (add->data_change) {
        for (const ReadPredicate& predicate : intent.read_predicates) {
          if (predicate.may_match && predicate.may_match(*add)) {
            return conflict("added the file " + add->path +
                            ", which may hold rows matching what this transaction read (" +
                            predicate.description + ")");
          }
        }
      }
    }
  }
  return ConcurrentCommitVerdict::kCompatible;
}

Result<CommitOutcome> CommitWithRetries(fs::FileSystem* fs, const std::string& table_root,
                                        const ConflictIntent& intent,
                                        const std::function<std::string(int64_t version)>& content,
                                        CommitterOptions options, bool* outcome_unknown) {
  if (outcome_unknown != nullptr) *outcome_unknown = false;
  const std::string log_dir = LogDirPath(table_root);
  CommitOutcome outcome;
  auto unknown = [&](int64_t version, const Status& put, const Status& read_back) {
    if (outcome_unknown != nullptr) *outcome_unknown = true;
    return Status::Unavailable(
        "the commit of version " + std::to_string(version) + " to Delta table " + table_root +
        " has an unknown outcome (" + put.message() + "; reading it back: " + read_back.message() +
        "): its data files are kept; a run that records its progress in the table (a "
        "streaming flow) settles it from the log when it runs again, and `weir table history " +
        table_root + "` shows whether version " + std::to_string(version) + " holds it");
  };
  int64_t version = intent.read_version + 1;
  while (true) {
    if (outcome.attempts >= options.max_attempts) {
      return Status::Conflict("gave up committing to Delta table " + table_root + " after " +
                              std::to_string(outcome.attempts) +
                              " attempts lost to concurrent writers; retry later");
    }
    ++outcome.attempts;
    const std::string path = fs::JoinPath(log_dir, CommitFileName(version));
    const std::string data = content(version);
    Status put = fs->PutIfAbsent(path, data);
    std::optional<std::string> winner_text;  // the commit now at `version`, if not ours
    if (!put.ok() && !put.IsAlreadyExists()) {
      // The outcome is unknown: our commit may or may not be there. Read it back to decide.
      auto existing = fs::ReadFileToString(fs, path);
      if (existing.ok()) {
        if (*existing == data) {
          outcome.version = version;
          return outcome;
        }
        winner_text = std::move(*existing);  // someone else's commit
      } else if (existing.status().IsNotFound()) {
        return put.WithContext("commit of version " + std::to_string(version) + " to Delta table " +
                               table_root + " failed; nothing was committed");
      } else {
        return unknown(version, put, existing.status());
      }
    }
    if (put.ok()) {
      outcome.version = version;
      return outcome;
    }
    if (intent.read_version < 0 && version == 0) {
      return Status::AlreadyExists("a Delta table already exists at " + table_root);
    }
    if (!winner_text) {
      // "Already exists" is proof of a loss only once the winner is seen not to be our own
      // bytes: a store that retries a put whose first try landed reports it the same way.
      auto winner = fs::ReadFileToString(fs, path);
      if (!winner.ok()) return unknown(version, put, winner.status());
      if (*winner == data) {
        outcome.version = version;
        return outcome;
      }
      winner_text = std::move(*winner);
    }
    WEIR_ASSIGN_OR_RETURN(auto winner, ParseActions(*winner_text, path));
    WEIR_ASSIGN_OR_RETURN(auto verdict, CheckConcurrentCommit(intent, version, winner));
    if (verdict == ConcurrentCommitVerdict::kAlreadyCommitted) {
      outcome.version = version;
      outcome.already_committed = true;
      return outcome;
    }
    ++version;
  }
}

}  // namespace weir::delta
