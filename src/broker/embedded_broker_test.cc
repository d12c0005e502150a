#include "broker/embedded_broker.h"

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>

#include "base/testing.h"
#include "broker/protocol_names.h"
#include "broker/test_client.h"

namespace weir::broker {
namespace {

using testing::Client;
using testing::ConsumeAll;
using testing::NewConsumer;
using testing::Watermarks;

EmbeddedBrokerOptions OrdersCluster(int partitions = 4) {
  EmbeddedBrokerOptions options;
  options.topics.push_back({"orders", partitions, 0});
  return options;
}

// Sends `count` messages "v<i>" with keys "k<i % 10>" and waits for all acknowledgements.
void Produce(const std::string& bootstrap, const std::string& topic, int count, int value_size = 0,
             int32_t partition = RD_KAFKA_PARTITION_UA) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), errstr, sizeof(errstr));
  rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof(errstr));
  rd_kafka_conf_set(conf, "batch.num.messages", "100", errstr, sizeof(errstr));
  Client producer(rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr)));
  ASSERT_NE(producer, nullptr) << errstr;
  for (int i = 0; i < count; ++i) {
    std::string key = "k" + std::to_string(i % 10);
    std::string value = "v" + std::to_string(i);
    if (value_size > 0) value.resize(value_size, 'x');
    rd_kafka_resp_err_t err;
    while ((err = rd_kafka_producev(
                producer.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key.data(), key.size()),
                RD_KAFKA_V_VALUE(value.data(), value.size()), RD_KAFKA_V_END)) ==
           RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      rd_kafka_poll(producer.get(), 10);
    }
    ASSERT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
  }
  ASSERT_EQ(rd_kafka_flush(producer.get(), 20000), RD_KAFKA_RESP_ERR_NO_ERROR);
  ASSERT_EQ(rd_kafka_outq_len(producer.get()), 0);
}

// Partition count of `topic` as the cluster's metadata reports it, or an error.
Result<int> PartitionCount(const std::string& bootstrap, const std::string& topic,
                           int timeout_ms = 5000) {
  WEIR_ASSIGN_OR_RETURN(Client client, NewConsumer(bootstrap));
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(client.get(), topic.c_str(), nullptr);
  const rd_kafka_metadata_t* metadata = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(client.get(), 0, rkt, &metadata, timeout_ms);
  rd_kafka_topic_destroy(rkt);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable(std::string("metadata: ") + rd_kafka_err2name(err));
  }
  int count = metadata->topic_cnt == 1 && metadata->topics[0].err == 0
                  ? metadata->topics[0].partition_cnt
                  : -1;
  rd_kafka_metadata_destroy(metadata);
  return count;
}

TEST(ParseTopicSpecTest, ParsesNameAndPartitions) {
  ASSERT_OK_AND_ASSIGN(TopicSpec spec, ParseTopicSpec("orders:4"));
  EXPECT_EQ(spec.name, "orders");
  EXPECT_EQ(spec.partitions, 4);
  ASSERT_OK_AND_ASSIGN(spec, ParseTopicSpec("events.v2"));
  EXPECT_EQ(spec.name, "events.v2");
  EXPECT_EQ(spec.partitions, 1);
  ASSERT_STATUS_CODE(kInvalidArgument, ParseTopicSpec("orders:0"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseTopicSpec("orders:x"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseTopicSpec(":3"));
  ASSERT_STATUS_CODE(kInvalidArgument, ParseTopicSpec("bad name:3"));
}

TEST(EmbeddedBrokerTest, ListsOneBootstrapAddressPerBrokerAndCreatesTopics) {
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(OrdersCluster()));
  const std::string& bootstrap = broker->bootstrap_servers();
  EXPECT_EQ(std::count(bootstrap.begin(), bootstrap.end(), ','), 2) << bootstrap;
  EXPECT_EQ(bootstrap.rfind("127.0.0.1:", 0), 0u) << bootstrap;
  EXPECT_EQ(broker->broker_count(), 3);
  ASSERT_OK_AND_ASSIGN(int partitions, PartitionCount(bootstrap, "orders"));
  EXPECT_EQ(partitions, 4);
  ASSERT_OK(broker->CreateTopic({"more", 2, 1}));
  ASSERT_OK_AND_ASSIGN(partitions, PartitionCount(bootstrap, "more"));
  EXPECT_EQ(partitions, 2);
}

TEST(EmbeddedBrokerTest, CreatingAnExistingTopicIsAlreadyExists) {
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(OrdersCluster()));
  ASSERT_STATUS_CODE(kAlreadyExists, broker->CreateTopic({"orders", 4, 0}));
  ASSERT_STATUS_CODE(kInvalidArgument, broker->CreateTopic({"wide", 2, 5}));  // 3 brokers
}

TEST(EmbeddedBrokerTest, RejectsBadOptionsAndBrokerIds) {
  EmbeddedBrokerOptions none;
  none.brokers = 0;
  ASSERT_STATUS_CODE(kInvalidArgument, EmbeddedBroker::Open(none));
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(OrdersCluster()));
  ASSERT_STATUS_CODE(kInvalidArgument, broker->SetBrokerDown(4));
  ASSERT_STATUS_CODE(kInvalidArgument, broker->SetBrokerDown(0));
  ASSERT_STATUS_CODE(kInvalidArgument, broker->SetPartitionLeader("orders", 0, 9));
  ASSERT_STATUS_CODE(kInvalidArgument, broker->SetBrokerRtt(1, -5));
  ASSERT_STATUS_CODE(kInvalidArgument, broker->SetCoordinator("cluster", "g", 1));
}

