#include "sql/pipeline.h"

#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include "sql/parser.h"

namespace weir::sql {

namespace {

constexpr std::string_view kDefaultCatalog = "main";
constexpr std::string_view kDefaultSchema = "default";

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

bool IsVariableChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// Walks pipeline text one statement at a time, replacing ${name} outside comments. Statements end
// at a ';' outside strings, backquotes and comments (the ';' is not part of the statement).
class StatementScanner {
 public:
  StatementScanner(std::string_view text, bool split) : text_(text), split_(split) {}

  bool AtEnd() const { return pos_ >= text_.size(); }

  // The next statement's text with variables replaced, and its map to the original text.
  Result<SubstitutedText> Next(const std::function<const std::string*(const std::string&)>& lookup) {
    SubstitutedText out{std::string(), SourceMap(text_)};
    size_t copy_from = pos_;  // start of the pending run of copied bytes
    auto flush = [&](size_t until) {
      if (until > copy_from) {
        out.map.AddSegment(out.text.size(), until - copy_from, copy_from, /*copied=*/true);
        out.text.append(text_.substr(copy_from, until - copy_from));
      }
    };
    char quote = 0;  // inside '..', "..", or `..`
    bool raw = false;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (quote != 0) {
        if (c == '\\' && quote != '`' && !raw) {
          pos_ = std::min(pos_ + 2, text_.size());
          continue;
        }
        if (c == quote) quote = 0;
        // Substitute inside literals and backquotes too: subscribe => '${topic}'.
        if (c != '$' || pos_ + 1 >= text_.size() || text_[pos_ + 1] != '{') {
          ++pos_;
          continue;
        }
      }
      if (quote == 0 && (c == '\'' || c == '"' || c == '`')) {
        raw = pos_ > 0 && (text_[pos_ - 1] == 'r' || text_[pos_ - 1] == 'R') &&
              (pos_ < 2 || !IsVariableChar(text_[pos_ - 2]));
        quote = c;
        ++pos_;
        continue;
      }
      if (quote == 0 && c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '-') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      if (quote == 0 && c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        int depth = 0;
        while (pos_ < text_.size()) {
          if (text_.substr(pos_, 2) == "/*") {
            ++depth;
            pos_ += 2;
          } else if (text_.substr(pos_, 2) == "*/") {
            pos_ += 2;
            if (--depth == 0) break;
          } else {
            ++pos_;
          }
        }
        continue;
      }
      if (quote == 0 && c == ';' && split_) {
        flush(pos_);
        ++pos_;
        return out;
      }
      if (c == '$' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '{') {
        size_t start = pos_;
        size_t end = start + 2;
        while (end < text_.size() && IsVariableChar(text_[end])) ++end;
        if (end >= text_.size() || text_[end] != '}' || end == start + 2) {
          return Status::InvalidArgument(LocateOffset(text_, start).ToString() +
                                         ": malformed variable reference (write ${name})");
        }
        std::string name(text_.substr(start + 2, end - start - 2));
        const std::string* value = lookup(name);
        if (value == nullptr) {
          return Status::InvalidArgument(
              LocateOffset(text_, start).ToString() + ": unknown variable ${" + name +
              "}: pass --set " + name + "=value or define it with SET " + name +
              " = value before this statement");
        }
        flush(start);
        out.map.AddSegment(out.text.size(), value->size(), start, /*copied=*/false);
        out.text += *value;
        pos_ = end + 1;
        copy_from = pos_;
        continue;
      }
      ++pos_;
    }
    flush(pos_);
    return out;
  }

