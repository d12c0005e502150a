// GroupMember against librdkafka's mock cluster: two members split a topic's partitions between
// them without overlap, and when one leaves the other takes over every partition.
#include "kafka/group_member.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "base/testing.h"
#include "kafka/testing.h"

namespace weir::kafka {
namespace {

Result<KafkaSourceOptions> Options(const std::string& bootstraps) {
  return KafkaSourceOptions::Parse({{"kafka.bootstrap.servers", bootstraps},
                                    {"subscribe", "orders"},
                                    {"kafka.session.timeout.ms", "6000"},
                                    {"kafka.heartbeat.interval.ms", "500"}});
}

// Waits up to 30 s for `done`.
template <typename Done>
bool WaitFor(Done done) {
  for (int i = 0; i < 300; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::set<TopicPartition> AllOf(int partitions) {
  std::set<TopicPartition> all;
  for (int p = 0; p < partitions; ++p) all.insert({"orders", p});
  return all;
}

TEST(GroupMemberTest, MembersSplitThePartitionsAndTheLastOneTakesAll) {
  testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("orders", 6));
  ASSERT_OK_AND_ASSIGN(auto options, Options(cluster.bootstraps()));
  std::mutex mutex;
  std::vector<std::string> lines;
  auto log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex);
    lines.push_back(line);
  };
  ASSERT_OK_AND_ASSIGN(auto a, GroupMember::Open(options, "workers", {"orders"}, log));
  ASSERT_TRUE(WaitFor([&] { return a->Assignment() == AllOf(6); }));
  ASSERT_OK_AND_ASSIGN(auto b, GroupMember::Open(options, "workers", {"orders"}, log));
  // Both own some, none twice, together all (once the cooperative rebalance settled).
  ASSERT_TRUE(WaitFor([&] {
    auto pa = a->Assignment(), pb = b->Assignment();
    if (pa.empty() || pb.empty() || pa.size() + pb.size() != 6) return false;
    std::set<TopicPartition> both = pa;
    both.insert(pb.begin(), pb.end());
    return both == AllOf(6);
  })) << a->Assignment().size() << " + " << b->Assignment().size();
  a.reset();  // leaves the group
  ASSERT_TRUE(WaitFor([&] { return b->Assignment() == AllOf(6); }));
  std::lock_guard<std::mutex> lock(mutex);
  bool logged = false;
  for (const auto& line : lines) logged |= line.find("worker group workers: assigned") != std::string::npos;
  EXPECT_TRUE(logged);
}

TEST(GroupMemberTest, AnEmptyGroupNameOrNoTopicIsRefused) {
  testing::MockCluster cluster;
  ASSERT_OK_AND_ASSIGN(auto options, Options(cluster.bootstraps()));
  ASSERT_STATUS_CODE(kInvalidArgument, GroupMember::Open(options, "", {"orders"}, nullptr));
  ASSERT_STATUS_CODE(kInvalidArgument, GroupMember::Open(options, "g", {}, nullptr));
}

}  // namespace
}  // namespace weir::kafka
