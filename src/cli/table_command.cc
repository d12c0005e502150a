// `weir table describe|history|scan|checkpoint|append PATH`: inspect, read and load Delta tables
// (any Delta table weir can read, including those written by Spark, Databricks and delta-rs).
// `append` is a batch loader: JSON lines, CSV (with a header), Parquet or Avro into typed columns.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <strings.h>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "cli/row_filter.h"
#include "cli/table_output.h"
#include "columnar/text_format.h"
#include "avro/capture.h"
#include "avro/reader.h"
#include "delta/log_path.h"
#include "delta/partition_value.h"
#include "delta/table.h"
#include "fs/local_file_system.h"
#include "parquet/reader.h"

namespace weir::cli {
namespace {

using columnar::Column;
using columnar::DataType;
using columnar::Int128;
using columnar::TypeId;
using Json = nlohmann::json;

// Input files (--input) are local.
fs::FileSystem* LocalFs() { return fs::LocalFileSystem::Default(); }

std::string FormatMillis(int64_t ms) { return columnar::FormatTimestampMillis(ms * 1000); }

Result<std::shared_ptr<const delta::Snapshot>> LoadSnapshot(const Flags& flags) {
  const std::string& path = flags.positional()[0];
  WEIR_ASSIGN_OR_RETURN(fs::FileSystem * table_fs, FileSystemFor(flags, path));
  if (flags.Has("version") && flags.Has("timestamp")) {
    return Status::InvalidArgument("give --version or --timestamp, not both");
  }
  if (flags.Has("version")) {
    WEIR_ASSIGN_OR_RETURN(long long v, flags.GetInt("version"));
    return delta::Snapshot::Load(table_fs, path, v);
  }
  if (flags.Has("timestamp")) {
    auto micros = columnar::ParseTimestamp(flags.Get("timestamp"));
    if (!micros) {
      return Status::InvalidArgument("--timestamp must look like 2024-05-01T12:00:00Z, not '" +
                                     flags.Get("timestamp") + "'");
    }
    return delta::Snapshot::LoadAtTimestamp(table_fs, path, *micros / 1000);
  }
  return delta::Snapshot::Load(table_fs, path);
}

// ---------------------------------------------------------------------------------------------
// describe

std::string FeatureList(const std::optional<std::vector<std::string>>& features) {
  std::string out;
  for (const auto& f : features.value_or(std::vector<std::string>{})) out += (out.empty() ? "" : ", ") + f;
  return out;
}

int DescribeMain(const Flags& flags) {
  auto loaded = LoadSnapshot(flags);
  if (!loaded.ok()) return Fail(loaded.status());
  const delta::Snapshot& s = **loaded;
  const delta::Protocol& p = s.protocol();
  const delta::Metadata& m = s.metadata();
  std::printf("table: %s\n", s.table_root().c_str());
  std::printf("version: %lld\n", static_cast<long long>(s.version()));
  if (s.timestamp_ms() > 0) std::printf("committed: %s\n", FormatMillis(s.timestamp_ms()).c_str());
  std::printf("id: %s\n", m.id.c_str());
  if (m.name) std::printf("name: %s\n", m.name->c_str());
  if (m.description) std::printf("description: %s\n", m.description->c_str());
  std::printf("protocol: reader version %d, writer version %d\n", p.min_reader_version,
              p.min_writer_version);
  if (p.reader_features) std::printf("reader features: %s\n", FeatureList(p.reader_features).c_str());
  if (p.writer_features) std::printf("writer features: %s\n", FeatureList(p.writer_features).c_str());
  std::string partitions;
  for (const auto& c : s.partition_columns()) partitions += (partitions.empty() ? "" : ", ") + c;
  std::printf("partitioned by: %s\n", partitions.empty() ? "(none)" : partitions.c_str());
  std::printf("files: %lld\n", static_cast<long long>(s.num_files()));
  std::printf("size: %lld bytes\n", static_cast<long long>(s.total_size()));
  int64_t rows = 0;
  bool rows_known = true;
  for (const auto& [key, add] : s.files()) {
    auto n = add->NumRecords();
    if (!n) rows_known = false;
    rows += n.value_or(0);
  }
  if (rows_known) std::printf("rows: %lld (from file statistics)\n", static_cast<long long>(rows));
  if (s.checkpoint_version()) {
    std::printf("checkpoint: version %lld\n", static_cast<long long>(*s.checkpoint_version()));
  } else {
    std::printf("checkpoint: (none)\n");
  }
  std::printf("transactions: %zu\n", s.transactions().size());
  std::printf("properties:%s\n", m.configuration.empty() ? " (none)" : "");
  for (const auto& [k, v] : m.configuration) std::printf("  %s = %s\n", k.c_str(), v.c_str());
  if (!s.config_status().ok()) std::printf("  (invalid: %s)\n", s.config_status().message().c_str());
  std::printf("schema:\n");
  for (const auto& f : s.schema().fields) {
    std::printf("  %s %s%s\n", f.name.c_str(), f.type->ToDdl().c_str(), f.nullable ? "" : " NOT NULL");
  }
  Status writable = s.CheckWritable();
  if (!writable.ok()) std::printf("writable by weir: no (%s)\n", writable.message().c_str());
  return 0;
}

// ---------------------------------------------------------------------------------------------
// history

Json MapToJson(const delta::StringMap& m) {
  Json j = Json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

int HistoryMain(const Flags& flags) {
  const std::string& path = flags.positional()[0];
  auto table_fs = FileSystemFor(flags, path);
  if (!table_fs.ok()) return Fail(table_fs.status());
  auto files = delta::ListLogFiles(*table_fs, delta::LogDirPath(path));
  if (!files.ok()) return Fail(files.status());
  int64_t limit = -1;
  if (flags.Has("limit")) {
    auto l = flags.GetInt("limit");
    if (!l.ok()) return Fail(l.status());
    limit = *l;
  }
  std::string format = flags.Get("format");
  if (format != "table" && format != "jsonl") {
    return Fail(Status::InvalidArgument("--format must be table or jsonl"));
  }
  std::vector<const delta::LogFile*> commits;
  for (const auto& f : *files) {
    if (f.name.type == delta::LogFileType::kCommit) commits.push_back(&f);
  }
  int64_t printed = 0;
  for (auto it = commits.rbegin(); it != commits.rend(); ++it) {
    if (limit >= 0 && printed >= limit) break;
    const delta::LogFile& f = **it;
    auto text = fs::ReadFileToString(*table_fs, f.path);
    if (!text.ok()) return Fail(text.status());
    auto actions = delta::ParseActions(*text, f.path);
    if (!actions.ok()) return Fail(actions.status());
    delta::CommitInfo info;
    int64_t adds = 0, removes = 0;
    for (const auto& a : *actions) {
      if (auto* ci = std::get_if<delta::CommitInfo>(&a)) info = *ci;
      if (std::holds_alternative<delta::AddFile>(a)) ++adds;
      if (std::holds_alternative<delta::RemoveFile>(a)) ++removes;
    }
    int64_t ts = info.in_commit_timestamp.value_or(info.timestamp.value_or(f.mtime_ms));
    if (format == "jsonl") {
      Json j;
      j["version"] = f.version();
      j["timestamp"] = FormatMillis(ts);
      j["operation"] = info.operation.value_or("");
      j["operationParameters"] = MapToJson(info.operation_parameters);
      j["operationMetrics"] = MapToJson(info.operation_metrics);
      if (info.engine_info) j["engineInfo"] = *info.engine_info;
      if (info.is_blind_append) j["isBlindAppend"] = *info.is_blind_append;
      j["adds"] = adds;
      j["removes"] = removes;
      std::printf("%s\n", j.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    } else {
      if (printed == 0) std::printf("version | timestamp                | operation | parameters | metrics\n");
      std::printf("%7lld | %s | %s | %s | %s\n", static_cast<long long>(f.version()),
                  FormatMillis(ts).c_str(), info.operation.value_or("(no commitInfo)").c_str(),
                  MapToJson(info.operation_parameters).dump(-1, ' ', false, Json::error_handler_t::replace).c_str(),
                  MapToJson(info.operation_metrics).dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    }
    ++printed;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// scan

// "+HH:MM", "-HH:MM", "+HHMM" or "UTC" -> seconds east of UTC.
Result<int64_t> ParseUtcOffset(const std::string& text) {
  if (text == "UTC" || text == "Z") return 0;
  int hours = 0, minutes = 0;
  char sign = text.empty() ? 0 : text[0];
  if ((sign == '+' || sign == '-') &&
      (std::sscanf(text.c_str() + 1, "%2d:%2d", &hours, &minutes) == 2 ||
       std::sscanf(text.c_str() + 1, "%2d%2d", &hours, &minutes) == 2) &&
      hours <= 18 && minutes < 60) {
    return (sign == '-' ? -1 : 1) * (hours * 3600LL + minutes * 60LL);
  }
  return Status::InvalidArgument("--partition-tz-offset must look like -07:00, +05:30 or UTC, not '" +
                                 text + "'");
}

int ScanMain(const Flags& flags) {
  auto loaded = LoadSnapshot(flags);
  if (!loaded.ok()) return Fail(loaded.status());
  delta::ScanOptions options;
  std::vector<std::string> columns;
  if (flags.Has("columns")) columns = SplitList(flags.Get("columns"));
  // With --where, every column is read (the condition may use others) and --columns selects after.
  if (!flags.Has("where")) options.columns = columns;
  if (flags.Has("partition-tz-offset")) {
    auto offset = ParseUtcOffset(flags.Get("partition-tz-offset"));
    if (!offset.ok()) return Fail(offset.status());
    options.zoneless_partition_timestamp_offset_seconds = *offset;
  }
  auto scan = delta::TableScan::Make(*loaded, options);
  if (!scan.ok()) return Fail(scan.status());
  int64_t limit = -1;
  if (flags.Has("limit")) {
    auto l = flags.GetInt("limit");
    if (!l.ok()) return Fail(l.status());
    limit = *l;
  }
  auto printer = RowPrinter::Make(flags.Get("format"), stdout);
  if (!printer.ok()) return Fail(printer.status());
  std::optional<RowFilter> filter;
  if (flags.Has("where")) {
    auto made = RowFilter::Make(flags.Get("where"), (*scan)->schema());
    if (!made.ok()) return Fail(made.status());
    filter = std::move(*made);
  }
  bool printed_any = false;
  while (limit < 0 || printer->rows_printed() < limit) {
    auto batch = (*scan)->Next();
    if (!batch.ok()) return Fail(batch.status());
    if (!*batch) break;
    columnar::Batch rows = std::move(**batch);
    if (filter) {
      auto kept = filter->Apply(rows);
      if (!kept.ok()) return Fail(kept.status());
      rows = std::move(*kept);
      if (!columns.empty()) {
        auto selected = SelectColumns(rows, columns);
        if (!selected.ok()) return Fail(selected.status());
        rows = std::move(*selected);
      }
    }
    printed_any = true;
    if (!printer->Print(rows, limit)) break;
  }
  if (!printed_any) {  // an empty table still prints its header (csv, table)
    columnar::Batch empty((*scan)->schema());
    printer->Print(empty, limit);
  }
  printer->Finish();
  return 0;
}

// ---------------------------------------------------------------------------------------------
// checkpoint

int CheckpointMain(const Flags& flags) {
  auto table_fs = FileSystemFor(flags, flags.positional()[0]);
  if (!table_fs.ok()) return Fail(table_fs.status());
  auto table = delta::Table::Open(*table_fs, flags.positional()[0]);
  if (!table.ok()) return Fail(table.status());
  auto info = (*table)->Checkpoint();
  if (!info.ok()) return Fail(info.status());
  std::printf("checkpoint written: version %lld, %lld actions, %lld add files, %lld bytes: %s\n",
              static_cast<long long>(info->version), static_cast<long long>(info->num_actions),
              static_cast<long long>(info->num_add_files), static_cast<long long>(info->size_in_bytes),
              info->path.c_str());
  if (info->log_files_deleted > 0) {
    std::printf("expired log files deleted: %lld\n", static_cast<long long>(info->log_files_deleted));
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// append: input parsing

// Appends a JSON value to a column of the given type. `where` names the input position.
Status AppendJson(const Json& v, Column* c, const std::string& where);

Status BadValue(const Json& v, const Column& c, const std::string& where) {
  return Status::InvalidArgument(where + ": " + v.dump(-1, ' ', false, Json::error_handler_t::replace) +
                                 " is not a valid " + c.type()->ToDdl());
}

// Parses text as a value of the column's primitive type (CSV cells, JSON strings, map keys).
Status AppendText(std::string_view text, Column* c, const std::string& where) {
  auto bad = [&] {
    return Status::InvalidArgument(where + ": '" + std::string(text) + "' is not a valid " +
                                   c->type()->ToDdl());
  };
  switch (c->type_id()) {
    case TypeId::kString:
      c->AppendString(text);
      return Status::OK();
    case TypeId::kBinary: {
      auto bytes = columnar::DecodeBase64(text);
      if (!bytes) return bad();
      c->AppendString(*bytes);
      return Status::OK();
    }
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: {
      Json j = Json::parse(text, nullptr, false);
      if (j.is_discarded()) return bad();
      return AppendJson(j, c, where);
    }
    default: {
      std::optional<std::string> s{std::string(text)};
      Status st = delta::AppendPartitionValue(s, "", c);  // the protocol's text forms
      if (!st.ok()) return bad();
      return Status::OK();
    }
  }
}

Status AppendJson(const Json& v, Column* c, const std::string& where) {
  if (v.is_null()) {
    c->AppendNull();
    return Status::OK();
  }
  switch (c->type_id()) {
    case TypeId::kBoolean:
      if (v.is_boolean()) {
        c->Append<uint8_t>(v.get<bool>() ? 1 : 0);
        return Status::OK();
      }
      break;
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      if (!v.is_number_integer()) break;
      if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        return BadValue(v, *c, where);
      }
      int64_t x = v.get<int64_t>();
      int bits = c->type_id() == TypeId::kInt8 ? 8 : c->type_id() == TypeId::kInt16 ? 16
                 : c->type_id() == TypeId::kInt32 ? 32 : 64;
      if (bits < 64 && (x < -(int64_t{1} << (bits - 1)) || x >= (int64_t{1} << (bits - 1)))) {
        return BadValue(v, *c, where);
      }
      if (bits == 8) c->Append<int8_t>(static_cast<int8_t>(x));
      if (bits == 16) c->Append<int16_t>(static_cast<int16_t>(x));
      if (bits == 32) c->Append<int32_t>(static_cast<int32_t>(x));
      if (bits == 64) c->Append<int64_t>(x);
      return Status::OK();
    }
    case TypeId::kFloat:
      if (v.is_number()) {
        c->Append<float>(v.get<float>());
        return Status::OK();
      }
      break;
    case TypeId::kDouble:
      if (v.is_number()) {
        c->Append<double>(v.get<double>());
        return Status::OK();
      }
      break;
    case TypeId::kDecimal:
      if (v.is_number()) {
        // Integers are exact; other numbers go through their shortest decimal form (give longer
        // decimals as strings to keep every digit).
        std::string text = v.is_number_integer() ? v.dump() : delta::FormatJavaDouble(v.get<double>());
        auto d = columnar::ParseDecimal(text, c->type()->precision(), c->type()->scale());
        if (!d) return BadValue(v, *c, where);
        c->Append<Int128>(*d);
        return Status::OK();
      }
      break;
    case TypeId::kDate:
      if (v.is_number_integer()) {
        c->Append<int32_t>(static_cast<int32_t>(v.get<int64_t>()));
        return Status::OK();
      }
      break;
    case TypeId::kString:
      if (!v.is_string()) {
        c->AppendString(v.dump(-1, ' ', false, Json::error_handler_t::replace));
        return Status::OK();
      }
      break;
    case TypeId::kStruct: {
      if (!v.is_object()) return BadValue(v, *c, where);
      const auto& fields = c->type()->children();
      for (size_t i = 0; i < fields.size(); ++i) {
        auto it = v.find(fields[i].name);
        Column& child = c->mutable_child(static_cast<int>(i));
        if (it == v.end()) {
          child.AppendNull();
        } else {
          WEIR_RETURN_NOT_OK(AppendJson(*it, &child, where + "." + fields[i].name));
        }
      }
      c->AppendStructEntry();
      return Status::OK();
    }
    case TypeId::kList: {
      if (!v.is_array()) return BadValue(v, *c, where);
      for (const Json& e : v) WEIR_RETURN_NOT_OK(AppendJson(e, &c->mutable_child(0), where + "[]"));
      c->AppendListEntry();
      return Status::OK();
    }
    case TypeId::kMap: {
      if (!v.is_object()) return BadValue(v, *c, where);
      for (auto it = v.begin(); it != v.end(); ++it) {
        WEIR_RETURN_NOT_OK(AppendText(it.key(), &c->mutable_child(0), where + " key"));
        WEIR_RETURN_NOT_OK(AppendJson(*it, &c->mutable_child(1), where + "." + it.key()));
      }
      c->AppendListEntry();
      return Status::OK();
    }
    default:
      break;
  }
  if (v.is_string()) return AppendText(v.get<std::string>(), c, where);
  return BadValue(v, *c, where);
}

int FindColumn(const columnar::Schema& schema, const std::string& name) {
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (schema.fields[i].name == name) return i;
  }
  return schema.FieldIndex(name);
}

// Reads input rows into batches of at most kBatchRows rows and hands each to `sink`.
constexpr int64_t kBatchRows = 65536;
using BatchSink = std::function<Status(const columnar::Batch&)>;

Status ReadJsonLines(const std::string& path, const columnar::Schema& schema, const BatchSink& sink) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot open input file " + path);
  columnar::Batch batch(schema);
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = path + " line " + std::to_string(number);
    Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      return Status::InvalidArgument(where + ": not a JSON object");
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (FindColumn(schema, it.key()) < 0) {
        return Status::InvalidArgument(where + ": field '" + it.key() +
                                       "' is not a column of the table (" + schema.ToDdl() + ")");
      }
    }
    for (int i = 0; i < schema.num_fields(); ++i) {
      const auto& f = schema.fields[i];
      auto it = j.find(f.name);
      if (it == j.end()) {
        for (auto k = j.begin(); k != j.end(); ++k) {
          if (strcasecmp(k.key().c_str(), f.name.c_str()) == 0) it = k;
        }
      }
      Status st = it == j.end() ? (batch.columns[i].AppendNull(), Status::OK())
                                : AppendJson(*it, &batch.columns[i], where + ", column " + f.name);
      WEIR_RETURN_NOT_OK(st);
    }
    if (batch.num_rows() >= kBatchRows) {
      WEIR_RETURN_NOT_OK(sink(batch));
      batch = columnar::Batch(schema);
    }
  }
  if (batch.num_rows() > 0) WEIR_RETURN_NOT_OK(sink(batch));
  return Status::OK();
}

// One CSV record (RFC 4180: quoted fields, "" escapes, newlines inside quotes). `quoted` tells
// which cells were quoted (an unquoted empty cell is null). False at the end of the input.
bool ReadCsvRecord(std::istream& in, std::vector<std::string>* cells, std::vector<bool>* quoted) {
  cells->clear();
  quoted->clear();
  std::string cell;
  bool in_quotes = false, was_quoted = false, any = false;
  char ch;
  while (in.get(ch)) {
    any = true;
    if (in_quotes) {
      if (ch == '"') {
        if (in.peek() == '"') {
          in.get(ch);
          cell.push_back('"');
        } else {
          in_quotes = false;
        }
      } else {
        cell.push_back(ch);
      }
    } else if (ch == '"') {
      in_quotes = true;
      was_quoted = true;
    } else if (ch == ',') {
      cells->push_back(std::move(cell));
      quoted->push_back(was_quoted);
      cell.clear();
      was_quoted = false;
    } else if (ch == '\n') {
      break;
    } else if (ch != '\r') {
      cell.push_back(ch);
    }
  }
  if (!any) return false;
  cells->push_back(std::move(cell));
  quoted->push_back(was_quoted);
  return true;
}

Status ReadCsv(const std::string& path, const columnar::Schema& schema, const BatchSink& sink) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot open input file " + path);
  std::vector<std::string> header, cells;
  std::vector<bool> quoted;
  if (!ReadCsvRecord(in, &header, &quoted)) return Status::InvalidArgument(path + " is empty");
  std::vector<int> column_of(header.size());
  for (size_t i = 0; i < header.size(); ++i) {
    column_of[i] = FindColumn(schema, header[i]);
    if (column_of[i] < 0) {
      return Status::InvalidArgument(path + ": header column '" + header[i] +
                                     "' is not a column of the table (" + schema.ToDdl() + ")");
    }
  }
  columnar::Batch batch(schema);
  int64_t number = 1;
  while (ReadCsvRecord(in, &cells, &quoted)) {
    ++number;
    if (cells.size() == 1 && cells[0].empty() && !quoted[0]) continue;  // blank line
    std::string where = path + " record " + std::to_string(number);
    if (cells.size() != header.size()) {
      return Status::InvalidArgument(where + " has " + std::to_string(cells.size()) +
                                     " fields; the header has " + std::to_string(header.size()));
    }
    std::vector<bool> filled(schema.fields.size(), false);
    for (size_t i = 0; i < cells.size(); ++i) {
      Column* c = &batch.columns[column_of[i]];
      filled[column_of[i]] = true;
      if (cells[i].empty() && !quoted[i]) {
        c->AppendNull();
      } else {
        WEIR_RETURN_NOT_OK(AppendText(cells[i], c, where + ", column " + header[i]));
      }
    }
    for (size_t i = 0; i < filled.size(); ++i) {
      if (!filled[i]) batch.columns[i].AppendNull();
    }
    if (batch.num_rows() >= kBatchRows) {
      WEIR_RETURN_NOT_OK(sink(batch));
      batch = columnar::Batch(schema);
    }
  }
  if (batch.num_rows() > 0) WEIR_RETURN_NOT_OK(sink(batch));
  return Status::OK();
}

Status ReadParquet(const std::string& path, const BatchSink& sink) {
  WEIR_ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(LocalFs(), path));
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    WEIR_ASSIGN_OR_RETURN(columnar::Batch batch, reader->ReadRowGroup(g));
    WEIR_RETURN_NOT_OK(sink(batch));
  }
  return Status::OK();
}

