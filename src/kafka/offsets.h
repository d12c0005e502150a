// Kafka positions as Spark names them: TopicPartition, per-partition offset maps and [from, until)
// offset ranges, plus the offset JSON Spark writes into checkpoints ({"t":{"0":23,"1":-1}}).
// Offsets stored for a partition are the NEXT offset to read (last read + 1), as in Spark.
// Value types; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace weir::kafka {

// Special offsets in Spark's offset JSON (KafkaOffsetRangeLimit): -2 earliest, -1 latest.
inline constexpr int64_t kEarliestOffset = -2;
inline constexpr int64_t kLatestOffset = -1;

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;

  // Kafka's TopicPartition.toString: "orders-3".
  std::string ToString() const;
  friend bool operator==(const TopicPartition& a, const TopicPartition& b) {
    return a.partition == b.partition && a.topic == b.topic;
  }
  friend bool operator<(const TopicPartition& a, const TopicPartition& b) {
    return a.topic != b.topic ? a.topic < b.topic : a.partition < b.partition;
  }
};

// Ordered by (topic, partition) so iteration and JSON output are deterministic.
using PartitionOffsets = std::map<TopicPartition, int64_t>;
// Per-partition timestamps (ms since the epoch), for startingOffsetsByTimestamp.
using PartitionTimestamps = std::map<TopicPartition, int64_t>;

// Records [from, until) of one partition. size() may be <= 0 for ranges that read nothing.
struct OffsetRange {
  TopicPartition tp;
  int64_t from = 0;
  int64_t until = 0;

  int64_t size() const { return until - from; }
  friend bool operator==(const OffsetRange& a, const OffsetRange& b) {
    return a.tp == b.tp && a.from == b.from && a.until == b.until;
  }
};

// Scala's Set(...).toString of topic-partitions, as Spark's messages print them: "Set(t-0, t-1)".
std::string FormatPartitionSet(const std::set<TopicPartition>& partitions);
// Scala's Map(...).toString of offsets: "Map(t-0 -> 5, t-1 -> 7)".
std::string FormatOffsetMap(const PartitionOffsets& offsets);
std::set<TopicPartition> KeysOf(const PartitionOffsets& offsets);

// {"topic":{"0":123,"1":456}}: topics sorted, partitions sorted numerically. (Spark writes the
// partitions in hash order; readers, Spark included, do not depend on the order.)
std::string PartitionOffsetsToJson(const PartitionOffsets& offsets);
// Parses Spark's offset JSON (any key order). Errors with Spark's text:
// InvalidArgument "Expected e.g. {"topicA":{"0":23,"1":-1},"topicB":{"0":-2}}, got <json>".
Result<PartitionOffsets> PartitionOffsetsFromJson(std::string_view json);
// Parses startingOffsetsByTimestamp JSON {"topicA":{"0":1000,"1":1000}}.
Result<PartitionTimestamps> PartitionTimestampsFromJson(std::string_view json);
// Parses the `assign` option {"topicA":[0,1],"topicB":[2,4]} (sorted, duplicates removed).
Result<std::vector<TopicPartition>> TopicPartitionsFromJson(std::string_view json);
std::string TopicPartitionsToJson(const std::vector<TopicPartition>& partitions);

}  // namespace weir::kafka
