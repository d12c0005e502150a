#include "delta/scan.h"

#include <strings.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "columnar/text_format.h"
#include "delta/log_path.h"
#include "delta/partition_value.h"

namespace weir::delta {

using columnar::Column;
using columnar::DataType;
using columnar::Field;
using columnar::Int128;
using columnar::TypeId;

namespace {

// The name of `field` in data files and partitionValues.
std::string PhysicalName(const Field& field, ColumnMappingMode mode) {
  if (mode == ColumnMappingMode::kNone || field.metadata.find("physicalName") == std::string::npos) {
    return field.name;
  }
  auto j = nlohmann::json::parse(field.metadata, nullptr, false);
  if (j.is_object()) {
    auto it = j.find("delta.columnMapping.physicalName");
    if (it != j.end() && it->is_string()) return it->get<std::string>();
  }
  return field.name;
}

int FindByName(const std::vector<Field>& fields, const std::string& name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (strcasecmp(fields[i].name.c_str(), name.c_str()) == 0) return static_cast<int>(i);
  }
  return -1;
}

Column NullColumn(const columnar::TypePtr& type, int64_t rows) {
  Column c(type);
  c.Reserve(rows);
  for (int64_t i = 0; i < rows; ++i) c.AppendNull();
  return c;
}

void CopyValidity(const Column& src, Column* out) {
  if (src.null_count() > 0) out->validity_buffer().assign(src.validity(), src.validity() + src.size());
}

bool IsInteger(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64;
}

int64_t IntegerAt(const Column& c, int64_t row) {
  switch (c.type_id()) {
    case TypeId::kInt8: return c.Value<int8_t>(row);
    case TypeId::kInt16: return c.Value<int16_t>(row);
    case TypeId::kInt32: return c.Value<int32_t>(row);
    default: return c.Value<int64_t>(row);
  }
}

int IntegerRank(TypeId id) {
  return id == TypeId::kInt8 ? 1 : id == TypeId::kInt16 ? 2 : id == TypeId::kInt32 ? 3 : 4;
}

Int128 Pow10(int n) {
  Int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// Converts a column read from a data file to the table's type for `target`.
Result<Column> Conform(const Column& src, const Field& target, ColumnMappingMode mode,
                       const std::string& file) {
  const DataType& to = *target.type;
  const DataType& from = *src.type();
  const int64_t n = src.size();
  auto mismatch = [&] {
    return Status::NotImplemented("column '" + target.name + "' is " + from.ToDdl() +
                                  " in data file " + file + " but " + to.ToDdl() +
                                  " in the table; weir cannot convert it");
  };
  if (mode == ColumnMappingMode::kNone && from.Equals(to)) return src;  // the common case
  if (to.id() == TypeId::kStruct) {
    if (from.id() != TypeId::kStruct) return mismatch();
    Column out(target.type);
    for (size_t i = 0; i < to.children().size(); ++i) {
      const Field& child = to.children()[i];
      int k = FindByName(from.children(), PhysicalName(child, mode));
      if (k < 0) {
        out.mutable_child(static_cast<int>(i)) = NullColumn(child.type, n);
      } else {
        WEIR_ASSIGN_OR_RETURN(out.mutable_child(static_cast<int>(i)),
                              Conform(src.child(k), child, mode, file));
      }
    }
    CopyValidity(src, &out);
    out.SetSize(n);
    return out;
  }
  if (to.id() == TypeId::kList || to.id() == TypeId::kMap) {
    if (from.id() != to.id()) return mismatch();
    Column out(target.type);
    out.offsets_buffer().assign(src.offsets(), src.offsets() + n + 1);
    for (size_t i = 0; i < to.children().size(); ++i) {
      WEIR_ASSIGN_OR_RETURN(out.mutable_child(static_cast<int>(i)),
                            Conform(src.child(static_cast<int>(i)), to.children()[i], mode, file));
    }
    CopyValidity(src, &out);
    out.SetSize(n);
    return out;
  }
  if (from.is_nested()) return mismatch();
  if (from.Equals(to)) return src;

  Column out(target.type);
  // Same representation, different logical tag.
  bool retag = (from.is_binary_like() && to.is_binary_like()) ||
               ((from.id() == TypeId::kTimestamp || from.id() == TypeId::kTimestampNtz) &&
                (to.id() == TypeId::kTimestamp || to.id() == TypeId::kTimestampNtz)) ||
               (from.id() == TypeId::kDecimal && to.id() == TypeId::kDecimal &&
                from.scale() == to.scale() && from.precision() <= to.precision());
  if (retag) {
    if (from.is_binary_like()) {
      out.string_buffer().assign(src.strings(), src.strings() + n);
      out.ShareBuffersFrom(src);
    } else {
      const uint8_t* bytes = src.values<uint8_t>();
      out.fixed_buffer().assign(bytes, bytes + n * from.byte_width());
    }
    CopyValidity(src, &out);
    out.SetSize(n);
    return out;
  }
  out.Reserve(n);
  if (IsInteger(from.id()) && IsInteger(to.id()) && IntegerRank(from.id()) <= IntegerRank(to.id())) {
    for (int64_t i = 0; i < n; ++i) {
      if (src.IsNull(i)) {
        out.AppendNull();
        continue;
      }
      int64_t v = IntegerAt(src, i);
      switch (to.id()) {
        case TypeId::kInt16: out.Append<int16_t>(static_cast<int16_t>(v)); break;
        case TypeId::kInt32: out.Append<int32_t>(static_cast<int32_t>(v)); break;
        default: out.Append<int64_t>(v); break;
      }
    }
    return out;
  }
  if (to.id() == TypeId::kDouble && (from.id() == TypeId::kFloat || IsInteger(from.id()))) {
    for (int64_t i = 0; i < n; ++i) {
      if (src.IsNull(i)) {
        out.AppendNull();
      } else {
        out.Append<double>(from.id() == TypeId::kFloat ? src.Value<float>(i)
                                                       : static_cast<double>(IntegerAt(src, i)));
      }
    }
    return out;
  }
  if (to.id() == TypeId::kDecimal && (from.id() == TypeId::kDecimal || IsInteger(from.id()))) {
    int from_scale = from.id() == TypeId::kDecimal ? from.scale() : 0;
    if (to.scale() < from_scale) return mismatch();
    Int128 factor = Pow10(to.scale() - from_scale);
    Int128 limit = columnar::MaxDecimalUnscaled(to.precision());
    for (int64_t i = 0; i < n; ++i) {
      if (src.IsNull(i)) {
        out.AppendNull();
        continue;
      }
      Int128 v = from.id() == TypeId::kDecimal ? src.Value<Int128>(i) : Int128(IntegerAt(src, i));
      v *= factor;
      if (v > limit || v < -limit) return mismatch();
      out.Append<Int128>(v);
    }
    return out;
  }
  if (from.id() == TypeId::kDate && to.id() == TypeId::kTimestampNtz) {
    for (int64_t i = 0; i < n; ++i) {
      if (src.IsNull(i)) {
        out.AppendNull();
      } else {
        out.Append<int64_t>(static_cast<int64_t>(src.Value<int32_t>(i)) * 86400LL * 1000000);
      }
    }
    return out;
  }
  return mismatch();
}

}  // namespace

Result<std::unique_ptr<TableScan>> TableScan::Make(std::shared_ptr<const Snapshot> snapshot,
                                                   ScanOptions options) {
  WEIR_RETURN_NOT_OK(snapshot->CheckHasFiles("a scan"));
  std::unique_ptr<TableScan> scan(new TableScan());
  const columnar::Schema& table = snapshot->schema();
  if (options.columns.empty()) {
    for (int i = 0; i < table.num_fields(); ++i) scan->table_field_.push_back(i);
  } else {
    for (const std::string& name : options.columns) {
      int i = FindByName(table.fields, name);
      if (i < 0) {
        return Status::InvalidArgument("no column '" + name + "' in Delta table " +
                                       snapshot->table_root() + " (columns: " + table.ToDdl() + ")");
      }
      scan->table_field_.push_back(i);
    }
  }
  for (int i : scan->table_field_) {
    scan->schema_.fields.push_back(table.fields[i]);
    bool partition = false;
    for (const std::string& p : snapshot->partition_columns()) {
      if (strcasecmp(p.c_str(), table.fields[i].name.c_str()) == 0) partition = true;
    }
    scan->is_partition_.push_back(partition);
  }
  for (const auto& [key, add] : snapshot->files()) scan->files_.push_back(add);
  scan->snapshot_ = std::move(snapshot);
  scan->options_ = std::move(options);
  return scan;
}

Result<std::unique_ptr<parquet::ParquetReader>> TableScan::OpenFile(const AddFile& add) const {
  WEIR_ASSIGN_OR_RETURN(std::string path, ResolveDataFilePath(snapshot_->table_root(), add.path));
  auto reader = parquet::ParquetReader::Open(snapshot_->fs(), path);
  if (!reader.ok()) {
    return reader.status().WithContext("Delta table " + snapshot_->table_root() + " version " +
                                       std::to_string(snapshot_->version()) + ", data file " +
                                       add.path);
  }
  return std::move(*reader);
}

Result<columnar::Batch> TableScan::ReadRowGroup(parquet::ParquetReader& reader, const AddFile& add,
                                               int group) const {
  const ColumnMappingMode mode = snapshot_->column_mapping_mode();
  const auto& file_fields = reader.schema().fields;
  std::vector<int> read_fields;
  std::vector<int> position(schema_.fields.size(), -1);  // index into the read batch
  for (size_t i = 0; i < schema_.fields.size(); ++i) {
    if (is_partition_[i]) continue;
    int k = FindByName(file_fields, PhysicalName(schema_.fields[i], mode));
    if (k < 0) {
      // Absent from the file: nulls. Present in a type weir does not read (TIME): an error, not
      // nulls.
      for (const parquet::UnreadableField& u : reader.file_schema().unreadable) {
        if (strcasecmp(u.name.c_str(), PhysicalName(schema_.fields[i], mode).c_str()) == 0) {
          return Status::NotImplemented("Parquet file " + reader.path() + ": " + u.message)
              .WithContext("data file " + add.path);
        }
      }
      continue;
    }
    auto found = std::find(read_fields.begin(), read_fields.end(), k);
    position[i] = static_cast<int>(found - read_fields.begin());
    if (found == read_fields.end()) read_fields.push_back(k);
  }
  const int64_t rows = reader.metadata().row_groups[group].num_rows;
  columnar::Batch file_batch;
  if (!read_fields.empty()) {
    auto read = reader.ReadRowGroup(group, read_fields);
    if (!read.ok()) return read.status().WithContext("data file " + add.path);
    file_batch = std::move(*read);
  }
  columnar::Batch out;
  out.schema = schema_;
  out.num_rows_without_columns = rows;
  for (size_t i = 0; i < schema_.fields.size(); ++i) {
    const Field& field = schema_.fields[i];
    if (is_partition_[i]) {
      std::string key = PhysicalName(field, mode);
      std::optional<std::string> text;
      auto it = add.partition_values.find(key);
      if (it == add.partition_values.end()) {
        for (auto& [k, v] : add.partition_values) {
          if (strcasecmp(k.c_str(), key.c_str()) == 0) text = v;
        }
      } else {
        text = it->second;
      }
      Column one(field.type);
      Status st = AppendPartitionValue(text, field.name, &one,
                                       options_.zoneless_partition_timestamp_offset_seconds);
      if (!st.ok()) return st.WithContext("data file " + add.path);
      Column c(field.type);
      c.Reserve(rows);
      for (int64_t r = 0; r < rows; ++r) c.AppendFrom(one, 0);
      out.columns.push_back(std::move(c));
    } else if (position[i] < 0) {
      out.columns.push_back(NullColumn(field.type, rows));
    } else {
      const Column& src = file_batch.columns[position[i]];
      if (src.size() != rows) {
        return Status::Corruption("data file " + add.path + " row group " +
                                  std::to_string(group) + " has " + std::to_string(src.size()) +
                                  " values in column '" + field.name + "' for " +
                                  std::to_string(rows) + " rows");
      }
      WEIR_ASSIGN_OR_RETURN(Column c, Conform(src, field, mode, add.path));
      out.columns.push_back(std::move(c));
    }
  }
  return out;
}

Result<std::optional<columnar::Batch>> TableScan::Next() {
  while (true) {
    if (reader_ && next_group_ < reader_->num_row_groups()) {
      WEIR_ASSIGN_OR_RETURN(columnar::Batch batch, ReadRowGroup(*reader_, *current_add_, next_group_++));
      if (batch.num_rows() == 0) continue;
      return std::optional<columnar::Batch>(std::move(batch));
    }
    reader_.reset();
    if (next_file_ >= files_.size()) return std::optional<columnar::Batch>();
    current_add_ = files_[next_file_++].get();
    WEIR_ASSIGN_OR_RETURN(reader_, OpenFile(*current_add_));
    next_group_ = 0;
  }
}

Result<std::unique_ptr<TableScan::FileRowGroups>> TableScan::OpenRowGroups(
    const AddFile& add) const {
  auto groups = std::make_unique<FileRowGroups>();
  groups->scan_ = this;
  groups->add_ = add;
  WEIR_ASSIGN_OR_RETURN(groups->reader_, OpenFile(add));
  return groups;
}

Result<std::optional<columnar::Batch>> TableScan::FileRowGroups::Next() {
  if (next_group_ >= reader_->num_row_groups()) return std::optional<columnar::Batch>();
  WEIR_ASSIGN_OR_RETURN(columnar::Batch batch, scan_->ReadRowGroup(*reader_, add_, next_group_));
  ++next_group_;
  return std::optional<columnar::Batch>(std::move(batch));
}

Result<columnar::Batch> TableScan::ReadFile(const AddFile& add) const {
  WEIR_ASSIGN_OR_RETURN(auto reader, OpenFile(add));
  if (reader->num_row_groups() == 1) return ReadRowGroup(*reader, add, 0);  // no copy
  columnar::Batch all;
  all.schema = schema_;
  for (const auto& f : schema_.fields) all.columns.emplace_back(f.type);
  int64_t rows = 0;
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    WEIR_ASSIGN_OR_RETURN(columnar::Batch b, ReadRowGroup(*reader, add, g));
    for (size_t c = 0; c < b.columns.size(); ++c) {
      for (int64_t r = 0; r < b.num_rows(); ++r) all.columns[c].AppendFrom(b.columns[c], r);
    }
    rows += b.num_rows();
  }
  all.num_rows_without_columns = rows;
  return all;
}

}  // namespace weir::delta
