// `weir table merge PATH --source FILE --keys a,b [--update] [--prune COND ...]`: a MERGE
// (upsert) of JSON lines or Parquet rows into a Delta table on key columns, as a streaming sink's
// foreachBatch + Delta MERGE does it (delta/merge.h, docs/merge.md). A test and operations tool.
#include <strings.h>

#include <cctype>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/file_systems.h"
#include "cli/flags.h"
#include "columnar/text_format.h"
#include "delta/merge.h"
#include "delta/partition_value.h"
#include "delta/table.h"
#include "fs/local_file_system.h"
#include "parquet/reader.h"

namespace weir::cli {
namespace {

using columnar::Batch;
using columnar::Column;
using columnar::TypeId;
using Json = nlohmann::json;

fs::FileSystem* LocalFs() { return fs::LocalFileSystem::Default(); }

// Appends one JSON value of a primitive column (numbers and strings in the text forms of
// partition values: decimals as numbers or strings, dates and timestamps as ISO-8601 strings).
Status AppendJsonValue(const Json& v, Column* c, const std::string& where) {
  if (v.is_null()) {
    c->AppendNull();
    return Status::OK();
  }
  if (c->type()->is_nested()) {
    return Status::InvalidArgument(where + ": nested columns are not supported in JSON lines input "
                                   "of `table merge`; give the source as Parquet");
  }
  if (c->type_id() == TypeId::kBinary) {
    auto bytes = v.is_string() ? columnar::DecodeBase64(v.get<std::string>()) : std::nullopt;
    if (!bytes) return Status::InvalidArgument(where + ": binary values must be base64 strings");
    c->AppendString(*bytes);
    return Status::OK();
  }
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  if (c->type_id() == TypeId::kString) {
    c->AppendString(text);
    return Status::OK();
  }
  Status st = delta::AppendPartitionValue(text, "", c);
  if (!st.ok() || text.empty()) {
    return Status::InvalidArgument(where + ": " + v.dump() + " is not a valid " + c->type()->ToDdl());
  }
  return Status::OK();
}

Result<Batch> ReadJsonLines(const std::string& path, const columnar::Schema& schema) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot open merge source file " + path);
  Batch batch(schema);
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string where = path + " line " + std::to_string(number);
    Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument(where + ": not a JSON object");
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (schema.FieldIndex(it.key()) < 0) {
        return Status::InvalidArgument(where + ": field '" + it.key() +
                                       "' is not a column of the table (" + schema.ToDdl() + ")");
      }
    }
    for (int i = 0; i < schema.num_fields(); ++i) {
      const Json* value = nullptr;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (columnar::EqualsIgnoreAsciiCase(it.key(), schema.fields[i].name)) value = &*it;
      }
      if (value == nullptr) {
        batch.columns[i].AppendNull();
      } else {
        WEIR_RETURN_NOT_OK(AppendJsonValue(*value, &batch.columns[i],
                                           where + ", column " + schema.fields[i].name));
      }
    }
  }
  return batch;
}

Result<Batch> ReadParquet(const std::string& path) {
  WEIR_ASSIGN_OR_RETURN(auto reader, parquet::ParquetReader::Open(LocalFs(), path));
  Batch all(reader->schema());
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    WEIR_ASSIGN_OR_RETURN(Batch batch, reader->ReadRowGroup(g));
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      for (int i = 0; i < all.schema.num_fields(); ++i) all.columns[i].AppendFrom(batch.columns[i], r);
    }
  }
  return all;
}

std::string Trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// A value of a --prune condition: 'quoted' or bare; bare NULL is null.
std::optional<std::string> PruneValue(std::string s) {
  s = Trim(std::move(s));
  if (s.size() >= 2 && s.front() == '\'' && s.back() == '\'') return s.substr(1, s.size() - 2);
  if (strcasecmp(s.c_str(), "null") == 0) return std::nullopt;
  return s;
}

