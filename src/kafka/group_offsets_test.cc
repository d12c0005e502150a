// The per-partition commit rate limit (pure), and GroupOffsetCommitter against librdkafka's
// in-process mock cluster: offsets it commits are read back by an independent consumer with
// rd_kafka_committed, the rate limit holds back fast commits and Flush delivers the last ones.
#include "kafka/group_offsets.h"

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <thread>
#include <vector>

#include "base/testing.h"
#include "kafka/testing.h"

namespace weir::kafka {
namespace {

const TopicPartition kP0{"orders", 0};
const TopicPartition kP1{"orders", 1};

TEST(CommitRateLimiterTest, FirstCommitOfEveryPartitionGoesOutAtOnce) {
  CommitRateLimiter limiter;
  PartitionOffsets due = limiter.Offer({{kP0, 10}, {kP1, 20}}, 1000);
  EXPECT_EQ(due, (PartitionOffsets{{kP0, 10}, {kP1, 20}}));
  EXPECT_TRUE(limiter.pending().empty());
  EXPECT_EQ(limiter.MsUntilAllDue(1000), 0);
}

TEST(CommitRateLimiterTest, AtMostOneCommitPerPartitionEvery250Ms) {
  CommitRateLimiter limiter;
  ASSERT_EQ(limiter.Offer({{kP0, 10}}, 1000).size(), 1u);
  // 100 ms later: held back, the newest offset wins.
  EXPECT_TRUE(limiter.Offer({{kP0, 11}}, 1100).empty());
  EXPECT_TRUE(limiter.Offer({{kP0, 12}}, 1249).empty());
  EXPECT_EQ(limiter.pending(), (PartitionOffsets{{kP0, 12}}));
  EXPECT_EQ(limiter.MsUntilAllDue(1249), 1);
  EXPECT_TRUE(limiter.TakeDue(1249).empty());
  // 250 ms after the first commit: due.
  EXPECT_EQ(limiter.TakeDue(1250), (PartitionOffsets{{kP0, 12}}));
  EXPECT_TRUE(limiter.pending().empty());
  EXPECT_TRUE(limiter.Offer({{kP0, 13}}, 1300).empty());
  EXPECT_EQ(limiter.Offer({{kP0, 14}}, 1500), (PartitionOffsets{{kP0, 14}}));
}

TEST(CommitRateLimiterTest, NeverMoreThanFourPerSecondUnderAFlood) {
  CommitRateLimiter limiter;
  std::vector<int64_t> commit_times;
  for (int64_t t = 0; t < 10000; t += 7) {  // a batch every 7 ms for 10 s
    if (!limiter.Offer({{kP0, t + 1}}, t).empty()) commit_times.push_back(t);
  }
  ASSERT_GE(commit_times.size(), 38u);
  for (size_t i = 1; i < commit_times.size(); ++i) {
    EXPECT_GE(commit_times[i] - commit_times[i - 1], 250) << "commit " << i;
  }
  for (size_t i = 4; i < commit_times.size(); ++i) {
    EXPECT_GE(commit_times[i] - commit_times[i - 4], 1000) << "5 commits within a second";
  }
}

TEST(CommitRateLimiterTest, PartitionsAreLimitedIndependently) {
  CommitRateLimiter limiter;
  ASSERT_EQ(limiter.Offer({{kP0, 10}}, 1000).size(), 1u);
  // kP1 was never committed: it goes out; kP0 waits.
  EXPECT_EQ(limiter.Offer({{kP0, 11}, {kP1, 5}}, 1100), (PartitionOffsets{{kP1, 5}}));
  EXPECT_EQ(limiter.pending(), (PartitionOffsets{{kP0, 11}}));
  EXPECT_EQ(limiter.MsUntilAllDue(1100), 150);
  EXPECT_EQ(limiter.Offer({{kP0, 11}, {kP1, 6}}, 1260), (PartitionOffsets{{kP0, 11}}));
  EXPECT_EQ(limiter.pending(), (PartitionOffsets{{kP1, 6}}));
}

TEST(CommitRateLimiterTest, UnchangedOffsetsAreNotCommittedAgain) {
  CommitRateLimiter limiter;
  ASSERT_EQ(limiter.Offer({{kP0, 10}, {kP1, 3}}, 0).size(), 2u);
  EXPECT_EQ(limiter.Offer({{kP0, 10}, {kP1, 4}}, 1000), (PartitionOffsets{{kP1, 4}}));
  // A pending offset that returns to the committed one is dropped.
  EXPECT_EQ(limiter.Offer({{kP0, 11}}, 1000), (PartitionOffsets{{kP0, 11}}));
  EXPECT_TRUE(limiter.Offer({{kP0, 12}}, 1100).empty());
  EXPECT_TRUE(limiter.Offer({{kP0, 11}}, 1150).empty());
  EXPECT_TRUE(limiter.pending().empty());
  EXPECT_TRUE(limiter.TakeDue(5000).empty());
}

// ---------------------------------------------------------------------------------------------

// The orders topic (2 partitions) on a mock cluster.
class MockCluster : public testing::MockCluster {
 public:
  MockCluster() { CreateTopic("orders", 2); }
};

// The group's committed offsets as an independent consumer reads them (-1001: none).
PartitionOffsets Committed(const std::string& bootstraps, const std::string& group) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[256];
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "log_level", "0", err, sizeof(err));
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(2);
  rd_kafka_topic_partition_list_add(list, "orders", 0);
  rd_kafka_topic_partition_list_add(list, "orders", 1);
  PartitionOffsets out;
  if (rd_kafka_committed(rk, list, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    for (int i = 0; i < list->cnt; ++i) {
      out[TopicPartition{list->elems[i].topic, list->elems[i].partition}] = list->elems[i].offset;
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  return out;
}

Result<KafkaSourceOptions> Options(const std::string& bootstraps) {
  return KafkaSourceOptions::Parse({{"kafka.bootstrap.servers", bootstraps},
                                    {"subscribe", "orders"},
                                    {"weir.commitOffsetsToGroup", "lag-monitored"}});
}

TEST(GroupOffsetCommitterTest, CommitsReachTheGroupWithoutJoiningIt) {
  MockCluster cluster;
  ASSERT_OK_AND_ASSIGN(auto options, Options(cluster.bootstraps()));
  ASSERT_EQ(options.commit_offsets_to_group, std::optional<std::string>("lag-monitored"));
  std::vector<std::string> warnings;
  ASSERT_OK_AND_ASSIGN(auto committer, GroupOffsetCommitter::Open(
                                           options, "lag-monitored",
                                           [&](const std::string& w) { warnings.push_back(w); }));
  committer->Commit({{kP0, 42}, {kP1, 7}});
  ASSERT_OK(committer->Flush());
  EXPECT_EQ(committer->confirmed(), (PartitionOffsets{{kP0, 42}, {kP1, 7}}));
  EXPECT_EQ(Committed(cluster.bootstraps(), "lag-monitored"),
            (PartitionOffsets{{kP0, 42}, {kP1, 7}}));
  EXPECT_TRUE(warnings.empty()) << warnings.front();
}

TEST(GroupOffsetCommitterTest, FastCommitsAreHeldBackAndTheLastIsDeliveredOnDestruction) {
  MockCluster cluster;
  ASSERT_OK_AND_ASSIGN(auto options, Options(cluster.bootstraps()));
  int64_t now = 5000;
  GroupOffsetCommitterConfig config;
  config.now_ms = [&now] { return now; };
  {
    ASSERT_OK_AND_ASSIGN(auto committer,
                         GroupOffsetCommitter::Open(options, "g2", nullptr, config));
    committer->Commit({{kP0, 10}, {kP1, 10}});
    now += 10;
    committer->Commit({{kP0, 20}, {kP1, 10}});
    now += 10;
    committer->Commit({{kP0, 30}, {kP1, 15}});
    EXPECT_EQ(committer->commits_sent(), 1);  // the later two were within 250 ms
    now += 300;
    // The pending ones became due; they go out once the first commit's result is in.
    for (int i = 0; i < 500 && committer->commits_sent() < 2; ++i) {
      committer->Poll();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(committer->commits_sent(), 2);
    ASSERT_OK(committer->Flush());
    EXPECT_EQ(Committed(cluster.bootstraps(), "g2"), (PartitionOffsets{{kP0, 30}, {kP1, 15}}));
    now += 10;
    committer->Commit({{kP0, 31}, {kP1, 15}});  // held back; the destructor commits it
    EXPECT_EQ(committer->commits_sent(), 2);
  }
  EXPECT_EQ(Committed(cluster.bootstraps(), "g2"), (PartitionOffsets{{kP0, 31}, {kP1, 15}}));
}

// librdkafka may reorder two commits in flight (the first waiting for the coordinator), and the
// group keeps the last one the broker received: the committer sends the next commit only after
// the previous one's result.
TEST(GroupOffsetCommitterTest, OneCommitIsInFlightAtATime) {
  MockCluster cluster;
  ASSERT_OK_AND_ASSIGN(auto options, Options(cluster.bootstraps()));
  rd_kafka_mock_broker_set_rtt(cluster.get(), -1, 300);  // every response is slow
  int64_t now = 5000;
  GroupOffsetCommitterConfig config;
  config.now_ms = [&now] { return now; };
  ASSERT_OK_AND_ASSIGN(auto committer, GroupOffsetCommitter::Open(options, "g3", nullptr, config));
  committer->Commit({{kP0, 10}, {kP1, 10}});
  EXPECT_EQ(committer->commits_sent(), 1);
  now += 1000;  // the rate limit allows the next one; the first is still in flight
  committer->Commit({{kP0, 20}, {kP1, 25}});
  committer->Poll();
  EXPECT_EQ(committer->commits_sent(), 1);
  ASSERT_OK(committer->Flush());
  EXPECT_EQ(committer->commits_sent(), 2);
  rd_kafka_mock_broker_set_rtt(cluster.get(), -1, 0);
  EXPECT_EQ(Committed(cluster.bootstraps(), "g3"), (PartitionOffsets{{kP0, 20}, {kP1, 25}}));
}

TEST(GroupOffsetCommitterTest, AFailedCommitIsAWarningNotAnError) {
  MockCluster cluster;
  ASSERT_OK_AND_ASSIGN(auto options, Options(cluster.bootstraps()));
  // OffsetCommit (API key 8) fails with an authorization error.
  rd_kafka_mock_push_request_errors(cluster.get(), 8, 1,
                                    RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED);
  std::vector<std::string> warnings;
  GroupOffsetCommitterConfig config;
  config.flush_timeout_ms = 5000;
  ASSERT_OK_AND_ASSIGN(
      auto committer,
      GroupOffsetCommitter::Open(
          options, "denied", [&](const std::string& w) { warnings.push_back(w); }, config));
  committer->Commit({{kP0, 5}});
  Status st = committer->Flush();
  EXPECT_FALSE(st.ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("consumer group 'denied'"), std::string::npos) << warnings[0];
  EXPECT_EQ(committer->commits_failed(), 1);
  EXPECT_TRUE(committer->confirmed().empty());
}

TEST(GroupOffsetCommitterTest, OptionIsOffByDefaultAndValidated) {
  ASSERT_OK_AND_ASSIGN(auto plain, KafkaSourceOptions::Parse({{"kafka.bootstrap.servers", "h:1"},
                                                              {"subscribe", "orders"}}));
  EXPECT_FALSE(plain.commit_offsets_to_group.has_value());
  auto empty = KafkaSourceOptions::Parse({{"kafka.bootstrap.servers", "h:1"},
                                          {"subscribe", "orders"},
                                          {"WEIR.commitOffsetsToGroup", " "}});
  ASSERT_STATUS_CODE(kInvalidArgument, empty);
  auto batch = KafkaSourceOptions::Parse({{"kafka.bootstrap.servers", "h:1"},
                                          {"subscribe", "orders"},
                                          {"weir.commitOffsetsToGroup", "g"}},
                                         QueryKind::kBatch);
  ASSERT_STATUS_CODE(kInvalidArgument, batch);
}

}  // namespace
}  // namespace weir::kafka
