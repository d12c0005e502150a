// Kafka records as rows in Spark's Kafka source schema (K/KafkaRecordToRowConverter.scala):
// key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP,
// timestampType INT, and with includeHeaders headers ARRAY<STRUCT<key: STRING, value: BINARY>>
// (null, not empty, for a record without headers). Values, topics, headers and long keys are
// zero-copy views into librdkafka's buffers (the batch keeps the records alive); keys up to 64
// bytes are copied.
#pragma once

#include <memory>

#include "base/status.h"
#include "columnar/column.h"
#include "kafka/consumer.h"

namespace weir::stream {

columnar::Schema KafkaSourceSchema(bool include_headers);

// Appends every record of `records` to `out` (a batch of KafkaSourceSchema(include_headers)).
void AppendKafkaRecords(std::shared_ptr<const kafka::RecordBatch> records, bool include_headers,
                        columnar::Batch* out);

}  // namespace weir::stream