// --format avro: --input is one Avro container file, or a folder whose *.avro files (at any
// depth, in path order) are read one after another.
Result<std::vector<std::string>> AvroInputs(const std::string& input) {
  std::error_code ec;
  if (!std::filesystem::is_directory(input, ec)) return std::vector<std::string>{input};
  std::vector<std::string> files;
  for (auto it = std::filesystem::recursive_directory_iterator(input, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".avro") files.push_back(it->path().string());
  }
  if (ec) return Status::IOError("listing " + input + ": " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty()) return Status::NotFound("no .avro files under " + input);
  return files;
}

Status ReadAvro(const std::string& input, const BatchSink& sink) {
  WEIR_ASSIGN_OR_RETURN(std::vector<std::string> files, AvroInputs(input));
  for (const std::string& file : files) {
    WEIR_ASSIGN_OR_RETURN(auto reader, avro::AvroReader::Open(LocalFs(), file));
    columnar::Batch batch;
    for (;;) {
      WEIR_ASSIGN_OR_RETURN(bool more, reader->Next(&batch));
      if (!more) break;
      WEIR_RETURN_NOT_OK(sink(batch));
    }
  }
  return Status::OK();
}

// --format capture: Event Hubs Capture files (a file or a folder of them, in Capture's layout) as
// Spark's Kafka source rows (avro/capture.h, docs/capture.md).
Status ReadCapture(const std::string& input, const BatchSink& sink) {
  WEIR_ASSIGN_OR_RETURN(std::vector<std::string> files, AvroInputs(input));
  for (const std::string& file : files) {
    WEIR_ASSIGN_OR_RETURN(avro::CapturePath from, avro::ParseCapturePath(file));
    WEIR_ASSIGN_OR_RETURN(auto reader, avro::AvroReader::Open(LocalFs(), file));
    columnar::Batch events;
    for (;;) {
      WEIR_ASSIGN_OR_RETURN(bool more, reader->Next(&events));
      if (!more) break;
      columnar::Batch rows(avro::CaptureKafkaSchema());
      WEIR_RETURN_NOT_OK(avro::AppendCaptureEvents(events, from, &rows).WithContext("capture: " + file));
      WEIR_RETURN_NOT_OK(sink(rows));
    }
  }
  return Status::OK();
}