TEST(EmbeddedBrokerTest, ProducedMessagesAreConsumedBack) {
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(OrdersCluster()));
  Produce(broker->bootstrap_servers(), "orders", 1000);
  ASSERT_OK_AND_ASSIGN(auto records, ConsumeAll(broker->bootstrap_servers(), "orders", 4));
  ASSERT_EQ(records.size(), 1000u);
  std::map<std::string, int32_t> partition_of_key;
  std::map<int32_t, int64_t> next_offset;
  std::map<std::string, int> values;
  for (const auto& r : records) {
    auto [it, inserted] = partition_of_key.emplace(r.key, r.partition);
    EXPECT_EQ(it->second, r.partition) << "key " << r.key << " in two partitions";
    EXPECT_EQ(r.offset, next_offset[r.partition]++) << "gap or reorder in " << r.partition;
    ++values[r.value];
  }
  EXPECT_EQ(values.size(), 1000u);
  EXPECT_GE(next_offset.size(), 2u);  // ten keys spread over several partitions
}

TEST(EmbeddedBrokerTest, KeepsOnlyTheNewestFiveMiBPerPartition) {
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(OrdersCluster(1)));
  // 8,000 records of 1 KiB in batches of 100: about 8 MiB, more than the mock log keeps.
  Produce(broker->bootstrap_servers(), "orders", 8000, 1024, 0);
  ASSERT_OK_AND_ASSIGN(Client client, NewConsumer(broker->bootstrap_servers()));
  ASSERT_OK_AND_ASSIGN(auto marks, Watermarks(client.get(), "orders", 0));
  EXPECT_EQ(marks.second, 8000);
  int64_t kept = marks.second - marks.first;
  EXPECT_GT(marks.first, 0) << "the oldest batches should have been dropped";
  // Each record takes about 1,045 bytes in its batch: 5 MiB holds about 5,000 of them.
  EXPECT_GT(kept, 4500);
  EXPECT_LT(kept, 5100);
}

TEST(EmbeddedBrokerTest, BrokerDownRefusesClientsUntilUp) {
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(OrdersCluster()));
  ASSERT_OK(broker->SetBrokerDown(EmbeddedBroker::kAllBrokers));
  ASSERT_STATUS_CODE(kUnavailable, PartitionCount(broker->bootstrap_servers(), "orders", 1500));
  ASSERT_OK(broker->SetBrokerUp(EmbeddedBroker::kAllBrokers));
  ASSERT_OK_AND_ASSIGN(int partitions, PartitionCount(broker->bootstrap_servers(), "orders"));
  EXPECT_EQ(partitions, 4);
}

TEST(EmbeddedBrokerTest, PushedRequestErrorsFailTheNextRequests) {
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(OrdersCluster()));
  ASSERT_OK_AND_ASSIGN(Client client, NewConsumer(broker->bootstrap_servers()));
  ASSERT_OK(Watermarks(client.get(), "orders", 0).status());  // connected, metadata known
  ASSERT_OK_AND_ASSIGN(int16_t list_offsets, ApiKeyFromName("ListOffsets"));
  ASSERT_OK_AND_ASSIGN(int authorization_failed, ErrorCodeFromName("TOPIC_AUTHORIZATION_FAILED"));
  // A watermark query sends two ListOffsets requests (earliest, latest); fail both. (With only
  // one failing, librdkafka 2.0.2 may report success: the last response's error wins.)
  const int errors[] = {authorization_failed, authorization_failed};
  ASSERT_OK(broker->PushRequestErrors(list_offsets, errors));
  auto failed = Watermarks(client.get(), "orders", 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("TOPIC_AUTHORIZATION_FAILED"), std::string::npos)
      << failed.status().ToString();
  ASSERT_OK(Watermarks(client.get(), "orders", 0).status());  // the stack is used up
}

TEST(EmbeddedBrokerTest, ClearedRequestErrorsDoNotFire) {
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(OrdersCluster()));
  ASSERT_OK_AND_ASSIGN(Client client, NewConsumer(broker->bootstrap_servers()));
  ASSERT_OK(Watermarks(client.get(), "orders", 0).status());
  const int errors[] = {29, 29, 29};  // TOPIC_AUTHORIZATION_FAILED
  ASSERT_OK(broker->PushRequestErrors(2, errors));
  ASSERT_OK(broker->ClearRequestErrors(2));
  ASSERT_OK(Watermarks(client.get(), "orders", 0).status());
}

TEST(EmbeddedBrokerTest, MovedLeaderStillServesTheData) {
  ASSERT_OK_AND_ASSIGN(auto broker, EmbeddedBroker::Open(OrdersCluster(1)));
  Produce(broker->bootstrap_servers(), "orders", 100);
  for (int32_t leader : {1, 2, 3}) {
    ASSERT_OK(broker->SetPartitionLeader("orders", 0, leader));
    ASSERT_OK_AND_ASSIGN(auto records, ConsumeAll(broker->bootstrap_servers(), "orders", 1));
    EXPECT_EQ(records.size(), 100u) << "leader " << leader;
  }
}

}  // namespace
}  // namespace weir::broker
