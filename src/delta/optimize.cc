#include "delta/optimize.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "columnar/column.h"
#include "delta/data_writer.h"
#include "delta/partition_value.h"
#include "delta/scan.h"
#include "delta/table_config.h"
#include "delta/transaction.h"

namespace weir::delta {

namespace {

// ---------------------------------------------------------------------------------------------
// --where: a tiny tokenizer and parser for `col = literal [AND ...]` and `col IS [NOT] NULL`.

struct Token {
  enum Kind { kIdent, kString, kNumber, kSymbol, kEnd } kind = kEnd;
  std::string text;
};

Result<std::vector<Token>> Tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("OPTIMIZE --where: " + why + " at position " +
                                   std::to_string(i) + " of \"" + std::string(s) + "\"");
  };
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '\'' || c == '"') {
      std::string text;
      size_t j = i + 1;
      while (true) {
        if (j >= s.size()) return bad("unterminated string");
        if (s[j] == c) {
          if (j + 1 < s.size() && s[j + 1] == c) {  // '' is a quote inside the string
            text += c;
            j += 2;
            continue;
          }
          break;
        }
        text += s[j++];
      }
      out.push_back({Token::kString, text});
      i = j + 1;
    } else if (c == '`') {
      size_t end = s.find('`', i + 1);
      if (end == std::string_view::npos) return bad("unterminated `quoted` name");
      out.push_back({Token::kIdent, std::string(s.substr(i + 1, end - i - 1))});
      i = end + 1;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Token::kIdent, std::string(s.substr(i, j - i))});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
      size_t j = i + 1;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      out.push_back({Token::kNumber, std::string(s.substr(i, j - i))});
      i = j;
    } else if (c == '=' || c == '(' || c == ')') {
      out.push_back({Token::kSymbol, std::string(1, c)});
      ++i;
    } else if (c == '!' && i + 1 < s.size() && s[i + 1] == '=') {
      return bad("only = and IS NULL tests are supported");
    } else {
      return bad(std::string("unexpected character '") + c + "'");
    }
  }
  out.push_back({Token::kEnd, ""});
  return out;
}

bool IsKeyword(const Token& t, const char* word) {
  return t.kind == Token::kIdent && strcasecmp(t.text.c_str(), word) == 0;
}

// The protocol's text form of `text` as a value of `type`; nullopt for null. InvalidArgument
// when `text` is not a value of the type.
Result<std::optional<std::string>> Normalize(const std::optional<std::string>& text,
                                             const columnar::TypePtr& type,
                                             std::string_view column) {
  columnar::Column c(type);
  WEIR_RETURN_NOT_OK(AppendPartitionValue(text, column, &c));
  return SerializePartitionValue(c, 0);
}

std::string QuoteSql(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// A stable text key for a partition's values.
std::string PartitionKey(const PartitionValues& values) {
  std::string key;
  for (const auto& [column, value] : values) {
    key += column;
    key += '\x01';
    key += value ? "v" + *value : std::string("n");
    key += '\x02';
  }
  return key;
}

std::string JsonStringArray(const std::vector<std::string>& items) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& s : items) j.push_back(s);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// ---------------------------------------------------------------------------------------------
// Planning and rewriting.

struct Bin {
  std::vector<std::shared_ptr<const AddFile>> files;
  int64_t bytes = 0;
};

struct Plan {
  std::vector<Bin> bins;
  int64_t num_partitions = 0;
  int64_t considered_files = 0;  // live files in the partitions selected
};

