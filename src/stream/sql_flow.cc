#include "stream/sql_flow.h"

#include <algorithm>
#include <filesystem>

#include <optional>

#include "columnar/json_lines.h"
#include "columnar/text_format.h"
#include "delta/partition_value.h"
#include "expr/binder.h"
#include "expr/evaluator.h"
#include "expr/projection.h"
#include "kafka/options.h"
#include "stream/kafka_rows.h"

namespace weir::stream {

namespace {

// A bound expectation: CONSTRAINT name EXPECT (condition) ON VIOLATION action, over the
// flow's output rows.
struct BoundExpectation {
  std::string name;
  std::string sql;     // the condition as written, for messages
  std::string reason;  // the quarantine reason of a row failing it
  expr::Filter condition;
  sql::ViolationAction action;
};

// The flow's SELECT list and WHERE clause over the source's rows, then its expectations; rows
// that do not parse (from_json on malformed JSON), that fail an ON VIOLATION QUARANTINE
// expectation, or (with ansi) that fail a cast go to the quarantine table when the flow has one.
// An expectation passes only when its condition is TRUE (FALSE and NULL fail, as Delta's CHECK
// constraints).
class SqlTransform : public Transform {
 public:
  // With a watermark, the projection's last column is the event time (not a table column).
  SqlTransform(std::string table, expr::Projection projection, std::optional<expr::Filter> filter,
               std::vector<BoundExpectation> expectations,
               std::optional<columnar::Schema> quarantine_schema,
               std::optional<Watermark> watermark, const expr::EvalSettings& eval)
      : table_(std::move(table)),
        projection_(std::move(projection)),
        filter_(std::move(filter)),
        expectations_(std::move(expectations)),
        quarantine_schema_(std::move(quarantine_schema)),
        watermark_(std::move(watermark)),
        output_schema_(projection_.output_schema()) {
    if (watermark_) output_schema_.fields.pop_back();
    context_.Apply(eval);
    ResetMetrics();
  }

  const columnar::Schema& output_schema() const override { return output_schema_; }
  std::optional<Watermark> watermark() const override { return watermark_; }
  const columnar::Schema* quarantine_schema() const override {
    return quarantine_schema_ ? &*quarantine_schema_ : nullptr;
  }

  Status CheckNotNull(const std::vector<std::string>& columns) override {
    not_null_.clear();
    for (const std::string& name : columns) {
      const int i = output_schema_.FieldIndex(name);
      if (i < 0) return Status::Internal("no output column " + name + " in " + table_);
      not_null_.push_back({i, "column " + output_schema_.fields[i].name + " is NOT NULL in the "
                                  "table " + table_ + " but the row's value is null"});
    }
    return Status::OK();
  }

  std::optional<DataQualityMetrics> TakeMetrics() override {
    if (expectations_.empty() && !quarantine_schema_) return std::nullopt;
    DataQualityMetrics out = metrics_;
    ResetMetrics();
    return out;
  }