 private:
  std::string_view text_;
  bool split_;
  size_t pos_ = 0;
};

bool IsValidNamePart(std::string_view part) {
  if (part.empty()) return false;
  for (char c : part) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Whether the expression tree calls secret().
const Expr* FindSecretCall(const Expr& e) {
  if (const auto* call = e.As<FunctionCall>(); call && call->name == "secret") return &e;
  const Expr* found = nullptr;
  ForEachChild(e, [&](const Expr& child) {
    if (found == nullptr) found = FindSecretCall(child);
  });
  return found;
}

Status RejectSecret(const Expr* e, std::string_view where) {
  if (const Expr* s = e ? FindSecretCall(*e) : nullptr) {
    return Status::InvalidArgument(s->location.ToString() + ": secret() is allowed only in " +
                                   "read_kafka options, not in " + std::string(where));
  }
  return Status::OK();
}

Status InvalidAt(Location location, std::string message) {
  return Status::InvalidArgument(location.ToString() + ": " + message);
}

// Spark settings whose values weir checks when it reads the pipeline, as Spark's SQLConf checks
// them on SET (case-insensitively, as its checkValues after upper-casing); empty when fine.
std::string CheckSetting(const std::string& key, const std::string& value) {
  struct Allowed {
    std::string_view key;
    std::vector<std::string_view> values;
  };
  static const Allowed kChecked[] = {
      {"spark.sql.mapKeyDedupPolicy", {"EXCEPTION", "LAST_WIN"}},
  };
  for (const Allowed& a : kChecked) {
    if (key != a.key) continue;
    std::string upper(value);
    for (char& c : upper) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    }
    std::string list;
    for (std::string_view v : a.values) {
      if (upper == v) return "";
      if (!list.empty()) list += ", ";
      list += v;
    }
    return "[INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS] The value '" + value +
           "' in the config \"" + key + "\" is invalid. It should be one of '" + list + "'.";
  }
  return "";
}

// Folds a read_kafka argument to its value: literals, secret('scope','key'), and || or concat()
// of those.
Result<OptionValue> FoldOption(const NamedArgument& arg, const Expr& e, const SecretResolver& secrets) {
  auto not_constant = [&](const Expr& at) {
    return InvalidAt(at.location, "read_kafka option '" + arg.name +
                                      "' must be a constant: a string, number, boolean or "
                                      "secret('scope', 'key'), optionally joined with ||");
  };
  if (const auto* lit = e.As<Literal>()) {
    switch (lit->kind) {
      case Literal::Kind::kString: return OptionValue::Plain(lit->text);
      case Literal::Kind::kBoolean: return OptionValue::Plain(lit->boolean_value ? "true" : "false");
      case Literal::Kind::kInteger: return OptionValue::Plain(std::to_string(lit->integer_value));
      case Literal::Kind::kDecimal:
      case Literal::Kind::kDouble: return OptionValue::Plain(lit->text);
      default: return not_constant(e);
    }
  }
  if (const auto* call = e.As<FunctionCall>()) {
    if (call->name == "secret") {
      if (call->args.size() != 2) {
        return InvalidAt(e.location, "secret() takes two arguments: secret('scope', 'key')");
      }
      const auto* scope = call->args[0]->As<Literal>();
      const auto* key = call->args[1]->As<Literal>();
      if (!scope || !key || scope->kind != Literal::Kind::kString ||
          key->kind != Literal::Kind::kString) {
        return InvalidAt(e.location, "secret() takes two string literals: secret('scope', 'key')");
      }
      auto value = secrets.Resolve(scope->text, key->text);
      if (!value.ok()) return value.status().WithContext(e.location.ToString());
      return value;
    }
    if (call->name == "concat") {
      std::string text;
      bool secret = false;
      for (const ExprPtr& a : call->args) {
        WEIR_ASSIGN_OR_RETURN(OptionValue part, FoldOption(arg, *a, secrets));
        text += part.Reveal();
        secret |= part.is_secret();
      }
      return secret ? OptionValue::Secret(std::move(text)) : OptionValue::Plain(std::move(text));
    }
    return not_constant(e);
  }
  if (const auto* bin = e.As<Binary>(); bin && bin->op == BinaryOp::kConcat) {
    WEIR_ASSIGN_OR_RETURN(OptionValue left, FoldOption(arg, *bin->left, secrets));
    WEIR_ASSIGN_OR_RETURN(OptionValue right, FoldOption(arg, *bin->right, secrets));
    std::string text = left.Reveal() + right.Reveal();
    return left.is_secret() || right.is_secret() ? OptionValue::Secret(std::move(text))
                                                 : OptionValue::Plain(std::move(text));
  }
  return not_constant(e);
}

class PipelineBuilder {
 public:
  PipelineBuilder(const Variables& vars, const SecretResolver& secrets)
      : vars_(vars), secrets_(secrets) {}

  Status SetDefaults(const PipelineDefaults& defaults) {
    for (const std::string* part : {&defaults.catalog, &defaults.schema}) {
      if (!part->empty() && !IsValidNamePart(*part)) {
        return Status::InvalidArgument("the default catalog or schema '" + *part +
                                       "' may hold only letters, digits, '_' and '-'");
      }
    }
    if (!defaults.catalog.empty()) catalog_ = Lower(defaults.catalog);
    if (!defaults.schema.empty()) schema_ = Lower(defaults.schema);
    return Status::OK();
  }

