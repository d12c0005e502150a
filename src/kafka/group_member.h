// GroupMember: membership in a Kafka (or Event Hubs) consumer group without consuming through it,
// for weir's worker mode (`weir run --workers-group NAME`). The group's coordinator divides the
// subscribed topics' partitions among the members (librdkafka's round-robin assignor, eager
// rebalancing); Assignment() is what this worker owns now. Assigned partitions are paused at once
// and nothing is read or committed through the group: the worker reads with its own consumer
// (kafka/consumer.h) from where its Delta table's per-partition txns say, so ownership only
// decides who works on what — a stale owner's commit is refused by the table, not by the group.
// A background thread serves the group (heartbeats, rebalances). Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "kafka/offsets.h"
#include "kafka/options.h"

typedef struct rd_kafka_s rd_kafka_t;
typedef struct rd_kafka_topic_partition_list_s rd_kafka_topic_partition_list_t;

namespace weir::kafka {

class OAuthTokenSource;

class GroupMember {
 public:
  // Joins `group_id` subscribed to `topics` (the connection settings are the source's).
  // `log` gets one line per assignment change and per client error (scrubbed of secrets); it
  // is called from the background thread.
  static Result<std::unique_ptr<GroupMember>> Open(const KafkaSourceOptions& options,
                                                   std::string group_id,
                                                   std::vector<std::string> topics,
                                                   std::function<void(const std::string&)> log);
  // Leaves the group (its partitions go to the other members at once).
  ~GroupMember();

  GroupMember(const GroupMember&) = delete;
  GroupMember& operator=(const GroupMember&) = delete;

  // The partitions this member owns now (empty until the group has formed).
  std::set<TopicPartition> Assignment() const;
  // Changes the subscription (a subscribePattern source whose matching topics changed).
  Status Subscribe(std::vector<std::string> topics);
  const std::vector<std::string>& topics() const { return topics_; }
  const std::string& group_id() const { return group_id_; }

 private:
  GroupMember(std::string group_id, std::function<void(const std::string&)> log,
              Redactor redactor)
      : group_id_(std::move(group_id)), log_(std::move(log)), redactor_(std::move(redactor)) {}
  Status Init(const KafkaSourceOptions& options);
  void Serve();
  void Log(const std::string& line) const {
    if (log_) log_(line);
  }
  void OnRebalance(rd_kafka_t* rk, int err, rd_kafka_topic_partition_list_t* partitions);

  static void RebalanceCallback(rd_kafka_t* rk, int err, rd_kafka_topic_partition_list_t* partitions,
                                void* opaque);
  static void ErrorCallback(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static void TokenRefreshCallback(rd_kafka_t* rk, const char* config, void* opaque);

  const std::string group_id_;
  std::function<void(const std::string&)> log_;
  const Redactor redactor_;
  std::shared_ptr<OAuthTokenSource> token_source_;
  std::vector<std::string> topics_;
  rd_kafka_t* rk_ = nullptr;
  mutable std::mutex mutex_;
  std::set<TopicPartition> assignment_;  // GUARDED_BY(mutex_)
  std::atomic<bool> stop_{false};
  std::thread thread_;  // Serve(); last, so that it starts after and stops before the rest
};

}  // namespace weir::kafka