std::string InputFormat(const Flags& flags) {
  if (flags.Has("format")) return flags.Get("format");
  const std::string input = flags.Get("input");
  auto ends_with = [&](const std::string& suffix) {
    return input.size() >= suffix.size() &&
           strcasecmp(input.c_str() + input.size() - suffix.size(), suffix.c_str()) == 0;
  };
  if (ends_with(".parquet")) return "parquet";
  if (ends_with(".csv")) return "csv";
  if (ends_with(".avro")) return "avro";
  return "jsonl";
}

Result<std::unique_ptr<delta::Table>> OpenOrCreate(const Flags& flags, const std::string& format) {
  const std::string& path = flags.positional()[0];
  std::optional<columnar::Schema> given;
  if (flags.Has("schema")) {
    WEIR_ASSIGN_OR_RETURN(given, columnar::ParseDdlSchema(flags.Get("schema")));
  }
  WEIR_ASSIGN_OR_RETURN(fs::FileSystem * table_fs, FileSystemFor(flags, path));
  auto opened = delta::Table::Open(table_fs, path);
  if (opened.ok() || !opened.status().IsNotFound() || !flags.Has("create")) {
    if (opened.ok() && flags.Has("property")) {
      return Status::InvalidArgument("--property applies only when --create creates the table; " +
                                     path + " exists");
    }
    if (!opened.ok() && opened.status().IsNotFound() && !flags.Has("create")) {
      return opened.status().WithContext("add --create (with --schema) to create the table");
    }
    return opened;
  }
  columnar::Schema schema;
  if (given) {
    schema = *given;
  } else if (format == "parquet") {
    WEIR_ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(LocalFs(), flags.Get("input")));
    schema = reader->schema();
  } else if (format == "avro") {
    WEIR_ASSIGN_OR_RETURN(std::vector<std::string> files, AvroInputs(flags.Get("input")));
    WEIR_ASSIGN_OR_RETURN(auto reader, avro::AvroReader::Open(LocalFs(), files.front()));
    schema = reader->schema();
  } else if (format == "capture") {
    schema = avro::CaptureKafkaSchema();
  } else {
    return Status::InvalidArgument("creating a table from " + format +
                                   " input needs --schema 'col TYPE, ...'");
  }
  delta::StringMap properties;
  for (const std::string& kv : flags.GetAll("property")) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--property takes key=value, not '" + kv + "'");
    }
    properties[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  auto created = delta::Table::Create(table_fs, path, schema, SplitList(flags.Get("partition-by")),
                                      properties);
  if (!created.ok() && created.status().IsAlreadyExists()) {
    return delta::Table::Open(table_fs, path);  // another process created it first
  }
  return created;
}

