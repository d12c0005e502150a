#include "delta/log_replay.h"

#include <variant>

#include "columnar/json_lines.h"
#include "parquet/reader.h"

namespace weir::delta {

using columnar::Column;
using columnar::TypeId;

std::string LogicalFileKey(const std::string& path,
                           const std::optional<DeletionVectorDescriptor>& dv) {
  if (!dv) return path;
  std::string key = path;
  key.push_back('\0');
  key += dv->UniqueId();
  return key;
}

void TableState::Apply(Action&& action) {
  if (!track_files &&
      (std::holds_alternative<AddFile>(action) || std::holds_alternative<RemoveFile>(action))) {
    return;
  }
  if (auto* add = std::get_if<AddFile>(&action)) {
    std::string key = LogicalFileKey(add->path, add->deletion_vector);
    tombstones.Erase(key);
    live_bytes += add->size;
    live_files_with_dv += add->deletion_vector ? 1 : 0;
    if (auto replaced = files.Set(std::move(key), std::make_shared<const AddFile>(std::move(*add)))) {
      live_bytes -= replaced->size;
      live_files_with_dv -= replaced->deletion_vector ? 1 : 0;
    }
  } else if (auto* remove = std::get_if<RemoveFile>(&action)) {
    std::string key = LogicalFileKey(remove->path, remove->deletion_vector);
    if (auto removed = files.Erase(key)) {
      live_bytes -= removed->size;
      live_files_with_dv -= removed->deletion_vector ? 1 : 0;
    }
    tombstones.Set(std::move(key), std::make_shared<const RemoveFile>(std::move(*remove)));
  } else if (auto* txn = std::get_if<SetTransaction>(&action)) {
    txns[txn->app_id] = std::move(*txn);
  } else if (auto* p = std::get_if<Protocol>(&action)) {
    protocol = std::move(*p);
  } else if (auto* m = std::get_if<Metadata>(&action)) {
    metadata = std::move(*m);
  } else if (auto* d = std::get_if<DomainMetadata>(&action)) {
    if (d->removed) {
      domains.erase(d->domain);
    } else {
      std::string name = d->domain;
      domains[name] = std::move(*d);
    }
  }
}

namespace {

// ---- Reading action structs out of checkpoint columns.

const Column* FieldOf(const Column* parent, std::string_view name) {
  if (parent == nullptr || parent->type_id() != TypeId::kStruct) return nullptr;
  const auto& fields = parent->type()->children();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return &parent->child(static_cast<int>(i));
  }
  return nullptr;
}

bool Present(const Column* c, int64_t row) { return c != nullptr && !c->IsNull(row); }

std::optional<std::string> StringOf(const Column* c, int64_t row) {
  if (!Present(c, row) || !c->type()->is_binary_like()) return std::nullopt;
  return std::string(c->StringAt(row));
}

std::optional<int64_t> IntOf(const Column* c, int64_t row) {
  if (!Present(c, row)) return std::nullopt;
  switch (c->type_id()) {
    case TypeId::kInt8: return c->Value<int8_t>(row);
    case TypeId::kInt16: return c->Value<int16_t>(row);
    case TypeId::kInt32: return c->Value<int32_t>(row);
    case TypeId::kInt64: return c->Value<int64_t>(row);
    default: return std::nullopt;
  }
}

std::optional<bool> BoolOf(const Column* c, int64_t row) {
  if (!Present(c, row) || c->type_id() != TypeId::kBoolean) return std::nullopt;
  return c->Value<uint8_t>(row) != 0;
}

// A map<string,string> column as a PartitionValues (null values kept as nullopt).
std::optional<PartitionValues> PartitionMapOf(const Column* c, int64_t row) {
  if (!Present(c, row) || c->type_id() != TypeId::kMap) return std::nullopt;
  const Column& keys = c->child(0);
  const Column& values = c->child(1);
  if (!keys.type()->is_binary_like() || !values.type()->is_binary_like()) return std::nullopt;
  PartitionValues out;
  for (int32_t j = c->offsets()[row]; j < c->offsets()[row + 1]; ++j) {
    if (keys.IsNull(j)) continue;
    if (values.IsNull(j)) {
      out[std::string(keys.StringAt(j))] = std::nullopt;
    } else {
      out[std::string(keys.StringAt(j))] = std::string(values.StringAt(j));
    }
  }
  return out;
}

std::optional<StringMap> StringMapOf(const Column* c, int64_t row) {
  auto pv = PartitionMapOf(c, row);
  if (!pv) return std::nullopt;
  StringMap out;
  for (auto& [k, v] : *pv) {
    if (v) out[k] = *v;
  }
  return out;
}

std::optional<std::vector<std::string>> StringListOf(const Column* c, int64_t row) {
  if (!Present(c, row) || c->type_id() != TypeId::kList) return std::nullopt;
  const Column& elements = c->child(0);
  if (!elements.type()->is_binary_like()) return std::nullopt;
  std::vector<std::string> out;
  for (int32_t j = c->offsets()[row]; j < c->offsets()[row + 1]; ++j) {
    if (!elements.IsNull(j)) out.emplace_back(elements.StringAt(j));
  }
  return out;
}

std::optional<DeletionVectorDescriptor> DeletionVectorOf(const Column* c, int64_t row) {
  if (!Present(c, row)) return std::nullopt;
  DeletionVectorDescriptor dv;
  dv.storage_type = StringOf(FieldOf(c, "storageType"), row).value_or("");
  dv.path_or_inline_dv = StringOf(FieldOf(c, "pathOrInlineDv"), row).value_or("");
  if (auto off = IntOf(FieldOf(c, "offset"), row)) dv.offset = static_cast<int32_t>(*off);
  dv.size_in_bytes = static_cast<int32_t>(IntOf(FieldOf(c, "sizeInBytes"), row).value_or(0));
  dv.cardinality = IntOf(FieldOf(c, "cardinality"), row).value_or(0);
  return dv;
}

class CheckpointRowReader {
 public:
  CheckpointRowReader(const std::string& path) : path_(path) {}

