#include "delta/checkpoint.h"

#include <limits>
#include <map>
#include <mutex>

#include "delta/log_path.h"
#include "delta/uuid.h"
#include "parquet/writer.h"

namespace weir::delta {

using columnar::Batch;
using columnar::Column;
using columnar::DataType;
using columnar::Field;
using columnar::TypePtr;

namespace {

// Per log directory this process cleaned up: the oldest modification time among the files that
// had not expired at that cleanup. Nothing more can expire until the cutoff passes it (files
// written since are newer), so until then a checkpoint need not list the log, which grows by a
// commit a batch.
class NextExpiringLogFiles {
 public:
  std::optional<int64_t> Get(const std::string& log_dir) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = mtime_ms_.find(log_dir);
    if (it == mtime_ms_.end()) return std::nullopt;
    return it->second;
  }
  void Set(const std::string& log_dir, int64_t mtime_ms) {
    std::lock_guard<std::mutex> lock(mu_);
    mtime_ms_[log_dir] = mtime_ms;
  }

 private:
  std::mutex mu_;
  std::map<std::string, int64_t> mtime_ms_;
};

NextExpiringLogFiles& CleanedLogs() {
  static NextExpiringLogFiles* cleaned = new NextExpiringLogFiles();
  return *cleaned;
}

// Column order of the checkpoint file.
enum CheckpointColumn { kTxn = 0, kAdd, kRemove, kMetaData, kProtocol, kDomain };

columnar::Schema CheckpointSchema(bool with_domains) {
  TypePtr str = DataType::String(), i64 = DataType::Int64(), i32 = DataType::Int32(),
          boolean = DataType::Boolean();
  TypePtr string_map = DataType::Map(str, str, true);
  TypePtr string_list = DataType::List(str, true);
  auto field = [](std::string name, TypePtr type) { return Field{std::move(name), std::move(type), true, "{}"}; };
  columnar::Schema s;
  s.fields.push_back(field("txn", DataType::Struct({field("appId", str), field("version", i64),
                                                     field("lastUpdated", i64)})));
  s.fields.push_back(field(
      "add", DataType::Struct({field("path", str), field("partitionValues", string_map),
                               field("size", i64), field("modificationTime", i64),
                               field("dataChange", boolean), field("stats", str),
                               field("tags", string_map)})));
  s.fields.push_back(field(
      "remove", DataType::Struct({field("path", str), field("deletionTimestamp", i64),
                                  field("dataChange", boolean), field("extendedFileMetadata", boolean),
                                  field("partitionValues", string_map), field("size", i64)})));
  s.fields.push_back(field(
      "metaData",
      DataType::Struct({field("id", str), field("name", str), field("description", str),
                        field("format", DataType::Struct({field("provider", str),
                                                          field("options", string_map)})),
                        field("schemaString", str), field("partitionColumns", string_list),
                        field("configuration", string_map), field("createdTime", i64)})));
  s.fields.push_back(field("protocol", DataType::Struct({field("minReaderVersion", i32),
                                                          field("minWriterVersion", i32),
                                                          field("readerFeatures", string_list),
                                                          field("writerFeatures", string_list)})));
  if (with_domains) {
    s.fields.push_back(field("domainMetadata",
                             DataType::Struct({field("domain", str), field("configuration", str),
                                               field("removed", boolean)})));
  }
  return s;
}

void AppendString(Column& c, const std::optional<std::string>& v) {
  if (v) {
    c.AppendString(*v);
  } else {
    c.AppendNull();
  }
}
void AppendInt64(Column& c, const std::optional<int64_t>& v) {
  if (v) {
    c.Append<int64_t>(*v);
  } else {
    c.AppendNull();
  }
}
void AppendBool(Column& c, const std::optional<bool>& v) {
  if (v) {
    c.Append<uint8_t>(*v ? 1 : 0);
  } else {
    c.AppendNull();
  }
}
void AppendStringMap(Column& c, const StringMap* m) {
  if (m == nullptr) {
    c.AppendNull();
    return;
  }
  for (const auto& [k, v] : *m) {
    c.mutable_child(0).AppendString(k);
    c.mutable_child(1).AppendString(v);
  }
  c.AppendListEntry();
}
void AppendPartitionMap(Column& c, const PartitionValues* m) {
  if (m == nullptr) {
    c.AppendNull();
    return;
  }
  for (const auto& [k, v] : *m) {
    c.mutable_child(0).AppendString(k);
    AppendString(c.mutable_child(1), v);
  }
  c.AppendListEntry();
}
void AppendStringList(Column& c, const std::vector<std::string>* values) {
  if (values == nullptr) {
    c.AppendNull();
    return;
  }
  for (const std::string& v : *values) c.mutable_child(0).AppendString(v);
  c.AppendListEntry();
}

// Builds checkpoint rows into bounded batches and hands them to the Parquet writer.
class RowSink {
 public:
  RowSink(parquet::ParquetWriter* writer, columnar::Schema schema, int64_t rows_per_batch)
      : writer_(writer), schema_(std::move(schema)), rows_per_batch_(rows_per_batch), batch_(schema_) {}

