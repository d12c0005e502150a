#include "delta/transaction.h"

#include <set>

#include "base/text.h"
#include "delta/checkpoint.h"
#include "delta/log_replay.h"
#include "delta/table_features.h"
#include "delta/uuid.h"

namespace weir::delta {

namespace {

std::string JsonStringArray(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ",";
    out += "\"";
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += "\"";
  }
  return out + "]";
}

}  // namespace

Transaction::Transaction(std::shared_ptr<const Snapshot> read_snapshot)
    : fs_(read_snapshot->fs()),
      table_root_(read_snapshot->table_root()),
      read_snapshot_(std::move(read_snapshot)),
      txn_id_(NewUuid()) {
  intent_.read_version = read_snapshot_->version();
}

Transaction::Transaction(fs::FileSystem* fs, std::string table_root)
    : fs_(fs), table_root_(std::move(table_root)), txn_id_(NewUuid()) {
  intent_.read_version = -1;
}

Transaction::~Transaction() {
  if (!committed_) DeleteDataFiles();
}

Result<DataFileWriter*> Transaction::NewDataFileWriter(DataWriterOptions options) {
  if (committed_ || writers_finished_) {
    return Status::InvalidArgument("a Transaction takes no new data files once finished");
  }
  if (!read_snapshot_) {
    return Status::InvalidArgument("a transaction that creates its table writes no data files");
  }
  WEIR_ASSIGN_OR_RETURN(auto writer, DataFileWriter::Open(*read_snapshot_, options));
  writers_.push_back(std::move(writer));
  return writers_.back().get();
}

Status Transaction::FinishDataFiles() {
  if (writers_finished_) return Status::OK();
  writers_finished_ = true;
  for (const auto& writer : writers_) {
    Result<std::vector<delta::AddFile>> files = writer->Finish();
    if (!files.ok()) {
      DeleteDataFiles();
      return files.status();
    }
    AddFiles(std::move(*files));
  }
  return Status::OK();
}

void Transaction::Abort() {
  if (committed_) return;
  committed_ = true;
  DeleteDataFiles();
}

void Transaction::DeleteDataFiles() {
  for (const auto& writer : writers_) writer->Abort();
}

void Transaction::AddFile(delta::AddFile add) { adds_.push_back(std::move(add)); }

void Transaction::AddFiles(std::vector<delta::AddFile> adds) {
  for (auto& a : adds) adds_.push_back(std::move(a));
}

void Transaction::RemoveFile(delta::RemoveFile remove) {
  intent_.read_files.insert(LogicalFileKey(remove.path, remove.deletion_vector));
  removes_.push_back(std::move(remove));
}

void Transaction::RemoveFiles(std::vector<delta::RemoveFile> removes) {
  for (auto& r : removes) RemoveFile(std::move(r));
}

void Transaction::MarkFileRead(const delta::AddFile& add) {
  intent_.read_files.insert(LogicalFileKey(add.path, add.deletion_vector));
}

void Transaction::AddReadPredicate(ReadPredicate predicate) {
  intent_.read_predicates.push_back(std::move(predicate));
}

Status Transaction::RemoveLiveFile(const std::string& path, bool data_change) {
  if (read_snapshot_) {
    WEIR_RETURN_NOT_OK(read_snapshot_->CheckHasFiles("removing a file"));
    for (const auto& [key, add] : read_snapshot_->files()) {
      if (add->path == path) {
        RemoveFile(MakeRemove(*add, NowMillis(), data_change));
        return Status::OK();
      }
    }
  }
  return Status::NotFound("no live file " + path + " in Delta table " + table_root_ + " at version " +
                          std::to_string(read_version()));
}

Status Transaction::SetTxn(std::string app_id, int64_t version) {
  for (const SetTransaction& t : intent_.txns) {
    if (t.app_id == app_id) {
      return Status::InvalidArgument("the transaction already sets txn appId '" + app_id +
                                     "'; a commit may hold one txn per appId");
    }
  }
  if (app_id.empty()) return Status::InvalidArgument("a txn appId must not be empty");
  SetTransaction t;
  t.app_id = std::move(app_id);
  t.version = version;
  intent_.txns.push_back(std::move(t));
  return Status::OK();
}

void Transaction::ExpectTxn(std::string app_id, std::optional<int64_t> version) {
  intent_.read_app_ids.insert(app_id);
  expected_txns_[std::move(app_id)] = version;
}

void Transaction::SetMetadata(Metadata metadata) {
  new_metadata_ = std::move(metadata);
  intent_.changes_metadata = true;
}

void Transaction::SetProtocol(Protocol protocol) {
  new_protocol_ = std::move(protocol);
  intent_.changes_metadata = true;
}