  Status Missing(int64_t row, const char* field) const {
    return Status::Corruption("checkpoint " + path_ + " row " + std::to_string(row) + ": " +
                              field + " is missing");
  }

  Result<AddFile> Add(const Column* c, int64_t row) const {
    AddFile a;
    auto path = StringOf(FieldOf(c, "path"), row);
    auto size = IntOf(FieldOf(c, "size"), row);
    if (!path || path->empty()) return Missing(row, "add.path");
    if (!size) return Missing(row, "add.size");
    a.path = std::move(*path);
    a.size = *size;
    a.partition_values = PartitionMapOf(FieldOf(c, "partitionValues"), row).value_or(PartitionValues{});
    a.modification_time = IntOf(FieldOf(c, "modificationTime"), row).value_or(0);
    a.data_change = BoolOf(FieldOf(c, "dataChange"), row).value_or(false);
    a.stats = StringOf(FieldOf(c, "stats"), row);
    if (!a.stats) {
      const Column* parsed = FieldOf(c, "stats_parsed");
      if (Present(parsed, row)) {
        std::string json;
        columnar::AppendJsonValue(*parsed, row, &json);
        a.stats = std::move(json);
      }
    }
    a.tags = StringMapOf(FieldOf(c, "tags"), row);
    a.deletion_vector = DeletionVectorOf(FieldOf(c, "deletionVector"), row);
    a.base_row_id = IntOf(FieldOf(c, "baseRowId"), row);
    a.default_row_commit_version = IntOf(FieldOf(c, "defaultRowCommitVersion"), row);
    a.clustering_provider = StringOf(FieldOf(c, "clusteringProvider"), row);
    return a;
  }

