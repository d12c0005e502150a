#include "sql/pipeline.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::sql {
namespace {

SecretResolver FakeEnvironment(std::map<std::string, std::string> env) {
  return SecretResolver([env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

constexpr std::string_view kOrders = R"(-- Bronze and silver for the orders topic.
SET topic = orders;
USE CATALOG sales;
USE SCHEMA bronze;

CREATE OR REFRESH STREAMING TABLE orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(
  bootstrapServers => '${namespace}.servicebus.windows.net:9093',
  subscribe => '${topic}',
  `kafka.sasl.jaas.config` => 'org.apache.kafka.common.security.plain.PlainLoginModule required '
      || 'username="$ConnectionString" password="' || secret('eh', 'connection-string') || '";',
  maxOffsetsPerTrigger => 200000,
  failOnDataLoss => false
);

CREATE OR REFRESH STREAMING TABLE silver.orders (
  CONSTRAINT valid_id EXPECT (event_id IS NOT NULL) ON VIOLATION DROP ROW
) AS SELECT * FROM STREAM(LIVE.orders_raw);
)";

TEST(PipelineTest, ParsesTablesSettingsAndSecrets) {
  SecretResolver secrets = FakeEnvironment({{"WEIR_SECRET_EH_CONNECTION_STRING", "Endpoint=sb://x;Key=s3cr3t"}});
  ASSERT_OK_AND_ASSIGN(Pipeline p, ParsePipeline(kOrders, {{"namespace", "contoso"}}, secrets));
  ASSERT_EQ(p.tables.size(), 2u);
  EXPECT_EQ(p.settings.at("topic"), "orders");

  const StreamingTableDefinition& bronze = p.tables[0];
  EXPECT_EQ(bronze.name.ToString(), "sales.bronze.orders_raw");
  EXPECT_EQ(bronze.name.RelativePath(), "sales/bronze/orders_raw");
  EXPECT_EQ(bronze.source_kind, FromClause::Kind::kReadKafka);
  EXPECT_EQ(bronze.kafka_options.at("bootstrapServers").Reveal(),
            "contoso.servicebus.windows.net:9093");
  EXPECT_FALSE(bronze.kafka_options.at("bootstrapServers").is_secret());
  EXPECT_EQ(bronze.kafka_options.at("subscribe").Reveal(), "orders");
  EXPECT_EQ(bronze.kafka_options.at("maxOffsetsPerTrigger").Reveal(), "200000");
  EXPECT_EQ(bronze.kafka_options.at("failOnDataLoss").Reveal(), "false");
  const OptionValue& jaas = bronze.kafka_options.at("kafka.sasl.jaas.config");
  EXPECT_TRUE(jaas.is_secret());
  EXPECT_EQ(jaas.ToString(), "***");
  EXPECT_EQ(jaas.Reveal(),
            "org.apache.kafka.common.security.plain.PlainLoginModule required "
            "username=\"$ConnectionString\" password=\"Endpoint=sb://x;Key=s3cr3t\";");
  EXPECT_EQ(bronze.query().select_list.size(), 6u);

  const StreamingTableDefinition& silver = p.tables[1];
  EXPECT_EQ(silver.name.ToString(), "sales.silver.orders");
  EXPECT_EQ(silver.source_kind, FromClause::Kind::kTable);
  EXPECT_EQ(silver.source_table.ToString(), "sales.bronze.orders_raw");
  ASSERT_EQ(silver.statement.expectations.size(), 1u);
  EXPECT_EQ(p.FindTable(silver.source_table), &p.tables[0]);
}

TEST(PipelineTest, CommandLineVariablesWinOverSet) {
  SecretResolver secrets = FakeEnvironment({{"WEIR_SECRET_EH_CONNECTION_STRING", "x"}});
  ASSERT_OK_AND_ASSIGN(Pipeline p,
                       ParsePipeline(kOrders, {{"namespace", "n"}, {"topic", "test"}}, secrets));
  EXPECT_EQ(p.tables[0].kafka_options.at("subscribe").Reveal(), "test");
  EXPECT_EQ(p.settings.at("topic"), "test");
}

TEST(PipelineTest, UnknownVariableNamesItAndItsLine) {
  SecretResolver secrets = FakeEnvironment({{"WEIR_SECRET_EH_CONNECTION_STRING", "x"}});
  auto r = ParsePipeline(kOrders, {}, secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(),
            "line 11, column 24: unknown variable ${namespace}: pass --set namespace=value or "
            "define it with SET namespace = value before this statement");
  // A SET defines variables only for later statements.
  r = ParsePipeline("CREATE STREAMING TABLE t AS SELECT * FROM STREAM ${src};\nSET src = x;", {},
                    secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_NE(r.status().message().find("line 1, column 50: unknown variable ${src}"),
            std::string::npos)
      << r.status().message();
  // Comments are not substituted.
  ASSERT_OK(ParsePipeline("-- uses ${nothing}\nCREATE STREAMING TABLE t AS SELECT * FROM STREAM s;",
                          {}, secrets)
                .status());
}

TEST(PipelineTest, ErrorsAfterSubstitutionPointAtTheOriginalText) {
  SecretResolver secrets;
  // The variable's value is longer than "${t}": the error column is still the one in the file.
  auto r = ParsePipeline(
      "CREATE STREAMING TABLE t AS SELECT a FROM STREAM read_kafka(subscribe => '${t}', x => )",
      {{"t", "a-much-longer-topic-name"}}, secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(), "line 1, column 87: expected an expression near ')'");
}

TEST(PipelineTest, MissingSecretNamesScopeAndKeyButNoValue) {
  SecretResolver secrets = FakeEnvironment({});
  auto r = ParsePipeline(
      "CREATE STREAMING TABLE t AS SELECT * FROM STREAM read_kafka(\n"
      "  `kafka.sasl.password` => secret('Event-Hubs', 'key1'))",
      {}, secrets);
  ASSERT_STATUS_CODE(kNotFound, r);
  EXPECT_EQ(r.status().message(),
            "line 2, column 28: secret('Event-Hubs', 'key1') is not defined: set the environment "
            "variable WEIR_SECRET_EVENT_HUBS_KEY1 or pass a secrets file");
}

TEST(PipelineTest, SecretsFromAJsonDocument) {
  SecretResolver secrets = FakeEnvironment({{"WEIR_SECRET_A_B", "from-env"}});
  ASSERT_OK(secrets.AddSecretsJson(R"({"a": {"b": "from-file", "c": "file-only"}})", "/etc/s.json"));
  ASSERT_OK_AND_ASSIGN(OptionValue v, secrets.Resolve("a", "b"));
  EXPECT_EQ(v.Reveal(), "from-env");  // the environment wins
  EXPECT_TRUE(v.is_secret());
  ASSERT_OK_AND_ASSIGN(v, secrets.Resolve("a", "c"));
  EXPECT_EQ(v.Reveal(), "file-only");
  auto missing = secrets.Resolve("a", "zzz");
  ASSERT_STATUS_CODE(kNotFound, missing);
  EXPECT_NE(missing.status().message().find("/etc/s.json"), std::string::npos);
  auto bad = secrets.AddSecretsJson(R"({"a": {"b": 5}})", "f.json");
  ASSERT_STATUS_CODE(kInvalidArgument, bad);
  EXPECT_EQ(bad.message().find("5"), std::string::npos);
  ASSERT_STATUS_CODE(kInvalidArgument, secrets.AddSecretsJson("not json", "f.json"));
  EXPECT_EQ(SecretResolver::EnvironmentVariableName("eh-prod", "conn.string"),
            "WEIR_SECRET_EH_PROD_CONN_STRING");
}

TEST(PipelineTest, SecretOnlyInKafkaOptions) {
  SecretResolver secrets = FakeEnvironment({{"WEIR_SECRET_A_B", "v"}});
  auto r = ParsePipeline(
      "CREATE STREAMING TABLE t AS SELECT secret('a', 'b') AS s FROM STREAM read_kafka(x => 1)", {},
      secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(),
            "line 1, column 36: secret() is allowed only in read_kafka options, not in the select "
            "list");
}

TEST(PipelineTest, NameResolution) {
  QualifiedName n;
  n.parts = {"Orders"};
  ASSERT_OK_AND_ASSIGN(TableIdentifier id, ResolveTableName(n, "main", "default"));
  EXPECT_EQ(id.ToString(), "main.default.orders");
  n.parts = {"LIVE", "orders"};
  ASSERT_OK_AND_ASSIGN(id, ResolveTableName(n, "c", "s"));
  EXPECT_EQ(id.ToString(), "c.s.orders");
  n.parts = {"Bronze", "orders"};
  ASSERT_OK_AND_ASSIGN(id, ResolveTableName(n, "c", "s"));
  EXPECT_EQ(id.ToString(), "c.bronze.orders");
  n.parts = {"a", "b", "c", "d"};
  ASSERT_STATUS_CODE(kInvalidArgument, ResolveTableName(n, "c", "s"));
  n.parts = {"..", "x"};
  ASSERT_STATUS_CODE(kInvalidArgument, ResolveTableName(n, "c", "s"));
  n.parts = {"a/b"};
  ASSERT_STATUS_CODE(kInvalidArgument, ResolveTableName(n, "c", "s"));
}

// ALTER TABLE as an operations runbook writes it: the properties to set, the table resolved like
// any other name; UNSET takes quoted or dotted keys.
TEST(PipelineTest, AlterTableSetAndUnsetTblproperties) {
  ASSERT_OK_AND_ASSIGN(Pipeline p, ParsePipeline(R"(
CREATE OR REFRESH STREAMING TABLE main.bronze.telemetry AS SELECT * FROM STREAM read_kafka(subscribe => 't');
ALTER TABLE main.bronze.telemetry SET TBLPROPERTIES ('delta.autoOptimize.optimizeWrite' = 'true', 'delta.autoOptimize.autoCompact' = 'true');
ALTER TABLE Bronze.Telemetry UNSET TBLPROPERTIES IF EXISTS ('owner', delta.logRetentionDuration);
)", {}, FakeEnvironment({})));
  ASSERT_EQ(p.alterations.size(), 2u);
  EXPECT_EQ(p.alterations[0].table.ToString(), "main.bronze.telemetry");
  EXPECT_EQ(p.alterations[0].set,
            (std::map<std::string, std::string>{{"delta.autoOptimize.autoCompact", "true"},
                                                {"delta.autoOptimize.optimizeWrite", "true"}}));
  EXPECT_TRUE(p.alterations[0].unset.empty());
  EXPECT_EQ(p.alterations[0].location.line, 3);
  EXPECT_EQ(p.alterations[1].table.ToString(), "main.bronze.telemetry");
  EXPECT_EQ(p.alterations[1].unset,
            (std::vector<std::string>{"owner", "delta.logRetentionDuration"}));
  EXPECT_TRUE(p.alterations[1].if_exists);
}

// A pipeline's settings may give the default catalog and schema (Databricks' `catalog` and
// `target`); a USE statement in the file still changes them.
TEST(PipelineTest, DefaultCatalogAndSchema) {
  const char* text = R"(
CREATE OR REFRESH STREAMING TABLE iot_raw AS SELECT * FROM STREAM read_kafka(subscribe => 't');
USE SCHEMA silver;
CREATE OR REFRESH STREAMING TABLE iot AS SELECT * FROM STREAM(iot_raw);
)";
  ASSERT_OK_AND_ASSIGN(Pipeline p, ParsePipeline(text, {}, FakeEnvironment({}),
                                                 PipelineDefaults{.catalog = "lake", .schema = "Iot"}));
  ASSERT_EQ(p.tables.size(), 2u);
  EXPECT_EQ(p.tables[0].name.ToString(), "lake.iot.iot_raw");
  EXPECT_EQ(p.tables[1].name.ToString(), "lake.silver.iot");
  auto bad = ParsePipeline(text, {}, FakeEnvironment({}), PipelineDefaults{.catalog = "", .schema = "a/b"});
  ASSERT_STATUS_CODE(kInvalidArgument, bad);
}

TEST(PipelineTest, StructuralErrors) {
  SecretResolver secrets = FakeEnvironment({});
  auto error = [&](std::string_view text) {
    auto r = ParsePipeline(text, {}, secrets);
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? "" : r.status().message();
  };
  EXPECT_EQ(error("SET a = 1;"),
            "the pipeline defines no streaming table (expected CREATE OR REFRESH STREAMING TABLE "
            "name AS SELECT ... FROM STREAM read_kafka(...))");
  EXPECT_EQ(error("SELECT 1"),
            "line 1, column 1: a pipeline file holds CREATE STREAMING TABLE, ALTER TABLE, SET "
            "and USE statements; wrap this SELECT in CREATE OR REFRESH STREAMING TABLE name AS "
            "...");
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT * FROM STREAM s;\n"
                  "ALTER TABLE t ADD COLUMN c INT"),
            "line 2, column 15: expected SET TBLPROPERTIES or UNSET TBLPROPERTIES (weir alters "
            "table properties only) near 'ADD'");
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT * FROM s"),
            "line 1, column 43: a streaming table reads a stream: write FROM STREAM "
            "read_kafka(...) or FROM STREAM(table)");
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT * FROM STREAM s;\n"
                  "CREATE STREAMING TABLE main.default.T AS SELECT * FROM STREAM s"),
            "line 2, column 24: streaming table main.default.t is defined twice");
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT * FROM STREAM read_kafka(a => 1, A => 2)"),
            "line 1, column 69: read_kafka option 'A' is given twice");
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT * FROM STREAM read_kafka(a => upper('x'))"),
            "line 1, column 66: read_kafka option 'a' must be a constant: a string, number, "
            "boolean or secret('scope', 'key'), optionally joined with ||");
  EXPECT_EQ(error("SET x = 1;\nCREATE STREAMING TABLE t AS\nSELECT * FROM STREAM s WHERE ${x} +"),
            "line 3, column 36: expected an expression at the end of the statement");
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT '${oops' FROM STREAM s"),
            "line 1, column 37: malformed variable reference (write ${name})");
}

