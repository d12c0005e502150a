#include "stream/progress.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace weir::stream {
namespace {

TEST(ProgressTest, JsonHasSparkFieldNames) {
  QueryProgress p;
  p.id = "q";
  p.run_id = "r";
  p.name = "sales.bronze.orders_raw";
  p.timestamp_ms = 1780909200123;
  p.batch_id = 3;
  p.batch_duration_ms = 1500;
  p.num_input_rows = 300;
  p.input_rows_per_second = 150;
  p.processed_rows_per_second = 200;
  p.duration_ms = {{"addBatch", 1000}, {"walCommit", 20}};
  SourceProgress s;
  s.description = "KafkaV2[Subscribe[orders]]";
  s.start_offset = R"({"orders":{"0":1}})";
  s.end_offset = R"({"orders":{"0":301}})";
  s.num_input_rows = 300;
  s.metrics = {{"maxOffsetsBehindLatest", "7"}};
  p.sources.push_back(s);
  p.sink_description = "DeltaSink[/lake/t]";
  p.sink_num_output_rows = 300;
  p.extra["data_quality"] = R"({"dropped_records":1})";
  auto j = nlohmann::json::parse(p.ToJson());
  for (const char* key : {"id", "runId", "name", "timestamp", "batchId", "batchDuration", "numInputRows",
                          "inputRowsPerSecond", "processedRowsPerSecond", "durationMs", "stateOperators",
                          "sources", "sink", "data_quality"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["timestamp"], "2026-06-08T09:00:00.123Z");
  EXPECT_EQ(j["sources"][0]["endOffset"]["orders"]["0"], 301);
  EXPECT_EQ(j["sources"][0]["metrics"]["maxOffsetsBehindLatest"], "7");
  EXPECT_EQ(j["sink"]["numOutputRows"], 300);
  EXPECT_EQ(j["data_quality"]["dropped_records"], 1);
  EXPECT_EQ(p.Summary(), "sales.bronze.orders_raw batch 3: 300 rows in 1.50 s (200 rows/s), max lag 7 offsets, "
                         "1 dropped by expectations");
}

}  // namespace
}  // namespace weir::stream