Plan PlanBins(const Snapshot& snapshot, const OptimizeOptions& options,
              const PartitionPredicate& predicate) {
  const int64_t min_size = options.min_file_size.value_or(options.target_file_size);
  std::optional<std::set<std::string>> wanted;
  if (options.partitions) {
    wanted.emplace();
    for (const PartitionValues& p : *options.partitions) wanted->insert(PartitionKey(p));
  }
  std::map<std::string, std::vector<std::shared_ptr<const AddFile>>> by_partition;
  Plan plan;
  for (const auto& [key, add] : snapshot.files()) {
    if (!predicate.Matches(add->partition_values)) continue;
    std::string partition = PartitionKey(add->partition_values);
    if (wanted && !wanted->count(partition)) continue;
    ++plan.considered_files;
    if (add->deletion_vector) continue;  // rewriting it would have to apply the vector
    if (add->size >= min_size) continue;
    by_partition[partition].push_back(add);
  }
  for (auto& [partition, files] : by_partition) {
    if (static_cast<int64_t>(files.size()) < options.min_files_per_partition) continue;
    // Oldest first: the rewritten files keep the rows roughly in arrival order.
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
      if (a->modification_time != b->modification_time) {
        return a->modification_time < b->modification_time;
      }
      return a->path < b->path;
    });
    bool any = false;
    Bin bin;
    auto close_bin = [&] {
      if (static_cast<int64_t>(bin.files.size()) >= options.min_files_per_bin &&
          bin.files.size() >= 2) {
        plan.bins.push_back(std::move(bin));
        any = true;
      }
      bin = Bin{};
    };
    for (const auto& f : files) {
      if (!bin.files.empty() && bin.bytes + f->size > options.target_file_size) close_bin();
      bin.files.push_back(f);
      bin.bytes += f->size;
    }
    close_bin();
    if (any) ++plan.num_partitions;
  }
  return plan;
}

// commitInfo.operationMetrics as Databricks' OPTIMIZE writes them (sizes of the added files).
StringMap OptimizeMetrics(const OptimizeResult& result, std::vector<int64_t> added_sizes,
                          const Plan& plan) {
  std::sort(added_sizes.begin(), added_sizes.end());
  auto percentile = [&](int p) {
    if (added_sizes.empty()) return std::string("0");
    size_t i = (added_sizes.size() - 1) * static_cast<size_t>(p) / 100;
    return std::to_string(added_sizes[i]);
  };
  return {{"numRemovedFiles", std::to_string(result.num_removed_files)},
          {"numAddedFiles", std::to_string(result.num_added_files)},
          {"numRemovedBytes", std::to_string(result.num_removed_bytes)},
          {"numAddedBytes", std::to_string(result.num_added_bytes)},
          {"minFileSize", percentile(0)},
          {"p25FileSize", percentile(25)},
          {"p50FileSize", percentile(50)},
          {"p75FileSize", percentile(75)},
          {"maxFileSize", percentile(100)},
          {"numBatches", "1"},
          {"totalConsideredFiles", std::to_string(plan.considered_files)},
          {"totalFilesSkipped", std::to_string(plan.considered_files - result.num_removed_files)},
          {"preserveInsertionOrder", "true"}};
}

