#include "stream/sql_flow.h"

#include <optional>

#include "expr/evaluator.h"
#include "expr/projection.h"
#include "kafka/options.h"
#include "stream/kafka_rows.h"

namespace weir::stream {

namespace {

// The flow's SELECT list and WHERE clause over the Kafka source's rows.
class SqlTransform : public Transform {
 public:
  SqlTransform(expr::Projection projection, std::optional<expr::Filter> filter)
      : projection_(std::move(projection)), filter_(std::move(filter)) {}

  const columnar::Schema& output_schema() const override { return projection_.output_schema(); }

  Result<columnar::Batch> Apply(const columnar::Batch& input, int64_t batch_timestamp_ms) override {
    context_.StartBatch(input.num_rows(), batch_timestamp_ms * 1000);
    if (!filter_) return projection_.Evaluate(input, context_);
    WEIR_ASSIGN_OR_RETURN(columnar::Batch kept, filter_->Apply(input, context_));
    context_.StartBatch(kept.num_rows(), batch_timestamp_ms * 1000);
    return projection_.Evaluate(std::move(kept), context_);
  }

 private:
  expr::Projection projection_;
  std::optional<expr::Filter> filter_;
  expr::EvalContext context_;
};

// read_kafka's argument names as Spark's Kafka source option names.
std::string SparkOptionName(const std::string& name) {
  if (name == "bootstrapServers") return "kafka.bootstrap.servers";
  if (name == "serviceCredential") return "databricks.serviceCredential";
  return name;
}

}  // namespace

std::string LakehouseLayout::TablePath(const sql::TableIdentifier& name) const {
  return root + "/" + name.RelativePath();
}

std::string LakehouseLayout::CheckpointDir(const sql::TableIdentifier& name) const {
  return root + "/_checkpoints/" + name.ToString();
}

Result<KafkaFlowSpec> MakeKafkaFlow(const sql::StreamingTableDefinition& definition,
                                    const LakehouseLayout& lakehouse) {
  const std::string table = definition.name.ToString();
  if (definition.source_kind != sql::FromClause::Kind::kReadKafka) {
    return Status::NotImplemented("streaming table " + table + " reads the table " +
                                  definition.source_table.ToString() +
                                  " as a stream; Delta sources are not supported by this build yet");
  }
  if (!definition.statement.expectations.empty()) {
    return Status::NotImplemented("streaming table " + table +
                                  ": CONSTRAINT ... EXPECT is not supported by this build yet");
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

  KafkaFlowSpec spec;
  spec.name = table;
  spec.table_path = lakehouse.TablePath(definition.name);
  spec.checkpoint_dir = lakehouse.CheckpointDir(definition.name);
  columnar::Schema input = KafkaSourceSchema(parsed->include_headers);
  spec.source = std::move(*parsed);
  const sql::Query& query = definition.query();
  WEIR_ASSIGN_OR_RETURN(expr::Projection projection, expr::Projection::Make(query.select_list, input));
  std::optional<expr::Filter> filter;
  if (query.where) {
    WEIR_ASSIGN_OR_RETURN(expr::Filter f, expr::Filter::Make(*query.where, input));
    filter = std::move(f);
  }
  spec.transform = std::make_shared<SqlTransform>(std::move(projection), std::move(filter));
  spec.partition_by = definition.statement.partition_by;
  spec.table_properties = definition.statement.table_properties;
  return spec;
}

}  // namespace weir::stream