TEST(PipelineTest, SubstituteVariablesKeepsStringsAndMapsLocations) {
  std::string text = "a '${x}' /* ${y} */ `${x}`;\n${x}";
  ASSERT_OK_AND_ASSIGN(SubstitutedText s, SubstituteVariables(text, {{"x", "VALUE"}}));
  EXPECT_EQ(s.text, "a 'VALUE' /* ${y} */ `VALUE`;\nVALUE");
  EXPECT_EQ(s.map.Locate(s.text.size() - 1).ToString(), "line 2, column 1");
}

TEST(PipelineTest, DeduplicationAndQuarantineClauses) {
  SecretResolver secrets = FakeEnvironment({});
  ASSERT_OK_AND_ASSIGN(Pipeline p, ParsePipeline(R"(
CREATE STREAMING TABLE sales.silver.orders (
  CONSTRAINT has_id EXPECT (event_id IS NOT NULL) ON VIOLATION QUARANTINE
) AS SELECT * FROM STREAM(sales.bronze.orders_raw)
  WATERMARK event_time DELAY OF INTERVAL 30 MINUTES
  WHERE eh_offset >= 0
  DROP DUPLICATES WITHIN WATERMARK (event_id, order_id);
CREATE STREAMING TABLE audit AS SELECT * FROM STREAM(sales.bronze.orders_raw)
  WITH (maxFilesPerTrigger = 5, 'startingVersion' = 'latest', skipChangeCommits = true)
  DROP DUPLICATES (event_id) QUARANTINE INTO rejected;)", {}, secrets));
  ASSERT_EQ(p.tables.size(), 2u);
  const Query& q = p.tables[0].query();
  ASSERT_TRUE(q.drop_duplicates.has_value());
  EXPECT_TRUE(q.drop_duplicates->within_watermark);
  EXPECT_EQ(q.drop_duplicates->columns, (std::vector<std::string>{"event_id", "order_id"}));
  ASSERT_NE(q.where, nullptr);
  EXPECT_EQ(p.tables[0].statement.expectations[0].action, ViolationAction::kQuarantine);
  ASSERT_TRUE(p.tables[0].quarantine_table.has_value());
  EXPECT_EQ(p.tables[0].quarantine_table->ToString(), "sales.silver.orders_quarantine");
  ASSERT_TRUE(p.tables[1].query().drop_duplicates.has_value());
  EXPECT_FALSE(p.tables[1].query().drop_duplicates->within_watermark);
  ASSERT_TRUE(p.tables[1].quarantine_table.has_value());
  EXPECT_EQ(p.tables[1].quarantine_table->ToString(), "main.default.rejected");
  EXPECT_EQ(p.tables[1].source_options,
            (std::map<std::string, std::string>{{"maxFilesPerTrigger", "5"},
                                                {"skipChangeCommits", "true"},
                                                {"startingVersion", "latest"}}));
  EXPECT_TRUE(p.tables[0].source_options.empty());

  auto r = ParsePipeline("CREATE STREAMING TABLE t AS SELECT * FROM STREAM(s)\n"
                         "DROP DUPLICATES WITHIN WATERMARK (id);", {}, secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_NE(r.status().message().find("line 2, column 1: DROP DUPLICATES WITHIN WATERMARK needs a "
                                      "watermark"), std::string::npos) << r.status().ToString();
  r = ParsePipeline("CREATE STREAMING TABLE t AS SELECT * FROM STREAM(s) QUARANTINE INTO s;", {},
                    secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_NE(r.status().message().find("must differ from the flow's source and target"),
            std::string::npos) << r.status().ToString();
  r = ParsePipeline("CREATE STREAMING TABLE a AS SELECT * FROM STREAM(s) QUARANTINE INTO q;\n"
                    "CREATE STREAMING TABLE q AS SELECT * FROM STREAM(s);", {}, secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_NE(r.status().message().find("already the quarantine table of main.default.a"),
            std::string::npos) << r.status().ToString();
}

// A subquery in FROM: the innermost query's FROM is the flow's source.
TEST(PipelineTest, SubqueryInFromReadsTheInnermostSource) {
  SecretResolver secrets = FakeEnvironment({});
  ASSERT_OK_AND_ASSIGN(Pipeline p, ParsePipeline(R"(
USE SCHEMA silver;
CREATE OR REFRESH STREAMING TABLE events AS
SELECT partition_key, e.*, eh_offset
FROM (SELECT partition_key, from_json(raw_value, 'event_id STRING, ts TIMESTAMP') AS e, eh_offset
      FROM STREAM(LIVE.bronze) WITH (maxFilesPerTrigger = 10)
      WATERMARK enqueued_time DELAY OF INTERVAL 5 MINUTES)
DROP DUPLICATES WITHIN WATERMARK (event_id);
CREATE OR REFRESH STREAMING TABLE raw AS
SELECT * EXCEPT (key, value), CAST(value AS STRING) AS body
FROM (SELECT * FROM STREAM read_kafka(bootstrapServers => 'b:9092', subscribe => 't'));)",
                                                 {}, secrets));
  ASSERT_EQ(p.tables.size(), 2u);
  EXPECT_EQ(p.tables[0].source_kind, FromClause::Kind::kTable);
  EXPECT_EQ(p.tables[0].source_table.ToString(), "main.silver.bronze");
  EXPECT_EQ(p.tables[0].source_options.at("maxFilesPerTrigger"), "10");
  EXPECT_EQ(p.tables[0].query().from->kind, FromClause::Kind::kSubquery);
  EXPECT_EQ(p.tables[1].source_kind, FromClause::Kind::kReadKafka);
  EXPECT_EQ(p.tables[1].kafka_options.at("subscribe").Reveal(), "t");

  auto error = [&](std::string_view text) {
    auto r = ParsePipeline(text, {}, secrets);
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? "" : r.status().message();
  };
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT a FROM (SELECT a FROM s)"),
            "line 1, column 58: a streaming table reads a stream: write FROM STREAM "
            "read_kafka(...) or FROM STREAM(table)");
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT a FROM (SELECT 1 AS a)"),
            "line 1, column 29: a streaming table needs FROM STREAM read_kafka(...) or FROM "
            "STREAM(table)");
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT a FROM (SELECT a, ts FROM STREAM s WATERMARK "
                  "ts DELAY OF INTERVAL 1 MINUTE) WATERMARK ts DELAY OF INTERVAL 2 MINUTES"),
            "line 1, column 71: a streaming table's query takes one WATERMARK clause (another "
            "one is at line 1, column 112)");
  EXPECT_EQ(error("CREATE STREAMING TABLE t AS SELECT a FROM (SELECT secret('s', 'k') AS a FROM "
                  "STREAM s)"),
            "line 1, column 51: secret() is allowed only in read_kafka options, not in the "
            "select list");
}

