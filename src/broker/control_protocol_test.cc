#include "broker/control_protocol.h"

#include <gtest/gtest.h>

#include "base/testing.h"

namespace weir::broker {
namespace {

// One cluster for the suite: starting and stopping one takes about a second.
class ControlProtocolTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    EmbeddedBrokerOptions options;
    options.topics.push_back({"orders", 4, 0});
    auto broker = EmbeddedBroker::Open(options);
    ASSERT_OK(broker.status());
    broker_ = std::move(*broker);
  }
  static void TearDownTestSuite() { broker_.reset(); }
  std::string Run(std::string_view line) { return ExecuteControlCommand(*broker_, line); }
  static inline std::unique_ptr<EmbeddedBroker> broker_;
};

TEST_F(ControlProtocolTest, AnswersOkForValidCommands) {
  EXPECT_EQ(Run("ping"), "ok");
  EXPECT_EQ(Run("  ping \r"), "ok");
  EXPECT_EQ(Run("bootstrap"), "ok " + broker_->bootstrap_servers());
  EXPECT_EQ(Run("create-topic payments 2"), "ok");
  EXPECT_EQ(Run("create-topic refunds 3 2"), "ok");
  EXPECT_EQ(Run("request-errors Fetch NOT_LEADER_OR_FOLLOWER _TRANSPORT"), "ok");
  EXPECT_EQ(Run("clear-request-errors Fetch"), "ok");
  EXPECT_EQ(Run("broker-request-errors 2 ListOffsets REQUEST_TIMED_OUT@100 7"), "ok");
  EXPECT_EQ(Run("broker-down 2"), "ok");
  EXPECT_EQ(Run("broker-up 2"), "ok");
  EXPECT_EQ(Run("broker-down all"), "ok");
  EXPECT_EQ(Run("broker-up all"), "ok");
  EXPECT_EQ(Run("rtt all 50"), "ok");
  EXPECT_EQ(Run("rtt 1 0"), "ok");
  EXPECT_EQ(Run("leader orders 0 3"), "ok");
  EXPECT_EQ(Run("leader orders 1 none"), "ok");
  EXPECT_EQ(Run("follower orders 0 2"), "ok");
  EXPECT_EQ(Run("follower-watermarks orders 0 0 -1"), "ok");
  EXPECT_EQ(Run("topic-error orders UNKNOWN_TOPIC_OR_PART"), "ok");
  EXPECT_EQ(Run("topic-error orders NO_ERROR"), "ok");
  EXPECT_EQ(Run("coordinator group weir-orders 2"), "ok");
  EXPECT_EQ(Run("help").rfind("ok commands: ping", 0), 0u);
}

TEST_F(ControlProtocolTest, AnswersErrorsWithAReason) {
  EXPECT_EQ(Run(""), "error: empty command; send 'help' for the list");
  EXPECT_EQ(Run("reboot"), "error: unknown command 'reboot'; send 'help' for the list");
  EXPECT_EQ(Run("broker-down 7"), "error: no broker 7; broker ids are 1..3 or all");
  EXPECT_EQ(Run("broker-down"), "error: usage: broker-down BROKER|all");
  EXPECT_EQ(Run("create-topic orders 4"), "error: create topic orders: topic already exists");
  EXPECT_EQ(Run("rtt 1 fast"), "error: round-trip time must be an integer, got 'fast'");
  EXPECT_EQ(Run("request-errors Fetch").rfind("error: usage: request-errors", 0), 0u);
  EXPECT_EQ(Run("request-errors Fetchh NOT_LEADER_FOR_PARTITION")
                .rfind("error: unknown request type 'Fetchh'", 0),
            0u);
  EXPECT_EQ(Run("request-errors Fetch BOGUS").rfind("error: unknown Kafka error name 'BOGUS'", 0),
            0u);
  EXPECT_EQ(Run("leader orders 0 all"), "error: broker id must be an integer, got 'all'");
  EXPECT_EQ(Run("coordinator cluster k 1").rfind("error: coordinator key type", 0), 0u);
}

}  // namespace
}  // namespace weir::broker
