#include "stream/table_sink.h"

#include "delta/merge.h"
#include "delta/optimize.h"
#include "delta/transaction.h"
#include "stream/commit_signal.h"

namespace weir::stream {

Result<std::unique_ptr<TableSink>> TableSink::Open(fs::FileSystem* fs, TableSinkOptions options) {
  std::unique_ptr<TableSink> sink(new TableSink(fs, std::move(options)));
  WEIR_RETURN_NOT_OK(sink->OpenOrCreate());
  CommitSignals::Global().AddWriter(sink->options_.path);
  // An appending sink keeps no file list: it would grow by a file a batch, for as long as the
  // query runs. MERGE and auto compaction read the table's files, so their sinks keep it.
  if (!sink->options_.merge) {
    auto compaction = delta::ParseAutoCompactSettings(sink->table_->snapshot()->properties(),
                                                      sink->options_.auto_compact_settings);
    if (compaction.ok() && !compaction->enabled) sink->table_->DropFileList();
  }
  return sink;
}

TableSink::~TableSink() {
  Abort();
  if (table_) CommitSignals::Global().RemoveWriter(options_.path);
}

namespace {

// Whether a nested type written as `flow` fits a table column of type `table`: the same type, and
// nowhere nullable where the table's is not.
bool NestedNullabilityFits(const columnar::DataType& table, const columnar::DataType& flow) {
  for (size_t i = 0; i < table.children().size(); ++i) {
    const columnar::Field& t = table.children()[i];
    const columnar::Field& f = flow.children()[i];
    if (!t.nullable && f.nullable) return false;
    if (!NestedNullabilityFits(*t.type, *f.type)) return false;
  }
  return true;
}

}  // namespace

Result<std::vector<std::string>> CheckFlowFitsTable(const columnar::Schema& table,
                                                    const columnar::Schema& flow,
                                                    const std::string& table_path,
                                                    const std::string& flow_name) {
  auto mismatch = [&](const std::string& why) {
    return Status::InvalidArgument("A schema mismatch detected when writing to the Delta table " +
                                   table_path + ": the table has (" + table.ToDdl() +
                                   "), the flow writing " + flow_name + " produces (" +
                                   flow.ToDdl() + "): " + why +
                                   ". Write to a new table, or change the query to match.");
  };
  if (table.fields.size() != flow.fields.size()) {
    return mismatch("they have different columns");
  }
  std::vector<std::string> checked_per_row;
  for (const columnar::Field& t : table.fields) {
    const int i = flow.FieldIndex(t.name);
    if (i < 0) return mismatch("the flow has no column " + t.name);
    const columnar::Field& f = flow.fields[i];
    if (!f.type->EqualsIgnoringNullability(*t.type)) {
      return mismatch("column " + t.name + " is " + t.type->ToDdl() + " in the table but " +
                      f.type->ToDdl() + " in the flow");
    }
    if (!NestedNullabilityFits(*t.type, *f.type)) {
      return mismatch("column " + t.name + " has NOT NULL fields in the table that the flow may "
                      "leave null");
    }
    // Delta's rule: non-null values fit nullable columns; a nullable value into a NOT NULL
    // column is checked row by row.
    if (!t.nullable && f.nullable) checked_per_row.push_back(f.name);
  }
  return checked_per_row;
}

Status TableSink::OpenOrCreate() {
  auto table = delta::Table::Open(fs_, options_.path);
  if (table.ok()) {
    table_ = std::move(*table);
    WEIR_ASSIGN_OR_RETURN(not_null_checks_,
                          CheckFlowFitsTable(table_->snapshot()->schema(), options_.schema,
                                             options_.path, options_.name));
    return ApplyDefinitionProperties();
  }
  if (!table.status().IsNotFound()) return table.status();
  if (options_.must_exist) {
    return Status::Corruption(
        "the Delta table " + options_.name + " is missing (" + options_.path +
        "/_delta_log does not exist), but the flow's checkpoint records committed batches: "
        "restore the table from a backup, or delete the flow's checkpoint folder to start over "
        "(Kafka data still in the topic is then read again)");
  }
  auto created =
      delta::Table::Create(fs_, options_.path, options_.schema, options_.partition_by,
                           {options_.table_properties.begin(), options_.table_properties.end()},
                           options_.description);
  if (created.status().IsAlreadyExists()) return OpenOrCreate();  // a concurrent creator
  WEIR_ASSIGN_OR_RETURN(table_, std::move(created));
  Log("created Delta table " + options_.name + " at " + options_.path);
  return Status::OK();
}

Status TableSink::ApplyDefinitionProperties() {
  const delta::StringMap& current = table_->snapshot()->properties();
  delta::StringMap changed;
  std::string listed;
  for (const auto& [key, value] : options_.table_properties) {
    auto it = current.find(key);
    if (it != current.end() && it->second == value) continue;
    changed[key] = value;
    listed += (listed.empty() ? "" : ", ") + key + "=" + value;
  }
  const bool new_description =
      options_.description && table_->snapshot()->metadata().description != options_.description;
  if (changed.empty() && !new_description) return Status::OK();
  auto applied = table_->AlterProperties(changed, {}, options_.description);
  if (!applied.ok()) return applied.status().WithContext("TBLPROPERTIES of " + options_.name);
  Log("applied the definition's " + std::string(changed.empty() ? "" : "TBLPROPERTIES (" + listed + ")") +
      (changed.empty() || !new_description ? "" : " and ") + (new_description ? "COMMENT" : "") +
      " to " + options_.name + " (version " + std::to_string(applied->version) + ")");
  return Status::OK();
}

Result<bool> TableSink::IsCommitted(const std::string& query_id, int64_t batch_id) {
  WEIR_ASSIGN_OR_RETURN(auto snapshot, table_->Refresh());
  auto done = snapshot->TxnVersion(query_id);
  return done.has_value() && *done >= batch_id;
}

Status TableSink::Write(const columnar::Batch& rows) {
  if (rows.num_rows() == 0) return Status::OK();
  if (options_.merge) {
    merge_rows_.push_back(rows);
    return Status::OK();
  }
  if (!writer_) {
    txn_ = table_->NewTransaction();
    WEIR_ASSIGN_OR_RETURN(writer_, txn_->NewDataFileWriter());
  }
  return writer_->Write(rows);
}

Result<int64_t> TableSink::Commit(const std::string& query_id, int64_t batch_id,
                                  const std::map<std::string, int64_t>& extra_txns,
                                  const std::map<std::string, std::optional<int64_t>>& expected_txns) {
  Result<int64_t> committed = CommitBatch(query_id, batch_id, extra_txns, expected_txns);
  // Flows of this process reading the table as a stream plan their next batch now.
  if (committed.ok()) CommitSignals::Global().Notify(options_.path);
  return committed;
}

Result<int64_t> TableSink::CommitBatch(
    const std::string& query_id, int64_t batch_id, const std::map<std::string, int64_t>& extra_txns,
    const std::map<std::string, std::optional<int64_t>>& expected_txns) {
  if (options_.merge) {
    if (!expected_txns.empty()) {
      Abort();
      return Status::NotImplemented("MERGE flows cannot share their table with other writers");
    }
    return CommitMerge(query_id, batch_id, extra_txns);
  }
  // The batch's transaction holds its files (delta::Transaction's rule decides what becomes of
  // them); a batch that wrote nothing still records its txns.
  std::unique_ptr<delta::Transaction> txn = std::move(txn_);
  writer_ = nullptr;
  if (!txn) txn = table_->NewTransaction();
  WEIR_RETURN_NOT_OK(txn->SetTxn(query_id, batch_id));
  for (const auto& [app_id, version] : extra_txns) WEIR_RETURN_NOT_OK(txn->SetTxn(app_id, version));
  for (const auto& [app_id, version] : expected_txns) txn->ExpectTxn(app_id, version);
  txn->SetStreamingUpdate(query_id, batch_id);
  auto committed = txn->Commit();
  if (!committed.ok()) {
    if (txn->commit_outcome_unknown()) {
      return committed.status().WithContext(
          "batch " + std::to_string(batch_id) + " of " + options_.name +
          ": the flow stops; when it runs again it skips the batch if the table holds its txn "
          "and re-runs it otherwise");
    }
    return committed.status();
  }
  if (committed->already_committed) {
    // Only this query's own txn proves the batch is in the table: a source txn alone (another
    // writer's, or one that did not advance) must never make a batch's rows vanish.
    auto done = committed->snapshot ? committed->snapshot->TxnVersion(query_id) : std::nullopt;
    if (!done || *done < batch_id) {
      return Status::Internal(
          "Delta commit of batch " + std::to_string(batch_id) + " of " + options_.name +
          " was refused as already committed, but the table holds no txn of query " + query_id +
          " for it; nothing was written. Another writer holds a txn this flow also sets: stop it "
          "or give this flow its own table");
    }
    Log("Skipping already complete epoch " + std::to_string(batch_id) + " of " + options_.name +
        " (committed concurrently)");
    return int64_t{0};
  }
  if (!committed->checkpoint_status.ok()) {
    Log("WARN Delta checkpoint of " + options_.name + " after version " +
        std::to_string(committed->version) +
        " failed (the commit itself succeeded): " + committed->checkpoint_status.ToString());
  }
  AutoCompact(*committed, txn->adds());
  return committed->files_added;
}

Result<int64_t> TableSink::CommitMerge(const std::string& query_id, int64_t batch_id,
                                       const std::map<std::string, int64_t>& extra_txns) {
  std::vector<columnar::Batch> chunks = std::move(merge_rows_);
  merge_rows_.clear();
  columnar::Batch source(options_.schema);
  for (const columnar::Batch& chunk : chunks) {
    for (size_t c = 0; c < source.columns.size(); ++c) {
      for (int64_t r = 0; r < chunk.num_rows(); ++r) source.columns[c].AppendFrom(chunk.columns[c], r);
    }
    source.num_rows_without_columns += chunk.num_rows();
  }
  chunks.clear();
  WEIR_ASSIGN_OR_RETURN(auto snapshot, table_->Refresh());
  delta::MergeOptions merge;
  merge.keys = options_.merge->keys;
  merge.when_matched_update = options_.merge->when_matched_update;
  if (options_.merge->target_conditions) {
    WEIR_ASSIGN_OR_RETURN(merge.prune, options_.merge->target_conditions());
  }
  merge.txn = delta::SetTransaction{query_id, batch_id, /*last_updated=*/std::nullopt};  // at commit
  WEIR_ASSIGN_OR_RETURN(std::unique_ptr<delta::PreparedMerge> prepared,
                        delta::PreparedMerge::Prepare(snapshot, source, std::move(merge)));
  for (const auto& [app_id, version] : extra_txns) {
    WEIR_RETURN_NOT_OK(prepared->transaction().SetTxn(app_id, version));
  }
  WEIR_ASSIGN_OR_RETURN(delta::MergeResult result, prepared->Commit());
  if (result.already_committed) {
    Log("Skipping already complete epoch " + std::to_string(batch_id) + " of " + options_.name +
        " (committed concurrently)");
    return int64_t{0};
  }
  const delta::MergeMetrics& m = result.metrics;
  Log(options_.name + " batch " + std::to_string(batch_id) + " MERGE: " +
      std::to_string(m.num_target_rows_inserted) + " inserted, " +
      std::to_string(m.num_target_rows_updated) + " updated, " +
      std::to_string(m.num_target_rows_matched_not_updated + m.num_source_duplicates) +
      " already present or repeated; " + std::to_string(m.num_target_files_scanned) + " of " +
      std::to_string(m.num_target_files_before_skipping) + " files read");
  return m.num_target_files_added;
}

// delta.autoOptimize.autoCompact: small files are compacted right after the commit that made
// them (dataChange=false, never conflicting with appends). The batch is committed either way: a
// failed compaction is a warning.
void TableSink::AutoCompact(const delta::CommitResult& committed,
                            const std::vector<delta::AddFile>& adds) {
  if (!committed.snapshot || adds.empty()) return;
  auto compacted = delta::MaybeAutoCompact(committed.snapshot, adds, options_.auto_compact_settings);
  if (!compacted.ok()) {
    Log("WARN auto compaction of " + options_.name + " after version " +
        std::to_string(committed.version) + " failed (the batch is committed): " +
        compacted.status().ToString());
    return;
  }
  if (!*compacted) return;
  const delta::OptimizeResult& r = **compacted;
  Log("auto compaction of " + options_.name + ": " + std::to_string(r.num_removed_files) +
      " small files into " + std::to_string(r.num_added_files) + " (version " +
      std::to_string(r.version) + ")");
  auto refreshed = table_->Refresh();
  if (!refreshed.ok()) Log("WARN " + refreshed.status().ToString());
}

void TableSink::Abort() {
  merge_rows_.clear();
  writer_ = nullptr;
  if (txn_) txn_->Abort();  // never committed: its files are deleted
  txn_.reset();
}

}  // namespace weir::stream
