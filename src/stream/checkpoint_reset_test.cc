// `weir checkpoint reset` (stream/checkpoint_reset.h): plans that change nothing, the recorded
// Delta commit and the checkpoint batch, refusals, and what `weir validate` reads back. Offsets
// come from librdkafka's mock cluster, or from a fake lookup for timestamps (the mock answers -1
// to offsetsForTimes).
#include "stream/checkpoint_reset.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "base/testing.h"
#include "delta/table.h"
#include "delta/testing.h"
#include "fs/local_file_system.h"
#include "kafka/consumer.h"
#include "kafka/testing.h"
#include "stream/kafka_flow_source.h"

namespace weir::stream {
namespace {

constexpr char kFlow[] = "sales.bronze.events";

kafka::TopicPartition Events(int p) { return kafka::TopicPartition{"events", p}; }

std::vector<std::string> Values(int count) {
  std::vector<std::string> values;
  for (int i = 0; i < count; ++i) values.push_back("event " + std::to_string(i));
  return values;
}

// Per partition: the earliest and latest offsets and each record's timestamp.
class FakeLookup : public kafka::OffsetLookup {
 public:
  std::map<kafka::TopicPartition, std::vector<int64_t>> timestamps;  // record i at offset i
  Result<kafka::PartitionOffsets> EarliestOffsets(
      const std::set<kafka::TopicPartition>& ps) override {
    kafka::PartitionOffsets out;
    for (const auto& tp : ps) out[tp] = 0;
    return out;
  }
  Result<kafka::PartitionOffsets> LatestOffsets(
      const std::set<kafka::TopicPartition>& ps) override {
    kafka::PartitionOffsets out;
    for (const auto& tp : ps) out[tp] = static_cast<int64_t>(timestamps[tp].size());
    return out;
  }
  Result<kafka::PartitionOffsets> OffsetsForTimes(const kafka::PartitionTimestamps& ts) override {
    kafka::PartitionOffsets out;
    for (const auto& [tp, t] : ts) {
      out[tp] = kafka::kNoOffsetForTime;
      const auto& records = timestamps[tp];
      for (size_t i = 0; i < records.size(); ++i) {
        if (records[i] >= t) {
          out[tp] = static_cast<int64_t>(i);
          break;
        }
      }
    }
    return out;
  }
};

// A lakehouse with the flow's table (txns at `progress`) and, when `checkpoint_batches` > 0, a
// checkpoint whose batches 0..n-1 are committed, the last ending at `progress`.
struct Lake {
  delta::testing::ScratchDir dir;
  fs::FileSystem* fs = fs::LocalFileSystem::Default();
  FlowSpec flow;

  Status Make(const std::string& bootstraps, const kafka::PartitionOffsets& progress,
              int checkpoint_batches) {
    flow.name = kFlow;
    flow.table_path = dir.Sub("sales/bronze/events");
    flow.checkpoint_dir = dir.Sub("_checkpoints/sales.bronze.events");
    WEIR_ASSIGN_OR_RETURN(flow.kafka, kafka::KafkaSourceOptions::Parse(
                                          {{"kafka.bootstrap.servers", bootstraps},
                                           {"subscribe", "events"},
                                           {"startingOffsets", "earliest"}}));
    WEIR_ASSIGN_OR_RETURN(auto table, delta::Table::Create(fs, flow.table_path,
                                                           delta::testing::Ddl("v STRING"), {}));
    delta::AppendOptions append;
    for (const auto& [tp, offset] : progress) {
      append.txns.push_back({PartitionAppId(kFlow, tp), offset, std::nullopt});
    }
    WEIR_RETURN_NOT_OK(table->Append(std::vector<columnar::Batch>{}, append).status());
    if (checkpoint_batches > 0) {
      WEIR_ASSIGN_OR_RETURN(auto cp, Checkpoint::Open(fs, flow.checkpoint_dir));
      kafka::PartitionOffsets zero;
      for (const auto& [tp, offset] : progress) zero[tp] = 0;
      WEIR_RETURN_NOT_OK(cp->WriteInitialOffsets(0, kafka::PartitionOffsetsToJson(zero)));
      for (int b = 0; b < checkpoint_batches; ++b) {
        OffsetSeq seq;
        seq.batch_watermark_ms = 7;
        seq.conf = {{"spark.sql.shuffle.partitions", "5"}};
        seq.sources.push_back(kafka::PartitionOffsetsToJson(progress));
        WEIR_RETURN_NOT_OK(cp->WriteOffsets(b, seq));
        WEIR_RETURN_NOT_OK(cp->WriteCommit(b, CommitMetadata{7, false}));
      }
    }
    return Status::OK();
  }