  // Starts a row whose only non-null column is `which`; returns that column.
  Column& Begin(int which) {
    for (int i = 0; i < static_cast<int>(batch_.columns.size()); ++i) {
      if (i != which) batch_.columns[i].AppendNull();
    }
    ++rows_;
    return batch_.columns[which];
  }
  Status End() {
    if (batch_.num_rows() >= rows_per_batch_) return Flush();
    return Status::OK();
  }
  Status Flush() {
    if (batch_.num_rows() == 0) return Status::OK();
    WEIR_RETURN_NOT_OK(writer_->Write(batch_));
    batch_ = Batch(schema_);
    return Status::OK();
  }
  int64_t rows() const { return rows_; }

 private:
  parquet::ParquetWriter* writer_;
  columnar::Schema schema_;
  int64_t rows_per_batch_;
  Batch batch_;
  int64_t rows_ = 0;
};

// Writes a checkpoint's rows: first the table-wide actions, then each live file and each
// unexpired tombstone (AddFileRow, RemoveFileRow).
class CheckpointRows {
 public:
  CheckpointRows(const Snapshot& snapshot, int64_t now_ms, RowSink* sink)
      : snapshot_(snapshot),
        now_ms_(now_ms),
        tombstone_cutoff_ms_(now_ms - snapshot.config().deleted_file_retention_ms),
        stats_as_json_(snapshot.config().checkpoint_write_stats_as_json),
        sink_(sink) {}

  Status TableRows() {
    {
      const Protocol& p = snapshot_.protocol();
      Column& c = sink_->Begin(kProtocol);
      c.mutable_child(0).Append<int32_t>(p.min_reader_version);
      c.mutable_child(1).Append<int32_t>(p.min_writer_version);
      AppendStringList(c.mutable_child(2), p.reader_features ? &*p.reader_features : nullptr);
      AppendStringList(c.mutable_child(3), p.writer_features ? &*p.writer_features : nullptr);
      c.AppendStructEntry();
      WEIR_RETURN_NOT_OK(sink_->End());
    }
    {
      const Metadata& m = snapshot_.metadata();
      Column& c = sink_->Begin(kMetaData);
      c.mutable_child(0).AppendString(m.id);
      AppendString(c.mutable_child(1), m.name);
      AppendString(c.mutable_child(2), m.description);
      Column& format = c.mutable_child(3);
      format.mutable_child(0).AppendString(m.format.provider);
      AppendStringMap(format.mutable_child(1), &m.format.options);
      format.AppendStructEntry();
      c.mutable_child(4).AppendString(m.schema_string);
      AppendStringList(c.mutable_child(5), &m.partition_columns);
      AppendStringMap(c.mutable_child(6), &m.configuration);
      AppendInt64(c.mutable_child(7), m.created_time);
      c.AppendStructEntry();
      WEIR_RETURN_NOT_OK(sink_->End());
    }
    for (const auto& [app, txn] : snapshot_.transactions()) {
      if (snapshot_.IsTxnExpired(txn, now_ms_)) continue;
      Column& c = sink_->Begin(kTxn);
      c.mutable_child(0).AppendString(txn.app_id);
      c.mutable_child(1).Append<int64_t>(txn.version);
      AppendInt64(c.mutable_child(2), txn.last_updated);
      c.AppendStructEntry();
      WEIR_RETURN_NOT_OK(sink_->End());
    }
    for (const auto& [name, domain] : snapshot_.domains()) {
      Column& c = sink_->Begin(kDomain);
      c.mutable_child(0).AppendString(domain.domain);
      c.mutable_child(1).AppendString(domain.configuration);
      c.mutable_child(2).Append<uint8_t>(0);
      c.AppendStructEntry();
      WEIR_RETURN_NOT_OK(sink_->End());
    }
    return Status::OK();
  }

