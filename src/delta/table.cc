#include "delta/table.h"

#include <cctype>
#include <set>
#include <strings.h>

#include <nlohmann/json.hpp>

#include "delta/log_path.h"
#include "delta/partition_value.h"
#include "delta/table_features.h"
#include "delta/uuid.h"

namespace weir::delta {

namespace {

// A JSON string literal of `s` (RFC 8259 escapes).
std::string JsonQuote(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

Result<std::unique_ptr<Table>> Table::Open(fs::FileSystem* fs, std::string path) {
  WEIR_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(fs, path));
  return std::unique_ptr<Table>(new Table(fs, std::move(path), std::move(snapshot)));
}

Result<std::unique_ptr<Table>> Table::Create(fs::FileSystem* fs, std::string path,
                                             columnar::Schema schema,
                                             std::vector<std::string> partition_columns,
                                             StringMap properties,
                                             std::optional<std::string> description) {
  if (schema.fields.empty()) {
    return Status::InvalidArgument("a Delta table needs at least one column");
  }
  std::set<std::string> names;
  for (const auto& f : schema.fields) {
    std::string lower = f.name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (f.name.empty() || !names.insert(lower).second) {
      return Status::InvalidArgument("column names must be non-empty and unique regardless of "
                                     "case; '" + f.name + "' is not");
    }
  }
  std::vector<std::string> canonical;
  for (const std::string& p : partition_columns) {
    int i = schema.FieldIndex(p);
    if (i < 0) {
      return Status::InvalidArgument("partition column '" + p + "' is not a column of the schema (" +
                                     schema.ToDdl() + ")");
    }
    if (!IsPartitionableType(*schema.fields[i].type)) {
      return Status::InvalidArgument("partition column '" + p + "' has the type " +
                                     schema.fields[i].type->ToDdl() +
                                     "; partition columns must have a primitive type");
    }
    for (const std::string& c : canonical) {
      if (c == schema.fields[i].name) {
        return Status::InvalidArgument("partition column '" + p + "' is listed twice");
      }
    }
    canonical.push_back(schema.fields[i].name);
  }
  if (canonical.size() >= schema.fields.size()) {
    return Status::InvalidArgument("a Delta table needs at least one column that is not a "
                                   "partition column");
  }
  WEIR_RETURN_NOT_OK(ParseTableConfig(properties, /*strict=*/true).status());

  Metadata metadata;
  metadata.id = NewUuid();
  metadata.schema_string = columnar::SchemaToDeltaJson(schema);
  metadata.partition_columns = canonical;
  metadata.configuration = std::move(properties);
  metadata.description = std::move(description);
  metadata.created_time = NowMillis();

  WEIR_RETURN_NOT_OK(fs->CreateDirs(LogDirPath(path)));
  Transaction txn(fs, path);
  txn.SetProtocol(ProtocolForNewTable(schema));
  txn.SetMetadata(std::move(metadata));
  WEIR_ASSIGN_OR_RETURN(CommitResult result, txn.Commit());
  if (!result.snapshot) return result.checkpoint_status;
  return std::unique_ptr<Table>(new Table(fs, std::move(path), result.snapshot));
}

Result<std::shared_ptr<const Snapshot>> Table::Refresh() {
  WEIR_ASSIGN_OR_RETURN(snapshot_, Snapshot::Update(snapshot_));
  return snapshot_;
}

Result<std::shared_ptr<const Snapshot>> Table::SnapshotAt(int64_t version) const {
  if (version == snapshot_->version() && snapshot_->has_files()) return snapshot_;
  return Snapshot::Load(fs_, path_, version);
}

Result<std::shared_ptr<const Snapshot>> Table::SnapshotAtTimestamp(int64_t timestamp_ms) const {
  return Snapshot::LoadAtTimestamp(fs_, path_, timestamp_ms);
}

void Table::DropFileList() { snapshot_ = snapshot_->WithoutFiles(); }

std::unique_ptr<Transaction> Table::NewTransaction() const {
  return std::make_unique<Transaction>(snapshot_);
}

Result<std::unique_ptr<TableScan>> Table::NewScan(ScanOptions options) const {
  return TableScan::Make(snapshot_, std::move(options));
}

Result<CommitResult> Table::Append(const std::vector<columnar::Batch>& batches,
                                   const AppendOptions& options) {
  return Append(
      [&batches](const BatchSink& sink) {
        for (const columnar::Batch& b : batches) WEIR_RETURN_NOT_OK(sink(b));
        return Status::OK();
      },
      options);
}

Result<CommitResult> Table::Append(const BatchSource& source, const AppendOptions& options) {
  for (const SetTransaction& t : options.txns) {
    auto committed = snapshot_->TxnVersion(t.app_id);
    if (committed && *committed >= t.version) {
      CommitResult skipped;
      skipped.version = snapshot_->version();
      skipped.already_committed = true;
      skipped.snapshot = snapshot_;
      return skipped;
    }
  }
  Transaction txn(snapshot_);
  WEIR_ASSIGN_OR_RETURN(DataFileWriter * writer, txn.NewDataFileWriter(options.writer));
  WEIR_RETURN_NOT_OK(source([writer](const columnar::Batch& b) { return writer->Write(b); }));
  if (options.skip_if_empty && writer->rows_written() == 0 && options.txns.empty()) {
    CommitResult nothing;
    nothing.version = snapshot_->version();
    nothing.snapshot = snapshot_;
    return nothing;  // the transaction deletes its (empty) writer's files, if any
  }
  for (const SetTransaction& t : options.txns) WEIR_RETURN_NOT_OK(txn.SetTxn(t.app_id, t.version));
  if (options.operation) txn.SetOperation(*options.operation, options.operation_parameters);
  WEIR_ASSIGN_OR_RETURN(CommitResult result, txn.Commit());
  if (result.snapshot && result.snapshot->version() >= snapshot_->version()) {
    snapshot_ = result.snapshot;
  }
  return result;
}

Result<CommitResult> Table::AlterProperties(const StringMap& set,
                                            const std::vector<std::string>& unset,
                                            std::optional<std::string> description,
                                            bool if_exists) {
  WEIR_RETURN_NOT_OK(ParseTableConfig(set, /*strict=*/true).status());
  Metadata metadata = snapshot_->metadata();
  bool changed = false;
  for (const auto& [key, value] : set) {
    auto it = metadata.configuration.find(key);
    if (it != metadata.configuration.end() && it->second == value) continue;
    metadata.configuration[key] = value;
    changed = true;
  }
  for (const std::string& key : unset) {
    if (metadata.configuration.erase(key) > 0) {
      changed = true;
    } else if (!if_exists) {
      return Status::InvalidArgument("Attempted to unset non-existent property '" + key +
                                     "' in table " + path_ + " (use UNSET TBLPROPERTIES IF EXISTS)");
    }
  }
  if (description && metadata.description != description) {
    metadata.description = std::move(description);
    changed = true;
  }
  if (!changed) {
    CommitResult nothing;
    nothing.version = snapshot_->version();
    nothing.snapshot = snapshot_;
    return nothing;
  }
  Transaction txn(snapshot_);
  txn.SetMetadata(std::move(metadata));
  if (!set.empty() || unset.empty()) {
    std::string properties = "{";
    for (const auto& [key, value] : set) {
      if (properties.size() > 1) properties += ",";
      properties += JsonQuote(key) + ":" + JsonQuote(value);
    }
    txn.SetOperation("SET TBLPROPERTIES", {{"properties", properties + "}"}});
  } else {
    std::string keys = "[";
    for (const std::string& key : unset) keys += (keys.size() > 1 ? "," : "") + JsonQuote(key);
    txn.SetOperation("UNSET TBLPROPERTIES",
                     {{"properties", keys + "]"}, {"ifExists", if_exists ? "true" : "false"}});
  }
  WEIR_ASSIGN_OR_RETURN(CommitResult result, txn.Commit());
  if (result.snapshot && result.snapshot->version() >= snapshot_->version()) {
    snapshot_ = result.snapshot;
  }
  return result;
}

Result<CheckpointInfo> Table::Checkpoint(CheckpointOptions options) {
  WEIR_RETURN_NOT_OK(Refresh().status());
  return WriteCheckpoint(*snapshot_, options);
}

}  // namespace weir::delta