  Result<std::shared_ptr<const delta::Snapshot>> Table() const {
    WEIR_ASSIGN_OR_RETURN(auto table, delta::Table::Open(fs, flow.table_path));
    return table->snapshot();
  }
};

ResetRequest Request(const std::string& option, const std::string& value, bool reprocess = false) {
  ResetRequest request;
  request.target = ParseResetTarget(option, value).ValueOrDie();
  request.allow_reprocess = reprocess;
  return request;
}

// The mock cluster with topic "events": 2 partitions of 100 records each.
struct Broker {
  kafka::testing::MockCluster cluster;
  std::unique_ptr<kafka::KafkaSource> source;
  std::set<kafka::TopicPartition> partitions;
  Status Start(int partition_count = 2) {
    if (!cluster.CreateTopic("events", partition_count)) return Status::Internal("topic");
    for (int p = 0; p < partition_count; ++p) {
      if (!cluster.Produce("events", p, Values(100))) return Status::Internal("produce");
    }
    WEIR_ASSIGN_OR_RETURN(auto options, kafka::KafkaSourceOptions::Parse(
                                            {{"kafka.bootstrap.servers", cluster.bootstraps()},
                                             {"subscribe", "events"}}));
    WEIR_ASSIGN_OR_RETURN(source, kafka::KafkaSource::Open(options));
    WEIR_ASSIGN_OR_RETURN(partitions, source->ListPartitions());
    return Status::OK();
  }
};

TEST(CheckpointResetTest, PlanChangesNothingAndApplyRecordsTheResetInTheTableAndTheCheckpoint) {
  Broker broker;
  ASSERT_OK(broker.Start());
  Lake lake;
  ASSERT_OK(lake.Make(broker.cluster.bootstraps(), {{Events(0), 40}, {Events(1), 30}}, 3));
  ASSERT_OK_AND_ASSIGN(ResetPlan plan,
                       PlanReset(lake.fs, lake.flow, Request("startingOffsets", "latest"),
                                 broker.partitions, *broker.source));
  EXPECT_TRUE(plan.refusals.empty());
  EXPECT_TRUE(plan.checkpoint_exists);
  EXPECT_EQ(plan.batch_id, 3);
  EXPECT_EQ(plan.table_version, 1);
  ASSERT_EQ(plan.partitions.size(), 2u);
  EXPECT_EQ(plan.partitions[0].current, 40);
  EXPECT_EQ(plan.partitions[0].current_from, "table");
  EXPECT_EQ(plan.partitions[0].target, 100);
  EXPECT_EQ(plan.skipped(), 60 + 70);
  EXPECT_EQ(plan.BackfillStartJson(), R"({"events":{"0":40,"1":30}})");
  EXPECT_EQ(plan.BackfillEndJson(), R"({"events":{"0":100,"1":100}})");
  // Planning wrote nothing.
  ASSERT_OK_AND_ASSIGN(auto before, lake.Table());
  EXPECT_EQ(before->version(), 1);

  ASSERT_OK_AND_ASSIGN(ResetResult result, ApplyReset(lake.fs, plan, "incident 42"));
  EXPECT_EQ(result.table_version, 2);
  EXPECT_EQ(result.batch_id, 3);
  ASSERT_OK_AND_ASSIGN(auto after, lake.Table());
  EXPECT_EQ(after->TxnVersion(PartitionAppId(kFlow, Events(0))), 100);
  EXPECT_EQ(after->TxnVersion(PartitionAppId(kFlow, Events(1))), 100);
  auto actions = delta::testing::ReadCommit(lake.flow.table_path, 2);
  EXPECT_TRUE(delta::testing::ActionsOf<delta::AddFile>(actions).empty());
  auto infos = delta::testing::ActionsOf<delta::CommitInfo>(actions);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].operation, kResetOperation);
  EXPECT_EQ(infos[0].operation_parameters["reason"], "incident 42");
  EXPECT_EQ(infos[0].operation_parameters["position"], "startingOffsets=latest");
  EXPECT_EQ(infos[0].operation_parameters["previousOffsets"], R"({"events":{"0":40,"1":30}})");
  EXPECT_EQ(infos[0].operation_parameters["skipped"],
            R"([{"from":40,"partition":0,"to":100,"topic":"events"},)"
            R"({"from":30,"partition":1,"to":100,"topic":"events"}])");
  EXPECT_EQ(infos[0].operation_metrics["numSkippedOffsets"], "130");