  Result<RemoveFile> Remove(const Column* c, int64_t row) const {
    RemoveFile r;
    auto path = StringOf(FieldOf(c, "path"), row);
    if (!path || path->empty()) return Missing(row, "remove.path");
    r.path = std::move(*path);
    r.deletion_timestamp = IntOf(FieldOf(c, "deletionTimestamp"), row);
    r.data_change = BoolOf(FieldOf(c, "dataChange"), row).value_or(false);
    r.extended_file_metadata = BoolOf(FieldOf(c, "extendedFileMetadata"), row);
    r.partition_values = PartitionMapOf(FieldOf(c, "partitionValues"), row);
    r.size = IntOf(FieldOf(c, "size"), row);
    r.tags = StringMapOf(FieldOf(c, "tags"), row);
    r.deletion_vector = DeletionVectorOf(FieldOf(c, "deletionVector"), row);
    r.base_row_id = IntOf(FieldOf(c, "baseRowId"), row);
    r.default_row_commit_version = IntOf(FieldOf(c, "defaultRowCommitVersion"), row);
    return r;
  }

  Result<Metadata> MetaData(const Column* c, int64_t row) const {
    Metadata m;
    auto id = StringOf(FieldOf(c, "id"), row);
    auto schema = StringOf(FieldOf(c, "schemaString"), row);
    if (!id) return Missing(row, "metaData.id");
    if (!schema) return Missing(row, "metaData.schemaString");
    m.id = std::move(*id);
    m.schema_string = std::move(*schema);
    m.name = StringOf(FieldOf(c, "name"), row);
    m.description = StringOf(FieldOf(c, "description"), row);
    const Column* format = FieldOf(c, "format");
    if (Present(format, row)) {
      m.format.provider = StringOf(FieldOf(format, "provider"), row).value_or("parquet");
      m.format.options = StringMapOf(FieldOf(format, "options"), row).value_or(StringMap{});
    }
    m.partition_columns = StringListOf(FieldOf(c, "partitionColumns"), row).value_or(std::vector<std::string>{});
    m.configuration = StringMapOf(FieldOf(c, "configuration"), row).value_or(StringMap{});
    m.created_time = IntOf(FieldOf(c, "createdTime"), row);
    return m;
  }

  Result<Protocol> ProtocolOf(const Column* c, int64_t row) const {
    Protocol p;
    auto reader = IntOf(FieldOf(c, "minReaderVersion"), row);
    auto writer = IntOf(FieldOf(c, "minWriterVersion"), row);
    if (!reader) return Missing(row, "protocol.minReaderVersion");
    if (!writer) return Missing(row, "protocol.minWriterVersion");
    p.min_reader_version = static_cast<int32_t>(*reader);
    p.min_writer_version = static_cast<int32_t>(*writer);
    p.reader_features = StringListOf(FieldOf(c, "readerFeatures"), row);
    p.writer_features = StringListOf(FieldOf(c, "writerFeatures"), row);
    return p;
  }

  Result<SetTransaction> Txn(const Column* c, int64_t row) const {
    SetTransaction t;
    auto app = StringOf(FieldOf(c, "appId"), row);
    auto version = IntOf(FieldOf(c, "version"), row);
    if (!app) return Missing(row, "txn.appId");
    if (!version) return Missing(row, "txn.version");
    t.app_id = std::move(*app);
    t.version = *version;
    t.last_updated = IntOf(FieldOf(c, "lastUpdated"), row);
    return t;
  }

  Result<DomainMetadata> Domain(const Column* c, int64_t row) const {
    DomainMetadata d;
    auto domain = StringOf(FieldOf(c, "domain"), row);
    if (!domain) return Missing(row, "domainMetadata.domain");
    d.domain = std::move(*domain);
    d.configuration = StringOf(FieldOf(c, "configuration"), row).value_or("");
    d.removed = BoolOf(FieldOf(c, "removed"), row).value_or(false);
    return d;
  }

