#include "delta/snapshot.h"

#include <chrono>

namespace weir::delta {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Load(fs::FileSystem* fs,
                                                       const std::string& table_root,
                                                       std::optional<int64_t> version) {
  WEIR_ASSIGN_OR_RETURN(LogSegment segment, BuildLogSegment(fs, table_root, version));
  std::shared_ptr<Snapshot> s(new Snapshot());
  s->fs_ = fs;
  s->table_root_ = table_root;
  s->version_ = segment.version;
  s->checkpoint_version_ = segment.checkpoint_version;
  s->last_checkpoint_ = segment.last_checkpoint;
  WEIR_RETURN_NOT_OK(ReplayCheckpoint(fs, segment, &s->state_));
  for (const LogFile& commit : segment.commits) {
    WEIR_ASSIGN_OR_RETURN(s->commit_info_, ReplayCommitFile(fs, commit.path, &s->state_));
  }
  for (const LogFile& commit : segment.all_commits) {
    if (commit.version() == segment.version) s->timestamp_ms_ = commit.mtime_ms;
  }
  WEIR_RETURN_NOT_OK(s->Finish());
  return std::shared_ptr<const Snapshot>(std::move(s));
}

Result<std::shared_ptr<const Snapshot>> Snapshot::LoadAtTimestamp(fs::FileSystem* fs,
                                                                  const std::string& table_root,
                                                                  int64_t timestamp_ms) {
  WEIR_ASSIGN_OR_RETURN(auto files, ListLogFiles(fs, LogDirPath(table_root)));
  std::optional<int64_t> chosen;
  int64_t previous = INT64_MIN;
  int64_t earliest_ms = 0;
  bool first = true;
  for (const LogFile& f : files) {
    if (f.name.type != LogFileType::kCommit) continue;
    // Commit times must increase with versions; a clock going back is corrected as Spark does.
    int64_t ts = std::max(f.mtime_ms, previous == INT64_MIN ? f.mtime_ms : previous + 1);
    previous = ts;
    if (first) {
      earliest_ms = ts;
      first = false;
    }
    if (ts <= timestamp_ms) chosen = f.version();
  }
  if (!chosen) {
    return Status::NotFound("Delta table " + table_root + " has no version committed at or before " +
                            std::to_string(timestamp_ms) + " ms; its earliest available commit is at " +
                            std::to_string(earliest_ms) + " ms");
  }
  return Load(fs, table_root, *chosen);
}

Result<std::shared_ptr<const Snapshot>> Snapshot::Update(const std::shared_ptr<const Snapshot>& base,
                                                         std::optional<int64_t> up_to) {
  std::shared_ptr<Snapshot> next;
  std::string log_dir = LogDirPath(base->table_root_);
  for (int64_t v = base->version_ + 1; !up_to || v <= *up_to; ++v) {
    std::string path = fs::JoinPath(log_dir, CommitFileName(v));
    auto text = fs::ReadFileToString(base->fs_, path);
    if (!text.ok()) {
      if (text.status().IsNotFound()) break;
      return text.status();
    }
    if (!next) next.reset(new Snapshot(*base));
    WEIR_ASSIGN_OR_RETURN(auto actions, ParseCommitActions(*text, path));
    next->commit_info_.reset();
    for (Action& a : actions) {
      if (auto* ci = std::get_if<CommitInfo>(&a)) {
        next->commit_info_ = std::move(*ci);
      } else if (!std::holds_alternative<Sidecar>(a) &&
                 !std::holds_alternative<CheckpointMetadata>(a)) {
        next->state_.Apply(std::move(a));
      }
    }
    next->version_ = v;
    auto info = base->fs_->GetFileInfo(path);
    next->timestamp_ms_ = info.ok() ? info->mtime_ms : 0;
  }
  if (!next && !up_to) {
    // The commit after `base` is absent: the end of the log, unless the log went past it and
    // metadata cleanup deleted it (a snapshot kept while other writers committed, checkpointed
    // and cleaned up). Cleanup keeps the newest checkpoint it cleans up to, and _last_checkpoint
    // names it (or a newer one): a hint past `base` means `base` is no longer the latest, so the
    // table is loaded again (from that checkpoint). A missing or older hint: the log ends here.
    auto hint = ReadLastCheckpointHint(base->fs_, log_dir);
    if (hint && hint->version > base->version_) {
      WEIR_ASSIGN_OR_RETURN(auto reloaded, Load(base->fs_, base->table_root_));
      if (reloaded->version() <= base->version_) return base;
      return base->has_files() ? reloaded : reloaded->WithoutFiles();
    }
  }
  if (!next) return base;
  WEIR_RETURN_NOT_OK(next->Finish());
  return std::shared_ptr<const Snapshot>(std::move(next));
}

std::shared_ptr<const Snapshot> Snapshot::WithoutFiles() const {
  std::shared_ptr<Snapshot> lean(new Snapshot(*this));
  lean->state_.files = FileMap<AddFile>();
  lean->state_.tombstones = FileMap<RemoveFile>();
  lean->state_.live_bytes = 0;
  lean->state_.live_files_with_dv = 0;
  lean->state_.track_files = false;
  lean->total_size_ = 0;
  return lean;
}

Status Snapshot::CheckHasFiles(std::string_view what) const {
  if (has_files()) return Status::OK();
  return Status::Internal(std::string(what) + " needs the files of Delta table " + table_root_ +
                          ", but its snapshot (version " + std::to_string(version_) +
                          ") was taken without them");
}

Status Snapshot::Finish() {
  std::string at = table_root_ + " at version " + std::to_string(version_);
  if (!state_.protocol) {
    return Status::Corruption("Delta table " + at + " has no protocol action in its log");
  }
  if (!state_.metadata) {
    return Status::Corruption("Delta table " + at + " has no metaData action in its log");
  }
  WEIR_RETURN_NOT_OK(CheckReadSupported(*state_.protocol, *state_.metadata, table_root_));
  auto schema = columnar::SchemaFromDeltaJson(state_.metadata->schema_string);
  if (!schema.ok()) return schema.status().WithContext("Delta table " + at);
  schema_ = std::move(*schema);
  for (const std::string& p : state_.metadata->partition_columns) {
    if (schema_.FieldIndex(p) < 0) {
      return Status::Corruption("Delta table " + at + ": partition column '" + p +
                                "' is not in the schema");
    }
  }
  column_mapping_mode_ = GetColumnMappingMode(*state_.protocol, *state_.metadata);
  if (state_.live_files_with_dv > 0) {
    for (const auto& [key, add] : state_.files) {
      if (!add->deletion_vector) continue;
      return Status::NotImplemented(
          "Delta table " + table_root_ + " uses deletion vectors (reader feature "
          "deletionVectors) on live file " + add->path +
          ", which weir does not support; run REORG TABLE ... APPLY (PURGE) in Spark to "
          "rewrite the files without them");
    }
  }
  total_size_ = state_.live_bytes;
  auto config = ParseTableConfig(state_.metadata->configuration, /*strict=*/false);
  if (config.ok()) {
    config_ = *config;
    config_status_ = Status::OK();
  } else {
    config_ = TableConfig{};
    config_status_ = config.status();
  }
  return Status::OK();
}

bool Snapshot::IsTxnExpired(const SetTransaction& txn, int64_t now_ms) const {
  return config_.set_transaction_retention_ms && txn.last_updated &&
         *txn.last_updated < now_ms - *config_.set_transaction_retention_ms;
}

std::optional<int64_t> Snapshot::TxnVersion(std::string_view app_id) const {
  auto it = state_.txns.find(std::string(app_id));
  if (it == state_.txns.end() || IsTxnExpired(it->second, NowMillis())) return std::nullopt;
  return it->second.version;
}

Status Snapshot::CheckWritable() const {
  WEIR_RETURN_NOT_OK(CheckWriteSupported(protocol(), metadata(), schema_, table_root_));
  if (!config_status_.ok()) return config_status_.WithContext("Delta table " + table_root_);
  return Status::OK();
}

}  // namespace weir::delta