  Result<TransformResult> Apply(const columnar::Batch& input, int64_t batch_timestamp_ms) override {
    const int64_t now_micros = batch_timestamp_ms * 1000;
    columnar::Batch kept_input;
    const columnar::Batch* rows_in = &input;
    if (filter_) {
      context_.StartBatch(input.num_rows(), now_micros);
      WEIR_ASSIGN_OR_RETURN(kept_input, filter_->Apply(input, context_));
      rows_in = &kept_input;
    }
    context_.StartBatch(rows_in->num_rows(), now_micros);
    WEIR_ASSIGN_OR_RETURN(columnar::Batch out, projection_.Evaluate(*rows_in, context_));
    const int64_t n = out.num_rows();
    if (context_.row_errors.count() > 0 && !quarantine_schema_) {
      return Status::InvalidArgument(
          std::string(context_.row_errors.first_message()) +
          (context_.ansi ? " (spark.sql.ansi.enabled is true; route such rows to a quarantine "
                           "table with QUARANTINE INTO, or use TRY_CAST)"
                         : " (route such rows to a quarantine table with QUARANTINE INTO)"));
    }
    // Per output row: why it goes to quarantine ("" = it does not), and whether it is dropped.
    std::vector<std::string_view> reasons;
    std::vector<uint8_t> dropped;
    if (quarantine_schema_ && (context_.malformed.count() > 0 || context_.row_errors.count() > 0)) {
      reasons.assign(static_cast<size_t>(n), std::string_view());
      for (int64_t i = 0; i < n; ++i) {
        if (context_.malformed.IsMarked(i)) {
          reasons[i] = context_.malformed.Reason(i);
        } else if (context_.row_errors.IsMarked(i)) {
          reasons[i] = context_.row_errors.Reason(i);
        }
      }
    }
    for (size_t k = 0; k < expectations_.size(); ++k) {
      const BoundExpectation& e = expectations_[k];
      expr::EvalContext expectation_context;
      expectation_context.StartBatch(n, now_micros);
      WEIR_ASSIGN_OR_RETURN(std::vector<int32_t> passing,
                            e.condition.Select(out, expectation_context));
      DataQualityMetrics::Expectation& m = metrics_.expectations[k];
      m.passed_records += static_cast<int64_t>(passing.size());
      m.failed_records += n - static_cast<int64_t>(passing.size());
      if (static_cast<int64_t>(passing.size()) == n) continue;
      std::vector<uint8_t> pass(static_cast<size_t>(n), 0);
      for (int32_t row : passing) pass[row] = 1;
      switch (e.action) {
        case sql::ViolationAction::kWarn:
          break;
        case sql::ViolationAction::kFailUpdate: {
          int64_t row = 0;
          while (pass[row]) ++row;
          std::string sample;
          columnar::AppendJsonRow(out, row, &sample);
          return Status::InvalidArgument("expectation '" + e.name + "' of " + table_ +
                                         " failed with ON VIOLATION FAIL UPDATE: " + e.sql +
                                         " is not true for the row " + sample);
        }
        case sql::ViolationAction::kDropRow:
          if (dropped.empty()) dropped.assign(static_cast<size_t>(n), 0);
          for (int64_t i = 0; i < n; ++i) dropped[i] |= !pass[i];
          break;
        case sql::ViolationAction::kQuarantine:
          if (reasons.empty()) reasons.assign(static_cast<size_t>(n), std::string_view());
          for (int64_t i = 0; i < n; ++i) {
            if (!pass[i] && reasons[i].empty()) reasons[i] = e.reason;
          }
          break;
      }
    }
    // NOT NULL columns of the table the flow's expressions may leave null (CheckNotNull).
    for (const NotNullColumn& c : not_null_) {
      const columnar::Column& column = out.columns[c.index];
      for (int64_t i = 0; i < n; ++i) {
        if (!column.IsNull(i) || (!dropped.empty() && dropped[i])) continue;
        if (!reasons.empty() && !reasons[i].empty()) continue;  // quarantined already
        if (!quarantine_schema_) {
          std::string sample;
          columnar::AppendJsonRow(out, i, &sample);
          return Status::InvalidArgument(
              c.reason + ": " + sample + ". Give the column a value (COALESCE, a WHERE), or "
              "send such rows to a quarantine table with QUARANTINE INTO");
        }
        if (reasons.empty()) reasons.assign(static_cast<size_t>(n), std::string_view());
        reasons[i] = c.reason;
      }
    }
    TransformResult result;
    if (reasons.empty() && dropped.empty()) {
      result.rows = std::move(out);
      SplitEventTime(&result);
      return result;
    }
    std::vector<int32_t> keep, quarantine;
    for (int64_t i = 0; i < n; ++i) {
      bool to_quarantine = !reasons.empty() && !reasons[i].empty();
      if (to_quarantine) {
        quarantine.push_back(static_cast<int32_t>(i));
      } else if (!dropped.empty() && dropped[i]) {
        ++metrics_.dropped_records;
      } else {
        keep.push_back(static_cast<int32_t>(i));
      }
    }
    result.rows = expr::TakeRows(out, keep);
    SplitEventTime(&result);
    if (!quarantine.empty()) {
      metrics_.quarantined_records += static_cast<int64_t>(quarantine.size());
      columnar::Batch q = expr::TakeRows(*rows_in, quarantine);
      q.schema = *quarantine_schema_;
      columnar::Column reason(columnar::DataType::String());
      columnar::Column at(columnar::DataType::Timestamp());
      for (int32_t row : quarantine) {
        reason.AppendString(reasons[row]);
        at.Append<int64_t>(now_micros);
      }
      q.columns.push_back(std::move(reason));
      q.columns.push_back(std::move(at));
      result.quarantined = std::move(q);
    }
    return result;
  }

