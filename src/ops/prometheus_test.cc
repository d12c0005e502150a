#include "ops/prometheus.h"

#include <gtest/gtest.h>

#include "ops/testing.h"

namespace weir::ops {
namespace {

using testing::KafkaBatch;

bool HasLine(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(RenderPrometheus, FamiliesAndSamplesOfAFlow) {
  int64_t now = 1'700'000'000'000;
  MetricsRegistryOptions o;
  o.now_ms = [&now] { return now; };
  MetricsRegistry registry(o);
  auto p = KafkaBatch("sales.bronze.orders_raw", 3, now, {{0, 0}, {1, 0}}, {{0, 100}, {1, 40}},
                      {{0, 130}, {1, 40}});
  p.input_rows_per_second = 70.5;
  p.processed_rows_per_second = 280;
  p.sources[0].metrics["estimatedTotalBytesBehindLatest"] = "3000.0";
  p.extra["data_quality"] =
      R"({"dropped_records":1,"expectations":[{"name":"valid \"amount\"","dataset":"t",)"
      R"("passed_records":9,"failed_records":1}],"quarantined_records":2})";
  registry.Record(p);
  HealthReport health;
  health.healthy = false;
  FlowHealth fh;
  fh.flow = "sales.bronze.orders_raw";
  fh.healthy = false;
  fh.falling_behind = true;
  health.flows.push_back(fh);
  const std::string text = RenderPrometheus(registry.Snapshot(), health);
  const std::string flow = "flow=\"sales.bronze.orders_raw\"";
  EXPECT_EQ(text.rfind("# HELP weir_up ", 0), 0u);
  EXPECT_TRUE(HasLine(text, "weir_healthy 0"));
  EXPECT_TRUE(HasLine(text, "# TYPE weir_flow_input_rows_total counter"));
  EXPECT_TRUE(HasLine(text, "weir_flow_input_rows_total{" + flow + "} 140"));
  EXPECT_TRUE(HasLine(text, "weir_flow_batch_id{" + flow + "} 3"));
  EXPECT_TRUE(HasLine(text, "weir_flow_input_rows_per_second{" + flow + "} 70.5"));
  EXPECT_TRUE(HasLine(text, "weir_flow_processed_rows_per_second{" + flow + "} 280"));
  EXPECT_TRUE(HasLine(text, "weir_flow_batch_duration_seconds{" + flow + "} 0.5"));
  EXPECT_TRUE(
      HasLine(text, "weir_flow_batch_duration_part_seconds{" + flow + ",part=\"addBatch\"} 0.4"));
  EXPECT_TRUE(HasLine(text, "weir_flow_partition_offsets_behind{" + flow +
                                ",topic=\"orders\",partition=\"0\"} 30"));
  EXPECT_TRUE(HasLine(
      text, "weir_flow_partition_offsets_behind{" + flow + ",topic=\"orders\",partition=\"1\"} 0"));
  EXPECT_TRUE(HasLine(text, "weir_flow_offsets_behind{" + flow + "} 30"));
  EXPECT_TRUE(HasLine(text, "weir_flow_estimated_bytes_behind{" + flow + "} 3000"));
  EXPECT_TRUE(HasLine(text, "weir_flow_partition_estimated_bytes_behind{" + flow +
                                ",topic=\"orders\",partition=\"0\"} 3000"));
  EXPECT_TRUE(HasLine(text, "weir_flow_files_written_total{" + flow + "} 2"));
  EXPECT_TRUE(HasLine(text, "weir_flow_expectation_failed_records_total{" + flow +
                                ",expectation=\"valid \\\"amount\\\"\"} 1"));
  EXPECT_TRUE(HasLine(text, "weir_flow_quarantined_records_total{" + flow + "} 2"));
  EXPECT_TRUE(HasLine(text, "weir_flow_falling_behind{" + flow + "} 1"));
  EXPECT_TRUE(HasLine(text, "weir_flow_healthy{" + flow + "} 0"));
  // Every sample line belongs to a declared family.
  std::string family;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("# TYPE ", 0) == 0) family = line.substr(7, line.find(' ', 7) - 7);
    if (line.empty() || line[0] == '#') continue;
    EXPECT_EQ(line.rfind(family, 0), 0u) << line;
  }
}

TEST(EscapeLabelValue, EscapesQuotesBackslashesNewlines) {
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

}  // namespace
}  // namespace weir::ops