  // The checkpoint's batch 3 ends at the new positions, with the recorded confs and watermark;
  // the next run is batch 4 from there.
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::OpenExisting(lake.fs, lake.flow.checkpoint_dir));
  ASSERT_OK_AND_ASSIGN(RestartPlan restart, cp->PlanRestart());
  EXPECT_EQ(restart.kind, RestartPlan::Kind::kNextBatch);
  EXPECT_EQ(restart.batch_id, 4);
  EXPECT_EQ(restart.watermark_ms, 7);
  EXPECT_EQ(restart.start->sources[0], R"({"events":{"0":100,"1":100}})");
  EXPECT_EQ(restart.start->conf["spark.sql.shuffle.partitions"], "5");

  // The flow continues from the new positions.
  ASSERT_TRUE(broker.cluster.Produce("events", 0, Values(5)));
  ASSERT_OK_AND_ASSIGN(auto source, KafkaFlowSource::Open(*lake.flow.kafka, kFlow, nullptr));
  ASSERT_OK(source->Restore(restart.start->sources[0], *cp));
  ASSERT_OK_AND_ASSIGN(Trigger trigger, Trigger::Parse("availableNow"));
  ASSERT_OK_AND_ASSIGN(auto end, source->PlanNext(trigger, 0));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(*end, R"({"events":{"0":105,"1":100}})");
  EXPECT_EQ(source->StartJson(), R"({"events":{"0":100,"1":100}})");

  // What validate reads back.
  ASSERT_OK_AND_ASSIGN(auto skips, ReadResetSkips(lake.fs, lake.flow.table_path));
  ASSERT_EQ(skips.size(), 2u);
  EXPECT_EQ(skips[0].version, 2);
  EXPECT_EQ(skips[0].partition, 0);
  EXPECT_EQ(skips[0].from, 40);
  EXPECT_EQ(skips[0].to, 100);
  EXPECT_EQ(DescribeSkip(skips[1]),
            "skipped by checkpoint reset at version 2: partition 1 offsets [30, 100)");
}

TEST(CheckpointResetTest, AFlowWithoutACheckpointGetsANewOneWhoseBatchZeroIsTheReset) {
  Broker broker;
  ASSERT_OK(broker.Start());
  Lake lake;
  ASSERT_OK(lake.Make(broker.cluster.bootstraps(), {{Events(0), 40}}, 0));
  ASSERT_OK_AND_ASSIGN(
      ResetPlan plan,
      PlanReset(lake.fs, lake.flow, Request("startingOffsets", R"({"events":{"0":60,"1":-1}})"),
                broker.partitions, *broker.source));
  EXPECT_FALSE(plan.checkpoint_exists);
  EXPECT_EQ(plan.batch_id, 0);
  EXPECT_EQ(plan.partitions[1].current_from, "earliest");  // never written, no checkpoint
  EXPECT_EQ(plan.partitions[1].current, 0);
  EXPECT_EQ(plan.partitions[1].target, 100);
  ASSERT_OK(ApplyReset(lake.fs, plan, "lost checkpoint").status());
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::OpenExisting(lake.fs, lake.flow.checkpoint_dir));
  ASSERT_OK_AND_ASSIGN(auto initial, cp->ReadInitialOffsets(0));
  EXPECT_EQ(initial, std::optional<std::string>(R"({"events":{"0":60,"1":100}})"));
  ASSERT_OK_AND_ASSIGN(RestartPlan restart, cp->PlanRestart());
  EXPECT_EQ(restart.kind, RestartPlan::Kind::kNextBatch);
  EXPECT_EQ(restart.batch_id, 1);
  EXPECT_EQ(restart.start->sources[0], R"({"events":{"0":60,"1":100}})");
  EXPECT_EQ(restart.start->conf["spark.sql.streaming.multipleWatermarkPolicy"], "min");
}

