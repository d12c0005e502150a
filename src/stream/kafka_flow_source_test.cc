// KafkaFlowSource's planning against librdkafka's mock cluster.
#include "stream/kafka_flow_source.h"

#include <gtest/gtest.h>

#include "base/testing.h"
#include "delta/testing.h"
#include "fs/local_file_system.h"
#include "kafka/testing.h"
#include "stream/checkpoint.h"
#include "stream/progress.h"

namespace weir::stream {
namespace {

std::vector<std::string> Values(int from, int count) {
  std::vector<std::string> values;
  for (int i = from; i < from + count; ++i) values.push_back("event " + std::to_string(i));
  return values;
}

// Spark's availableNow takes the latest offsets once, at the start, and plans every batch of the
// run up to them without asking the broker again: records produced during the run wait for the
// next run, and progress reports those offsets as latestOffset.
TEST(KafkaFlowSourceTest, AvailableNowPlansEveryBatchUpToTheOffsetsTakenAtTheStart) {
  kafka::testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("events", 1));
  ASSERT_TRUE(cluster.Produce("events", 0, Values(0, 100)));
  ASSERT_OK_AND_ASSIGN(auto options, kafka::KafkaSourceOptions::Parse(
                                         {{"kafka.bootstrap.servers", cluster.bootstraps()},
                                          {"subscribe", "events"},
                                          {"startingOffsets", "earliest"},
                                          {"maxOffsetsPerTrigger", "40"}}));
  ASSERT_OK_AND_ASSIGN(auto source, KafkaFlowSource::Open(options, "sales.bronze.events", nullptr));
  delta::testing::ScratchDir dir;
  ASSERT_OK_AND_ASSIGN(auto checkpoint,
                       Checkpoint::Open(fs::LocalFileSystem::Default(), dir.Sub("checkpoint")));
  ASSERT_OK(source->Restore(std::nullopt, *checkpoint));
  ASSERT_OK_AND_ASSIGN(Trigger trigger, Trigger::Parse("availableNow"));

  std::vector<std::string> ends;
  std::vector<std::string> latest;
  for (int batch = 0; batch < 5; ++batch) {
    ASSERT_OK_AND_ASSIGN(auto end, source->PlanNext(trigger, 0));
    if (!end) break;
    SourceProgress progress;
    source->Report(*end, &progress);
    ends.push_back(*end);
    latest.push_back(progress.latest_offset);
    ASSERT_OK(source->Advance(*end));
    // Produced during the run, after the first batch was planned.
    if (batch == 0) {
      ASSERT_TRUE(cluster.Produce("events", 0, Values(100, 50)));
    }
  }
  EXPECT_EQ(ends, (std::vector<std::string>{R"({"events":{"0":40}})", R"({"events":{"0":80}})",
                                            R"({"events":{"0":100}})"}));
  for (const auto& l : latest) EXPECT_EQ(l, R"({"events":{"0":100}})");

  // The next run reads the rest.
  ASSERT_OK_AND_ASSIGN(auto next_run, KafkaFlowSource::Open(options, "sales.bronze.events", nullptr));
  ASSERT_OK(next_run->Restore(ends.back(), *checkpoint));
  ASSERT_OK_AND_ASSIGN(auto end, next_run->PlanNext(trigger, 0));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(*end, R"({"events":{"0":140}})");
}

}  // namespace
}  // namespace weir::stream
