#include "stream/sql_flow.h"

#include <gtest/gtest.h>

#include "base/testing.h"
#include "delta/testing.h"
#include "stream/kafka_rows.h"

namespace weir::stream {
namespace {

constexpr int64_t kBatchTimestampMs = 1780909200000;  // 2026-06-08 09:00:00 UTC

Result<std::shared_ptr<Transform>> TransformOf(const std::string& sql) {
  WEIR_ASSIGN_OR_RETURN(sql::Pipeline pipeline, sql::ParsePipeline(sql, {}, sql::SecretResolver()));
  WEIR_ASSIGN_OR_RETURN(FlowSpec spec,
                        MakeFlow(pipeline.tables.at(0), {"/lake"}, pipeline.settings));
  return spec.make_transform(KafkaSourceSchema(false));
}

// Five Kafka rows: values 42, 5000, 7 (NULL key), -3 and "x" (not a number).
columnar::Batch KafkaRows() {
  return delta::testing::BatchFromJson(KafkaSourceSchema(false), {
      R"({"key":"azE=","value":"NDI=","topic":"orders","partition":0,"offset":0,"timestamp":"2026-06-08 09:00:00","timestampType":0})",
      R"({"key":"azI=","value":"NTAwMA==","topic":"orders","partition":0,"offset":1,"timestamp":"2026-06-08 09:00:00","timestampType":0})",
      R"({"key":null,"value":"Nw==","topic":"orders","partition":0,"offset":2,"timestamp":"2026-06-08 09:00:00","timestampType":0})",
      R"({"key":"azQ=","value":"LTM=","topic":"orders","partition":0,"offset":3,"timestamp":"2026-06-08 09:00:00","timestampType":0})",
      R"({"key":"azU=","value":"eA==","topic":"orders","partition":0,"offset":4,"timestamp":"2026-06-08 09:00:00","timestampType":0})"}).ValueOrDie();
}

constexpr char kFlow[] = R"(
CREATE STREAMING TABLE sales.silver.amounts (
  CONSTRAINT positive EXPECT (amount > 0),
  CONSTRAINT has_key EXPECT (k IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT small EXPECT (amount < 1000) ON VIOLATION QUARANTINE
) AS SELECT CAST(key AS STRING) AS k, CAST(CAST(value AS STRING) AS INT) AS amount, offset
FROM STREAM read_kafka(bootstrapServers => 'localhost:9092', subscribe => 'orders');
)";

TEST(SqlFlowTest, ExpectationsWarnDropAndQuarantineWithDltCounts) {
  ASSERT_OK_AND_ASSIGN(auto transform, TransformOf(kFlow));
  ASSERT_NE(transform->quarantine_schema(), nullptr);
  EXPECT_EQ(transform->quarantine_schema()->ToDdl(),
            "key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, "
            "timestamp TIMESTAMP, timestampType INT, quarantine_reason STRING, "
            "quarantined_at TIMESTAMP");
  ASSERT_OK_AND_ASSIGN(TransformResult out, transform->Apply(KafkaRows(), kBatchTimestampMs));
  // 42 passes everything; 5000 is quarantined; the NULL key is dropped; -3 and "x" (NULL amount)
  // fail `positive`, which only warns; "x" also fails `small` (NULL is not TRUE): quarantined.
  EXPECT_EQ(delta::testing::JsonRows(out.rows),
            (std::vector<std::string>{R"({"k":"k1","amount":42,"offset":0})",
                                      R"({"k":"k4","amount":-3,"offset":3})"}));
  ASSERT_EQ(out.quarantined.num_rows(), 2);
  std::vector<std::string> quarantined = delta::testing::JsonRows(out.quarantined);
  EXPECT_NE(quarantined[0].find(R"("offset":1)"), std::string::npos) << quarantined[0];
  const std::string reason = R"x("quarantine_reason":"expectation small failed: (amount < 1000)")x";
  EXPECT_NE(quarantined[0].find(reason), std::string::npos) << quarantined[0];
  EXPECT_NE(quarantined[0].find(R"("quarantined_at":"2026-06-08T09:00:00.000000Z")"), std::string::npos)
      << quarantined[0];
  EXPECT_NE(quarantined[1].find(R"("offset":4)"), std::string::npos) << quarantined[1];

  std::optional<DataQualityMetrics> m = transform->TakeMetrics();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->ToJson(),
            R"({"dropped_records":1,"expectations":[)"
            R"({"name":"positive","dataset":"sales.silver.amounts","passed_records":3,"failed_records":2},)"
            R"({"name":"has_key","dataset":"sales.silver.amounts","passed_records":4,"failed_records":1},)"
            R"({"name":"small","dataset":"sales.silver.amounts","passed_records":3,"failed_records":2}],)"
            R"("quarantined_records":2})");
  // Counts restart with each batch.
  EXPECT_EQ(transform->TakeMetrics()->dropped_records, 0);
}

TEST(SqlFlowTest, FailUpdateStopsWithTheExpectationAndASampleRow) {
  ASSERT_OK_AND_ASSIGN(auto transform, TransformOf(R"(
CREATE STREAMING TABLE t (CONSTRAINT small EXPECT (amount < 1000) ON VIOLATION FAIL UPDATE)
AS SELECT CAST(CAST(value AS STRING) AS INT) AS amount, offset
FROM STREAM read_kafka(bootstrapServers => 'localhost:9092', subscribe => 'orders');)"));
  EXPECT_EQ(transform->quarantine_schema(), nullptr);
  auto out = transform->Apply(KafkaRows(), kBatchTimestampMs);
  ASSERT_STATUS_CODE(kInvalidArgument, out);
  EXPECT_EQ(out.status().message(),
            "expectation 'small' of main.default.t failed with ON VIOLATION FAIL UPDATE: "
            "(amount < 1000) is not true for the row {\"amount\":5000,\"offset\":1}");
}

TEST(SqlFlowTest, WithoutExpectationsOrQuarantineThereAreNoQualityMetrics) {
  ASSERT_OK_AND_ASSIGN(auto transform, TransformOf(R"(
CREATE STREAMING TABLE t AS SELECT offset FROM STREAM read_kafka(
  bootstrapServers => 'localhost:9092', subscribe => 'orders') WHERE offset > 2;)"));
  ASSERT_OK_AND_ASSIGN(TransformResult out, transform->Apply(KafkaRows(), kBatchTimestampMs));
  EXPECT_EQ(out.rows.num_rows(), 2);
  EXPECT_EQ(out.quarantined.num_rows(), 0);
  EXPECT_FALSE(transform->TakeMetrics().has_value());
}

TEST(SqlFlowTest, AnsiCastErrorsGoToQuarantineOrStopTheFlow) {
  constexpr char kCast[] = R"(
CREATE STREAMING TABLE t AS SELECT CAST(CAST(value AS STRING) AS INT) AS amount
FROM STREAM read_kafka(bootstrapServers => 'localhost:9092', subscribe => 'orders'))";
  // Not ANSI: "x" becomes NULL and is kept.
  ASSERT_OK_AND_ASSIGN(auto lenient, TransformOf(std::string(kCast) + " QUARANTINE INTO t_rejects;"));
  ASSERT_NE(lenient->quarantine_schema(), nullptr);
  ASSERT_OK_AND_ASSIGN(TransformResult kept, lenient->Apply(KafkaRows(), kBatchTimestampMs));
  EXPECT_EQ(kept.rows.num_rows(), 5);
  EXPECT_EQ(kept.quarantined.num_rows(), 0);
  // ANSI with a quarantine table: the row whose cast failed goes there, with the cast's message.
  ASSERT_OK_AND_ASSIGN(auto ansi, TransformOf("SET spark.sql.ansi.enabled = true;" +
                                              std::string(kCast) + " QUARANTINE INTO t_rejects;"));
  ASSERT_OK_AND_ASSIGN(TransformResult routed, ansi->Apply(KafkaRows(), kBatchTimestampMs));
  EXPECT_EQ(routed.rows.num_rows(), 4);
  ASSERT_EQ(routed.quarantined.num_rows(), 1);
  std::string row = delta::testing::JsonRows(routed.quarantined)[0];
  EXPECT_NE(row.find(R"("offset":4)"), std::string::npos) << row;
  EXPECT_NE(row.find("'x'"), std::string::npos) << row;
  EXPECT_EQ(ansi->TakeMetrics()->quarantined_records, 1);
  // ANSI without one: the flow stops, as Spark's query fails.
  ASSERT_OK_AND_ASSIGN(auto strict, TransformOf("SET spark.sql.ansi.enabled = true;" +
                                                std::string(kCast) + ";"));
  auto failed = strict->Apply(KafkaRows(), kBatchTimestampMs);
  ASSERT_STATUS_CODE(kInvalidArgument, failed);
  EXPECT_NE(failed.status().message().find("QUARANTINE INTO"), std::string::npos)
      << failed.status().ToString();
}

// A table column that is NOT NULL while the flow's expression may be null: checked per row. With
// a quarantine table such a row goes there with the reason; without one, the flow fails naming
// the column and the row.
TEST(SqlFlowTest, NullsForANotNullTableColumnAreQuarantinedOrStopTheFlow) {
  ASSERT_OK_AND_ASSIGN(auto quarantining, TransformOf(R"(
CREATE STREAMING TABLE t (CONSTRAINT any EXPECT (offset >= 0) ON VIOLATION QUARANTINE)
AS SELECT CAST(key AS STRING) AS k, offset
FROM STREAM read_kafka(bootstrapServers => 'localhost:9092', subscribe => 'orders');)"));
  ASSERT_OK(quarantining->CheckNotNull({"k"}));
  ASSERT_OK_AND_ASSIGN(TransformResult out, quarantining->Apply(KafkaRows(), kBatchTimestampMs));
  EXPECT_EQ(out.rows.num_rows(), 4);
  ASSERT_EQ(out.quarantined.num_rows(), 1);  // offset 2, whose key is NULL
  const std::string q = delta::testing::JsonRows(out.quarantined)[0];
  EXPECT_NE(q.find(R"("offset":2)"), std::string::npos) << q;
  EXPECT_NE(q.find("column k is NOT NULL in the table main.default.t"), std::string::npos) << q;

  ASSERT_OK_AND_ASSIGN(auto strict, TransformOf(R"(
CREATE STREAMING TABLE t AS SELECT CAST(key AS STRING) AS k, partition, offset
FROM STREAM read_kafka(bootstrapServers => 'localhost:9092', subscribe => 'orders');)"));
  ASSERT_OK(strict->CheckNotNull({"k"}));
  auto failed = strict->Apply(KafkaRows(), kBatchTimestampMs);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("column k is NOT NULL"), std::string::npos)
      << failed.status().ToString();
  EXPECT_NE(failed.status().message().find(R"("partition":0,"offset":2)"), std::string::npos)
      << failed.status().ToString();
}

}  // namespace
}  // namespace weir::stream