int AppendMain(const Flags& flags) {
  if (!flags.Has("input")) return Fail(Status::InvalidArgument("--input FILE is required"));
  std::string format = InputFormat(flags);
  if (format != "jsonl" && format != "csv" && format != "parquet" && format != "avro" && format != "capture") {
    return Fail(Status::InvalidArgument("--format must be jsonl, csv, parquet, avro or capture, not '" + format +
                                        "'"));
  }
  auto table = OpenOrCreate(flags, format);
  if (!table.ok()) return Fail(table.status());
  const auto& snapshot = (*table)->snapshot();
  if (flags.Has("schema")) {
    auto given = columnar::ParseDdlSchema(flags.Get("schema"));
    if (!given.ok()) return Fail(given.status());
    bool same = given->fields.size() == snapshot->schema().fields.size();
    for (size_t i = 0; same && i < given->fields.size(); ++i) {
      int t = FindColumn(snapshot->schema(), given->fields[i].name);
      same = t >= 0 && snapshot->schema().fields[t].type->Equals(*given->fields[i].type);
    }
    if (!same) {
      return Fail(Status::InvalidArgument("--schema '" + given->ToDdl() + "' differs from the schema of " +
                                          snapshot->table_root() + ": " + snapshot->schema().ToDdl()));
    }
  }
  delta::AppendOptions options;
  for (const std::string& kv : flags.GetAll("txn")) {
    size_t eq = kv.rfind('=');
    char* end = nullptr;
    long long version = eq == std::string::npos ? 0 : std::strtoll(kv.c_str() + eq + 1, &end, 10);
    if (eq == std::string::npos || eq == 0 || end == nullptr || *end != '\0') {
      return Fail(Status::InvalidArgument("--txn takes appId=version, not '" + kv + "'"));
    }
    options.txns.push_back(delta::SetTransaction{kv.substr(0, eq), version, std::nullopt});
  }
  for (const auto& t : options.txns) {
    auto done = snapshot->TxnVersion(t.app_id);
    if (done && *done >= t.version) {
      std::printf("skipped: txn %s version %lld is already committed (table at version %lld)\n",
                  t.app_id.c_str(), static_cast<long long>(t.version),
                  static_cast<long long>(snapshot->version()));
      return 0;
    }
  }
  const columnar::Schema& schema = snapshot->schema();
  const std::string input = flags.Get("input");
  int64_t rows = 0;
  options.skip_if_empty = true;
  auto result = (*table)->Append(
      [&](const delta::BatchSink& sink) {
        delta::BatchSink counted = [&](const columnar::Batch& b) {
          rows += b.num_rows();
          return sink(b);
        };
        return format == "jsonl" ? ReadJsonLines(input, schema, counted)
               : format == "csv" ? ReadCsv(input, schema, counted)
               : format == "avro" ? ReadAvro(input, counted)
               : format == "capture" ? ReadCapture(input, counted)
                                  : ReadParquet(input, counted);
      },
      options);
  if (!result.ok()) return Fail(result.status());
  if (!result->committed && !result->already_committed) {
    std::printf("no rows to append; table %s stays at version %lld\n",
                snapshot->table_root().c_str(), static_cast<long long>(snapshot->version()));
    return 0;
  }
  if (result->already_committed) {
    std::printf("skipped: a concurrent run already committed this txn (version %lld)\n",
                static_cast<long long>(result->version));
    return 0;
  }
  std::printf("committed version %lld: %lld rows in %lld files (%d attempt%s)\n",
              static_cast<long long>(result->version), static_cast<long long>(rows),
              static_cast<long long>(result->files_added), result->attempts,
              result->attempts == 1 ? "" : "s");
  if (result->checkpoint_written) {
    std::printf("checkpoint written at version %lld\n", static_cast<long long>(result->version));
  }
  if (!result->checkpoint_status.ok()) {
    std::fprintf(stderr, "weir: warning: %s\n", result->checkpoint_status.ToString().c_str());
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// registration

int RunDescribe(const std::vector<std::string>& args) {
  Flags flags("weir table describe PATH [--version N | --timestamp TS]",
              "Prints a Delta table's version, protocol and features, partitioning, properties,\n"
              "file count, total size and schema.");
  flags.Positional("PATH", 1, 1);
  flags.Value("version", "N", "describe version N (time travel)");
  flags.Value("timestamp", "TS", "describe the latest version committed at or before TS (ISO-8601)");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, DescribeMain);
}

int RunHistory(const std::vector<std::string>& args) {
  Flags flags("weir table history PATH [--limit N] [--format table|jsonl]",
              "Prints the table's commits, newest first: version, timestamp, operation, its\n"
              "parameters and metrics (from commitInfo).");
  flags.Positional("PATH", 1, 1);
  flags.Value("limit", "N", "at most N commits");
  flags.Value("format", "FORMAT", "table or jsonl", "table");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, HistoryMain);
}