 private:
  // Moves the hidden event-time column (flows with a watermark) out of the table's rows.
  void SplitEventTime(TransformResult* result) const {
    if (!watermark_) return;
    result->event_time = std::move(result->rows.columns.back());
    result->rows.columns.pop_back();
    result->rows.schema = output_schema_;
  }

  void ResetMetrics() {
    metrics_ = DataQualityMetrics();
    for (const BoundExpectation& e : expectations_) {
      metrics_.expectations.push_back({e.name, table_, 0, 0});
    }
  }

  std::string table_;
  expr::Projection projection_;
  std::optional<expr::Filter> filter_;
  std::vector<BoundExpectation> expectations_;
  struct NotNullColumn {
    int index;           // in the projection's output
    std::string reason;  // the quarantine reason, the error's start
  };
  std::vector<NotNullColumn> not_null_;
  std::optional<columnar::Schema> quarantine_schema_;
  std::optional<Watermark> watermark_;
  columnar::Schema output_schema_;
  expr::EvalContext context_;
  DataQualityMetrics metrics_;
};

// The value of a constant expression (current_timestamp() - INTERVAL 1 DAY, a literal) in the
// protocol's text form, as a merge condition takes it; evaluated at `now_ms`.
Result<std::optional<std::string>> EvaluateConstant(const expr::BoundExprPtr& value, int64_t now_ms) {
  WEIR_ASSIGN_OR_RETURN(expr::Projection projection, expr::Projection::Make({{"v", value, {}}}));
  columnar::Batch one;
  one.num_rows_without_columns = 1;
  expr::EvalContext context;
  context.StartBatch(1, now_ms * 1000);
  WEIR_ASSIGN_OR_RETURN(columnar::Batch out, projection.Evaluate(one, context));
  return delta::SerializePartitionValue(out.columns[0], 0);
}

// `MERGE ON (keys) AND <condition>`: each conjunct must compare a target column (t.col or col)
// with a constant expression (=, >=, <=, BETWEEN, IN), which becomes a prune condition of the
// merge; the constants are evaluated each time the merge runs.
Result<std::function<Result<std::vector<delta::ColumnCondition>>()>> MergeTargetConditions(
    const sql::Expr& condition) {
  std::vector<const sql::Expr*> conjuncts;
  std::vector<const sql::Expr*> todo = {&condition};
  while (!todo.empty()) {
    const sql::Expr* e = todo.back();
    todo.pop_back();
    const auto* b = std::get_if<sql::Binary>(&e->node);
    if (b != nullptr && b->op == sql::BinaryOp::kAnd) {
      todo.push_back(b->right.get());
      todo.push_back(b->left.get());
    } else {
      conjuncts.push_back(e);
    }
  }
  auto target_column = [](const sql::Expr& e) -> std::optional<std::string> {
    const auto* ref = std::get_if<sql::ColumnRef>(&e.node);
    if (ref == nullptr) return std::nullopt;
    if (ref->parts.size() == 1) return ref->parts[0];
    if (ref->parts.size() == 2 && columnar::EqualsIgnoreAsciiCase(ref->parts[0], "t")) return ref->parts[1];
    return std::nullopt;
  };
  const columnar::Schema no_columns;
  expr::Binder constants(no_columns);
  auto bad = [&](const sql::Expr& e) {
    return Status::InvalidArgument(
        e.location.ToString() + ": a MERGE ON condition compares a target column (t.col) with a "
        "constant (=, >=, <=, BETWEEN or IN; current_timestamp() is allowed), not " +
        sql::ToSql(e));
  };
  struct Part {
    std::string column;
    enum class Kind { kMin, kMax, kEqual, kIn } kind;
    std::vector<expr::BoundExprPtr> values;
  };
  std::vector<Part> parts;
  for (const sql::Expr* e : conjuncts) {
    Part part;
    if (const auto* b = std::get_if<sql::Binary>(&e->node)) {
      std::optional<std::string> left = target_column(*b->left);
      std::optional<std::string> right = target_column(*b->right);
      const sql::Expr* value = left ? b->right.get() : b->left.get();
      if (!left && !right) return bad(*e);
      part.column = left ? *left : *right;
      const bool flipped = !left;
      switch (b->op) {
        case sql::BinaryOp::kEqual: part.kind = Part::Kind::kEqual; break;
        case sql::BinaryOp::kGreaterEqual:
          part.kind = flipped ? Part::Kind::kMax : Part::Kind::kMin;
          break;
        case sql::BinaryOp::kLessEqual:
          part.kind = flipped ? Part::Kind::kMin : Part::Kind::kMax;
          break;
        default: return bad(*e);
      }
      auto bound = constants.Bind(*value);
      if (!bound.ok()) return bad(*e);
      part.values.push_back(*bound);
    } else if (const auto* between = std::get_if<sql::Between>(&e->node)) {
      std::optional<std::string> column = target_column(*between->operand);
      if (!column || between->negated) return bad(*e);
      for (const sql::ExprPtr* bound_expr : {&between->low, &between->high}) {
        Part p{*column, bound_expr == &between->low ? Part::Kind::kMin : Part::Kind::kMax, {}};
        auto bound = constants.Bind(**bound_expr);
        if (!bound.ok()) return bad(*e);
        p.values.push_back(*bound);
        parts.push_back(std::move(p));
      }
      continue;
    } else if (const auto* in = std::get_if<sql::InList>(&e->node)) {
      std::optional<std::string> column = target_column(*in->operand);
      if (!column || in->negated) return bad(*e);
      part.column = *column;
      part.kind = Part::Kind::kIn;
      for (const sql::ExprPtr& v : in->list) {
        auto bound = constants.Bind(*v);
        if (!bound.ok()) return bad(*e);
        part.values.push_back(*bound);
      }
    } else {
      return bad(*e);
    }
    parts.push_back(std::move(part));
  }
  return std::function<Result<std::vector<delta::ColumnCondition>>()>(
      [parts = std::move(parts)]() -> Result<std::vector<delta::ColumnCondition>> {
        const int64_t now_ms = delta::NowMillis();
        std::vector<delta::ColumnCondition> out;
        for (const Part& p : parts) {
          delta::ColumnCondition c;
          c.column = p.column;
          std::vector<std::optional<std::string>> values;
          for (const expr::BoundExprPtr& v : p.values) {
            WEIR_ASSIGN_OR_RETURN(std::optional<std::string> text, EvaluateConstant(v, now_ms));
            values.push_back(std::move(text));
          }
          switch (p.kind) {
            case Part::Kind::kMin: c.min = values[0]; break;
            case Part::Kind::kMax: c.max = values[0]; break;
            case Part::Kind::kEqual: c.min = c.max = values[0]; break;
            case Part::Kind::kIn: c.in = std::move(values); break;
          }
          out.push_back(std::move(c));
        }
        return out;
      });
}

// read_kafka's argument names as Spark's Kafka source option names.
std::string SparkOptionName(const std::string& name) {
  if (name == "bootstrapServers") return "kafka.bootstrap.servers";
  if (name == "serviceCredential") return "databricks.serviceCredential";
  return name;
}

// Binds the definition's SELECT list, WHERE and expectations against the source's rows and
// builds the transform.
Result<std::shared_ptr<Transform>> MakeSqlTransform(const sql::StreamingTableDefinition& definition,
                                                    const columnar::Schema& input,
                                                    const expr::EvalSettings& eval) {
  const std::string table = definition.name.ToString();
  // The SELECT list, WHERE and WATERMARK over the source's rows (subqueries in FROM inlined).
  WEIR_ASSIGN_OR_RETURN(expr::BoundQuery query, expr::BindQuery(definition.query(), input));
  std::vector<expr::NamedExpr> columns = std::move(query.columns);
  std::optional<Transform::Watermark> watermark;
  if (query.watermark != nullptr) {
    // The event time rides along as a last, hidden column, so it shares work (from_json) with
    // the select list and is filtered with the rows. DLT resolves a watermark column against
    // the query's output (expr::BoundQuery::event_time).
    const sql::Watermark& w = *query.watermark;
    expr::BoundExprPtr event_time = query.event_time;
    if (event_time->type->id() != columnar::TypeId::kTimestamp &&
        event_time->type->id() != columnar::TypeId::kTimestampNtz) {
      return Status::InvalidArgument(w.location.ToString() + ": the WATERMARK column " +
                                     w.column_name + " is " + event_time->type->ToDdl() +
                                     "; event time must be a TIMESTAMP (use to_timestamp(...))");
    }
    columns.push_back({"__weir_event_time", std::move(event_time), w.location});
    watermark = Transform::Watermark{w.column_name, w.delay.ApproximateMicros() / 1000};
  }
  WEIR_ASSIGN_OR_RETURN(expr::Projection projection, expr::Projection::Make(std::move(columns)));
  std::optional<expr::Filter> filter;
  if (query.where) filter.emplace(query.where);
  std::vector<BoundExpectation> expectations;
  for (const sql::Expectation& e : definition.statement.expectations) {
    columnar::Schema rows = projection.output_schema();
    if (watermark) rows.fields.pop_back();
    auto condition = expr::Filter::Make(*e.condition, rows);
    if (!condition.ok()) {
      return condition.status().WithContext("expectation '" + e.name + "' of " + table);
    }
    std::string text = condition->condition().sql;
    expectations.push_back({e.name, text, "expectation " + e.name + " failed: " + text,
                            std::move(*condition), e.action});
  }
  std::optional<columnar::Schema> quarantine;
  if (definition.quarantine_table) {
    std::vector<columnar::Field> fields = input.fields;
    for (const char* name : {kQuarantineReasonColumn, kQuarantinedAtColumn}) {
      if (input.FieldIndex(name) >= 0) {
        return Status::InvalidArgument("the source of " + table + " has a column named " + name +
                                       ", which the quarantine table " +
                                       definition.quarantine_table->ToString() + " adds itself");
      }
    }
    fields.push_back({kQuarantineReasonColumn, columnar::DataType::String()});
    fields.push_back({kQuarantinedAtColumn, columnar::DataType::Timestamp()});
    quarantine = columnar::Schema{std::move(fields)};
  }
  return std::shared_ptr<Transform>(std::make_shared<SqlTransform>(
      table, std::move(projection), std::move(filter), std::move(expectations),
      std::move(quarantine), std::move(watermark), eval));
}

}  // namespace

std::string LakehouseLayout::TablePath(const sql::TableIdentifier& name) const {
  return root + "/" + name.RelativePath();
}

std::string LakehouseLayout::CheckpointDir(const sql::TableIdentifier& name) const {
  return root + "/_checkpoints/" + name.ToString();
}

namespace {

// A table or checkpoint folder must stay inside the lakehouse even through symbolic links that
// already exist on its path (names with "..", "/" and the like are refused by the parser). Local
// roots only: object stores have no links.
Status CheckInsideLakehouse(const std::string& root, const std::string& path) {
  if (root.find("://") != std::string::npos) return Status::OK();
  std::error_code error;
  std::filesystem::path real_root = std::filesystem::weakly_canonical(root, error);
  if (error) return Status::OK();  // an unreadable root fails later with a clearer error
  std::filesystem::path real = std::filesystem::weakly_canonical(path, error);
  if (error) return Status::OK();
  auto [root_end, ignored] = std::mismatch(real_root.begin(), real_root.end(), real.begin(), real.end());
  if (root_end != real_root.end()) {
    return Status::InvalidArgument("the folder " + path + " resolves to " + real.string() +
                                   ", outside the lakehouse " + real_root.string() +
                                   " (a symbolic link on the way leads out): remove the link or "
                                   "choose another lakehouse");
  }
  return Status::OK();
}

}  // namespace

Result<FlowSpec> MakeFlow(const sql::StreamingTableDefinition& definition,
                          const LakehouseLayout& lakehouse,
                          const std::map<std::string, std::string>& settings) {
  WEIR_RETURN_NOT_OK(CheckInsideLakehouse(lakehouse.root, lakehouse.TablePath(definition.name)));
  WEIR_RETURN_NOT_OK(CheckInsideLakehouse(lakehouse.root, lakehouse.CheckpointDir(definition.name)));
  if (definition.quarantine_table) {
    WEIR_RETURN_NOT_OK(
        CheckInsideLakehouse(lakehouse.root, lakehouse.TablePath(*definition.quarantine_table)));
  }
  if (definition.source_kind == sql::FromClause::Kind::kTable) {
    WEIR_RETURN_NOT_OK(
        CheckInsideLakehouse(lakehouse.root, lakehouse.TablePath(definition.source_table)));
  }
  const std::string table = definition.name.ToString();
  const expr::EvalSettings eval = expr::EvalSettings::FromConf(settings);
  const sql::Query& query = definition.query();
  FlowSpec spec;
  spec.name = table;
  spec.table_path = lakehouse.TablePath(definition.name);
  spec.checkpoint_dir = lakehouse.CheckpointDir(definition.name);
  if (definition.quarantine_table) {
    spec.quarantine_name = definition.quarantine_table->ToString();
    spec.quarantine_path = lakehouse.TablePath(*definition.quarantine_table);
  }
  spec.partition_by = definition.statement.partition_by;
  for (const auto& [key, value] : settings) {
    if (key.starts_with("spark.databricks.delta.autoCompact.")) {
      spec.auto_compact_settings[key] = value;
    }
  }
  if (definition.statement.merge) {
    const sql::MergeClause& merge = *definition.statement.merge;
    spec.merge = FlowSpec::Merge{merge.keys, merge.when_matched_update, nullptr};
    if (merge.target_condition) {
      WEIR_ASSIGN_OR_RETURN(spec.merge->target_conditions,
                            MergeTargetConditions(*merge.target_condition));
    }
  }
  spec.table_properties = definition.statement.table_properties;
  if (!definition.statement.comment.empty()) spec.comment = definition.statement.comment;
  if (query.drop_duplicates) {
    spec.drop_duplicates = FlowSpec::Deduplication{query.drop_duplicates->within_watermark,
                                                   query.drop_duplicates->columns};
  }
  if (definition.source_kind == sql::FromClause::Kind::kTable) {
    spec.delta = FlowSpec::DeltaTable{definition.source_table.ToString(),
                                      lakehouse.TablePath(definition.source_table),
                                      definition.source_options};
    // The source table's schema is known when the flow starts (its upstream flow may create it).
    const sql::StreamingTableDefinition* bound = &definition;
    spec.make_transform = [bound, eval](const columnar::Schema& input) {
      return MakeSqlTransform(*bound, input, eval);
    };
    return spec;
  }

  std::map<std::string, std::string> options;
  std::vector<std::string> secrets;
  for (const auto& [name, value] : definition.kafka_options) {
    options[SparkOptionName(name)] = value.Reveal();
    if (value.is_secret()) secrets.push_back(value.Reveal());
  }
  auto parsed = kafka::KafkaSourceOptions::Parse(options);
  if (!parsed.ok()) {
    kafka::Redactor redactor;
    for (const auto& s : secrets) redactor.AddSecret(s);
    return redactor.Scrub(parsed.status()).WithContext("read_kafka options of " + table);
  }
  for (const auto& s : secrets) parsed->redactor.AddSecret(s);
  // Kafka rows have a fixed schema: bind now, so that SQL errors show before anything runs.
  WEIR_ASSIGN_OR_RETURN(std::shared_ptr<Transform> transform,
                        MakeSqlTransform(definition, KafkaSourceSchema(parsed->include_headers), eval));
  spec.kafka = std::move(*parsed);
  spec.make_transform = [transform](const columnar::Schema&) -> Result<std::shared_ptr<Transform>> {
    return transform;
  };
  return spec;
}

}  // namespace weir::stream