// spark.sql.mapKeyDedupPolicy is checked where it is set, as Spark's SET checks it; spark.*
// values given only as variables (--set, a settings file) are settings too.
TEST(PipelineTest, SparkSettings) {
  SecretResolver secrets = FakeEnvironment({});
  constexpr std::string_view kTable = "CREATE STREAMING TABLE t AS SELECT * FROM STREAM s;";
  ASSERT_OK_AND_ASSIGN(Pipeline p, ParsePipeline("SET spark.sql.mapKeyDedupPolicy = last_win;\n" +
                                                     std::string(kTable),
                                                 {}, secrets));
  EXPECT_EQ(p.settings.at("spark.sql.mapKeyDedupPolicy"), "last_win");
  ASSERT_OK_AND_ASSIGN(p, ParsePipeline(kTable,
                                        {{"spark.sql.mapKeyDedupPolicy", "LAST_WIN"},
                                         {"spark.sql.ansi.enabled", "true"},
                                         {"topic", "x"}},
                                        secrets));
  EXPECT_EQ(p.settings, (std::map<std::string, std::string>{
                            {"spark.sql.ansi.enabled", "true"},
                            {"spark.sql.mapKeyDedupPolicy", "LAST_WIN"}}));
  // --set wins over SET.
  ASSERT_OK_AND_ASSIGN(p, ParsePipeline("SET spark.sql.mapKeyDedupPolicy = EXCEPTION;\n" +
                                            std::string(kTable),
                                        {{"spark.sql.mapKeyDedupPolicy", "LAST_WIN"}}, secrets));
  EXPECT_EQ(p.settings.at("spark.sql.mapKeyDedupPolicy"), "LAST_WIN");

  auto r = ParsePipeline("SET spark.sql.mapKeyDedupPolicy = FIRST_WIN;\n" + std::string(kTable),
                         {}, secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(),
            "line 1, column 1: [INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS] The value 'FIRST_WIN' "
            "in the config \"spark.sql.mapKeyDedupPolicy\" is invalid. It should be one of "
            "'EXCEPTION, LAST_WIN'.");
  r = ParsePipeline("SET spark.sql.mapKeyDedupPolicy = LAST_WIN;\n" + std::string(kTable),
                    {{"spark.sql.mapKeyDedupPolicy", "last"}}, secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_NE(r.status().message().find("The value 'last' in the config "
                                      "\"spark.sql.mapKeyDedupPolicy\" is invalid. It should be "
                                      "one of 'EXCEPTION, LAST_WIN'. (the value given with --set)"),
            std::string::npos)
      << r.status().ToString();
  r = ParsePipeline(kTable, {{"spark.sql.mapKeyDedupPolicy", ""}}, secrets);
  ASSERT_STATUS_CODE(kInvalidArgument, r);
  EXPECT_EQ(r.status().message(),
            "the setting spark.sql.mapKeyDedupPolicy (--set or the settings file): "
            "[INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS] The value '' in the config "
            "\"spark.sql.mapKeyDedupPolicy\" is invalid. It should be one of 'EXCEPTION, "
            "LAST_WIN'.");
}

}  // namespace
}  // namespace weir::sql