int RunScan(const std::vector<std::string>& args) {
  Flags flags("weir table scan PATH [--version N | --timestamp TS] [--columns a,b] [--where EXPR]\n"
              "                     [--limit N] [--format jsonl|csv|table]",
              "Prints the rows of a Delta table (all live files, partition columns included) in\n"
              "the JSON conventions of `weir parquet cat`.");
  flags.Positional("PATH", 1, 1);
  flags.Value("version", "N", "read version N (time travel)");
  flags.Value("timestamp", "TS", "read the latest version committed at or before TS (ISO-8601)");
  flags.Value("columns", "a,b", "only these columns, in this order");
  flags.Value("where", "EXPR", "only rows where this SQL condition is true, e.g. \"eh_partition = 3\"");
  flags.Value("limit", "N", "at most N rows");
  flags.Value("format", "FORMAT", "jsonl, csv or table", "jsonl");
  flags.Value("partition-tz-offset", "+HH:MM",
              "writer's session time zone for TIMESTAMP partition values stored without a zone (UTC)");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, ScanMain);
}

int RunCheckpoint(const std::vector<std::string>& args) {
  Flags flags("weir table checkpoint PATH",
              "Writes a checkpoint of the latest version (and _last_checkpoint), then deletes log\n"
              "files older than delta.logRetentionDuration that are no longer needed.");
  flags.Positional("PATH", 1, 1);
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, CheckpointMain);
}

