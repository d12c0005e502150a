#include "delta/data_writer.h"

#include <cstdio>
#include <strings.h>

#include "delta/log_path.h"
#include "delta/partition_value.h"
#include "delta/uuid.h"

namespace weir::delta {

using columnar::Batch;
using columnar::Column;

namespace {

constexpr int64_t kRowsPerSlice = 8192;  // rows written between file-size checks

std::string CodecSuffix(compress::Codec codec) {
  switch (codec) {
    case compress::Codec::kUncompressed: return "";
    case compress::Codec::kSnappy: return ".snappy";
    case compress::Codec::kGzip: return ".gz";
    case compress::Codec::kLz4Hadoop: return ".lz4";
    case compress::Codec::kLz4Raw: return ".lz4raw";
    case compress::Codec::kZstd: return ".zstd";
    default: return "";
  }
}

int FindField(const columnar::Schema& schema, const std::string& name) {
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (schema.fields[i].name == name) return i;
  }
  return schema.FieldIndex(name);  // case-insensitive, as Spark resolves
}

}  // namespace

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Open(const Snapshot& snapshot,
                                                             DataWriterOptions options) {
  WEIR_RETURN_NOT_OK(snapshot.CheckWritable());
  return Open(snapshot.fs(), snapshot.table_root(), snapshot.schema(), snapshot.partition_columns(),
              snapshot.config(), options);
}

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Open(
    fs::FileSystem* fs, std::string table_root, columnar::Schema schema,
    std::vector<std::string> partition_columns, TableConfig config, DataWriterOptions options) {
  std::unique_ptr<DataFileWriter> w(new DataFileWriter());
  w->fs_ = fs;
  w->table_root_ = std::move(table_root);
  w->table_schema_ = std::move(schema);
  w->config_ = config;
  w->options_ = options;
  std::vector<bool> is_partition(w->table_schema_.fields.size(), false);
  for (const std::string& p : partition_columns) {
    int i = w->table_schema_.FieldIndex(p);
    if (i < 0) {
      return Status::InvalidArgument("partition column '" + p + "' is not a column of the table");
    }
    const auto& field = w->table_schema_.fields[i];
    if (!IsPartitionableType(*field.type)) {
      return Status::InvalidArgument("partition column '" + p + "' has the type " +
                                     field.type->ToDdl() +
                                     "; partition columns must have a primitive type");
    }
    w->partition_field_.push_back(i);
    w->partition_columns_.push_back(field.name);
    is_partition[i] = true;
  }
  for (size_t i = 0; i < w->table_schema_.fields.size(); ++i) {
    if (is_partition[i]) continue;
    w->data_field_.push_back(static_cast<int>(i));
    w->data_schema_.fields.push_back(w->table_schema_.fields[i]);
  }
  if (w->data_schema_.fields.empty()) {
    return Status::InvalidArgument("a Delta table needs at least one column that is not a "
                                   "partition column");
  }
  w->codec_suffix_ = CodecSuffix(options.codec.value_or(config.codec));
  return w;
}

DataFileWriter::~DataFileWriter() = default;

Status DataFileWriter::Write(const Batch& batch) {
  if (done_) return Status::InvalidArgument("DataFileWriter: Write after Finish or Abort");
  const auto& fields = table_schema_.fields;
  // Match the batch's columns to the table's by name.
  std::vector<int> source(fields.size(), -1);
  for (size_t b = 0; b < batch.schema.fields.size(); ++b) {
    int t = FindField(table_schema_, batch.schema.fields[b].name);
    if (t < 0) {
      return Status::InvalidArgument("column '" + batch.schema.fields[b].name +
                                     "' of the batch is not a column of the table " + table_root_ +
                                     " (columns: " + table_schema_.ToDdl() + ")");
    }
    if (source[t] >= 0) {
      return Status::InvalidArgument("column '" + fields[t].name + "' appears twice in the batch");
    }
    // A column written into a table whose column is nullable where this one is not (or the
    // reverse, checked per row by the caller) is the table's type: Delta writes non-null data
    // into nullable columns.
    if (!batch.columns[b].type()->EqualsIgnoringNullability(*fields[t].type)) {
      return Status::InvalidArgument("column '" + fields[t].name + "' is " +
                                     batch.columns[b].type()->ToDdl() + " in the batch but " +
                                     fields[t].type->ToDdl() + " in the table " + table_root_);
    }
    source[t] = static_cast<int>(b);
  }
  for (size_t t = 0; t < fields.size(); ++t) {
    if (source[t] < 0) {
      return Status::InvalidArgument("the batch lacks the table column '" + fields[t].name + "'");
    }
  }
  const int64_t rows = batch.num_rows();
  if (rows == 0) return Status::OK();

  auto data_batch = [&](const std::vector<int64_t>* selected) {
    Batch out(data_schema_);
    for (size_t i = 0; i < data_field_.size(); ++i) {
      const Column& in = batch.columns[source[data_field_[i]]];
      if (selected == nullptr) {
        out.columns[i] = in;
      } else {
        Column& c = out.columns[i];
        c.Reserve(static_cast<int64_t>(selected->size()));
        for (int64_t r : *selected) c.AppendFrom(in, r);
      }
    }
    return out;
  };

  if (partition_field_.empty()) {
    WEIR_RETURN_NOT_OK(WriteToPartition("", PartitionValues{}, data_batch(nullptr)));
    rows_written_ += rows;
    return Status::OK();
  }

  // Group rows by partition directory, in order of first appearance.
  struct Group {
    PartitionValues values;
    std::vector<int64_t> rows;
  };
  std::map<std::string, size_t> index;
  std::vector<std::pair<std::string, Group>> groups;
  for (int64_t r = 0; r < rows; ++r) {
    std::string dir;
    PartitionValues values;
    for (size_t p = 0; p < partition_field_.size(); ++p) {
      const int t = partition_field_[p];
      const Column& c = batch.columns[source[t]];
      WEIR_ASSIGN_OR_RETURN(std::optional<std::string> text, SerializePartitionValue(c, r));
      if (!text && !fields[t].nullable) {
        return Status::InvalidArgument("partition column '" + fields[t].name +
                                       "' is declared NOT NULL but row " + std::to_string(r) +
                                       " is null");
      }
      if (!dir.empty()) dir.push_back('/');
      dir += EscapePartitionPathComponent(fields[t].name) + "=" +
             (text ? EscapePartitionPathComponent(*text) : std::string(kHiveDefaultPartition));
      values[fields[t].name] = std::move(text);
    }
    auto [it, inserted] = index.emplace(dir, groups.size());
    if (inserted) groups.push_back({dir, Group{std::move(values), {}}});
    groups[it->second].second.rows.push_back(r);
  }
  for (auto& [dir, group] : groups) {
    bool all = static_cast<int64_t>(group.rows.size()) == rows;
    WEIR_RETURN_NOT_OK(WriteToPartition(dir, group.values, data_batch(all ? nullptr : &group.rows)));
  }
  rows_written_ += rows;
  return Status::OK();
}

