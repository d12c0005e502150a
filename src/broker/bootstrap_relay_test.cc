#include "broker/bootstrap_relay.h"

#include <gtest/gtest.h>

#include <sstream>

#include "base/testing.h"
#include "broker/embedded_broker.h"
#include "broker/sample_producer.h"
#include "broker/test_client.h"

namespace weir::broker {
namespace {

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

TEST(BootstrapRelayTest, ClientsBootstrapThroughTheFixedPort) {
  EmbeddedBrokerOptions options;
  options.topics.push_back({"orders", 2, 0});
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(options));
  ASSERT_OK_AND_ASSIGN(auto relay, BootstrapRelay::Start(0, Split(broker->bootstrap_servers())));
  EXPECT_GT(relay->port(), 0);
  EXPECT_EQ(relay->address(), "127.0.0.1:" + std::to_string(relay->port()));

  ProduceOptions produce;
  produce.bootstrap_servers = relay->address();
  produce.topic = "orders";
  produce.count = 500;
  ASSERT_OK_AND_ASSIGN(ProduceReport report, ProduceSampleEvents(produce));
  EXPECT_EQ(report.counts.total, 500u);
  ASSERT_OK_AND_ASSIGN(auto records, testing::ConsumeAll(relay->address(), "orders", 2));
  EXPECT_EQ(records.size(), 500u);
}

TEST(BootstrapRelayTest, SkipsBrokersThatAreDown) {
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(EmbeddedBrokerOptions()));
  ASSERT_OK(broker->CreateTopic({"orders", 1, 1}));
  ASSERT_OK(broker->SetPartitionLeader("orders", 0, 2));
  ASSERT_OK_AND_ASSIGN(auto relay, BootstrapRelay::Start(0, Split(broker->bootstrap_servers())));
  ASSERT_OK(broker->SetBrokerDown(1));
  ASSERT_OK_AND_ASSIGN(testing::Client client, testing::NewConsumer(relay->address()));
  ASSERT_OK_AND_ASSIGN(auto marks, testing::Watermarks(client.get(), "orders", 0));
  EXPECT_EQ(marks.second, 0);
}

TEST(BootstrapRelayTest, RefusesATakenPortAndBadTargets) {
  ASSERT_OK_AND_ASSIGN(auto relay, BootstrapRelay::Start(0, {"127.0.0.1:1"}));
  ASSERT_STATUS_CODE(kAlreadyExists, BootstrapRelay::Start(relay->port(), {"127.0.0.1:1"}));
  ASSERT_STATUS_CODE(kInvalidArgument, BootstrapRelay::Start(0, {"example.com:9092"}));
  ASSERT_STATUS_CODE(kInvalidArgument, BootstrapRelay::Start(0, {}));
  ASSERT_STATUS_CODE(kInvalidArgument, BootstrapRelay::Start(70000, {"127.0.0.1:1"}));
}

}  // namespace
}  // namespace weir::broker
