// `weir parquet schema|meta|cat FILE`: inspect Parquet files written by weir or any other engine.
#include <cstdio>
#include <cstring>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "cli/table_output.h"
#include "columnar/text_format.h"
#include "parquet/reader.h"

namespace weir::cli {
namespace {

using parquet::ParquetReader;

// A local file or an Azure storage URL (credentials from --set / --secrets / the environment).
Result<std::unique_ptr<ParquetReader>> OpenFile(const Flags& flags, const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(fs::FileSystem * file_fs, FileSystemFor(flags, path));
  return ParquetReader::Open(file_fs, path);
}

int SchemaMain(const Flags& flags) {
  auto reader = OpenFile(flags, flags.positional()[0]);
  if (!reader.ok()) return Fail(reader.status());
  for (const auto& f : (*reader)->schema().fields) {
    std::printf("%s %s%s\n", f.name.c_str(), f.type->ToDdl().c_str(), f.nullable ? "" : " NOT NULL");
  }
  // Columns of types weir does not read (TIME, ...): listed, so they do not vanish unnoticed.
  for (const auto& u : (*reader)->file_schema().unreadable) {
    std::printf("-- %s: not read (%s)\n", u.name.c_str(), u.message.c_str());
  }
  return 0;
}

// Statistics bytes as text for the common physical types; hex otherwise.
std::string StatText(const parquet::LeafDescriptor& leaf, const std::string& bytes) {
  auto hex = [&] {
    static const char kHex[] = "0123456789abcdef";
    std::string out = "0x";
    for (unsigned char c : bytes) {
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    return out;
  };
  switch (leaf.physical_type) {
    case parquet::Type::kInt32:
      if (bytes.size() == 4) {
        int32_t v;
        std::memcpy(&v, bytes.data(), 4);
        if (leaf.type->id() == columnar::TypeId::kDate) return columnar::FormatDate(v);
        if (leaf.type->id() == columnar::TypeId::kDecimal) return columnar::FormatDecimal(v, leaf.type->scale());
        return std::to_string(v);
      }
      return hex();
    case parquet::Type::kInt64:
      if (bytes.size() == 8) {
        int64_t v;
        std::memcpy(&v, bytes.data(), 8);
        if (leaf.type->id() == columnar::TypeId::kDecimal) return columnar::FormatDecimal(v, leaf.type->scale());
        if (leaf.type->id() == columnar::TypeId::kTimestamp && leaf.conversion == parquet::Conversion::kNone) {
          return columnar::FormatTimestampMicros(v);
        }
        return std::to_string(v);
      }
      return hex();
    case parquet::Type::kFloat:
      if (bytes.size() == 4) {
        float v;
        std::memcpy(&v, bytes.data(), 4);
        return std::to_string(v);
      }
      return hex();
    case parquet::Type::kDouble:
      if (bytes.size() == 8) {
        double v;
        std::memcpy(&v, bytes.data(), 8);
        return std::to_string(v);
      }
      return hex();
    case parquet::Type::kBoolean:
      return bytes.size() == 1 ? (bytes[0] ? "true" : "false") : hex();
    case parquet::Type::kByteArray:
      if (leaf.type->id() == columnar::TypeId::kString) {
        std::string out;
        columnar::AppendJsonString(bytes, &out);
        return out;
      }
      return hex();
    default:
      return hex();
  }
}

int MetaMain(const Flags& flags) {
  auto opened = OpenFile(flags, flags.positional()[0]);
  if (!opened.ok()) return Fail(opened.status());
  const ParquetReader& reader = **opened;
  const auto& md = reader.metadata();
  std::printf("file: %s\ncreated_by: %s\nversion: %d\nrows: %lld\nrow groups: %zu\n",
              reader.path().c_str(), md.created_by.value_or("").c_str(), md.version,
              static_cast<long long>(md.num_rows), md.row_groups.size());
  for (const auto& kv : md.key_value_metadata) {
    std::string value = kv.value.value_or("null");
    if (value.size() > 200) value = value.substr(0, 200) + "...";
    std::printf("metadata: %s = %s\n", kv.key.c_str(), value.c_str());
  }
  std::printf("schema:\n");
  for (const auto& leaf : reader.file_schema().leaves) {
    std::string path;
    for (const auto& p : leaf.path) path += (path.empty() ? "" : ".") + p;
    std::printf("  %s: %s -> %s (max_def %d, max_rep %d)\n", path.c_str(),
                std::string(parquet::TypeName(leaf.physical_type)).c_str(),
                leaf.type->ToDdl().c_str(), leaf.max_def, leaf.max_rep);
  }
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    const auto& rg = md.row_groups[g];
    std::printf("row group %zu: %lld rows, %lld bytes\n", g, static_cast<long long>(rg.num_rows),
                static_cast<long long>(rg.total_byte_size));
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const auto& meta = *rg.columns[c].meta_data;
      const auto& leaf = reader.file_schema().leaves[c];
      std::string path, encodings;
      for (const auto& p : meta.path_in_schema) path += (path.empty() ? "" : ".") + p;
      for (auto e : meta.encodings) encodings += std::string(encodings.empty() ? "" : ",") + std::string(parquet::EncodingName(e));
      std::printf("  %s: %s %s values=%lld compressed=%lld uncompressed=%lld encodings=%s",
                  path.c_str(), std::string(parquet::TypeName(meta.type)).c_str(),
                  std::string(parquet::CompressionCodecName(meta.codec)).c_str(),
                  static_cast<long long>(meta.num_values), static_cast<long long>(meta.total_compressed_size),
                  static_cast<long long>(meta.total_uncompressed_size), encodings.c_str());
      if (meta.statistics) {
        const auto& st = *meta.statistics;
        if (st.null_count) std::printf(" nulls=%lld", static_cast<long long>(*st.null_count));
        const auto& min = st.min_value ? st.min_value : st.min;
        const auto& max = st.max_value ? st.max_value : st.max;
        if (min) std::printf(" min=%s", StatText(leaf, *min).c_str());
        if (max) std::printf(" max=%s", StatText(leaf, *max).c_str());
      }
      std::printf("\n");
    }
  }
  return 0;
}

int CatMain(const Flags& flags) {
  auto opened = OpenFile(flags, flags.positional()[0]);
  if (!opened.ok()) return Fail(opened.status());
  ParquetReader& reader = **opened;
  std::vector<int> fields;
  if (flags.Has("columns")) {
    std::vector<std::string> names;
    std::string list = flags.Get("columns");
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      if (comma > start) names.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
    auto indexes = reader.FieldIndexes(names);
    if (!indexes.ok()) return Fail(indexes.status());
    fields = *indexes;
  }
  int64_t limit = -1;
  if (flags.Has("limit")) {
    auto l = flags.GetInt("limit");
    if (!l.ok()) return Fail(l.status());
    limit = *l;
  }
  auto printer = RowPrinter::Make(flags.Get("format"), stdout);
  if (!printer.ok()) return Fail(printer.status());
  for (int g = 0; g < reader.num_row_groups(); ++g) {
    auto batch = reader.ReadRowGroup(g, fields);
    if (!batch.ok()) return Fail(batch.status());
    if (!printer->Print(*batch, limit)) break;
  }
  if (reader.num_row_groups() == 0) {
    auto batch = reader.ReadAll(fields);
    if (!batch.ok()) return Fail(batch.status());
    printer->Print(*batch, limit);
  }
  printer->Finish();
  return 0;
}

int RunSchema(const std::vector<std::string>& args) {
  Flags flags("weir parquet schema FILE", "Prints the file's columns as Spark DDL types.");
  flags.Positional("FILE", 1, 1);
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, SchemaMain);
}