TEST(CheckpointResetTest, ByTimestampResolvesAsStartingOffsetsByTimestampDoes) {
  FakeLookup lookup;
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < 50; ++i) lookup.timestamps[Events(p)].push_back(1000 + 10 * i + p);
  }
  Lake lake;
  ASSERT_OK(lake.Make("unused:9092", {{Events(0), 10}, {Events(1), 10}}, 1));
  std::set<kafka::TopicPartition> partitions = {Events(0), Events(1)};
  ASSERT_OK_AND_ASSIGN(ResetPlan plan, PlanReset(lake.fs, lake.flow,
                                                 Request("startingTimestamp", "1200"), partitions,
                                                 lookup));
  EXPECT_EQ(plan.TargetJson(), R"({"events":{"0":20,"1":20}})");  // 1200 and 1201
  ASSERT_OK_AND_ASSIGN(
      plan, PlanReset(lake.fs, lake.flow,
                      Request("startingOffsetsByTimestamp", R"({"events":{"0":1300,"1":1105}})"),
                      partitions, lookup));
  EXPECT_EQ(plan.TargetJson(), R"({"events":{"0":30,"1":11}})");
  // A partition missing from the JSON: Spark's message.
  auto missing = PlanReset(lake.fs, lake.flow,
                           Request("startingOffsetsByTimestamp", R"({"events":{"0":1300}})"),
                           partitions, lookup);
  ASSERT_STATUS_CODE(kInvalidArgument, missing);
  EXPECT_NE(missing.status().message().find("don't match what are assigned"), std::string::npos);
  // No offset at or after the time: an error, or latest with the strategy.
  ASSERT_STATUS_CODE(kInvalidArgument, PlanReset(lake.fs, lake.flow,
                                                 Request("startingTimestamp", "99999"), partitions,
                                                 lookup));
  ResetRequest latest;
  latest.target = ParseResetTarget("startingTimestamp", "99999", "latest").ValueOrDie();
  ASSERT_OK_AND_ASSIGN(plan, PlanReset(lake.fs, lake.flow, latest, partitions, lookup));
  EXPECT_EQ(plan.TargetJson(), R"({"events":{"0":50,"1":50}})");
}

TEST(CheckpointResetTest, RefusesBackwardsUnlessAllowedPastTheEndAndUncommittedBatches) {
  Broker broker;
  ASSERT_OK(broker.Start());
  Lake lake;
  ASSERT_OK(lake.Make(broker.cluster.bootstraps(), {{Events(0), 40}, {Events(1), 30}}, 1));
  const std::string back = R"({"events":{"0":20,"1":30}})";
  ASSERT_OK_AND_ASSIGN(ResetPlan plan,
                       PlanReset(lake.fs, lake.flow, Request("startingOffsets", back),
                                 broker.partitions, *broker.source));
  ASSERT_EQ(plan.refusals.size(), 1u);
  EXPECT_NE(plan.refusals[0].find("behind the table's progress (events-0 40 -> 20)"),
            std::string::npos);
  EXPECT_NE(plan.refusals[0].find("--allow-reprocess"), std::string::npos);
  ASSERT_STATUS_CODE(kInvalidArgument, ApplyReset(lake.fs, plan, "r"));
  ASSERT_OK_AND_ASSIGN(auto table, lake.Table());
  EXPECT_EQ(table->version(), 1) << "a refused reset writes nothing";

  ASSERT_OK_AND_ASSIGN(plan, PlanReset(lake.fs, lake.flow,
                                       Request("startingOffsets", back, /*reprocess=*/true),
                                       broker.partitions, *broker.source));
  EXPECT_TRUE(plan.refusals.empty());
  EXPECT_EQ(plan.reprocessed(), 20);
  ASSERT_OK(ApplyReset(lake.fs, plan, "re-read").status());
  ASSERT_OK_AND_ASSIGN(table, lake.Table());
  EXPECT_EQ(table->TxnVersion(PartitionAppId(kFlow, Events(0))), 20) << "moved back";
  auto infos = delta::testing::ActionsOf<delta::CommitInfo>(
      delta::testing::ReadCommit(lake.flow.table_path, 2));
  EXPECT_EQ(infos[0].operation_parameters["reprocessed"],
            R"([{"from":20,"partition":0,"to":40,"topic":"events"}])");
  EXPECT_EQ(infos[0].operation_parameters["skipped"], "[]");

  ASSERT_OK_AND_ASSIGN(plan, PlanReset(lake.fs, lake.flow,
                                       Request("startingOffsets", R"({"events":{"0":500,"1":30}})"),
                                       broker.partitions, *broker.source));
  ASSERT_EQ(plan.refusals.size(), 1u);
  EXPECT_NE(plan.refusals[0].find("past the end of events-0 at 500 (its end is 100)"),
            std::string::npos);

  // A batch logged but not committed (running, or stopped mid-batch).
  {
    ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::Open(lake.fs, lake.flow.checkpoint_dir));
    OffsetSeq seq;
    seq.sources.push_back(R"({"events":{"0":60,"1":60}})");
    ASSERT_OK(cp->WriteOffsets(2, seq));
  }
  ASSERT_OK_AND_ASSIGN(plan, PlanReset(lake.fs, lake.flow, Request("startingOffsets", "latest"),
                                       broker.partitions, *broker.source));
  ASSERT_EQ(plan.refusals.size(), 1u);
  EXPECT_NE(plan.refusals[0].find("batch 2 is logged"), std::string::npos);
}