  Status Add(Statement statement) {
    if (auto* set = std::get_if<SetStatement>(&statement)) {
      auto cli = vars_.find(set->key);
      std::string value = cli != vars_.end() ? cli->second : set->value;
      if (std::string bad = CheckSetting(set->key, value); !bad.empty()) {
        return InvalidAt(set->location,
                         bad + (cli != vars_.end() ? " (the value given with --set)" : ""));
      }
      pipeline_.settings[set->key] = value;
      set_vars_[set->key] = value;
      return Status::OK();
    }
    if (auto* use = std::get_if<UseStatement>(&statement)) {
      for (const std::string& part : use->name.parts) {
        if (!IsValidNamePart(part)) {
          return InvalidAt(use->name.location, "name '" + part +
                                                   "' may hold only letters, digits, '_' and '-'");
        }
      }
      if (use->kind == UseStatement::Kind::kCatalog) {
        catalog_ = Lower(use->name.parts[0]);
      } else if (use->name.parts.size() == 2) {
        catalog_ = Lower(use->name.parts[0]);
        schema_ = Lower(use->name.parts[1]);
      } else {
        schema_ = Lower(use->name.parts[0]);
      }
      return Status::OK();
    }
    if (auto* select = std::get_if<SelectStatement>(&statement)) {
      return InvalidAt(select->location,
                       "a pipeline file holds CREATE STREAMING TABLE, ALTER TABLE, SET and USE "
                       "statements; wrap this SELECT in CREATE OR REFRESH STREAMING TABLE name "
                       "AS ...");
    }
    if (auto* alter = std::get_if<AlterTableStatement>(&statement)) {
      TableAlteration a;
      WEIR_ASSIGN_OR_RETURN(a.table, ResolveTableName(alter->name, catalog_, schema_));
      a.set = std::move(alter->set);
      a.unset = std::move(alter->unset);
      a.if_exists = alter->if_exists;
      a.location = alter->location;
      pipeline_.alterations.push_back(std::move(a));
      return Status::OK();
    }
    return AddTable(std::move(std::get<CreateStreamingTable>(statement)));
  }

  const std::string* Lookup(const std::string& name) const {
    if (auto it = vars_.find(name); it != vars_.end()) return &it->second;
    if (auto it = set_vars_.find(name); it != set_vars_.end()) return &it->second;
    return nullptr;
  }

  // Spark settings given as variables (--set, a settings file's configuration and spark_conf)
  // without a SET statement are settings too, as a Databricks pipeline's configuration is.
  Result<Pipeline> Finish() {
    for (const auto& [key, value] : vars_) {
      if (!key.starts_with("spark.") || pipeline_.settings.count(key) > 0) continue;
      if (std::string bad = CheckSetting(key, value); !bad.empty()) {
        return Status::InvalidArgument("the setting " + key + " (--set or the settings file): " +
                                       bad);
      }
      pipeline_.settings[key] = value;
    }
    return std::move(pipeline_);
  }

