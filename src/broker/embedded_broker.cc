#include "broker/embedded_broker.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "broker/protocol_names.h"

namespace weir::broker {
namespace {

// The cluster's own client handle logs connection churn; the CLI reports failures through
// Status instead, so librdkafka's log lines are dropped.
void DropLogLine(const rd_kafka_t*, int, const char*, const char*) {}

Status FromMockError(rd_kafka_resp_err_t err, const std::string& what) {
  switch (err) {
    case RD_KAFKA_RESP_ERR_NO_ERROR:
      return Status::OK();
    case RD_KAFKA_RESP_ERR__UNKNOWN_BROKER:
      return Status::NotFound(what + ": no such broker");
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
      return Status::InvalidArgument(what + ": invalid argument");
    case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS:
      return Status::AlreadyExists(what + ": topic already exists");
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
      return Status::NotFound(what + ": no such topic or partition");
    default:
      return Status::Internal(what + ": " + rd_kafka_err2name(err) + " (" + rd_kafka_err2str(err) +
                              ")");
  }
}

}  // namespace

Result<TopicSpec> ParseTopicSpec(std::string_view text) {
  TopicSpec spec;
  size_t colon = text.rfind(':');
  spec.name = std::string(text.substr(0, colon));
  if (colon != std::string_view::npos) {
    std::string_view count = text.substr(colon + 1);
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), spec.partitions);
    if (ec != std::errc() || end != count.data() + count.size() || spec.partitions < 1) {
      return Status::InvalidArgument(
          "topic spec '" + std::string(text) +
          "' needs a positive partition count after ':' (NAME:PARTITIONS)");
    }
  }
  if (spec.name.empty() || spec.name.size() > 249 ||
      !std::all_of(spec.name.begin(), spec.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
      })) {
    return Status::InvalidArgument("topic name in '" + std::string(text) +
                                   "' must be 1-249 characters of [a-zA-Z0-9._-]");
  }
  return spec;
}

Result<std::unique_ptr<EmbeddedBroker>> EmbeddedBroker::Open(const EmbeddedBrokerOptions& options) {
  if (options.brokers < 1 || options.brokers > 64) {
    return Status::InvalidArgument("the embedded broker needs 1 to 64 brokers, got " +
                                   std::to_string(options.brokers));
  }
  std::unique_ptr<EmbeddedBroker> broker(new EmbeddedBroker());
  broker->broker_count_ = options.brokers;

  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set_log_cb(conf, DropLogLine);
  if (rd_kafka_conf_set(conf, "client.id", "weir-embedded-broker", errstr, sizeof(errstr)) !=
      RD_KAFKA_CONF_OK) {
    rd_kafka_conf_destroy(conf);
    return Status::Internal(std::string("embedded broker configuration: ") + errstr);
  }
  broker->handle_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
  if (broker->handle_ == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::Internal(std::string("cannot create the embedded broker's client handle: ") +
                            errstr);
  }
  broker->cluster_ = rd_kafka_mock_cluster_new(broker->handle_, options.brokers);
  if (broker->cluster_ == nullptr) {
    return Status::Unavailable(
        "cannot start the embedded broker's listeners on 127.0.0.1; "
        "check that loopback TCP is available");
  }
  broker->bootstrap_servers_ = rd_kafka_mock_cluster_bootstraps(broker->cluster_);
  for (const TopicSpec& topic : options.topics) {
    WEIR_RETURN_NOT_OK(broker->CreateTopic(topic));
  }
  return broker;
}

EmbeddedBroker::~EmbeddedBroker() {
  if (cluster_ != nullptr) rd_kafka_mock_cluster_destroy(cluster_);
  if (handle_ != nullptr) rd_kafka_destroy(handle_);
}

Status EmbeddedBroker::CheckBroker(int32_t broker_id, bool allow_all) const {
  if (allow_all && broker_id == kAllBrokers) return Status::OK();
  if (broker_id < 1 || broker_id > broker_count_) {
    return Status::InvalidArgument("no broker " + std::to_string(broker_id) +
                                   "; broker ids are 1.." + std::to_string(broker_count_) +
                                   (allow_all ? " or all" : ""));
  }
  return Status::OK();
}

Status EmbeddedBroker::CreateTopic(const TopicSpec& topic) {
  if (topic.partitions < 1) {
    return Status::InvalidArgument("topic " + topic.name + " needs at least one partition");
  }
  int replication =
      topic.replication_factor > 0 ? topic.replication_factor : std::min(3, broker_count_);
  if (replication > broker_count_) {
    return Status::InvalidArgument("topic " + topic.name + ": replication factor " +
                                   std::to_string(replication) + " exceeds the " +
                                   std::to_string(broker_count_) + " brokers");
  }
  return FromMockError(
      rd_kafka_mock_topic_create(cluster_, topic.name.c_str(), topic.partitions, replication),
      "create topic " + topic.name);
}