// "col >= v", "col <= v", "col = v", "col IN (v1, v2)".
Result<delta::ColumnCondition> ParsePrune(const std::string& text) {
  delta::ColumnCondition c;
  auto bad = [&] {
    return Status::InvalidArgument("--prune takes 'col >= v', 'col <= v', 'col = v' or "
                                   "'col IN (v1, v2)', not '" + text + "'");
  };
  std::string lower = text;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  size_t in = lower.find(" in ");
  if (in != std::string::npos) {
    c.column = Trim(text.substr(0, in));
    std::string list = Trim(text.substr(in + 4));
    if (list.size() < 2 || list.front() != '(' || list.back() != ')') return bad();
    c.in.emplace();
    for (const std::string& v : SplitList(list.substr(1, list.size() - 2))) c.in->push_back(PruneValue(v));
  } else {
    size_t op = text.find_first_of("<>=");
    if (op == std::string::npos) return bad();
    c.column = Trim(text.substr(0, op));
    std::string rest = text.substr(op);
    if (rest.rfind(">=", 0) == 0) {
      c.min = PruneValue(rest.substr(2));
      if (!c.min) return bad();
    } else if (rest.rfind("<=", 0) == 0) {
      c.max = PruneValue(rest.substr(2));
      if (!c.max) return bad();
    } else if (rest.rfind("=", 0) == 0) {
      c.min = c.max = PruneValue(rest.substr(1));
      if (!c.min) return bad();
    } else {
      return bad();
    }
  }
  if (c.column.empty()) return bad();
  return c;
}

int MergeMain(const Flags& flags) {
  const std::string& path = flags.positional()[0];
  if (!flags.Has("source")) return Fail(Status::InvalidArgument("--source FILE is required"));
  if (!flags.Has("keys")) return Fail(Status::InvalidArgument("--keys a,b is required"));
  const std::string source_path = flags.Get("source");
  std::string format = flags.Get("format");
  if (format.empty()) {
    bool parquet = source_path.size() >= 8 &&
                   strcasecmp(source_path.c_str() + source_path.size() - 8, ".parquet") == 0;
    format = parquet ? "parquet" : "jsonl";
  }
  if (format != "jsonl" && format != "parquet") {
    return Fail(Status::InvalidArgument("--format must be jsonl or parquet, not '" + format + "'"));
  }
  auto table_fs = FileSystemFor(flags, path);
  if (!table_fs.ok()) return Fail(table_fs.status());
  auto table = delta::Table::Open(*table_fs, path);
  if (!table.ok()) return Fail(table.status());
  const auto& snapshot = (*table)->snapshot();

  delta::MergeOptions options;
  options.keys = SplitList(flags.Get("keys"));
  options.when_matched_update = flags.Has("update") || flags.Has("update-if-newer");
  if (flags.Has("update-if-newer")) {
    std::string column = flags.Get("update-if-newer");
    int f = snapshot->schema().FieldIndex(column);
    if (f < 0) {
      return Fail(Status::InvalidArgument("--update-if-newer column '" + column +
                                          "' is not a column of " + path));
    }
    TypeId id = snapshot->schema().fields[f].type->id();
    if (id != TypeId::kInt32 && id != TypeId::kInt64 && id != TypeId::kTimestamp) {
      return Fail(Status::InvalidArgument("--update-if-newer needs an INT, BIGINT or TIMESTAMP column"));
    }
    // WHEN MATCHED AND s.col > t.col (a null never wins).
    options.matched_condition = [f, id](const Batch& t, int64_t tr, const Batch& s, int64_t sr) {
      const Column& tc = t.columns[f];
      const Column& sc = s.columns[f];
      if (sc.IsNull(sr)) return false;
      if (tc.IsNull(tr)) return true;
      if (id == TypeId::kInt32) return sc.Value<int32_t>(sr) > tc.Value<int32_t>(tr);
      return sc.Value<int64_t>(sr) > tc.Value<int64_t>(tr);
    };
    options.matched_condition_sql = "s." + column + " > t." + column;
  }
  for (const std::string& p : flags.GetAll("prune")) {
    auto condition = ParsePrune(p);
    if (!condition.ok()) return Fail(condition.status());
    options.prune.push_back(std::move(*condition));
  }
  options.prune_by_source_keys = !flags.Has("no-key-pruning");
  if (flags.Has("txn")) {
    std::string kv = flags.Get("txn");
    size_t eq = kv.rfind('=');
    char* end = nullptr;
    long long version = eq == std::string::npos ? 0 : std::strtoll(kv.c_str() + eq + 1, &end, 10);
    if (eq == std::string::npos || eq == 0 || end == nullptr || *end != '\0') {
      return Fail(Status::InvalidArgument("--txn takes appId=version, not '" + kv + "'"));
    }
    options.txn = delta::SetTransaction{kv.substr(0, eq), version, std::nullopt};
  }

  auto source = format == "jsonl" ? ReadJsonLines(source_path, snapshot->schema()) : ReadParquet(source_path);
  if (!source.ok()) return Fail(source.status());
  auto result = delta::MergeInto(snapshot, *source, std::move(options));
  if (!result.ok()) return Fail(result.status());
  const delta::MergeMetrics& m = result->metrics;
  if (result->already_committed) {
    std::printf("skipped: txn %s is already committed (table at version %lld)\n",
                flags.Get("txn").c_str(), static_cast<long long>(result->commit.version));
    return 0;
  }
  std::printf("%s %lld: numSourceRows=%lld numSourceRowsDeduplicated=%lld numTargetRowsInserted=%lld "
              "numTargetRowsUpdated=%lld numTargetRowsMatchedNotUpdated=%lld numTargetRowsCopied=%lld "
              "numTargetFilesBeforeSkipping=%lld numTargetFilesScanned=%lld numTargetFilesRemoved=%lld "
              "numTargetFilesAdded=%lld\n",
              result->committed ? "committed version" : "nothing to commit; table stays at version",
              static_cast<long long>(result->commit.version), static_cast<long long>(m.num_source_rows),
              static_cast<long long>(m.num_source_duplicates),
              static_cast<long long>(m.num_target_rows_inserted),
              static_cast<long long>(m.num_target_rows_updated),
              static_cast<long long>(m.num_target_rows_matched_not_updated),
              static_cast<long long>(m.num_target_rows_copied),
              static_cast<long long>(m.num_target_files_before_skipping),
              static_cast<long long>(m.num_target_files_scanned),
              static_cast<long long>(m.num_target_files_removed),
              static_cast<long long>(m.num_target_files_added));
  if (!result->commit.checkpoint_status.ok()) {
    std::fprintf(stderr, "weir: warning: %s\n", result->commit.checkpoint_status.ToString().c_str());
  }
  return 0;
}

