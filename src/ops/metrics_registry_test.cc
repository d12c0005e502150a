#include "ops/metrics_registry.h"

#include <gtest/gtest.h>

#include "ops/testing.h"

namespace weir::ops {
namespace {

using testing::KafkaBatch;

class MetricsRegistryTest : public ::testing::Test {
 protected:
  MetricsRegistryOptions Options() {
    MetricsRegistryOptions o;
    o.now_ms = [this] { return now_; };
    o.history_ms = 60 * 1000;
    o.max_samples_per_flow = 100;
    return o;
  }
  int64_t now_ = 1'000'000;
};

TEST_F(MetricsRegistryTest, KeepsTotalsAndPerPartitionLag) {
  MetricsRegistry registry(Options());
  registry.AddFlow("bronze");
  ASSERT_EQ(registry.Snapshot().size(), 1u);
  EXPECT_EQ(registry.Snapshot()[0].batches, 0);

  registry.Record(KafkaBatch("bronze", 0, now_, {}, {{0, 100}, {1, 50}}, {{0, 100}, {1, 80}}));
  now_ += 1000;
  registry.Record(KafkaBatch("bronze", 1, now_, {{0, 100}, {1, 50}}, {{0, 150}, {1, 90}},
                             {{0, 170}, {1, 90}, {2, 5}}));
  auto flows = registry.Snapshot();
  ASSERT_EQ(flows.size(), 1u);
  const FlowMetrics& f = flows[0];
  EXPECT_EQ(f.batches, 2);
  EXPECT_EQ(f.input_rows_total, 150 + 90);
  EXPECT_EQ(f.output_rows_total, 240);
  EXPECT_EQ(f.files_written_total, 4);
  ASSERT_EQ(f.partitions.size(), 3u);
  EXPECT_EQ(f.partitions[0].partition, "0");
  EXPECT_EQ(f.partitions[0].behind(), 20);
  EXPECT_EQ(f.partitions[1].behind(), 0);
  EXPECT_EQ(f.partitions[2].partition, "2");  // new partition: latest only, read from 0
  EXPECT_EQ(f.partitions[2].behind(), 5);
  ASSERT_EQ(f.history.size(), 2u);
  EXPECT_EQ(f.history[0].offsets_behind, 30);
  EXPECT_EQ(f.history[1].offsets_behind, 25);
  EXPECT_EQ(f.history[1].end_offsets_total, 240);
  EXPECT_EQ(f.history[1].latest_offsets_total, 265);
  EXPECT_EQ(f.history[1].duration_ms.at("addBatch"), 400);
  EXPECT_NE(f.last_progress_json.find("\"batchId\":1"), std::string::npos);
}

TEST_F(MetricsRegistryTest, TimeBehindIsTheAgeOfTheFirstSightOfUnreadOffsets) {
  MetricsRegistry registry(Options());
  registry.Record(KafkaBatch("bronze", 0, now_, {}, {{0, 10}}, {{0, 10}}));
  EXPECT_EQ(registry.Snapshot()[0].time_behind_ms, 0);  // caught up
  now_ += 1000;
  registry.Record(KafkaBatch("bronze", 1, now_, {{0, 10}}, {{0, 20}}, {{0, 40}}));  // 40 seen now
  const int64_t first_seen = now_;
  now_ += 1000;
  registry.Record(KafkaBatch("bronze", 2, now_, {{0, 20}}, {{0, 30}}, {{0, 60}}));
  now_ += 500;
  EXPECT_EQ(registry.Snapshot()[0].time_behind_ms, now_ - first_seen);
  now_ += 1000;
  // Offset 40 read: the oldest unread one (>= 40) was first seen with latest 60.
  registry.Record(KafkaBatch("bronze", 3, now_, {{0, 30}}, {{0, 45}}, {{0, 60}}));
  EXPECT_EQ(registry.Snapshot()[0].time_behind_ms, now_ - (first_seen + 1000));
  now_ += 1000;
  registry.Record(KafkaBatch("bronze", 4, now_, {{0, 45}}, {{0, 60}}, {{0, 60}}));
  EXPECT_EQ(registry.Snapshot()[0].time_behind_ms, 0);
}

TEST_F(MetricsRegistryTest, HistoryIsBoundedByTimeAndCount) {
  MetricsRegistry registry(Options());
  for (int i = 0; i < 300; ++i) {
    registry.Record(KafkaBatch("bronze", i, now_, {{0, i}}, {{0, i + 1}}, {{0, i + 1}}));
    now_ += 100;
  }
  auto f = registry.Snapshot()[0];
  EXPECT_EQ(f.history.size(), 100u);
  EXPECT_EQ(f.history.back().batch_id, 299);
  EXPECT_EQ(f.batches, 300);
  now_ += 120 * 1000;  // everything older than the hour-equivalent goes at the next record
  registry.Record(KafkaBatch("bronze", 300, now_, {{0, 300}}, {{0, 301}}, {{0, 301}}));
  f = registry.Snapshot()[0];
  ASSERT_EQ(f.history.size(), 1u);
  EXPECT_EQ(f.history[0].batch_id, 300);
  EXPECT_EQ(f.recent_progress_json.size(), 5u);
}

TEST_F(MetricsRegistryTest, ExpectationsQualityAndStateAccumulate) {
  MetricsRegistry registry(Options());
  for (int i = 0; i < 2; ++i) {
    auto p = KafkaBatch("silver", i, now_, {}, {}, {});
    p.extra["data_quality"] =
        R"({"dropped_records":3,"expectations":[{"name":"valid_amount","dataset":"silver",)"
        R"("passed_records":90,"failed_records":3},{"name":"has_id","dataset":"silver",)"
        R"("passed_records":93,"failed_records":0}],"quarantined_records":7})";
    p.extra["weir"] = R"({"filesWritten":1,"bytesWritten":1000,"commitRetries":1})";
    stream::StateOperatorProgress op;
    op.operator_name = "dedupeWithinWatermark";
    op.num_rows_total = 500 + i;
    op.memory_used_bytes = 4096;
    op.num_rows_dropped_by_watermark = 2;
    op.custom_metrics["numDroppedDuplicateRows"] = 4;
    p.state_operators.push_back(op);
    p.sources[0].metrics["weir.skippedOffsets"] = i == 0 ? "0" : "12";
    registry.Record(p);
  }
  const FlowMetrics f = registry.Snapshot()[0];
  ASSERT_EQ(f.expectations.size(), 2u);
  EXPECT_EQ(f.expectations[0].name, "valid_amount");
  EXPECT_EQ(f.expectations[0].passed_records, 180);
  EXPECT_EQ(f.expectations[0].failed_records, 6);
  EXPECT_EQ(f.expectations[1].passed_records, 186);
  EXPECT_EQ(f.dropped_records_total, 6);
  EXPECT_EQ(f.quarantined_records_total, 14);
  EXPECT_EQ(f.files_written_total, 2);
  EXPECT_EQ(f.engine_counters.at("bytesWritten"), 2000);
  EXPECT_EQ(f.engine_counters.at("commitRetries"), 2);
  ASSERT_EQ(f.state.size(), 1u);
  EXPECT_EQ(f.state[0].num_rows_total, 501);
  EXPECT_EQ(f.duplicates_dropped_total, 8);
  EXPECT_EQ(f.late_rows_dropped_total, 4);
  EXPECT_EQ(f.skipped_offsets, 12);
  EXPECT_EQ(f.data_loss_events_total, 1);
}

TEST_F(MetricsRegistryTest, DeltaSourceIsOneVersionPartition) {
  MetricsRegistry registry(Options());
  stream::QueryProgress p;
  p.name = "silver";
  p.timestamp_ms = now_;
  stream::SourceProgress s;
  s.end_offset = R"({"sourceVersion":1,"reservoirId":"abc","reservoirVersion":7,"index":-1})";
  s.latest_offset = R"({"sourceVersion":1,"reservoirId":"abc","reservoirVersion":9,"index":-1})";
  p.sources.push_back(s);
  registry.Record(p);
  const FlowMetrics f = registry.Snapshot()[0];
  ASSERT_EQ(f.partitions.size(), 1u);
  EXPECT_EQ(f.partitions[0].topic, "delta");
  EXPECT_EQ(f.partitions[0].partition, "version");
  EXPECT_EQ(f.partitions[0].behind(), 2);
}

TEST_F(MetricsRegistryTest, FinishedAndFailedFlows) {
  MetricsRegistry registry(Options());
  registry.Record(KafkaBatch("bronze", 0, now_, {}, {{0, 1}}, {{0, 1}}));
  registry.MarkFinished("bronze", "IOError: disk full");
  EXPECT_TRUE(registry.Snapshot()[0].finished);
  EXPECT_EQ(*registry.Snapshot()[0].failure, "IOError: disk full");
  registry.MarkFinished("x", "Endpoint=sb://ns/;SharedAccessKeyName=a;SharedAccessKey=secret");
  EXPECT_EQ(registry.Snapshot()[1].failure->find("secret"), std::string::npos);
}

TEST(ParseSourceOffsets, KafkaDeltaAndJunk) {
  auto kafka = ParseSourceOffsets(R"({"a":{"0":5,"10":7},"b":{"2":1}})");
  ASSERT_EQ(kafka.size(), 3u);
  EXPECT_EQ((kafka[{"a", "10"}]), 7);
  EXPECT_TRUE(ParseSourceOffsets("null").empty());
  EXPECT_TRUE(ParseSourceOffsets("not json").empty());
  EXPECT_TRUE(ParseSourceOffsets("").empty());
}

}  // namespace
}  // namespace weir::ops