TEST(CheckpointResetTest, RefusesAFlowWithStateAndOneThatDoesNotReadKafka) {
  Broker broker;
  ASSERT_OK(broker.Start());
  Lake lake;
  ASSERT_OK(lake.Make(broker.cluster.bootstraps(), {{Events(0), 40}, {Events(1), 30}}, 1));
  FlowSpec dedup = lake.flow;
  dedup.drop_duplicates = FlowSpec::Deduplication{false, {"v"}};
  ASSERT_OK_AND_ASSIGN(ResetPlan plan,
                       PlanReset(lake.fs, dedup, Request("startingOffsets", "latest"),
                                 broker.partitions, *broker.source));
  ASSERT_EQ(plan.refusals.size(), 1u);
  EXPECT_NE(plan.refusals[0].find("DROP DUPLICATES"), std::string::npos);

  FlowSpec silver = lake.flow;
  silver.kafka.reset();
  silver.delta = FlowSpec::DeltaTable{"sales.bronze.events", lake.flow.table_path, {}};
  auto refused = PlanReset(lake.fs, silver, Request("startingOffsets", "latest"),
                           broker.partitions, *broker.source);
  ASSERT_STATUS_CODE(kInvalidArgument, refused);
  EXPECT_NE(refused.status().message().find("not Kafka"), std::string::npos);

  FlowSpec never_ran = lake.flow;
  never_ran.table_path = lake.dir.Sub("sales/bronze/none");
  ASSERT_STATUS_CODE(kNotFound, PlanReset(lake.fs, never_ran, Request("startingOffsets", "latest"),
                                          broker.partitions, *broker.source));
}

// The table moved since the plan (a batch committed): the reset commit fails and the checkpoint
// is left alone.
TEST(CheckpointResetTest, ConflictsWithABatchThatCommittedSinceThePlan) {
  Broker broker;
  ASSERT_OK(broker.Start());
  Lake lake;
  ASSERT_OK(lake.Make(broker.cluster.bootstraps(), {{Events(0), 40}, {Events(1), 30}}, 1));
  ASSERT_OK_AND_ASSIGN(ResetPlan plan,
                       PlanReset(lake.fs, lake.flow, Request("startingOffsets", "latest"),
                                 broker.partitions, *broker.source));
  {
    ASSERT_OK_AND_ASSIGN(auto table, delta::Table::Open(lake.fs, lake.flow.table_path));
    delta::AppendOptions append;
    append.txns.push_back({PartitionAppId(kFlow, Events(0)), 50, std::nullopt});
    ASSERT_OK(table->Append(std::vector<columnar::Batch>{}, append).status());
  }
  ASSERT_STATUS_CODE(kConflict, ApplyReset(lake.fs, plan, "late"));
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::OpenExisting(lake.fs, lake.flow.checkpoint_dir));
  ASSERT_OK_AND_ASSIGN(auto ids, cp->OffsetIds());
  EXPECT_EQ(ids, (std::vector<int64_t>{0}));
}