int RunMeta(const std::vector<std::string>& args) {
  Flags flags("weir parquet meta FILE",
              "Prints the file's footer: writer, row groups, column chunks with their physical\n"
              "types, codecs, encodings, sizes and statistics (min, max, null count).");
  flags.Positional("FILE", 1, 1);
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, MetaMain);
}

int RunCat(const std::vector<std::string>& args) {
  Flags flags("weir parquet cat FILE [--columns a,b] [--limit N] [--format jsonl|csv|table]",
              "Prints the file's rows. JSON lines: numbers as numbers (int64 beyond 2^53 as strings),\n"
              "decimals as strings, timestamps as ISO-8601 UTC with microseconds and Z, dates as\n"
              "YYYY-MM-DD, binary as base64, nested values as arrays/objects, maps as objects.");
  flags.Positional("FILE", 1, 1);
  flags.Value("columns", "a,b", "only these top-level columns, in this order");
  flags.Value("limit", "N", "at most N rows");
  flags.Value("format", "FORMAT", "jsonl, csv or table", "jsonl");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, CatMain);
}

WEIR_REGISTER_COMMAND(schema_cmd, "parquet schema", "print a Parquet file's schema", RunSchema);
WEIR_REGISTER_COMMAND(meta_cmd, "parquet meta", "print a Parquet file's row groups, chunks, stats", RunMeta);
WEIR_REGISTER_COMMAND(cat_cmd, "parquet cat", "print a Parquet file's rows (jsonl, csv, table)", RunCat);

}  // namespace
}  // namespace weir::cli