// Rewrites the plan's bins and commits them. Fills `result`; Conflict when a concurrent commit
// removed one of the files (the new files are deleted then, by Transaction's rule).
Status RewriteAndCommit(const std::shared_ptr<const Snapshot>& snapshot, const Plan& plan,
                        const OptimizeOptions& options, const PartitionPredicate& predicate,
                        OptimizeResult* result) {
  WEIR_ASSIGN_OR_RETURN(auto scan, TableScan::Make(snapshot));
  DataWriterOptions writer_options;
  writer_options.target_file_size = options.target_file_size;
  writer_options.data_change = false;

  Transaction txn(snapshot);
  const int64_t now = NowMillis();
  int64_t expected_rows = 0;
  for (const Bin& bin : plan.bins) {
    WEIR_ASSIGN_OR_RETURN(DataFileWriter * w, txn.NewDataFileWriter(writer_options));
    int64_t bin_rows = 0;
    for (const auto& add : bin.files) {
      WEIR_ASSIGN_OR_RETURN(columnar::Batch batch, scan->ReadFile(*add));
      auto n = add->NumRecords();
      if (n && *n != batch.num_rows()) {
        return Status::Corruption(
            "data file " + add->path + " of Delta table " + snapshot->table_root() + " holds " +
            std::to_string(batch.num_rows()) + " rows but its statistics say " +
            std::to_string(*n) + "; OPTIMIZE leaves it alone: check the file");
      }
      bin_rows += batch.num_rows();
      WEIR_RETURN_NOT_OK(w->Write(batch));
      txn.RemoveFile(MakeRemove(*add, now, /*data_change=*/false));
      result->num_removed_bytes += add->size;
    }
    if (w->rows_written() != bin_rows) {
      return Status::Internal("OPTIMIZE of Delta table " + snapshot->table_root() + " read " +
                              std::to_string(bin_rows) + " rows of a bin but wrote " +
                              std::to_string(w->rows_written()) + "; nothing was committed");
    }
    expected_rows += bin_rows;
  }
  WEIR_RETURN_NOT_OK(txn.FinishDataFiles());
  int64_t written_rows = 0;
  std::vector<int64_t> added_sizes;
  for (const AddFile& a : txn.adds()) {
    written_rows += a.NumRecords().value_or(0);
    result->num_added_bytes += a.size;
    added_sizes.push_back(a.size);
  }
  if (written_rows != expected_rows) {
    return Status::Internal("OPTIMIZE of Delta table " + snapshot->table_root() + " read " +
                            std::to_string(expected_rows) + " rows but its new files hold " +
                            std::to_string(written_rows) + "; nothing was committed");
  }
  result->num_rows += expected_rows;
  result->num_removed_files = static_cast<int64_t>(txn.removes().size());
  result->num_added_files = static_cast<int64_t>(txn.adds().size());
  txn.SetOperationMetrics(OptimizeMetrics(*result, added_sizes, plan));
  std::vector<std::string> predicates;
  if (!predicate.empty()) predicates.push_back(predicate.text());
  txn.SetOperation("OPTIMIZE", {{"predicate", JsonStringArray(predicates)},
                                {"zOrderBy", "[]"},
                                {"auto", options.is_auto ? "true" : "false"}});
  WEIR_ASSIGN_OR_RETURN(CommitResult committed, txn.Commit());
  result->version = committed.version;
  result->checkpoint_written = committed.checkpoint_written;
  return Status::OK();
}

Result<bool> ParseAutoCompactValue(const std::string& key, const std::string& value) {
  std::string v;
  for (char c : value) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "true" || v == "auto" || v == "legacy") return true;
  if (v == "false") return false;
  return Status::InvalidArgument(key + " must be true, auto, legacy or false, not '" + value + "'");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// PartitionPredicate

