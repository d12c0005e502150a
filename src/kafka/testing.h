// Test helpers of the kafka module: librdkafka's in-process mock cluster (the Kafka protocol over
// TCP on loopback), for tests that need a real broker to talk to. Tests only.
#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace weir::kafka::testing {

class MockCluster {
 public:
  explicit MockCluster(int brokers = 1) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[256];
    rd_kafka_conf_set(conf, "log_level", "0", err, sizeof(err));
    handle_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
    cluster_ = rd_kafka_mock_cluster_new(handle_, brokers);
    bootstraps_ = rd_kafka_mock_cluster_bootstraps(cluster_);
  }
  ~MockCluster() {
    rd_kafka_mock_cluster_destroy(cluster_);
    rd_kafka_destroy(handle_);
  }
  MockCluster(const MockCluster&) = delete;
  MockCluster& operator=(const MockCluster&) = delete;

  rd_kafka_mock_cluster_t* get() { return cluster_; }
  const std::string& bootstraps() const { return bootstraps_; }
  // True when the topic was created.
  bool CreateTopic(const std::string& topic, int partitions) {
    return rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, 1) ==
           RD_KAFKA_RESP_ERR_NO_ERROR;
  }
  // Produces `values` to one partition and waits for them; true when all were delivered.
  bool Produce(const std::string& topic, int partition, const std::vector<std::string>& values) {
    std::vector<std::pair<std::optional<std::string>, std::string>> records;
    for (const std::string& v : values) records.emplace_back(std::nullopt, v);
    return ProduceKeyed(topic, partition, records);
  }
  // The same with keys (nullopt: a null key).
  bool ProduceKeyed(
      const std::string& topic, int partition,
      const std::vector<std::pair<std::optional<std::string>, std::string>>& records) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[256];
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstraps_.c_str(), err, sizeof(err));
    rd_kafka_conf_set(conf, "log_level", "0", err, sizeof(err));
    rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
    if (producer == nullptr) return false;
    bool ok = true;
    for (const auto& [key, v] : records) {
      void* key_bytes = key ? const_cast<char*>(key->data()) : nullptr;
      const size_t key_size = key ? key->size() : 0;
      ok &= rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()),
                              RD_KAFKA_V_PARTITION(partition), RD_KAFKA_V_KEY(key_bytes, key_size),
                              RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                              RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR_NO_ERROR;
    }
    ok &= rd_kafka_flush(producer, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR;
    rd_kafka_destroy(producer);
    return ok;
  }

 private:
  rd_kafka_t* handle_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  std::string bootstraps_;
};

}  // namespace weir::kafka::testing
