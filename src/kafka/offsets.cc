#include "kafka/offsets.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

namespace weir::kafka {

namespace {

using Json = nlohmann::json;

std::optional<int32_t> ParsePartitionKey(const std::string& key) {
  int32_t value = 0;
  const char* end = key.data() + key.size();
  auto [ptr, ec] = std::from_chars(key.data(), end, value);
  if (ec != std::errc() || ptr != end || key.empty()) return std::nullopt;
  return value;
}

std::optional<int64_t> JsonInt64(const Json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  return std::nullopt;
}

// {"topic":{"<partition>":<long>}}; nullopt when the shape is wrong.
std::optional<PartitionOffsets> ParseNestedLongs(std::string_view text) {
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  PartitionOffsets out;
  for (const auto& [topic, partitions] : json.items()) {
    if (!partitions.is_object()) return std::nullopt;
    for (const auto& [key, value] : partitions.items()) {
      auto partition = ParsePartitionKey(key);
      auto number = JsonInt64(value);
      if (!partition || !number) return std::nullopt;
      out[TopicPartition{topic, *partition}] = *number;
    }
  }
  return out;
}

}  // namespace

std::string TopicPartition::ToString() const { return topic + "-" + std::to_string(partition); }

std::string FormatPartitionSet(const std::set<TopicPartition>& partitions) {
  std::string out = "Set(";
  bool first = true;
  for (const auto& tp : partitions) {
    if (!first) out += ", ";
    out += tp.ToString();
    first = false;
  }
  return out + ")";
}

std::string FormatOffsetMap(const PartitionOffsets& offsets) {
  std::string out = "Map(";
  bool first = true;
  for (const auto& [tp, offset] : offsets) {
    if (!first) out += ", ";
    out += tp.ToString() + " -> " + std::to_string(offset);
    first = false;
  }
  return out + ")";
}

std::set<TopicPartition> KeysOf(const PartitionOffsets& offsets) {
  std::set<TopicPartition> keys;
  for (const auto& [tp, offset] : offsets) keys.insert(tp);
  return keys;
}

std::string PartitionOffsetsToJson(const PartitionOffsets& offsets) {
  // Written by hand so the partition order is numeric (a JSON object keyed by strings would sort
  // "10" before "2").
  std::string out = "{";
  std::string current_topic;
  bool first_topic = true;
  bool first_partition = true;
  for (const auto& [tp, offset] : offsets) {
    if (first_topic || tp.topic != current_topic) {
      if (!first_topic) out += "},";
      out += Json(tp.topic).dump() + ":{";
      current_topic = tp.topic;
      first_topic = false;
      first_partition = true;
    }
    if (!first_partition) out += ",";
    out.push_back('"');
    out += std::to_string(tp.partition);
    out += "\":";
    out += std::to_string(offset);
    first_partition = false;
  }
  if (!first_topic) out += "}";
  return out + "}";
}

Result<PartitionOffsets> PartitionOffsetsFromJson(std::string_view json) {
  auto parsed = ParseNestedLongs(json);
  if (!parsed) {
    return Status::InvalidArgument(
        R"(Expected e.g. {"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}, got )" + std::string(json));
  }
  return std::move(*parsed);
}

Result<PartitionTimestamps> PartitionTimestampsFromJson(std::string_view json) {
  auto parsed = ParseNestedLongs(json);
  if (!parsed) {
    return Status::InvalidArgument(
        R"(Expected e.g. {"topicA": {"0": 123456789, "1": 123456789}, "topicB": {"0": 123456789, "1": 123456789}}, got )" +
        std::string(json));
  }
  return std::move(*parsed);
}

Result<std::vector<TopicPartition>> TopicPartitionsFromJson(std::string_view text) {
  auto fail = [&] {
    return Status::InvalidArgument(R"(Expected e.g. {"topicA":[0,1],"topicB":[0,1]}, got )" +
                                   std::string(text));
  };
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return fail();
  std::set<TopicPartition> partitions;
  for (const auto& [topic, list] : json.items()) {
    if (!list.is_array()) return fail();
    for (const auto& element : list) {
      auto number = JsonInt64(element);
      if (!number || *number < INT32_MIN || *number > INT32_MAX) return fail();
      partitions.insert(TopicPartition{topic, static_cast<int32_t>(*number)});
    }
  }
  return std::vector<TopicPartition>(partitions.begin(), partitions.end());
}

std::string TopicPartitionsToJson(const std::vector<TopicPartition>& partitions) {
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& tp : partitions) by_topic[tp.topic].push_back(tp.partition);
  std::string out = "{";
  bool first = true;
  for (auto& [topic, list] : by_topic) {
    std::sort(list.begin(), list.end());
    if (!first) out += ",";
    out += Json(topic).dump() + ":[";
    for (size_t i = 0; i < list.size(); ++i) {
      if (i > 0) out += ",";
      out += std::to_string(list[i]);
    }
    out += "]";
    first = false;
  }
  return out + "}";
}

}  // namespace weir::kafka