Result<PartitionPredicate> PartitionPredicate::Parse(std::string_view text,
                                                     const Snapshot& snapshot) {
  PartitionPredicate predicate;
  WEIR_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  size_t i = 0;
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(
        "OPTIMIZE --where: " + why + " in \"" + std::string(text) +
        "\"; write tests of partition columns joined by AND, e.g. region = 'eu' AND p IS NULL");
  };
  auto partition_list = [&] {
    std::string list;
    for (const auto& p : snapshot.partition_columns()) list += (list.empty() ? "" : ", ") + p;
    return list.empty() ? std::string("(the table is not partitioned)") : list;
  };
  if (tokens.size() == 1) return predicate;  // empty text: everything
  while (true) {
    int parens = 0;
    while (tokens[i].kind == Token::kSymbol && tokens[i].text == "(") {
      ++parens;
      ++i;
    }
    if (tokens[i].kind != Token::kIdent) return bad("expected a partition column name");
    std::string name = tokens[i++].text;
    Term term;
    for (const std::string& p : snapshot.partition_columns()) {
      if (strcasecmp(p.c_str(), name.c_str()) == 0) term.column = p;
    }
    if (term.column.empty()) {
      return Status::InvalidArgument("OPTIMIZE --where may only test partition columns, and '" +
                                     name + "' is not one of Delta table " + snapshot.table_root() +
                                     "'s: " + partition_list());
    }
    int field = -1;
    for (int f = 0; f < snapshot.schema().num_fields(); ++f) {
      if (strcasecmp(snapshot.schema().fields[f].name.c_str(), term.column.c_str()) == 0) field = f;
    }
    if (field < 0)
      return Status::Corruption("partition column " + term.column + " is not in the schema");
    term.type = snapshot.schema().fields[field].type;
    std::string shown;
    if (IsKeyword(tokens[i], "IS")) {
      ++i;
      if (IsKeyword(tokens[i], "NOT")) return bad("IS NOT NULL is not supported");
      if (!IsKeyword(tokens[i], "NULL")) return bad("expected NULL after IS");
      ++i;
      shown = term.column + " IS NULL";
    } else {
      if (!(tokens[i].kind == Token::kSymbol && tokens[i].text == "=")) {
        return bad("expected = or IS NULL after " + name);
      }
      ++i;
      // DATE '2024-01-01' / TIMESTAMP '...' literals: the keyword only names the type.
      if ((IsKeyword(tokens[i], "DATE") || IsKeyword(tokens[i], "TIMESTAMP")) &&
          tokens[i + 1].kind == Token::kString) {
        ++i;
      }
      const Token& literal = tokens[i];
      std::optional<std::string> value;
      if (literal.kind == Token::kString || literal.kind == Token::kNumber) {
        value = literal.text;
      } else if (IsKeyword(literal, "TRUE") || IsKeyword(literal, "FALSE")) {
        value = IsKeyword(literal, "TRUE") ? "true" : "false";
      } else {
        return bad("expected a literal after " + name + " =");
      }
      ++i;
      auto normalized = Normalize(value, term.type, term.column);
      if (!normalized.ok()) {
        return Status::InvalidArgument("OPTIMIZE --where: " + QuoteSql(*value) + " is not a " +
                                       term.type->ToDdl() + " value for partition column " +
                                       term.column);
      }
      if (!*normalized) return bad("an empty string is null: write " + name + " IS NULL");
      term.value = **normalized;
      shown = term.column + " = " + QuoteSql(*term.value);
    }
    while (parens > 0) {
      if (!(tokens[i].kind == Token::kSymbol && tokens[i].text == ")")) return bad("expected )");
      ++i;
      --parens;
    }
    predicate.text_ += (predicate.text_.empty() ? "(" : " AND (") + shown + ")";
    predicate.terms_.push_back(std::move(term));
    if (tokens[i].kind == Token::kEnd) break;
    if (!IsKeyword(tokens[i], "AND")) return bad("expected AND (OR is not supported)");
    ++i;
  }
  return predicate;
}