void Transaction::SetOperation(std::string operation, StringMap parameters) {
  operation_ = std::move(operation);
  operation_parameters_ = std::move(parameters);
}

void Transaction::SetStreamingUpdate(const std::string& query_id, int64_t epoch_id) {
  SetOperation("STREAMING UPDATE",
               {{"outputMode", "Append"}, {"queryId", query_id}, {"epochId", std::to_string(epoch_id)}});
}

Status Transaction::Validate(const Protocol& protocol, const Metadata& metadata,
                             const columnar::Schema& schema) const {
  WEIR_RETURN_NOT_OK(CheckWriteSupported(protocol, metadata, schema, table_root_));
  WEIR_ASSIGN_OR_RETURN(TableConfig config,
                        // Strict for a new table; keys other engines set on an existing one
                        // are theirs (Table::AlterProperties checks the keys it sets).
                        ParseTableConfig(metadata.configuration, /*strict=*/read_snapshot_ == nullptr));
  if (config.append_only) {
    for (const delta::RemoveFile& r : removes_) {
      if (r.data_change) {
        return Status::InvalidArgument(
            "Delta table " + table_root_ + " is append-only (delta.appendOnly=true): it cannot "
            "remove " + r.path + "; only rearranging data (dataChange=false) is allowed");
      }
    }
  }
  // weir writes no change data files (_change_data, cdc actions). Delta readers take a commit
  // without them as inserts (its adds) and deletes (its removes), which is right for appends and
  // compaction (dataChange=false) but would report every row of a rewritten file as deleted and
  // re-inserted: a change that removes data is refused on a table with the change data feed on.
  auto cdf = metadata.configuration.find("delta.enableChangeDataFeed");
  if (cdf != metadata.configuration.end() && AsciiLower(cdf->second) == "true") {
    for (const delta::RemoveFile& r : removes_) {
      if (r.data_change) {
        return Status::NotImplemented(
            "Delta table " + table_root_ + " has the change data feed on (table feature "
            "changeDataFeed, delta.enableChangeDataFeed=true): weir writes no change data files, "
            "so it cannot remove or rewrite " + r.path + " (MERGE updates, deletes, overwrites) "
            "without giving the change feed wrong rows; appends are supported");
      }
    }
  }
  std::set<std::string> paths;
  for (const delta::AddFile& a : adds_) {
    if (!paths.insert(LogicalFileKey(a.path, a.deletion_vector)).second) {
      return Status::InvalidArgument("the transaction adds " + a.path + " twice");
    }
    for (const std::string& p : metadata.partition_columns) {
      if (!a.partition_values.count(p)) {
        return Status::InvalidArgument("add " + a.path + " has no value for partition column '" +
                                       p + "'");
      }
    }
    if (a.partition_values.size() != metadata.partition_columns.size()) {
      return Status::InvalidArgument("add " + a.path +
                                     " has partition values for columns that are not partition "
                                     "columns of the table");
    }
  }
  return Status::OK();
}

CommitInfo Transaction::BuildCommitInfo(int64_t now_ms) const {
  CommitInfo ci;
  ci.timestamp = now_ms;
  const std::vector<std::string>& partitions =
      new_metadata_ ? new_metadata_->partition_columns : read_snapshot_->partition_columns();
  if (operation_) {
    ci.operation = *operation_;
    ci.operation_parameters = operation_parameters_;
  } else if (!read_snapshot_) {
    ci.operation = "CREATE TABLE";
    ci.operation_parameters = {{"partitionBy", JsonStringArray(partitions)}};
  } else {
    bool overwrite = intent_.read_whole_table && !removes_.empty();
    ci.operation = "WRITE";
    ci.operation_parameters = {{"mode", overwrite ? "Overwrite" : "Append"},
                               {"partitionBy", JsonStringArray(partitions)}};
  }
  if (read_snapshot_) ci.read_version = read_snapshot_->version();
  ci.isolation_level = "Serializable";
  ci.is_blind_append = removes_.empty() && !intent_.read_whole_table && intent_.read_files.empty() &&
                       intent_.read_predicates.empty() && !intent_.changes_metadata;
  if (operation_metrics_) {
    ci.operation_metrics = *operation_metrics_;
  } else if (!adds_.empty() || !removes_.empty()) {
    int64_t rows = 0, bytes = 0;
    for (const delta::AddFile& a : adds_) {
      rows += a.NumRecords().value_or(0);
      bytes += a.size;
    }
    ci.operation_metrics["numFiles"] = std::to_string(adds_.size());
    ci.operation_metrics["numOutputRows"] = std::to_string(rows);
    ci.operation_metrics["numOutputBytes"] = std::to_string(bytes);
    if (!removes_.empty()) {
      int64_t removed_bytes = 0;
      for (const delta::RemoveFile& r : removes_) removed_bytes += r.size.value_or(0);
      ci.operation_metrics["numRemovedFiles"] = std::to_string(removes_.size());
      ci.operation_metrics["numRemovedBytes"] = std::to_string(removed_bytes);
    }
  }
  ci.engine_info = std::string("weir/") + WEIR_VERSION;
  ci.txn_id = txn_id_;
  return ci;
}