Status DataFileWriter::WriteToPartition(const std::string& directory, const PartitionValues& values,
                                        const Batch& data) {
  const int64_t target = options_.target_file_size.value_or(config_.target_file_size);
  const int64_t rows = data.num_rows();
  for (int64_t begin = 0; begin < rows; begin += kRowsPerSlice) {
    int64_t length = std::min(kRowsPerSlice, rows - begin);
    Batch slice;
    const Batch* part = &data;
    if (length != rows) {
      slice.schema = data.schema;
      for (const Column& c : data.columns) slice.columns.push_back(c.Slice(begin, length));
      part = &slice;
    }
    WEIR_ASSIGN_OR_RETURN(OpenFile * file, FileFor(directory, values));
    WEIR_RETURN_NOT_OK(file->writer->Write(*part));
    file->stats->Update(*part);
    if (file->writer->EstimatedSize() >= target) WEIR_RETURN_NOT_OK(CloseFile(directory));
  }
  return Status::OK();
}

Result<DataFileWriter::OpenFile*> DataFileWriter::FileFor(const std::string& directory,
                                                          const PartitionValues& values) {
  auto it = open_.find(directory);
  if (it != open_.end()) return &it->second;
  char counter[16];
  std::snprintf(counter, sizeof(counter), "%05d", file_counter_++ % 100000);
  std::string name = "part-" + std::string(counter) + "-" + NewUuid() + ".c000" + codec_suffix_ +
                     ".parquet";
  OpenFile f;
  f.relative_path = directory.empty() ? name : directory + "/" + name;
  f.full_path = fs::JoinPath(table_root_, f.relative_path);
  f.partition_values = values;
  std::string dir = fs::DirName(f.full_path);
  if (!directory.empty()) {
    WEIR_RETURN_NOT_OK(fs_->CreateDirs(dir));
    // Every directory from the partition directory up to the table root gains an entry.
    std::string d = dir;
    while (d.size() > table_root_.size() && d != table_root_) {
      directories_.insert(d);
      d = fs::DirName(d);
    }
  }
  directories_.insert(fs::DirName(fs::JoinPath(table_root_, "x")));
  directories_.insert(dir);
  WEIR_ASSIGN_OR_RETURN(auto file, fs_->OpenForWrite(f.full_path));
  written_paths_.push_back(f.full_path);
  parquet::WriterOptions wo;
  wo.codec = options_.codec.value_or(config_.codec);
  wo.sync_on_close = true;
  WEIR_ASSIGN_OR_RETURN(f.writer, parquet::ParquetWriter::Open(std::move(file), data_schema_, wo));
  f.stats = std::make_unique<StatsCollector>(data_schema_, config_.num_indexed_cols);
  auto [pos, inserted] = open_.emplace(directory, std::move(f));
  return &pos->second;
}

Status DataFileWriter::CloseFile(const std::string& directory) {
  auto it = open_.find(directory);
  if (it == open_.end()) return Status::OK();
  OpenFile& f = it->second;
  WEIR_RETURN_NOT_OK(f.writer->Close());
  AddFile add;
  add.path = EncodePathUri(f.relative_path);
  add.partition_values = f.partition_values;
  add.size = f.writer->file_size();
  add.modification_time = NowMillis();
  add.data_change = options_.data_change;
  add.stats = f.stats->ToJson(f.writer->num_rows(), f.writer->leaf_stats());
  finished_.push_back(std::move(add));
  open_.erase(it);
  return Status::OK();
}

Result<std::vector<AddFile>> DataFileWriter::Finish() {
  if (done_) return Status::InvalidArgument("DataFileWriter: Finish called twice");
  while (!open_.empty()) WEIR_RETURN_NOT_OK(CloseFile(open_.begin()->first));
  // Deepest directories first, so that each new entry is durable before its parent's.
  for (auto it = directories_.rbegin(); it != directories_.rend(); ++it) {
    WEIR_RETURN_NOT_OK(fs_->SyncDir(*it));
  }
  done_ = true;
  return std::move(finished_);
}

void DataFileWriter::Abort() {
  open_.clear();  // drops unwritten data
  for (const std::string& path : written_paths_) (void)fs_->Delete(path);
  written_paths_.clear();
  finished_.clear();
  done_ = true;
}

}  // namespace weir::delta