bool PartitionPredicate::Matches(const PartitionValues& values) const {
  for (const Term& term : terms_) {
    auto it = values.find(term.column);
    std::optional<std::string> stored = it == values.end() ? std::nullopt : it->second;
    auto normalized = Normalize(stored, term.type, term.column);
    if (!normalized.ok()) return false;
    if (*normalized != term.value) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// OPTIMIZE

Result<OptimizeResult> OptimizeTable(std::shared_ptr<const Snapshot> snapshot,
                                     const OptimizeOptions& options) {
  WEIR_RETURN_NOT_OK(snapshot->CheckHasFiles("OPTIMIZE"));
  if (options.target_file_size <= 0) {
    return Status::InvalidArgument("OPTIMIZE target file size must be positive, not " +
                                   std::to_string(options.target_file_size));
  }
  if (options.max_attempts < 1)
    return Status::InvalidArgument("OPTIMIZE max_attempts must be >= 1");
  for (int attempt = 1;; ++attempt) {
    WEIR_RETURN_NOT_OK(snapshot->CheckWritable());
    PartitionPredicate predicate;
    if (!options.where.empty()) {
      WEIR_ASSIGN_OR_RETURN(predicate, PartitionPredicate::Parse(options.where, *snapshot));
    }
    OptimizeResult result;
    result.attempts = attempt;
    result.read_version = snapshot->version();
    Plan plan = PlanBins(*snapshot, options, predicate);
    if (plan.bins.empty()) return result;
    result.num_bins = static_cast<int64_t>(plan.bins.size());
    result.num_partitions = plan.num_partitions;
    Status done = RewriteAndCommit(snapshot, plan, options, predicate, &result);
    if (done.ok()) return result;
    if (!done.IsConflict()) return done;
    if (attempt >= options.max_attempts) {
      return done.WithContext("OPTIMIZE of Delta table " + snapshot->table_root() +
                              " gave up after " + std::to_string(attempt) +
                              " attempts (concurrent commits removed files it was compacting); "
                              "its new files were deleted, the table is unchanged");
    }
    WEIR_ASSIGN_OR_RETURN(snapshot, Snapshot::Update(snapshot));
  }
}

// ---------------------------------------------------------------------------------------------
// Auto compaction

Result<AutoCompactSettings> ParseAutoCompactSettings(const StringMap& table_properties,
                                                     const StringMap& overrides) {
  AutoCompactSettings settings;
  static constexpr const char* kProperty = "delta.autoOptimize.autoCompact";
  static constexpr const char* kEnabled = "spark.databricks.delta.autoCompact.enabled";
  static constexpr const char* kMinNumFiles = "spark.databricks.delta.autoCompact.minNumFiles";
  static constexpr const char* kMaxFileSize = "spark.databricks.delta.autoCompact.maxFileSize";
  if (auto it = table_properties.find(kProperty); it != table_properties.end()) {
    WEIR_ASSIGN_OR_RETURN(settings.enabled, ParseAutoCompactValue(kProperty, it->second));
  } else if (auto o = overrides.find(kEnabled); o != overrides.end()) {
    // The session setting applies to tables that do not say otherwise.
    WEIR_ASSIGN_OR_RETURN(settings.enabled, ParseAutoCompactValue(kEnabled, o->second));
  }
  if (auto it = overrides.find(kMinNumFiles); it != overrides.end()) {
    char* end = nullptr;
    long long n = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0' || n < 1) {
      return Status::InvalidArgument(std::string(kMinNumFiles) +
                                     " must be a positive integer, not '" + it->second + "'");
    }
    settings.min_num_files = n;
  }
  if (auto it = overrides.find(kMaxFileSize); it != overrides.end()) {
    auto bytes = ParseByteSize(it->second);
    if (!bytes.ok() || *bytes <= 0) {
      return Status::InvalidArgument(std::string(kMaxFileSize) +
                                     " must be a size such as 128mb, not '" + it->second + "'");
    }
    settings.max_file_size = *bytes;
  }
  return settings;
}

Result<std::optional<OptimizeResult>> MaybeAutoCompact(std::shared_ptr<const Snapshot> snapshot,
                                                       const std::vector<AddFile>& committed_adds,
                                                       const StringMap& overrides) {
  if (!snapshot) return std::optional<OptimizeResult>();  // the commit could not be read back
  WEIR_ASSIGN_OR_RETURN(AutoCompactSettings settings,
                        ParseAutoCompactSettings(snapshot->properties(), overrides));
  if (!settings.enabled || committed_adds.empty()) return std::optional<OptimizeResult>();
  if (!snapshot->has_files()) {
    // A writer's snapshot without files (the table's compaction settings changed under it).
    WEIR_ASSIGN_OR_RETURN(snapshot,
                          Snapshot::Load(snapshot->fs(), snapshot->table_root(), snapshot->version()));
  }
  OptimizeOptions options;
  options.target_file_size = settings.max_file_size;
  options.min_files_per_partition = settings.min_num_files;
  options.is_auto = true;
  options.max_attempts = 2;
  std::vector<PartitionValues> partitions;
  std::set<std::string> seen;
  for (const AddFile& a : committed_adds) {
    if (seen.insert(PartitionKey(a.partition_values)).second)
      partitions.push_back(a.partition_values);
  }
  options.partitions = std::move(partitions);
  WEIR_ASSIGN_OR_RETURN(OptimizeResult result, OptimizeTable(std::move(snapshot), options));
  if (result.version < 0) return std::optional<OptimizeResult>();
  return std::optional<OptimizeResult>(std::move(result));
}

}  // namespace weir::delta