int RunAppend(const std::vector<std::string>& args) {
  Flags flags("weir table append PATH --input FILE [--format jsonl|csv|parquet|avro|capture]\n"
              "                       [--create] [--schema DDL] [--partition-by c1,c2] [--property k=v ...]\n"
              "                       [--txn appId=version ...]",
              "Appends the rows of FILE to the Delta table at PATH as one commit. JSON lines: one\n"
              "object per line, fields matched to columns by name (decimals as numbers or strings,\n"
              "dates and timestamps as ISO-8601 strings, binary as base64, nested values as\n"
              "objects/arrays). CSV: a header row, an empty unquoted cell is null. Parquet: columns\n"
              "matched by name. Avro: object container files (codecs null, deflate, snappy,\n"
              "zstandard), the top-level record's fields as columns in Spark's spark-avro types;\n"
              "FILE may be a folder of .avro files (read in path order). Capture: Event Hubs\n"
              "Capture files (Avro, in Capture's folder layout) as Spark's Kafka source columns\n"
              "(docs/capture.md). --create creates the table first if it does not exist, with\n"
              "--schema (or the Parquet or first Avro file's schema, or the Kafka columns for\n"
              "capture). --txn records application progress; a txn already committed makes the\n"
              "append a no-op (exactly-once loads).");
  flags.Positional("PATH", 1, 1);
  flags.Value("input", "FILE", "the rows to append");
  flags.Value("format", "FORMAT", "jsonl, csv, parquet, avro or capture (default: from the file extension)");
  flags.Bool("create", "create the table if it does not exist");
  flags.Value("schema", "DDL", "table schema for --create, e.g. 'id BIGINT, name STRING'");
  flags.Value("partition-by", "c1,c2", "partition columns for --create", "");
  flags.Repeated("property", "k=v", "table property for --create (e.g. delta.appendOnly=true)");
  flags.Repeated("txn", "appId=version", "record txn(appId, version); skip if already committed");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, AppendMain);
}

WEIR_REGISTER_COMMAND(describe_cmd, "table describe", "print a Delta table's metadata and schema",
                      RunDescribe);
WEIR_REGISTER_COMMAND(history_cmd, "table history", "print a Delta table's commits", RunHistory);
WEIR_REGISTER_COMMAND(scan_cmd, "table scan", "print a Delta table's rows (jsonl, csv, table)", RunScan);
WEIR_REGISTER_COMMAND(checkpoint_cmd, "table checkpoint", "checkpoint a Delta table", RunCheckpoint);
WEIR_REGISTER_COMMAND(append_cmd, "table append", "load JSON lines, CSV, Parquet or Avro into a Delta table",
                      RunAppend);

}  // namespace
}  // namespace weir::cli