Result<CommitResult> Transaction::Commit() {
  if (committed_) return Status::InvalidArgument("a Transaction can be committed only once");
  Status finished = FinishDataFiles();
  committed_ = true;
  WEIR_RETURN_NOT_OK(finished);
  Result<CommitResult> result = CommitActions();
  // The rule for the writers' files (top of transaction.h): kept unless the commit is known not
  // to have happened.
  if (result.ok() ? result->already_committed : !outcome_unknown_) DeleteDataFiles();
  return result;
}

Result<CommitResult> Transaction::CommitActions() {
  CommitResult result;

  if (!read_snapshot_ && (!new_metadata_ || !new_protocol_)) {
    return Status::InvalidArgument("creating a Delta table needs both a protocol and metadata");
  }
  const Protocol& protocol = new_protocol_ ? *new_protocol_ : read_snapshot_->protocol();
  const Metadata& metadata = new_metadata_ ? *new_metadata_ : read_snapshot_->metadata();
  columnar::Schema schema;
  if (new_metadata_) {
    WEIR_ASSIGN_OR_RETURN(schema, columnar::SchemaFromDeltaJson(new_metadata_->schema_string));
  } else {
    schema = read_snapshot_->schema();
  }
  WEIR_RETURN_NOT_OK(Validate(protocol, metadata, schema));

  // Work the read snapshot already holds (a re-run after a crash) is skipped before writing.
  if (read_snapshot_) {
    for (const SetTransaction& t : intent_.txns) {
      if (intent_.read_app_ids.count(t.app_id)) continue;
      auto committed = read_snapshot_->TxnVersion(t.app_id);
      if (committed && *committed >= t.version) {
        result.version = read_snapshot_->version();
        result.already_committed = true;
        result.snapshot = read_snapshot_;
        return result;
      }
    }
  }
  for (const auto& [app_id, expected] : expected_txns_) {
    std::optional<int64_t> actual;
    if (read_snapshot_) actual = read_snapshot_->TxnVersion(app_id);
    if (actual != expected) {
      auto describe = [](std::optional<int64_t> v) {
        return v ? "version " + std::to_string(*v) : std::string("no txn");
      };
      return Status::Conflict("Delta table " + table_root_ + " at version " +
                              std::to_string(read_version()) + " holds " + describe(actual) +
                              " for appId " + app_id + ", but this transaction was planned from " +
                              describe(expected) + " (another writer moved it); re-plan the work");
    }
  }

  auto content = [&](int64_t version) {
    int64_t now = NowMillis();
    std::vector<Action> actions;
    actions.push_back(BuildCommitInfo(now));
    if (new_protocol_) actions.push_back(*new_protocol_);
    if (new_metadata_) actions.push_back(*new_metadata_);
    for (SetTransaction t : intent_.txns) {
      t.last_updated = now;
      actions.push_back(std::move(t));
    }
    for (const delta::RemoveFile& r : removes_) actions.push_back(r);
    for (const delta::AddFile& a : adds_) actions.push_back(a);
    (void)version;
    return SerializeActions(actions);
  };
  WEIR_ASSIGN_OR_RETURN(CommitOutcome outcome,
                        CommitWithRetries(fs_, table_root_, intent_, content, committer_options_,
                                          &outcome_unknown_));
  result.version = outcome.version;
  result.already_committed = outcome.already_committed;
  result.committed = !outcome.already_committed;
  result.attempts = outcome.attempts;
  if (result.committed) result.files_added = static_cast<int64_t>(adds_.size());

  // The table as of the committed version.
  Result<std::shared_ptr<const Snapshot>> after =
      read_snapshot_ ? Snapshot::Update(read_snapshot_, outcome.version)
                     : Snapshot::Load(fs_, table_root_, outcome.version);
  if (!after.ok()) {
    result.checkpoint_status = after.status().WithContext(
        "committed version " + std::to_string(outcome.version) + " but could not read it back");
    return result;
  }
  result.snapshot = *after;
  if (!outcome.already_committed && checkpoint_after_commit_ && outcome.version > 0 &&
      outcome.version % result.snapshot->config().checkpoint_interval == 0) {
    auto cp = WriteCheckpoint(*result.snapshot);
    result.checkpoint_written = cp.ok();
    if (!cp.ok()) result.checkpoint_status = cp.status();
  }
  return result;
}

}  // namespace weir::delta