  Status AddFileRow(const AddFile& add) {
    Column& c = sink_->Begin(kAdd);
    c.mutable_child(0).AppendString(add.path);
    AppendPartitionMap(c.mutable_child(1), &add.partition_values);
    c.mutable_child(2).Append<int64_t>(add.size);
    c.mutable_child(3).Append<int64_t>(add.modification_time);
    // Files in a checkpoint are not changes of its version.
    c.mutable_child(4).Append<uint8_t>(0);
    AppendString(c.mutable_child(5), stats_as_json_ ? add.stats : std::nullopt);
    AppendStringMap(c.mutable_child(6), add.tags ? &*add.tags : nullptr);
    c.AppendStructEntry();
    ++num_adds_;
    return sink_->End();
  }

  Status RemoveFileRow(const RemoveFile& remove) {
    if (remove.deletion_timestamp.value_or(0) <= tombstone_cutoff_ms_) return Status::OK();
    Column& c = sink_->Begin(kRemove);
    c.mutable_child(0).AppendString(remove.path);
    AppendInt64(c.mutable_child(1), remove.deletion_timestamp);
    c.mutable_child(2).Append<uint8_t>(0);
    AppendBool(c.mutable_child(3), remove.extended_file_metadata);
    AppendPartitionMap(c.mutable_child(4),
                       remove.partition_values ? &*remove.partition_values : nullptr);
    AppendInt64(c.mutable_child(5), remove.size);
    c.AppendStructEntry();
    return sink_->End();
  }

  int64_t num_adds() const { return num_adds_; }

 private:
  const Snapshot& snapshot_;
  int64_t now_ms_;
  int64_t tombstone_cutoff_ms_;
  bool stats_as_json_;
  RowSink* sink_;
  int64_t num_adds_ = 0;
};

Status FileRows(const FileMap<AddFile>& files, const FileMap<RemoveFile>& tombstones,
                CheckpointRows* rows) {
  for (const auto& [key, add] : files) WEIR_RETURN_NOT_OK(rows->AddFileRow(*add));
  for (const auto& [key, remove] : tombstones) WEIR_RETURN_NOT_OK(rows->RemoveFileRow(*remove));
  return Status::OK();
}

// Applies the commits of `segment` (those after its checkpoint) to `state`.
Status ReplayCommits(fs::FileSystem* fs, const LogSegment& segment, TableState* state) {
  for (const LogFile& commit : segment.commits) {
    WEIR_RETURN_NOT_OK(ReplayCommitFile(fs, commit.path, state).status());
  }
  return Status::OK();
}

// The segment of `snapshot`'s version from the checkpoint `hint` names, by name: its file (or
// parts), looked up, and the commits after it up to the version, which the snapshot was built
// from. nullopt when the hint's checkpoint is after the version or its files are not there (a
// V2 checkpoint, named by a UUID, say).
std::optional<LogSegment> SegmentByName(const Snapshot& snapshot, const LastCheckpointHint& hint) {
  if (hint.version < 0 || hint.version > snapshot.version()) return std::nullopt;
  LogSegment seg;
  seg.table_root = snapshot.table_root();
  seg.log_dir = LogDirPath(snapshot.table_root());
  seg.version = snapshot.version();
  seg.checkpoint_version = hint.version;
  seg.last_checkpoint = hint;
  seg.listed_from_version = hint.version;
  std::vector<std::string> names;
  if (hint.parts && *hint.parts >= 1) {
    for (int32_t part = 1; part <= *hint.parts; ++part) {
      names.push_back(MultiPartCheckpointFileName(hint.version, part, *hint.parts));
    }
  } else {
    names.push_back(ClassicCheckpointFileName(hint.version));
  }
  for (const std::string& name : names) {
    const std::string path = fs::JoinPath(seg.log_dir, name);
    auto info = snapshot.fs()->GetFileInfo(path);
    auto parsed = ParseLogFileName(name);
    if (!info.ok() || !parsed) return std::nullopt;
    seg.checkpoint_files.push_back(LogFile{path, *parsed, info->size, info->mtime_ms});
  }
  for (int64_t v = hint.version + 1; v <= snapshot.version(); ++v) {
    ParsedLogName name;
    name.type = LogFileType::kCommit;
    name.version = v;
    seg.commits.push_back(LogFile{fs::JoinPath(seg.log_dir, CommitFileName(v)), name, 0, 0});
  }
  return seg;
}

// The log segment of `snapshot`'s version, with the commits after its checkpoint applied to
// `since`. A long-running writer's log grows by a commit a batch, so the log is not listed: the
// checkpoint _last_checkpoint names (normally the previous one this writer wrote) and the
// commits after it are found by name. Without a usable hint, or when one of those files has gone
// (a concurrent cleanup), the segment is built from a listing (log_segment.h).
Result<LogSegment> SegmentFromLastCheckpoint(const Snapshot& snapshot, TableState* since) {
  const std::string log_dir = LogDirPath(snapshot.table_root());
  if (auto hint = ReadLastCheckpointHint(snapshot.fs(), log_dir)) {
    if (auto segment = SegmentByName(snapshot, *hint)) {
      TableState replayed;
      Status st = ReplayCommits(snapshot.fs(), *segment, &replayed);
      if (st.ok()) {
        *since = std::move(replayed);
        return std::move(*segment);
      }
      if (!st.IsNotFound()) return st;
    }
  }
  WEIR_ASSIGN_OR_RETURN(LogSegment segment,
                        BuildLogSegment(snapshot.fs(), snapshot.table_root(), snapshot.version()));
  WEIR_RETURN_NOT_OK(ReplayCommits(snapshot.fs(), segment, since));
  return segment;
}

// The rows of a snapshot without files (Snapshot::WithoutFiles): its files are those of the
// table's latest checkpoint, streamed a row group at a time, changed by the commits after it.
// Memory follows the commits since that checkpoint, not the table's size.
Status WriteRowsFromLog(const Snapshot& snapshot, CheckpointRows* rows) {
  TableState since;  // files added and removed after the checkpoint
  WEIR_ASSIGN_OR_RETURN(LogSegment segment, SegmentFromLastCheckpoint(snapshot, &since));
  WEIR_RETURN_NOT_OK(rows->TableRows());
  Status st;
  WEIR_RETURN_NOT_OK(ForEachCheckpointAction(snapshot.fs(), segment, [&](Action&& a) {
    if (!st.ok()) return;
    const AddFile* add = std::get_if<AddFile>(&a);
    const RemoveFile* remove = std::get_if<RemoveFile>(&a);
    if (add == nullptr && remove == nullptr) return;  // table-wide actions come from `snapshot`
    const std::string key = add ? LogicalFileKey(add->path, add->deletion_vector)
                                : LogicalFileKey(remove->path, remove->deletion_vector);
    // A later commit that added or removed the file again has the newer action.
    if (since.files.Find(key) != nullptr || since.tombstones.Find(key) != nullptr) return;
    st = add ? rows->AddFileRow(*add) : rows->RemoveFileRow(*remove);
  }));
  WEIR_RETURN_NOT_OK(st);
  return FileRows(since.files, since.tombstones, rows);
}

}  // namespace

