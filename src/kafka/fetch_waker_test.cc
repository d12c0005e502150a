#include "kafka/fetch_waker.h"

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <memory>
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
  // A consumer knows its partitions' leaders; a round waits too briefly to look them up.
  const rd_kafka_metadata_t* metadata = nullptr;
  ASSERT_EQ(rd_kafka_metadata(rk, 1, nullptr, &metadata, 5000), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_metadata_destroy(metadata);
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
// are dropped. Neither the rounds nor the destructor wait for a late answer.
TEST(FetchWakerTest, ASlowAnswerHoldsNothingUp) {
  testing::MockCluster cluster;
  ASSERT_TRUE(cluster.CreateTopic("t", 1));
  rd_kafka_t* rk = NewConsumer(cluster.bootstraps());
  ASSERT_NE(rk, nullptr);
  const rd_kafka_metadata_t* metadata = nullptr;
  ASSERT_EQ(rd_kafka_metadata(rk, 1, nullptr, &metadata, 5000), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_metadata_destroy(metadata);
  rd_kafka_mock_broker_set_rtt(cluster.get(), 1, 1000);
  auto waker = std::make_unique<FetchWaker>(rk);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) waker->Wake({{"t", 0}});
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(500));  // a blocking call would take a round trip
  for (int i = 0; i < 500 && waker->rounds() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int64_t first = waker->rounds();
  ASSERT_GE(first, 1);
  for (int i = 0; i < 500 && waker->rounds() == first; ++i) {
    waker->Wake({{"t", 0}});  // a round per call once the last one stopped waiting
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GT(waker->rounds(), first);
  waker->Wake({{"t", 0}});
  start = std::chrono::steady_clock::now();
  waker.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::milliseconds(500));  // the answer takes a second
  rd_kafka_destroy(rk);
}

}  // namespace
}  // namespace weir::kafka