// A reset that stopped after its Delta commit: planning it again skips nothing more and writes
// only the checkpoint's batch.
TEST(CheckpointResetTest, RunningTheSameResetAgainFinishesOneThatStoppedAfterItsCommit) {
  Broker broker;
  ASSERT_OK(broker.Start());
  Lake lake;
  ASSERT_OK(lake.Make(broker.cluster.bootstraps(), {{Events(0), 40}, {Events(1), 30}}, 1));
  ASSERT_OK_AND_ASSIGN(ResetPlan plan,
                       PlanReset(lake.fs, lake.flow, Request("startingOffsets", "latest"),
                                 broker.partitions, *broker.source));
  ASSERT_OK(ApplyReset(lake.fs, plan, "first").status());
  for (const char* sub : {"offsets/1", "commits/1"}) {
    ASSERT_OK(lake.fs->Delete(lake.flow.checkpoint_dir + "/" + sub));
  }
  ASSERT_OK_AND_ASSIGN(plan, PlanReset(lake.fs, lake.flow, Request("startingOffsets", "latest"),
                                       broker.partitions, *broker.source));
  EXPECT_TRUE(plan.refusals.empty());
  EXPECT_EQ(plan.skipped(), 0);
  EXPECT_FALSE(plan.table_changes());
  EXPECT_TRUE(plan.checkpoint_changes());
  ASSERT_OK_AND_ASSIGN(ResetResult result, ApplyReset(lake.fs, plan, "again"));
  EXPECT_EQ(result.table_version, -1) << "no second commit";
  ASSERT_OK_AND_ASSIGN(auto cp, Checkpoint::OpenExisting(lake.fs, lake.flow.checkpoint_dir));
  ASSERT_OK_AND_ASSIGN(RestartPlan restart, cp->PlanRestart());
  EXPECT_EQ(restart.batch_id, 2);
  EXPECT_EQ(restart.start->sources[0], R"({"events":{"0":100,"1":100}})");
  // Nothing left to do.
  ASSERT_OK_AND_ASSIGN(plan, PlanReset(lake.fs, lake.flow, Request("startingOffsets", "latest"),
                                       broker.partitions, *broker.source));
  EXPECT_FALSE(plan.changes());
  ASSERT_STATUS_CODE(kInvalidArgument, ApplyReset(lake.fs, plan, "third"));
}

TEST(CheckpointResetTest, ExplainMissingSplitsAGapIntoDeliberateParts) {
  std::vector<ResetSkip> skips = {{3, "events", 0, 100, 200}, {3, "events", 1, 0, 1000},
                                  {9, "events", 0, 150, 260}, {12, "events", 0, 300, 310}};
  auto parts = ExplainMissing(skips, "0", 50, 305);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].version, 3);
  EXPECT_EQ(parts[0].from, 100);
  EXPECT_EQ(parts[0].to, 200);
  EXPECT_EQ(parts[1].version, 9);  // the part of the second reset the first did not skip
  EXPECT_EQ(parts[1].from, 200);
  EXPECT_EQ(parts[1].to, 260);
  EXPECT_EQ(parts[2].version, 12);
  EXPECT_EQ(parts[2].from, 300);
  EXPECT_EQ(parts[2].to, 305);
  EXPECT_TRUE(ExplainMissing(skips, "2", 0, 100).empty());
  EXPECT_TRUE(ExplainMissing(skips, "0", 0, 100).empty());
}

TEST(CheckpointResetTest, ParseResetTargetUsesSparkOptionNames) {
  ASSERT_OK_AND_ASSIGN(ResetTarget t, ParseResetTarget("startingtimestamp", "1700000000000"));
  EXPECT_EQ(t.spec.kind, kafka::OffsetSpec::Kind::kGlobalTimestamp);
  EXPECT_EQ(t.spec.timestamp_ms, 1700000000000);
  EXPECT_EQ(t.description, "startingTimestamp=1700000000000");
  ASSERT_OK_AND_ASSIGN(t, ParseResetTarget("startingOffsets", "latest"));
  EXPECT_EQ(t.spec.kind, kafka::OffsetSpec::Kind::kLatest);
  ASSERT_STATUS_CODE(kInvalidArgument, ParseResetTarget("startingOffsets", "{not json"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseResetTarget("endingOffsets", "latest"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseResetTarget("startingTimestamp", "1", "sometimes"));
}

}  // namespace
}  // namespace weir::stream
