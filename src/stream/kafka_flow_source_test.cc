// KafkaFlowSource's planning against librdkafka's mock cluster.
#include "stream/kafka_flow_source.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "base/testing.h"
#include "delta/table.h"
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

// A source of topic "events" on `cluster` from the earliest offsets (and `more` options),
// restored from a fresh checkpoint in `dir`.
struct EventsSource {
  kafka::KafkaSourceOptions options;
  std::unique_ptr<KafkaFlowSource> source;
  std::unique_ptr<Checkpoint> checkpoint;
};
Result<EventsSource> OpenEventsSource(const kafka::testing::MockCluster& cluster,
                                      const delta::testing::ScratchDir& dir,
                                      std::map<std::string, std::string> more = {}) {
  more["kafka.bootstrap.servers"] = cluster.bootstraps();
  more["subscribe"] = "events";
  more["startingOffsets"] = "earliest";
  EventsSource opened;
  WEIR_ASSIGN_OR_RETURN(opened.options, kafka::KafkaSourceOptions::Parse(more));
  WEIR_ASSIGN_OR_RETURN(opened.source,
                        KafkaFlowSource::Open(opened.options, "sales.bronze.events", nullptr));
  WEIR_ASSIGN_OR_RETURN(opened.checkpoint,
                        Checkpoint::Open(fs::LocalFileSystem::Default(), dir.Sub("checkpoint")));
  WEIR_RETURN_NOT_OK(opened.source->Restore(std::nullopt, *opened.checkpoint));
  return opened;
}

// Spark's availableNow takes the latest offsets once, at the start, and plans every batch of the
// run up to them without asking the broker again: records produced during the run wait for the
// next run, and progress reports those offsets as latestOffset.
TEST(KafkaFlowSourceTest, AvailableNowPlansEveryBatchUpToTheOffsetsTakenAtTheStart) {
  kafka::testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("events", 1));
  ASSERT_TRUE(cluster.Produce("events", 0, Values(0, 100)));
  delta::testing::ScratchDir dir;
  ASSERT_OK_AND_ASSIGN(EventsSource opened,
                       OpenEventsSource(cluster, dir, {{"maxOffsetsPerTrigger", "40"}}));
  KafkaFlowSource* source = opened.source.get();
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
  ASSERT_OK_AND_ASSIGN(auto next_run,
                       KafkaFlowSource::Open(opened.options, "sales.bronze.events", nullptr));
  ASSERT_OK(next_run->Restore(ends.back(), *opened.checkpoint));
  ASSERT_OK_AND_ASSIGN(auto end, next_run->PlanNext(trigger, 0));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(*end, R"({"events":{"0":140}})");
}

// startingOffsets 'latest' is resolved once, when the query first starts, and kept in the
// checkpoint (Spark's sources/0/0): a run that stopped before its first batch does not move the
// start to the then-latest offsets when the query starts again, or the records produced in
// between would never be read.
TEST(KafkaFlowSourceTest, LatestIsResolvedOnceWhenTheQueryFirstStarts) {
  kafka::testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("events", 1));
  ASSERT_TRUE(cluster.Produce("events", 0, Values(0, 10)));
  delta::testing::ScratchDir dir;
  fs::FileSystem* local = fs::LocalFileSystem::Default();
  ASSERT_OK_AND_ASSIGN(auto table, delta::Table::Create(local, dir.Sub("table"),
                                                        delta::testing::Ddl("v STRING"), {}));
  ASSERT_OK_AND_ASSIGN(auto options,
                       kafka::KafkaSourceOptions::Parse({{"kafka.bootstrap.servers", cluster.bootstraps()},
                                                         {"subscribe", "events"},
                                                         {"startingOffsets", "latest"}}));
  ASSERT_OK_AND_ASSIGN(Trigger trigger, Trigger::Parse("availableNow"));
  ASSERT_OK_AND_ASSIGN(auto checkpoint, Checkpoint::Open(local, dir.Sub("checkpoint")));
  {
    ASSERT_OK_AND_ASSIGN(auto first, KafkaFlowSource::Open(options, "sales.bronze.events", nullptr));
    ASSERT_OK(first->StartFresh(*checkpoint, *table->snapshot()));
    ASSERT_OK_AND_ASSIGN(auto end, first->PlanNext(trigger, 0));
    EXPECT_FALSE(end.has_value()) << "nothing after latest";
  }
  ASSERT_TRUE(cluster.Produce("events", 0, Values(10, 5)));
  ASSERT_OK_AND_ASSIGN(auto second, KafkaFlowSource::Open(options, "sales.bronze.events", nullptr));
  ASSERT_OK(second->StartFresh(*checkpoint, *table->snapshot()));
  ASSERT_OK_AND_ASSIGN(auto end, second->PlanNext(trigger, 0));
  ASSERT_TRUE(end.has_value()) << "the 5 records produced between the runs are read";
  EXPECT_EQ(*end, R"({"events":{"0":15}})");
}

// Keys reach the rows as produced: a null key stays null, an empty one empty, short keys (copied
// out of the client's buffers) and long ones (left there) byte for byte, and the rows outlive the
// source's reader.
TEST(KafkaFlowSourceTest, KeysReachTheRowsAsProduced) {
  kafka::testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("events", 1));
  const std::string long_key(300, 'k');
  ASSERT_TRUE(cluster.ProduceKeyed("events", 0,
                                   {{std::nullopt, "a"},
                                    {std::string(), "b"},
                                    {std::string("SO-1\0x", 6), "c"},
                                    {long_key, "d"}}));
  delta::testing::ScratchDir dir;
  ASSERT_OK_AND_ASSIGN(EventsSource opened, OpenEventsSource(cluster, dir));
  KafkaFlowSource* source = opened.source.get();
  ASSERT_OK_AND_ASSIGN(Trigger trigger, Trigger::Parse("availableNow"));
  ASSERT_OK_AND_ASSIGN(auto end, source->PlanNext(trigger, 0));
  ASSERT_TRUE(end.has_value());
  ASSERT_OK(source->PlanRead(*end));
  std::vector<columnar::Batch> batches;
  {
    ASSERT_OK_AND_ASSIGN(auto read, source->Read(1000));
    while (true) {
      ASSERT_OK_AND_ASSIGN(std::optional<columnar::Batch> batch, read());
      if (!batch) break;
      batches.push_back(std::move(*batch));
    }
  }
  source->FinishRead();
  std::vector<std::optional<std::string>> keys;
  for (const auto& batch : batches) {
    const columnar::Column& key = batch.columns[0];
    for (int64_t i = 0; i < key.size(); ++i) {
      keys.push_back(key.IsNull(i) ? std::nullopt
                                   : std::optional<std::string>(std::string(key.StringAt(i))));
    }
  }
  EXPECT_EQ(keys, (std::vector<std::optional<std::string>>{std::nullopt, std::string(),
                                                           std::string("SO-1\0x", 6), long_key}));
}

}  // namespace
}  // namespace weir::stream