Status EmbeddedBroker::PushRequestErrors(int16_t api_key, std::span<const int> error_codes) {
  if (error_codes.empty()) return Status::InvalidArgument("no errors to push");
  std::vector<rd_kafka_resp_err_t> errors;
  errors.reserve(error_codes.size());
  for (int code : error_codes) errors.push_back(static_cast<rd_kafka_resp_err_t>(code));
  rd_kafka_mock_push_request_errors_array(cluster_, api_key, errors.size(), errors.data());
  return Status::OK();
}

Status EmbeddedBroker::PushBrokerRequestErrors(int32_t broker_id, int16_t api_key,
                                               std::span<const InjectedError> errors) {
  WEIR_RETURN_NOT_OK(CheckBroker(broker_id, /*allow_all=*/false));
  if (errors.empty()) return Status::InvalidArgument("no errors to push");
  // The C API takes (error, rtt) pairs as varargs only; push them one at a time.
  for (const InjectedError& e : errors) {
    WEIR_RETURN_NOT_OK(FromMockError(
        rd_kafka_mock_broker_push_request_error_rtts(cluster_, broker_id, api_key, 1,
                                                     static_cast<rd_kafka_resp_err_t>(e.error_code),
                                                     e.rtt_ms),
        "push " + ApiKeyName(api_key) + " errors on broker " + std::to_string(broker_id)));
  }
  return Status::OK();
}

Status EmbeddedBroker::ClearRequestErrors(int16_t api_key) {
  rd_kafka_mock_clear_request_errors(cluster_, api_key);
  return Status::OK();
}

Status EmbeddedBroker::SetBrokerDown(int32_t broker_id) {
  WEIR_RETURN_NOT_OK(CheckBroker(broker_id, /*allow_all=*/true));
  return FromMockError(rd_kafka_mock_broker_set_down(cluster_, broker_id),
                       "set broker " + std::to_string(broker_id) + " down");
}

Status EmbeddedBroker::SetBrokerUp(int32_t broker_id) {
  WEIR_RETURN_NOT_OK(CheckBroker(broker_id, /*allow_all=*/true));
  return FromMockError(rd_kafka_mock_broker_set_up(cluster_, broker_id),
                       "set broker " + std::to_string(broker_id) + " up");
}

Status EmbeddedBroker::SetBrokerRtt(int32_t broker_id, int rtt_ms) {
  WEIR_RETURN_NOT_OK(CheckBroker(broker_id, /*allow_all=*/true));
  if (rtt_ms < 0) return Status::InvalidArgument("round-trip time must not be negative");
  return FromMockError(rd_kafka_mock_broker_set_rtt(cluster_, broker_id, rtt_ms),
                       "set round-trip time of broker " + std::to_string(broker_id));
}

Status EmbeddedBroker::SetPartitionLeader(const std::string& topic, int32_t partition,
                                          int32_t broker_id) {
  if (broker_id != -1) WEIR_RETURN_NOT_OK(CheckBroker(broker_id, /*allow_all=*/false));
  return FromMockError(
      rd_kafka_mock_partition_set_leader(cluster_, topic.c_str(), partition, broker_id),
      "set leader of " + topic + "[" + std::to_string(partition) + "]");
}

Status EmbeddedBroker::SetPartitionFollower(const std::string& topic, int32_t partition,
                                            int32_t broker_id) {
  WEIR_RETURN_NOT_OK(CheckBroker(broker_id, /*allow_all=*/false));
  return FromMockError(
      rd_kafka_mock_partition_set_follower(cluster_, topic.c_str(), partition, broker_id),
      "set follower of " + topic + "[" + std::to_string(partition) + "]");
}

Status EmbeddedBroker::SetFollowerWatermarks(const std::string& topic, int32_t partition,
                                             int64_t low, int64_t high) {
  return FromMockError(
      rd_kafka_mock_partition_set_follower_wmarks(cluster_, topic.c_str(), partition, low, high),
      "set follower watermarks of " + topic + "[" + std::to_string(partition) + "]");
}

Status EmbeddedBroker::SetTopicError(const std::string& topic, int error_code) {
  rd_kafka_mock_topic_set_error(cluster_, topic.c_str(),
                                static_cast<rd_kafka_resp_err_t>(error_code));
  return Status::OK();
}

Status EmbeddedBroker::SetCoordinator(const std::string& key_type, const std::string& key,
                                      int32_t broker_id) {
  if (key_type != "group" && key_type != "transaction") {
    return Status::InvalidArgument("coordinator key type must be 'group' or 'transaction', got '" +
                                   key_type + "'");
  }
  WEIR_RETURN_NOT_OK(CheckBroker(broker_id, /*allow_all=*/false));
  return FromMockError(
      rd_kafka_mock_coordinator_set(cluster_, key_type.c_str(), key.c_str(), broker_id),
      "set " + key_type + " coordinator for " + key);
}

}  // namespace weir::broker
