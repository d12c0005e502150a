// ProduceSampleEvents: sends an EventGenerator stream to a Kafka topic with librdkafka's producer
// (idempotent, batched, optional compression and headers) and waits until every event is
// acknowledged, reporting where each landed. ManifestJson renders that report for tests.
// Thread-compatible: each call owns its producer.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "broker/event_generator.h"

namespace weir::broker {

struct ProduceOptions {
  std::string bootstrap_servers;  // "host:port,..."
  std::string topic;
  int64_t count = 0;
  double rate = 0;                   // events per second; 0 = as fast as possible
  std::string compression = "none";  // none, gzip, snappy, lz4 or zstd
  bool headers = false;              // adds headers source=weir-produce and seq=<sequence>
  // > 0: send only to partitions 0..partitions-1, by the same key hash as librdkafka's default
  // partitioner (crc32 of the key). 0: the default partitioner over all of the topic's partitions.
  int partitions = 0;
  int64_t timeout_ms = 30000;  // give up on an unacknowledged event after this long
  std::vector<std::pair<std::string, std::string>> client_properties;  // extra librdkafka settings
  EventGeneratorOptions events;
};

struct PartitionReport {
  int32_t partition = 0;
  int64_t count = 0;
  int64_t first_offset = -1;
  int64_t last_offset = -1;
};

struct ProduceReport {
  std::string topic;
  uint64_t seed = 0;
  EventCounts counts;
  std::vector<PartitionReport> partitions;  // partitions that received events, ascending
  std::vector<std::pair<int32_t, int64_t>> malformed_offsets;  // (partition, offset), sorted
  uint64_t payload_bytes = 0;
  double seconds = 0;  // from the first send to the last acknowledgement
  int64_t first_event_time_ms = 0;
  int64_t last_event_time_ms = 0;  // the stream's event time at its last event
};

// InvalidArgument for bad options; Unavailable naming the topic, partition and error when events
// were not acknowledged (broker down, unknown topic, timeout).
Result<ProduceReport> ProduceSampleEvents(const ProduceOptions& options);

// {"topic":..,"count":..,"seed":..,"partitions":[{"partition":0,"count":..,"first_offset":..,
//   "last_offset":..},..],"valid_distinct_event_ids":..,"valid":..,"late":..,"duplicates":..,
//   "malformed":..,"malformed_offsets":[[partition,offset],..],"first_event_time":..,
//   "last_event_time":..,"payload_bytes":..,"seconds":..}
std::string ManifestJson(const ProduceReport& report);

}  // namespace weir::broker