Result<CheckpointInfo> WriteCheckpoint(const Snapshot& snapshot, CheckpointOptions options) {
  WEIR_RETURN_NOT_OK(snapshot.CheckWritable());
  if (snapshot.config().checkpoint_write_stats_as_struct) {
    return Status::NotImplemented(
        "Delta table " + snapshot.table_root() +
        " sets delta.checkpoint.writeStatsAsStruct=true; weir writes checkpoint statistics as "
        "JSON only");
  }
  fs::FileSystem* fs = snapshot.fs();
  const int64_t now = options.now_ms > 0 ? options.now_ms : NowMillis();
  const std::string log_dir = LogDirPath(snapshot.table_root());
  CheckpointInfo info;
  info.version = snapshot.version();
  info.path = fs::JoinPath(log_dir, ClassicCheckpointFileName(snapshot.version()));
  const std::string temp =
      fs::JoinPath(log_dir, std::string(fs::kTempFilePrefix) + NewUuid() + ".checkpoint.parquet");

  Status st = [&]() -> Status {
    WEIR_ASSIGN_OR_RETURN(auto file, fs->OpenForWrite(temp));
    parquet::WriterOptions wo;
    wo.codec = snapshot.config().codec;
    wo.sync_on_close = true;
    // Row groups of a few thousand actions: the next checkpoint of a snapshot without files
    // streams this one a row group at a time.
    wo.row_group_rows = std::max<int64_t>(1, options.row_group_rows);
    columnar::Schema schema = CheckpointSchema(!snapshot.domains().empty());
    WEIR_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(std::move(file), schema, wo));
    RowSink sink(writer.get(), schema, std::max<int64_t>(1, options.rows_per_batch));
    CheckpointRows rows(snapshot, now, &sink);
    if (snapshot.has_files()) {
      WEIR_RETURN_NOT_OK(rows.TableRows());
      WEIR_RETURN_NOT_OK(FileRows(snapshot.files(), snapshot.tombstones(), &rows));
    } else {
      WEIR_RETURN_NOT_OK(WriteRowsFromLog(snapshot, &rows));
    }
    WEIR_RETURN_NOT_OK(sink.Flush());
    info.num_add_files = rows.num_adds();
    WEIR_RETURN_NOT_OK(writer->Close());
    info.num_actions = sink.rows();
    info.size_in_bytes = writer->file_size();
    WEIR_RETURN_NOT_OK(fs->Rename(temp, info.path));
    return fs->SyncDir(log_dir);
  }();
  if (!st.ok()) {
    (void)fs->Delete(temp);
    return st.WithContext("writing checkpoint " + info.path);
  }

  LastCheckpointHint hint;
  hint.version = info.version;
  hint.size = info.num_actions;
  hint.size_in_bytes = info.size_in_bytes;
  hint.num_of_add_files = info.num_add_files;
  const std::string hint_path = fs::JoinPath(log_dir, kLastCheckpointName);
  auto existing = ReadLastCheckpointHint(fs, log_dir);
  if (!existing || existing->version <= info.version) {
    WEIR_RETURN_NOT_OK(fs->WriteAtomic(hint_path, SerializeLastCheckpoint(hint))
                           .WithContext("updating " + hint_path));
  }
  if (options.clean_up_expired_logs && snapshot.config().enable_expired_log_cleanup) {
    WEIR_ASSIGN_OR_RETURN(info.log_files_deleted, CleanUpExpiredLogs(snapshot, now));
  }
  return info;
}

