// Azure Event Hubs Capture files as the rows of Spark's Kafka source, so that events archived by
// Capture land in the same bronze table as those read from the Event Hubs Kafka endpoint.
//
// Capture writes one Avro container file per partition and time window at
// {Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}.avro, of
// records EventData {SequenceNumber long, Offset string, EnqueuedTimeUtc string,
// SystemProperties map<union{long, double, string, bytes}>, Properties map<union{..., null}>,
// Body bytes or [null, bytes]}. The mapping (docs/capture.md):
//   key            BINARY     SystemProperties["x-opt-partition-key"] (UTF-8), null without one
//   value          BINARY     Body
//   topic          STRING     {EventHub} from the path
//   partition      INT        {PartitionId} from the path
//   offset         BIGINT     SequenceNumber (the Kafka endpoint's offset)
//   timestamp      TIMESTAMP  EnqueuedTimeUtc, "M/d/yyyy h:mm:ss AM" in UTC (also ISO-8601)
//   timestampType  INT        1 (LogAppendTime: the enqueued time is the broker's)
//   headers        ARRAY<STRUCT<key: STRING, value: BINARY>>  Properties in file order: strings
//                  as UTF-8, bytes as they are, longs and doubles as decimal text, null as null;
//                  null (not empty) when there are none, as the Kafka source gives
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "columnar/column.h"

namespace weir::avro {

// Where a Capture file's events come from, by its path.
struct CapturePath {
  std::string namespace_name;
  std::string event_hub;
  int32_t partition = 0;
};

// Parses the default Capture layout from the end of `path` (…/Namespace/EventHub/PartitionId/
// yyyy/MM/dd/HH/mm/ss.avro); InvalidArgument saying what it expected otherwise.
Result<CapturePath> ParseCapturePath(std::string_view path);

// Capture's EnqueuedTimeUtc ("8/31/2017 7:12:14 PM": M/d/yyyy h:mm:ss a, as Spark's to_timestamp
// with that pattern reads it in UTC) or an ISO-8601 timestamp, as microseconds since the epoch.
std::optional<int64_t> ParseCaptureTime(std::string_view text);

// Spark's Kafka source columns with headers (key, value, topic, partition, offset, timestamp,
// timestampType, headers).
columnar::Schema CaptureKafkaSchema();

// Appends the events of `events` (a batch AvroReader read from a Capture file: its EventData
// fields in spark-avro's types) from `from` to `out` (a batch of CaptureKafkaSchema()).
// InvalidArgument naming the field when the file's schema is not Capture's, or naming the event's
// SequenceNumber when its EnqueuedTimeUtc does not parse.
Status AppendCaptureEvents(const columnar::Batch& events, const CapturePath& from,
                           columnar::Batch* out);

}  // namespace weir::avro