 private:
  Status AddTable(CreateStreamingTable create) {
    StreamingTableDefinition def;
    WEIR_ASSIGN_OR_RETURN(def.name, ResolveTableName(create.name, catalog_, schema_));
    if (pipeline_.FindTable(def.name) != nullptr) {
      return InvalidAt(create.name.location,
                       "streaming table " + def.name.ToString() + " is defined twice");
    }
    Query& q = create.query;
    const FromClause* source = SourceFrom(q);
    if (source == nullptr) {
      return InvalidAt(q.location, "a streaming table needs FROM STREAM read_kafka(...) or "
                                   "FROM STREAM(table)");
    }
    const FromClause& from = *source;
    if (!from.streaming) {
      return InvalidAt(from.location,
                       "a streaming table reads a stream: write FROM STREAM read_kafka(...) or "
                       "FROM STREAM(table)");
    }
    def.source_kind = from.kind;
    if (from.kind == FromClause::Kind::kReadKafka) {
      std::set<std::string> seen;
      for (const NamedArgument& arg : from.kafka_arguments) {
        if (!seen.insert(Lower(arg.name)).second) {
          return InvalidAt(arg.location, "read_kafka option '" + arg.name + "' is given twice");
        }
        WEIR_ASSIGN_OR_RETURN(OptionValue v, FoldOption(arg, *arg.value, secrets_));
        def.kafka_options[arg.name] = std::move(v);
      }
    } else {
      WEIR_ASSIGN_OR_RETURN(def.source_table, ResolveTableName(from.table, catalog_, schema_));
      def.source_options = from.table_options;
    }
    // Every level of a query with subqueries in FROM: no secrets, one WATERMARK at most.
    const Watermark* watermark = nullptr;
    for (const Query* level = &q; level != nullptr;) {
      for (const SelectItem& item : level->select_list) {
        WEIR_RETURN_NOT_OK(RejectSecret(item.expr.get(), "the select list"));
      }
      WEIR_RETURN_NOT_OK(RejectSecret(level->where.get(), "WHERE"));
      if (level->from && level->from->watermark) {
        if (watermark != nullptr) {
          return InvalidAt(level->from->watermark->location,
                           "a streaming table's query takes one WATERMARK clause (another "
                           "one is at " + watermark->location.ToString() + ")");
        }
        watermark = &*level->from->watermark;
        WEIR_RETURN_NOT_OK(RejectSecret(watermark->event_time.get(), "WATERMARK"));
      }
      level = level->from && level->from->kind == FromClause::Kind::kSubquery
                  ? level->from->subquery.get()
                  : nullptr;
    }
    std::set<std::string> names;
    for (const Expectation& e : create.expectations) {
      WEIR_RETURN_NOT_OK(RejectSecret(e.condition.get(), "an expectation"));
      if (!names.insert(Lower(e.name)).second) {
        return InvalidAt(e.location, "expectation '" + e.name + "' is defined twice");
      }
    }
    if (q.drop_duplicates && q.drop_duplicates->within_watermark && watermark == nullptr) {
      return InvalidAt(q.drop_duplicates->location,
                       "DROP DUPLICATES WITHIN WATERMARK needs a watermark: add WATERMARK col DELAY "
                       "OF INTERVAL ... to the FROM item (Spark: dropDuplicatesWithinWatermark "
                       "requires withWatermark)");
    }
    bool quarantines = false;
    for (const Expectation& e : create.expectations) quarantines |= e.action == ViolationAction::kQuarantine;
    if (q.quarantine_table) {
      WEIR_ASSIGN_OR_RETURN(def.quarantine_table,
                            ResolveTableName(*q.quarantine_table, catalog_, schema_));
    } else if (quarantines) {
      TableIdentifier quarantine = def.name;
      quarantine.table += "_quarantine";
      def.quarantine_table = quarantine;
    }
    if (def.quarantine_table) {
      const QualifiedName& at = q.quarantine_table ? *q.quarantine_table : create.name;
      if (*def.quarantine_table == def.name ||
          (from.kind == FromClause::Kind::kTable && *def.quarantine_table == def.source_table)) {
        return InvalidAt(at.location, "the quarantine table " + def.quarantine_table->ToString() +
                                          " must differ from the flow's source and target tables");
      }
      for (const StreamingTableDefinition& other : pipeline_.tables) {
        if (other.name == *def.quarantine_table ||
            (other.quarantine_table && *other.quarantine_table == *def.quarantine_table)) {
          return InvalidAt(at.location, "the quarantine table " + def.quarantine_table->ToString() +
                                            " is already written by " + other.name.ToString());
        }
      }
    }
    for (const StreamingTableDefinition& other : pipeline_.tables) {
      if (other.quarantine_table && *other.quarantine_table == def.name) {
        return InvalidAt(create.name.location, "streaming table " + def.name.ToString() +
                                                   " is already the quarantine table of " +
                                                   other.name.ToString());
      }
    }
    def.statement = std::move(create);
    pipeline_.tables.push_back(std::move(def));
    return Status::OK();
  }

  const Variables& vars_;
  const SecretResolver& secrets_;
  Variables set_vars_;
  std::string catalog_ = std::string(kDefaultCatalog);
  std::string schema_ = std::string(kDefaultSchema);
  Pipeline pipeline_;
};

}  // namespace

SecretResolver::SecretResolver()
    : lookup_([](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        if (v == nullptr) return std::nullopt;
        return std::string(v);
      }) {}

SecretResolver::SecretResolver(EnvironmentLookup lookup) : lookup_(std::move(lookup)) {}

std::string SecretResolver::EnvironmentVariableName(std::string_view scope, std::string_view key) {
  std::string out = "WEIR_SECRET_";
  auto add = [&](std::string_view s) {
    for (char c : s) {
      if (c >= 'a' && c <= 'z') {
        out.push_back(static_cast<char>(c - 32));
      } else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
        out.push_back(c);
      } else {
        out.push_back('_');
      }
    }
  };
  add(scope);
  out.push_back('_');
  add(key);
  return out;
}

