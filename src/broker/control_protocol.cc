#include "broker/control_protocol.h"

#include <charconv>
#include <vector>

#include "broker/protocol_names.h"

namespace weir::broker {
namespace {

constexpr std::string_view kHelp =
    "ping                                   answers ok\n"
    "bootstrap                              answers ok BOOTSTRAP_SERVERS\n"
    "create-topic NAME PARTITIONS [REPLICATION]\n"
    "request-errors API ERROR [ERROR ...]   the next requests of type API (Produce, Fetch,\n"
    "                                       ListOffsets, Metadata, FindCoordinator,\n"
    "                                       OffsetCommit, ...) fail with these errors, in order\n"
    "broker-request-errors BROKER API ERROR[@RTT_MS] ...   the same on one broker, with delays\n"
    "clear-request-errors API               forgets request-errors not yet used\n"
    "broker-down BROKER|all                 drops connections and refuses new ones\n"
    "broker-up BROKER|all\n"
    "rtt BROKER|all MILLISECONDS            delays every response\n"
    "leader TOPIC PARTITION BROKER|none     moves partition leadership\n"
    "follower TOPIC PARTITION BROKER        sets the preferred read replica\n"
    "follower-watermarks TOPIC PARTITION LOW HIGH   (-1 reverts to the leader's)\n"
    "topic-error TOPIC ERROR                Metadata answers this error for TOPIC (NO_ERROR "
    "clears)\n"
    "coordinator group|transaction KEY BROKER\n"
    "ERROR is a librdkafka error name (NOT_LEADER_FOR_PARTITION, REQUEST_TIMED_OUT,\n"
    "_TRANSPORT to drop the connection, ...) or a number.\n";

std::vector<std::string_view> SplitWords(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

template <typename Int>
Result<Int> ParseNumber(std::string_view text, std::string_view what) {
  Int value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument(std::string(what) + " must be an integer, got '" +
                                   std::string(text) + "'");
  }
  return value;
}

Result<int32_t> ParseBroker(std::string_view text, bool allow_all) {
  if (allow_all && text == "all") return EmbeddedBroker::kAllBrokers;
  return ParseNumber<int32_t>(text, "broker id");
}

Status NeedArgs(const std::vector<std::string_view>& words, size_t min, size_t max,
                std::string_view usage) {
  if (words.size() < min + 1 || words.size() > max + 1) {
    return Status::InvalidArgument("usage: " + std::string(usage));
  }
  return Status::OK();
}

// Returns the value to print after "ok" (often empty).
Result<std::string> Execute(EmbeddedBroker& broker, const std::vector<std::string_view>& words) {
  const std::string_view command = words[0];
  if (command == "ping") return std::string();
  if (command == "help") {
    return std::string(
        "commands: ping, bootstrap, create-topic, request-errors, broker-request-errors, "
        "clear-request-errors, broker-down, broker-up, rtt, leader, follower, "
        "follower-watermarks, topic-error, coordinator (weir broker ctl --help explains them)");
  }
  if (command == "bootstrap") return broker.bootstrap_servers();

  if (command == "create-topic") {
    WEIR_RETURN_NOT_OK(NeedArgs(words, 2, 3, "create-topic NAME PARTITIONS [REPLICATION]"));
    WEIR_ASSIGN_OR_RETURN(TopicSpec spec, ParseTopicSpec(std::string(words[1])));
    WEIR_ASSIGN_OR_RETURN(spec.partitions, ParseNumber<int>(words[2], "partition count"));
    if (words.size() > 3) {
      WEIR_ASSIGN_OR_RETURN(spec.replication_factor,
                            ParseNumber<int>(words[3], "replication factor"));
    }
    WEIR_RETURN_NOT_OK(broker.CreateTopic(spec));
    return std::string();
  }
  if (command == "request-errors") {
    WEIR_RETURN_NOT_OK(NeedArgs(words, 2, 1000, "request-errors API ERROR [ERROR ...]"));
    WEIR_ASSIGN_OR_RETURN(int16_t api_key, ApiKeyFromName(words[1]));
    std::vector<int> codes;
    for (size_t i = 2; i < words.size(); ++i) {
      WEIR_ASSIGN_OR_RETURN(int code, ErrorCodeFromName(words[i]));
      codes.push_back(code);
    }
    WEIR_RETURN_NOT_OK(broker.PushRequestErrors(api_key, codes));
    return std::string();
  }
  if (command == "broker-request-errors") {
    WEIR_RETURN_NOT_OK(
        NeedArgs(words, 3, 1000, "broker-request-errors BROKER API ERROR[@RTT_MS] ..."));
    WEIR_ASSIGN_OR_RETURN(int32_t broker_id, ParseBroker(words[1], /*allow_all=*/false));
    WEIR_ASSIGN_OR_RETURN(int16_t api_key, ApiKeyFromName(words[2]));
    std::vector<InjectedError> errors;
    for (size_t i = 3; i < words.size(); ++i) {
      std::string_view word = words[i];
      InjectedError e;
      if (size_t at = word.find('@'); at != std::string_view::npos) {
        WEIR_ASSIGN_OR_RETURN(e.rtt_ms, ParseNumber<int>(word.substr(at + 1), "delay"));
        word = word.substr(0, at);
      }
      WEIR_ASSIGN_OR_RETURN(e.error_code, ErrorCodeFromName(word));
      errors.push_back(e);
    }
    WEIR_RETURN_NOT_OK(broker.PushBrokerRequestErrors(broker_id, api_key, errors));
    return std::string();
  }
  if (command == "clear-request-errors") {
    WEIR_RETURN_NOT_OK(NeedArgs(words, 1, 1, "clear-request-errors API"));
    WEIR_ASSIGN_OR_RETURN(int16_t api_key, ApiKeyFromName(words[1]));
    WEIR_RETURN_NOT_OK(broker.ClearRequestErrors(api_key));
    return std::string();
  }
  if (command == "broker-down" || command == "broker-up") {
    WEIR_RETURN_NOT_OK(NeedArgs(words, 1, 1, std::string(command) + " BROKER|all"));
    WEIR_ASSIGN_OR_RETURN(int32_t broker_id, ParseBroker(words[1], /*allow_all=*/true));
    WEIR_RETURN_NOT_OK(command == "broker-down" ? broker.SetBrokerDown(broker_id)
                                                : broker.SetBrokerUp(broker_id));
    return std::string();
  }
  if (command == "rtt") {
    WEIR_RETURN_NOT_OK(NeedArgs(words, 2, 2, "rtt BROKER|all MILLISECONDS"));
    WEIR_ASSIGN_OR_RETURN(int32_t broker_id, ParseBroker(words[1], /*allow_all=*/true));
    WEIR_ASSIGN_OR_RETURN(int rtt_ms, ParseNumber<int>(words[2], "round-trip time"));
    WEIR_RETURN_NOT_OK(broker.SetBrokerRtt(broker_id, rtt_ms));
    return std::string();
  }
  if (command == "leader" || command == "follower") {
    WEIR_RETURN_NOT_OK(NeedArgs(words, 3, 3, std::string(command) + " TOPIC PARTITION BROKER"));
    WEIR_ASSIGN_OR_RETURN(int32_t partition, ParseNumber<int32_t>(words[2], "partition"));
    int32_t broker_id = -1;
    if (command == "follower" || words[3] != "none") {
      WEIR_ASSIGN_OR_RETURN(broker_id, ParseBroker(words[3], /*allow_all=*/false));
    }
    std::string topic(words[1]);
    WEIR_RETURN_NOT_OK(command == "leader"
                           ? broker.SetPartitionLeader(topic, partition, broker_id)
                           : broker.SetPartitionFollower(topic, partition, broker_id));
    return std::string();
  }
  if (command == "follower-watermarks") {
    WEIR_RETURN_NOT_OK(NeedArgs(words, 4, 4, "follower-watermarks TOPIC PARTITION LOW HIGH"));
    WEIR_ASSIGN_OR_RETURN(int32_t partition, ParseNumber<int32_t>(words[2], "partition"));
    WEIR_ASSIGN_OR_RETURN(int64_t low, ParseNumber<int64_t>(words[3], "low watermark"));
    WEIR_ASSIGN_OR_RETURN(int64_t high, ParseNumber<int64_t>(words[4], "high watermark"));
    WEIR_RETURN_NOT_OK(broker.SetFollowerWatermarks(std::string(words[1]), partition, low, high));
    return std::string();
  }
  if (command == "topic-error") {
    WEIR_RETURN_NOT_OK(NeedArgs(words, 2, 2, "topic-error TOPIC ERROR"));
    WEIR_ASSIGN_OR_RETURN(int code, ErrorCodeFromName(words[2]));
    WEIR_RETURN_NOT_OK(broker.SetTopicError(std::string(words[1]), code));
    return std::string();
  }
  if (command == "coordinator") {
    WEIR_RETURN_NOT_OK(NeedArgs(words, 3, 3, "coordinator group|transaction KEY BROKER"));
    WEIR_ASSIGN_OR_RETURN(int32_t broker_id, ParseBroker(words[3], /*allow_all=*/false));
    WEIR_RETURN_NOT_OK(
        broker.SetCoordinator(std::string(words[1]), std::string(words[2]), broker_id));
    return std::string();
  }
  return Status::InvalidArgument("unknown command '" + std::string(command) +
                                 "'; send 'help' for the list");
}

}  // namespace

std::string ExecuteControlCommand(EmbeddedBroker& broker, std::string_view line) {
  std::vector<std::string_view> words = SplitWords(line);
  if (words.empty()) return "error: empty command; send 'help' for the list";
  Result<std::string> result = Execute(broker, words);
  if (!result.ok()) return "error: " + result.status().message();
  return result->empty() ? "ok" : "ok " + *result;
}

std::string ControlHelp() { return std::string(kHelp); }

}  // namespace weir::broker