int RunMerge(const std::vector<std::string>& args) {
  Flags flags("weir table merge PATH --source FILE --keys a,b [--update | --update-if-newer COL]\n"
              "                      [--prune COND ...] [--txn appId=version] [--format jsonl|parquet]",
              "MERGE (upsert) of FILE's rows into the Delta table at PATH on the key columns, as one\n"
              "commit: the source is deduplicated on the keys (the last row of a key wins); rows\n"
              "whose keys match a target row update it with --update (copy-on-write: only files with\n"
              "updated rows are rewritten) and are dropped otherwise; the others are inserted.\n"
              "--prune conditions (ANDed) restrict the target rows that can match and let statistics\n"
              "skip files: 'col >= v', 'col <= v', 'col = v', 'col IN (v1, v2)' (NULL for null).\n"
              "Prints the merge metrics. A concurrent commit that removed a file the merge read or\n"
              "added rows it might have matched fails the merge (Conflict): run it again.");
  flags.Positional("PATH", 1, 1);
  flags.Value("source", "FILE", "the source rows: JSON lines or Parquet with the table's columns");
  flags.Value("format", "FORMAT", "jsonl or parquet (default: from the file extension)");
  flags.Value("keys", "a,b", "the key columns (target = source on each)");
  flags.Bool("update", "WHEN MATCHED THEN UPDATE SET * (default: matched rows are dropped)");
  flags.Value("update-if-newer", "COL", "WHEN MATCHED AND s.COL > t.COL THEN UPDATE SET *");
  flags.Repeated("prune", "COND", "target-side condition of the match, also used to skip files");
  flags.Bool("no-key-pruning", "do not skip files by the source's key ranges");
  flags.Value("txn", "appId=version", "record txn(appId, version); skip if already committed");
  AddStorageFlags(flags);
  return RunWithFlags(flags, args, MergeMain);
}

WEIR_REGISTER_COMMAND(merge_cmd, "table merge", "MERGE (upsert) JSON lines or Parquet into a Delta table",
                      RunMerge);

}  // namespace
}  // namespace weir::cli
