// A pipeline file: SET / USE / CREATE [OR REFRESH] STREAMING TABLE statements, after `${var}`
// substitution, with table names resolved and read_kafka options folded to values; secret() calls
// are resolved from the environment or a secrets document into OptionValues marked secret, which
// print as "***". The rules (variables, names, sources, secrets) are in README.md beside this file.
// Parsing does no I/O; functions are thread-safe; a SecretResolver is immutable after set-up.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "sql/ast.h"

namespace weir::sql {

// Values for `${name}` substitution, e.g. from `--set name=value`.
using Variables = std::map<std::string, std::string>;

// A configuration value that may be a secret. A secret's text is reached only through Reveal();
// ToString() (for logs, progress JSON and messages) shows "***" instead.
class OptionValue {
 public:
  OptionValue() = default;
  static OptionValue Plain(std::string text) { return OptionValue(std::move(text), false); }
  static OptionValue Secret(std::string text) { return OptionValue(std::move(text), true); }

  bool is_secret() const { return secret_; }
  // The real value, for the Kafka client or a storage credential. Never log it.
  const std::string& Reveal() const { return text_; }
  // The value, or "***" when it is a secret.
  std::string ToString() const { return secret_ ? std::string(kMask) : text_; }

  static constexpr std::string_view kMask = "***";

 private:
  OptionValue(std::string text, bool secret) : text_(std::move(text)), secret_(secret) {}
  std::string text_;
  bool secret_ = false;
};

// Finds the value of secret('scope', 'key'): first the environment variable
// WEIR_SECRET_<SCOPE>_<KEY> (scope and key upper-cased, every character that is not a letter or
// digit replaced by '_'), then the secrets documents added with AddSecretsJson.
class SecretResolver {
 public:
  using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;

  // Reads the process environment.
  SecretResolver();
  // Reads `lookup` instead of the environment (tests).
  explicit SecretResolver(EnvironmentLookup lookup);

  // Adds the secrets of a JSON document {"scope": {"key": "value", ...}, ...}, e.g. the contents
  // of a secrets file; `origin` (the file's path) names it in errors. Errors never show a value.
  Status AddSecretsJson(std::string_view json, std::string_view origin);

  // NotFound naming scope, key and where weir looked when the secret is missing.
  Result<OptionValue> Resolve(std::string_view scope, std::string_view key) const;

  static std::string EnvironmentVariableName(std::string_view scope, std::string_view key);

 private:
  EnvironmentLookup lookup_;
  std::map<std::string, std::map<std::string, std::string>> file_secrets_;
  std::vector<std::string> origins_;
};

// A resolved table name; each part lower-case.
struct TableIdentifier {
  std::string catalog;
  std::string schema;
  std::string table;

  // "sales.bronze.orders_raw".
  std::string ToString() const;
  // "sales/bronze/orders_raw": the table's folder under the lakehouse root.
  std::string RelativePath() const;
  auto operator<=>(const TableIdentifier&) const = default;
};

// One CREATE STREAMING TABLE of the file, with its source resolved.
struct StreamingTableDefinition {
  TableIdentifier name;
  // The statement as parsed: query (select list, WHERE, watermark), expectations, partitioning,
  // table properties, declared columns.
  CreateStreamingTable statement;

  FromClause::Kind source_kind = FromClause::Kind::kReadKafka;
  // read_kafka's named arguments, names as written (Spark treats them case-insensitively; no two
  // differ only in case), values folded: strings, numbers and booleans as text; secret() values
  // and anything concatenated with one are secret.
  std::map<std::string, OptionValue> kafka_options;
  TableIdentifier source_table;  // kTable: the table read as a stream
  std::map<std::string, std::string> source_options;  // kTable: its WITH (...) reader options
  // Where rejected rows go (QUARANTINE INTO, or <table>_quarantine when an expectation says
  // ON VIOLATION QUARANTINE); absent when the flow has no quarantine table.
  std::optional<TableIdentifier> quarantine_table;

  const Query& query() const { return statement.query; }
};

// ALTER TABLE ... SET / UNSET TBLPROPERTIES of a pipeline file, its table name resolved.
struct TableAlteration {
  TableIdentifier table;
  std::map<std::string, std::string> set;
  std::vector<std::string> unset;
  bool if_exists = false;
  Location location;
};

struct Pipeline {
  std::vector<StreamingTableDefinition> tables;  // in file order
  // ALTER TABLE statements, in file order: applied when the pipeline runs, before its flows
  // (stream::Pipeline).
  std::vector<TableAlteration> alterations;
  // SET statements, the last value of each key (a --set of the same name overrides it), and
  // variables named spark.* (--set, a settings file) that no SET statement gives. Values of the
  // settings weir checks (spark.sql.mapKeyDedupPolicy: EXCEPTION or LAST_WIN) are valid.
  std::map<std::string, std::string> settings;

  // The table with this name, or nullptr.
  const StreamingTableDefinition* FindTable(const TableIdentifier& name) const;
};

// Parses and resolves a pipeline file. InvalidArgument "line L, column C: ..." for syntax errors,
// unknown variables, bad names and non-constant read_kafka options; NotFound for a missing
// secret. Callers add the file name (Status::WithContext).
// The catalog and schema unqualified names resolve against until a USE statement changes them
// (a Databricks pipeline's `catalog` and `target` settings); empty: main and default.
struct PipelineDefaults {
  std::string catalog;
  std::string schema;
};

Result<Pipeline> ParsePipeline(std::string_view text, const Variables& vars,
                               const SecretResolver& secrets,
                               const PipelineDefaults& defaults = {});

// Resolves a table name against the current catalog and schema (see the rules above).
Result<TableIdentifier> ResolveTableName(const QualifiedName& name, std::string_view catalog,
                                         std::string_view schema);

// `text` with `${name}` references replaced from `vars` (comments left alone), with a map from
// the result's offsets back to `text` (for locations). Exposed for tests and `weir validate`.
struct SubstitutedText {
  std::string text;
  SourceMap map;
};
Result<SubstitutedText> SubstituteVariables(std::string_view text, const Variables& vars);

}  // namespace weir::sql
