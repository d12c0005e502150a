#include "broker/protocol_names.h"

#include <librdkafka/rdkafka.h>

#include <array>
#include <cctype>
#include <charconv>

namespace weir::broker {
namespace {

// Request types by Kafka's protocol names (kafka.apache.org/protocol#protocol_api_keys).
constexpr std::array<std::string_view, 48> kApiKeyNames = {
    "Produce",
    "Fetch",
    "ListOffsets",
    "Metadata",
    "LeaderAndIsr",
    "StopReplica",
    "UpdateMetadata",
    "ControlledShutdown",
    "OffsetCommit",
    "OffsetFetch",
    "FindCoordinator",
    "JoinGroup",
    "Heartbeat",
    "LeaveGroup",
    "SyncGroup",
    "DescribeGroups",
    "ListGroups",
    "SaslHandshake",
    "ApiVersions",
    "CreateTopics",
    "DeleteTopics",
    "DeleteRecords",
    "InitProducerId",
    "OffsetForLeaderEpoch",
    "AddPartitionsToTxn",
    "AddOffsetsToTxn",
    "EndTxn",
    "WriteTxnMarkers",
    "TxnOffsetCommit",
    "DescribeAcls",
    "CreateAcls",
    "DeleteAcls",
    "DescribeConfigs",
    "AlterConfigs",
    "AlterReplicaLogDirs",
    "DescribeLogDirs",
    "SaslAuthenticate",
    "CreatePartitions",
    "CreateDelegationToken",
    "RenewDelegationToken",
    "ExpireDelegationToken",
    "DescribeDelegationToken",
    "DeleteGroups",
    "ElectLeaders",
    "IncrementalAlterConfigs",
    "AlterPartitionReassignments",
    "ListPartitionReassignments",
    "OffsetDelete",
};

constexpr std::string_view kErrorPrefix = "RD_KAFKA_RESP_ERR_";

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

template <typename Int>
bool ParseInteger(std::string_view text, Int* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<int16_t> ApiKeyFromName(std::string_view name) {
  int16_t number = 0;
  if (ParseInteger(name, &number)) {
    if (number < 0)
      return Status::InvalidArgument("request type must not be negative: " + std::string(name));
    return number;
  }
  for (size_t i = 0; i < kApiKeyNames.size(); ++i) {
    if (EqualsIgnoreCase(kApiKeyNames[i], name)) return static_cast<int16_t>(i);
  }
  return Status::InvalidArgument("unknown request type '" + std::string(name) +
                                 "'; use a Kafka API name such as Produce, Fetch, ListOffsets, "
                                 "Metadata, OffsetCommit, OffsetFetch, FindCoordinator, "
                                 "JoinGroup, Heartbeat, SyncGroup, InitProducerId or a number");
}

std::string ApiKeyName(int16_t api_key) {
  if (api_key >= 0 && static_cast<size_t>(api_key) < kApiKeyNames.size()) {
    return std::string(kApiKeyNames[api_key]);
  }
  return std::to_string(api_key);
}

Result<int> ErrorCodeFromName(std::string_view name) {
  int number = 0;
  if (ParseInteger(name, &number)) return number;
  std::string_view bare = name;
  if (bare.size() > kErrorPrefix.size() &&
      EqualsIgnoreCase(bare.substr(0, kErrorPrefix.size()), kErrorPrefix)) {
    bare.remove_prefix(kErrorPrefix.size());
  }
  // Kafka renamed NOT_LEADER_FOR_PARTITION (librdkafka 2.0.2's name) to NOT_LEADER_OR_FOLLOWER.
  if (EqualsIgnoreCase(bare, "NOT_LEADER_OR_FOLLOWER")) bare = "NOT_LEADER_FOR_PARTITION";
  if (EqualsIgnoreCase(bare, "NO_ERROR")) return 0;
  const rd_kafka_err_desc* descs = nullptr;
  size_t count = 0;
  rd_kafka_get_err_descs(&descs, &count);
  for (size_t i = 0; i < count; ++i) {
    if (descs[i].name != nullptr && EqualsIgnoreCase(descs[i].name, bare)) return descs[i].code;
  }
  return Status::InvalidArgument("unknown Kafka error name '" + std::string(name) +
                                 "'; use a librdkafka name such as NOT_LEADER_FOR_PARTITION, "
                                 "OFFSET_OUT_OF_RANGE, REQUEST_TIMED_OUT, "
                                 "COORDINATOR_NOT_AVAILABLE, _TRANSPORT or a number");
}

std::string ErrorCodeName(int code) {
  if (code == 0) return "NO_ERROR";
  const char* name = rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(code));
  if (name == nullptr || *name == '\0') return std::to_string(code);
  return name;
}

}  // namespace weir::broker