Result<int64_t> CleanUpExpiredLogs(const Snapshot& snapshot, int64_t now_ms) {
  fs::FileSystem* fs = snapshot.fs();
  const std::string log_dir = LogDirPath(snapshot.table_root());
  int64_t cutoff = now_ms - snapshot.config().log_retention_ms;
  cutoff -= ((cutoff % kMillisPerDay) + kMillisPerDay) % kMillisPerDay;  // midnight UTC
  // Only a file that has not expired yet can make a later cleanup delete something: a commit
  // reaching the cutoff past a newer checkpoint, or a temporary.
  if (auto next = CleanedLogs().Get(log_dir); next && *next > cutoff) return 0;
  // One listing serves the log files and the temporaries a crash left behind.
  WEIR_ASSIGN_OR_RETURN(std::vector<fs::FileInfo> listed, fs->List(log_dir));
  const std::vector<LogFile> files = LogFilesOfListing(listed);
  int64_t next_expiring = std::numeric_limits<int64_t>::max();
  for (const LogFile& f : files) {
    if (f.mtime_ms > cutoff) next_expiring = std::min(next_expiring, f.mtime_ms);
  }
  int64_t deleted = 0;
  for (const fs::FileInfo& info : listed) {
    if (info.is_dir || !fs::IsTempFileName(info.path)) continue;
    if (info.mtime_ms > cutoff) {
      next_expiring = std::min(next_expiring, info.mtime_ms);
    } else if (fs->Delete(info.path).ok()) {  // older than the retention
      ++deleted;
    }
  }
  if (next_expiring != std::numeric_limits<int64_t>::max()) {
    CleanedLogs().Set(log_dir, next_expiring);
  }
  std::optional<int64_t> cutoff_commit;
  for (const LogFile& f : files) {
    if (f.name.type == LogFileType::kCommit && f.mtime_ms <= cutoff &&
        f.version() <= snapshot.version()) {
      cutoff_commit = f.version();
    }
  }
  if (!cutoff_commit) return deleted;
  auto segment = LogSegmentFromListing(snapshot.table_root(), files, *cutoff_commit);
  if (!segment.ok() || !segment->checkpoint_version) return deleted;
  const int64_t keep_from = *segment->checkpoint_version;
  for (const LogFile& f : files) {  // ascending versions: the log stays readable if interrupted
    if (f.version() >= keep_from) break;
    if (f.name.type == LogFileType::kCompaction && f.name.end_version >= keep_from) continue;
    Status st = fs->Delete(f.path);
    if (!st.ok() && !st.IsNotFound()) return st.WithContext("cleaning up expired Delta log files");
    if (st.ok()) ++deleted;
  }
  return deleted;
}

}  // namespace weir::delta