  Result<Sidecar> SidecarOf(const Column* c, int64_t row) const {
    Sidecar s;
    auto path = StringOf(FieldOf(c, "path"), row);
    if (!path) return Missing(row, "sidecar.path");
    s.path = std::move(*path);
    s.size_in_bytes = IntOf(FieldOf(c, "sizeInBytes"), row).value_or(0);
    s.modification_time = IntOf(FieldOf(c, "modificationTime"), row).value_or(0);
    return s;
  }

 private:
  std::string path_;
};

// Reads the actions of a checkpoint part (Parquet, or a V2 checkpoint's JSON), collecting sidecar
// references and handing every other action to `fn`.
Status ReadCheckpointFile(fs::FileSystem* fs, const LogFile& file,
                          const std::function<void(Action&&)>& fn, std::vector<Sidecar>* sidecars) {
  auto apply = [&](Action&& a) {
    if (auto* s = std::get_if<Sidecar>(&a)) {
      sidecars->push_back(std::move(*s));
    } else {
      fn(std::move(a));
    }
  };
  if (file.name.type == LogFileType::kUuidCheckpoint && file.name.is_json) {
    WEIR_ASSIGN_OR_RETURN(std::string text, fs::ReadFileToString(fs, file.path));
    WEIR_ASSIGN_OR_RETURN(auto actions, ParseActions(text, file.path));
    for (Action& a : actions) apply(std::move(a));
    return Status::OK();
  }
  return ReadParquetCheckpoint(fs, file.path, apply);
}

}  // namespace

Status ReadParquetCheckpoint(fs::FileSystem* fs, const std::string& path,
                             const std::function<void(Action&&)>& fn) {
  WEIR_ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(fs, path));
  enum Kind { kAdd, kRemove, kMetaData, kProtocol, kTxn, kDomain, kSidecar };
  static const std::pair<const char*, Kind> kColumns[] = {
      {"add", kAdd},       {"remove", kRemove}, {"metaData", kMetaData},        {"protocol", kProtocol},
      {"txn", kTxn},       {"domainMetadata", kDomain}, {"sidecar", kSidecar}};
  std::vector<int> fields;
  std::vector<Kind> kinds;
  const auto& schema = reader->schema();
  for (const auto& [name, kind] : kColumns) {
    for (int i = 0; i < schema.num_fields(); ++i) {
      if (schema.fields[i].name == name && schema.fields[i].type->id() == TypeId::kStruct) {
        fields.push_back(i);
        kinds.push_back(kind);
        break;
      }
    }
  }
  if (fields.empty()) {
    return Status::Corruption("checkpoint " + path + " has none of the columns add, remove, "
                              "metaData, protocol, txn");
  }
  CheckpointRowReader rows(path);
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    WEIR_ASSIGN_OR_RETURN(columnar::Batch batch, reader->ReadRowGroup(g, fields));
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      for (size_t k = 0; k < kinds.size(); ++k) {
        const Column* c = &batch.columns[k];
        if (c->IsNull(r)) continue;
        // A row's struct may be non-null with every field null (some writers): skip those.
        switch (kinds[k]) {
          case kAdd: {
            if (!Present(FieldOf(c, "path"), r)) break;
            auto a = rows.Add(c, r);
            if (!a.ok()) return a.status();
            fn(std::move(*a));
            break;
          }
          case kRemove: {
            if (!Present(FieldOf(c, "path"), r)) break;
            auto a = rows.Remove(c, r);
            if (!a.ok()) return a.status();
            fn(std::move(*a));
            break;
          }
          case kMetaData: {
            if (!Present(FieldOf(c, "id"), r)) break;
            auto a = rows.MetaData(c, r);
            if (!a.ok()) return a.status();
            fn(std::move(*a));
            break;
          }
          case kProtocol: {
            if (!Present(FieldOf(c, "minReaderVersion"), r)) break;
            auto a = rows.ProtocolOf(c, r);
            if (!a.ok()) return a.status();
            fn(std::move(*a));
            break;
          }
          case kTxn: {
            if (!Present(FieldOf(c, "appId"), r)) break;
            auto a = rows.Txn(c, r);
            if (!a.ok()) return a.status();
            fn(std::move(*a));
            break;
          }
          case kDomain: {
            if (!Present(FieldOf(c, "domain"), r)) break;
            auto a = rows.Domain(c, r);
            if (!a.ok()) return a.status();
            fn(std::move(*a));
            break;
          }
          case kSidecar: {
            if (!Present(FieldOf(c, "path"), r)) break;
            auto a = rows.SidecarOf(c, r);
            if (!a.ok()) return a.status();
            fn(std::move(*a));
            break;
          }
        }
      }
    }
  }
  return Status::OK();
}

