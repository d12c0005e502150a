// EmbeddedBroker: an in-process Kafka-protocol cluster for trials and tests, built on librdkafka's
// mock cluster (rdkafka_mock.h): real TCP on 127.0.0.1 (ephemeral ports), real protocol, several
// brokers, consumer groups, fault injection. Limits (docs/broker.md): it keeps only the newest
// ~5 MiB / 100,000 batches per partition, offsetsForTimes finds nothing, no SASL/TLS.
// Thread-safe: every method may be called from any thread while the cluster runs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

struct rd_kafka_s;
struct rd_kafka_mock_cluster_s;

namespace weir::broker {

// A topic to create: "orders:4" is {name "orders", 4 partitions}.
struct TopicSpec {
  std::string name;
  int partitions = 1;
  int replication_factor = 0;  // 0: min(3, number of brokers)
};

// Parses "NAME" (1 partition) or "NAME:PARTITIONS".
Result<TopicSpec> ParseTopicSpec(std::string_view text);

struct EmbeddedBrokerOptions {
  int brokers = 3;                // broker ids are 1..brokers
  std::vector<TopicSpec> topics;  // created before Open returns
};

// One injected error, answered after an optional delay (for per-broker error stacks).
struct InjectedError {
  int error_code = 0;  // a Kafka / librdkafka error code (broker/protocol_names.h)
  int rtt_ms = 0;
};

class EmbeddedBroker {
 public:
  static constexpr int32_t kAllBrokers = -1;

  // Starts the cluster and creates options.topics. Unavailable when the listeners cannot start.
  static Result<std::unique_ptr<EmbeddedBroker>> Open(const EmbeddedBrokerOptions& options);
  // Stops the cluster; takes about a second with librdkafka 2.0.2 (share one across tests).
  ~EmbeddedBroker();
  EmbeddedBroker(const EmbeddedBroker&) = delete;
  EmbeddedBroker& operator=(const EmbeddedBroker&) = delete;

  // "127.0.0.1:PORT1,127.0.0.1:PORT2,...", one entry per broker.
  const std::string& bootstrap_servers() const { return bootstrap_servers_; }
  int broker_count() const { return broker_count_; }

  // AlreadyExists when the topic exists (also when a client auto-created it).
  Status CreateTopic(const TopicSpec& topic);

  // The next errors.size() requests of `api_key` (any broker) fail with these codes, in order.
  // _TRANSPORT (-195) makes the broker drop the connection instead of answering.
  Status PushRequestErrors(int16_t api_key, std::span<const int> error_codes);
  // Like PushRequestErrors but only on one broker, each answer delayed by its rtt_ms.
  Status PushBrokerRequestErrors(int32_t broker_id, int16_t api_key,
                                 std::span<const InjectedError> errors);
  // Forgets errors pushed for `api_key` that have not fired yet (cluster-wide stack only).
  Status ClearRequestErrors(int16_t api_key);

  // Down: the broker drops its connections and refuses new ones (leadership does not move).
  Status SetBrokerDown(int32_t broker_id);  // broker_id or kAllBrokers
  Status SetBrokerUp(int32_t broker_id);
  Status SetBrokerRtt(int32_t broker_id, int rtt_ms);

  // Moves a partition's leadership (-1: leaderless). Creates the topic when missing.
  Status SetPartitionLeader(const std::string& topic, int32_t partition, int32_t broker_id);
  // Sets the preferred read replica clients are told to fetch from (KIP-392).
  Status SetPartitionFollower(const std::string& topic, int32_t partition, int32_t broker_id);
  // Watermarks the follower reports (-1 reverts to the leader's), e.g. to make a follower lag.
  Status SetFollowerWatermarks(const std::string& topic, int32_t partition, int64_t low,
                               int64_t high);
  // Metadata requests for `topic` answer with this error (0 clears it).
  Status SetTopicError(const std::string& topic, int error_code);
  // Makes broker_id the coordinator of a consumer group ("group") or transactional id
  // ("transaction").
  Status SetCoordinator(const std::string& key_type, const std::string& key, int32_t broker_id);

 private:
  EmbeddedBroker() = default;
  Status CheckBroker(int32_t broker_id, bool allow_all) const;

  rd_kafka_s* handle_ = nullptr;  // owns the cluster's thread; destroyed last
  rd_kafka_mock_cluster_s* cluster_ = nullptr;
  std::string bootstrap_servers_;
  int broker_count_ = 0;
};

}  // namespace weir::broker
