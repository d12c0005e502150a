#include "kafka/fetch_waker.h"

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <thread>

#include "kafka/testing.h"

namespace weir::kafka {
namespace {

constexpr int16_t kApiListOffsets = 2;

rd_kafka_t* NewConsumer(const std::string& bootstraps) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[256];
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps.c_str(), err, sizeof(err));
  rd_kafka_conf_set(conf, "log_level", "0", err, sizeof(err));
  return rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
}

// A round sends a ListOffsets request to the partition's broker: the error pushed for the next
// ListOffsets is taken by the waker's request, so a later lookup succeeds.
TEST(FetchWakerTest, ARoundSendsAnOffsetsRequestToTheBroker) {
  testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("t", 1));
  ASSERT_TRUE(cluster.Produce("t", 0, {"a", "b", "c"}));
  rd_kafka_t* rk = NewConsumer(cluster.bootstraps());
  ASSERT_NE(rk, nullptr);
  rd_kafka_mock_push_request_errors(cluster.get(), kApiListOffsets, 1,
                                    RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  {
    FetchWaker waker(rk);
    waker.Wake({{"t", 0}});
    for (int i = 0; i < 500 && waker.rounds() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(waker.rounds(), 1);
    waker.Wake({});  // nothing to wake: no round
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(waker.rounds(), 1);
  }
  int64_t low = -1, high = -1;
  EXPECT_EQ(rd_kafka_query_watermark_offsets(rk, "t", 0, &low, &high, 5000),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(high, 3);
  rd_kafka_destroy(rk);
}

// Wake() never blocks: while a round waits for a slow broker, further calls return at once and
// are dropped; the destructor waits for the round.
TEST(FetchWakerTest, WakeNeverBlocksTheCaller) {
  testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("t", 1));
  rd_kafka_t* rk = NewConsumer(cluster.bootstraps());
  ASSERT_NE(rk, nullptr);
  rd_kafka_mock_broker_set_rtt(cluster.get(), 1, 1000);
  {
    FetchWaker waker(rk);
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) waker.Wake({{"t", 0}});
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, std::chrono::milliseconds(500));  // a blocking call would take a round trip
  }
  rd_kafka_destroy(rk);
}

}  // namespace
}  // namespace weir::kafka