Status SecretResolver::AddSecretsJson(std::string_view json, std::string_view origin) {
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::InvalidArgument("secrets file " + std::string(origin) +
                                   " is not a JSON object {\"scope\": {\"key\": \"value\"}}");
  }
  for (auto& [scope, keys] : doc.items()) {
    if (!keys.is_object()) {
      return Status::InvalidArgument("secrets file " + std::string(origin) + ": scope '" + scope +
                                     "' must map keys to string values");
    }
    for (auto& [key, value] : keys.items()) {
      if (!value.is_string()) {
        return Status::InvalidArgument("secrets file " + std::string(origin) + ": secret '" +
                                       scope + "'/'" + key + "' must be a string");
      }
      file_secrets_[scope][key] = value.get<std::string>();
    }
  }
  origins_.emplace_back(origin);
  return Status::OK();
}

Result<OptionValue> SecretResolver::Resolve(std::string_view scope, std::string_view key) const {
  std::string variable = EnvironmentVariableName(scope, key);
  if (lookup_) {
    if (std::optional<std::string> v = lookup_(variable)) return OptionValue::Secret(std::move(*v));
  }
  if (auto s = file_secrets_.find(std::string(scope)); s != file_secrets_.end()) {
    if (auto k = s->second.find(std::string(key)); k != s->second.end()) {
      return OptionValue::Secret(k->second);
    }
  }
  std::string where = "set the environment variable " + variable;
  if (origins_.empty()) {
    where += " or pass a secrets file";
  } else {
    where += " or add it to the secrets file";
    for (const std::string& o : origins_) where += " " + o;
  }
  return Status::NotFound("secret('" + std::string(scope) + "', '" + std::string(key) +
                          "') is not defined: " + where);
}

std::string TableIdentifier::ToString() const { return catalog + "." + schema + "." + table; }

std::string TableIdentifier::RelativePath() const { return catalog + "/" + schema + "/" + table; }

const StreamingTableDefinition* Pipeline::FindTable(const TableIdentifier& name) const {
  for (const StreamingTableDefinition& t : tables) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Result<TableIdentifier> ResolveTableName(const QualifiedName& name, std::string_view catalog,
                                         std::string_view schema) {
  std::vector<std::string> parts = name.parts;
  if (parts.size() == 2 && Lower(parts[0]) == "live") parts.erase(parts.begin());
  if (parts.empty() || parts.size() > 3) {
    return InvalidAt(name.location, "table name " + name.ToString() +
                                        " must be table, schema.table or catalog.schema.table");
  }
  for (const std::string& p : parts) {
    if (!IsValidNamePart(p)) {
      return InvalidAt(name.location, "table name " + name.ToString() + ": '" + p +
                                          "' may hold only letters, digits, '_' and '-'");
    }
  }
  TableIdentifier id;
  id.table = Lower(parts.back());
  id.schema = parts.size() >= 2 ? Lower(parts[parts.size() - 2]) : std::string(schema);
  id.catalog = parts.size() == 3 ? Lower(parts[0]) : std::string(catalog);
  return id;
}

Result<SubstitutedText> SubstituteVariables(std::string_view text, const Variables& vars) {
  StatementScanner scanner(text, /*split=*/false);
  return scanner.Next([&](const std::string& name) -> const std::string* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : &it->second;
  });
}

Result<Pipeline> ParsePipeline(std::string_view text, const Variables& vars,
                               const SecretResolver& secrets, const PipelineDefaults& defaults) {
  PipelineBuilder builder(vars, secrets);
  WEIR_RETURN_NOT_OK(builder.SetDefaults(defaults));
  StatementScanner scanner(text, /*split=*/true);
  auto lookup = [&](const std::string& name) { return builder.Lookup(name); };
  while (!scanner.AtEnd()) {
    WEIR_ASSIGN_OR_RETURN(SubstitutedText statement, scanner.Next(lookup));
    WEIR_ASSIGN_OR_RETURN(std::vector<Statement> parsed,
                          ParseStatements(statement.text, &statement.map));
    for (Statement& s : parsed) WEIR_RETURN_NOT_OK(builder.Add(std::move(s)));
  }
  WEIR_ASSIGN_OR_RETURN(Pipeline pipeline, builder.Finish());
  if (pipeline.tables.empty()) {
    return Status::InvalidArgument(
        "the pipeline defines no streaming table (expected CREATE OR REFRESH STREAMING TABLE "
        "name AS SELECT ... FROM STREAM read_kafka(...))");
  }
  return pipeline;
}

}  // namespace weir::sql
