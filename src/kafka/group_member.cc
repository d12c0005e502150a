#include "kafka/group_member.h"

#include <librdkafka/rdkafka.h>

#include <cstring>

#include "kafka/client_conf.h"
#include "kafka/oauth.h"

namespace weir::kafka {

namespace {

void IgnoreLog(const rd_kafka_t* /*rk*/, int /*level*/, const char* /*facility*/,
               const char* /*buf*/) {}

std::string Describe(const rd_kafka_topic_partition_list_t* partitions) {
  std::string out = "[";
  for (int i = 0; i < partitions->cnt; ++i) {
    if (i > 0) out += ", ";
    out += TopicPartition{partitions->elems[i].topic, partitions->elems[i].partition}.ToString();
  }
  return out + "]";
}

}  // namespace

Result<std::unique_ptr<GroupMember>> GroupMember::Open(
    const KafkaSourceOptions& options, std::string group_id, std::vector<std::string> topics,
    std::function<void(const std::string&)> log) {
  if (group_id.empty()) return Status::InvalidArgument("a worker group needs a name");
  std::unique_ptr<GroupMember> member(
      new GroupMember(std::move(group_id), std::move(log), options.redactor));
  WEIR_RETURN_NOT_OK(member->Init(options));
  WEIR_RETURN_NOT_OK(member->Subscribe(std::move(topics)));
  member->thread_ = std::thread([m = member.get()] { m->Serve(); });
  return member;
}

Status GroupMember::Init(const KafkaSourceOptions& options) {
  if (options.oauth) {
    WEIR_ASSIGN_OR_RETURN(token_source_, MakeTokenSource(*options.oauth, options.redactor));
  }
  // Assigned partitions are paused, so nothing is fetched; if a fetch slips in before the pause
  // it starts at the end and is small. The eager round-robin assignor, not cooperative-sticky:
  // librdkafka before 2.3 aborts when a cooperative-sticky member is closed before its first
  // assignment (confluentinc/librdkafka#4312; Debian 12 ships 2.0.2), which a worker stopped
  // while it joins would hit. Ownership moves are safe either way (the table decides).
  WEIR_ASSIGN_OR_RETURN(
      rd_kafka_conf_t * conf,
      NewClientConf(options, group_id_,
                    {{"partition.assignment.strategy", "roundrobin"},
                     {"auto.offset.reset", "latest"},
                     {"enable.partition.eof", "false"}},
                    {{"client.id", "weir-worker"}, {"queued.max.messages.kbytes", "1024"}}));
  rd_kafka_conf_set_opaque(conf, this);
  rd_kafka_conf_set_log_cb(conf, &IgnoreLog);  // errors arrive through the error callback
  rd_kafka_conf_set_error_cb(conf, [](rd_kafka_t* rk, int err, const char* reason, void* opaque) {
    ErrorCallback(rk, err, reason, opaque);
  });
  rd_kafka_conf_set_rebalance_cb(
      conf, [](rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* partitions,
               void* opaque) { RebalanceCallback(rk, err, partitions, opaque); });
  if (token_source_) {
    rd_kafka_conf_set_oauthbearer_token_refresh_cb(conf, &GroupMember::TokenRefreshCallback);
  }
  WEIR_ASSIGN_OR_RETURN(rk_, NewConsumerClient(conf, "of worker group " + group_id_,
                                               token_source_ != nullptr, redactor_));
  rd_kafka_poll_set_consumer(rk_);
  return Status::OK();
}

Status GroupMember::Subscribe(std::vector<std::string> topics) {
  if (topics.empty()) {
    return Status::InvalidArgument("worker group " + group_id_ + ": no topic to subscribe to");
  }
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(topics.size()));
  for (const std::string& topic : topics) {
    rd_kafka_topic_partition_list_add(list, topic.c_str(), RD_KAFKA_PARTITION_UA);
  }
  rd_kafka_resp_err_t err = rd_kafka_subscribe(rk_, list);
  rd_kafka_topic_partition_list_destroy(list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable("worker group " + group_id_ + ": cannot subscribe to the topics: " +
                               rd_kafka_err2str(err));
  }
  topics_ = std::move(topics);
  return Status::OK();
}

GroupMember::~GroupMember() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (rk_ != nullptr) {
    rd_kafka_consumer_close(rk_);  // leaves the group: a rebalance hands our partitions over now
    rd_kafka_destroy(rk_);
  }
}

std::set<TopicPartition> GroupMember::Assignment() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return assignment_;
}

void GroupMember::Serve() {
  while (!stop_) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, 200);
    if (m == nullptr) continue;
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      Log("WARN worker group " + group_id_ + ": " +
          redactor_.Scrub(std::string(rd_kafka_message_errstr(m))));
    }
    rd_kafka_message_destroy(m);  // a record fetched before its partition was paused: unused
  }
}

void GroupMember::OnRebalance(rd_kafka_t* rk, int err, rd_kafka_topic_partition_list_t* partitions) {
  const bool cooperative = std::strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
  std::string change;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    if (cooperative) {
      if (rd_kafka_error_t* error = rd_kafka_incremental_assign(rk, partitions)) {
        Log("WARN worker group " + group_id_ + ": assigning " + Describe(partitions) +
            " failed: " + rd_kafka_error_string(error));
        rd_kafka_error_destroy(error);
        return;
      }
    } else {
      rd_kafka_assign(rk, partitions);
    }
    rd_kafka_pause_partitions(rk, partitions);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!cooperative) assignment_.clear();
    for (int i = 0; i < partitions->cnt; ++i) {
      assignment_.insert({partitions->elems[i].topic, partitions->elems[i].partition});
    }
    change = "assigned " + Describe(partitions) + ", now owns " +
             std::to_string(assignment_.size()) + " partitions";
  } else {
    // Revoked (or an error): stop planning these partitions. A batch already running on them may
    // still commit; the table refuses it if the new owner committed first.
    if (cooperative && err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
      if (rd_kafka_error_t* error = rd_kafka_incremental_unassign(rk, partitions)) {
        rd_kafka_error_destroy(error);
      }
    } else {
      rd_kafka_assign(rk, nullptr);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (cooperative && err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
      for (int i = 0; i < partitions->cnt; ++i) {
        assignment_.erase({partitions->elems[i].topic, partitions->elems[i].partition});
      }
    } else {
      assignment_.clear();
    }
    change = (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS ? "revoked " : "lost ") +
             Describe(partitions) + ", now owns " + std::to_string(assignment_.size()) +
             " partitions";
  }
  if (partitions->cnt > 0) Log("worker group " + group_id_ + ": " + change);
}

void GroupMember::RebalanceCallback(rd_kafka_t* rk, int err,
                                    rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  static_cast<GroupMember*>(opaque)->OnRebalance(rk, err, partitions);
}

void GroupMember::ErrorCallback(rd_kafka_t* /*rk*/, int err, const char* reason, void* opaque) {
  auto* self = static_cast<GroupMember*>(opaque);
  if (self == nullptr) return;
  self->Log("WARN worker group " + self->group_id_ + ": " +
            rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err)) + ": " +
            self->redactor_.Scrub(std::string(reason)));
}

void GroupMember::TokenRefreshCallback(rd_kafka_t* rk, const char* /*config*/, void* opaque) {
  auto* self = static_cast<GroupMember*>(opaque);
  std::string failure = RefreshOAuthBearerToken(rk, *self->token_source_, self->redactor_);
  if (!failure.empty()) self->Log("WARN worker group " + self->group_id_ + ": " + failure);
}

}  // namespace weir::kafka