Status ForEachCheckpointAction(fs::FileSystem* fs, const LogSegment& segment,
                               const std::function<void(Action&&)>& fn) {
  std::vector<Sidecar> sidecars;
  for (const LogFile& part : segment.checkpoint_files) {
    Status applied = ReadCheckpointFile(fs, part, fn, &sidecars);
    if (applied.IsCorruption()) {
      // What to do: a checkpoint only summarises commits, so without it readers replay them.
      return Status::Corruption(applied.message() +
                                " (a damaged Delta checkpoint: restore it from a backup, or "
                                "delete it so that readers replay the commit files, if the log "
                                "still holds every commit up to version " +
                                std::to_string(*segment.checkpoint_version) + ")");
    }
    WEIR_RETURN_NOT_OK(applied);
  }
  std::string sidecar_dir = fs::JoinPath(segment.log_dir, kSidecarDirName);
  for (const Sidecar& s : sidecars) {
    WEIR_ASSIGN_OR_RETURN(std::string path, ResolveDataFilePath(sidecar_dir, s.path));
    WEIR_RETURN_NOT_OK(ReadParquetCheckpoint(fs, path, [&](Action&& a) {
      if (!std::holds_alternative<Sidecar>(a)) fn(std::move(a));
    }));
  }
  return Status::OK();
}

Status ReplayCheckpoint(fs::FileSystem* fs, const LogSegment& segment, TableState* state) {
  return ForEachCheckpointAction(fs, segment, [state](Action&& a) { state->Apply(std::move(a)); });
}

Result<std::vector<Action>> ParseCommitActions(std::string_view text, const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(std::vector<Action> actions, ParseActions(text, path));
  if (actions.empty()) {
    return Status::Corruption("Delta commit file " + path +
                              " holds no action (it is empty or was truncated): the table cannot "
                              "be read without it; restore the file from a backup or a replica");
  }
  return actions;
}

Result<std::vector<Action>> ReadCommitActions(fs::FileSystem* fs, const std::string& table_root,
                                              int64_t version) {
  const std::string path = fs::JoinPath(LogDirPath(table_root), CommitFileName(version));
  auto text = fs::ReadFileToString(fs, path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) {
      return Status::NotFound("Delta table " + table_root + " has no commit " + std::to_string(version) +
                              " (" + path + ")");
    }
    return text.status();
  }
  return ParseCommitActions(*text, path);
}

Result<std::optional<CommitInfo>> ReplayCommitFile(fs::FileSystem* fs, const std::string& path,
                                                   TableState* state) {
  WEIR_ASSIGN_OR_RETURN(std::string text, fs::ReadFileToString(fs, path));
  WEIR_ASSIGN_OR_RETURN(auto actions, ParseCommitActions(text, path));
  std::optional<CommitInfo> info;
  for (Action& a : actions) {
    if (auto* ci = std::get_if<CommitInfo>(&a)) {
      info = std::move(*ci);
    } else if (!std::holds_alternative<Sidecar>(a) && !std::holds_alternative<CheckpointMetadata>(a)) {
      state->Apply(std::move(a));
    }
  }
  return info;
}

}  // namespace weir::delta
