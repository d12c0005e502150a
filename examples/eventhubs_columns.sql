-- The Event Hubs Spark connector's columns from the Kafka source (the migration
-- runbook's step 3; docs/migration.md). A bronze table that the azure-eventhubs-spark connector
-- used to write keeps its schema, so downstream code does not change:
--
--   connector column            from the Kafka source            notes
--   body            BINARY      value                            same bytes
--   partition       STRING      CAST(partition AS STRING)        Kafka's partition is an INT
--   offset          STRING      CAST(offset AS STRING)           NOT the connector's byte offset:
--                                                                the Kafka endpoint has none
--   sequenceNumber  BIGINT      offset                           equal on the Event Hubs Kafka
--                                                                endpoint (verify on a sample)
--   enqueuedTime    TIMESTAMP   timestamp                        broker append time
--   publisher       STRING      NULL                             not available
--   partitionKey    STRING      CAST(key AS STRING)              the Kafka key
--   properties      MAP<STRING, STRING>  headers, values cast    needs includeHeaders => 'true';
--                                                                an empty map when a record has
--                                                                none (the Kafka source's headers
--                                                                are NULL then)
--   systemProperties MAP<STRING, STRING> rebuilt from the above  only x-opt-sequence-number,
--                                                                x-opt-enqueued-time,
--                                                                x-opt-partition-key
--
-- Run it (a new checkpoint; the start position from `weir cutover`, runbook step 5):
--
--   weir run examples/eventhubs_columns.sql --set bootstrap=HOST:PORT --set topic=telemetry \
--     --set starting_offsets='{"telemetry":{"0":1234,"1":5678}}' --trigger availableNow
--
-- Without --set starting_offsets the flow starts at the earliest offset. Against Event Hubs, add
-- the connection string as in examples/orders.sql (`eventhubs.connectionString` => secret(...)).
SET starting_offsets = 'earliest';

CREATE OR REFRESH STREAMING TABLE telemetry.bronze.events AS
SELECT
  value                                   AS body,
  CAST(partition AS STRING)               AS partition,
  CAST(offset AS STRING)                  AS offset,
  offset                                  AS sequenceNumber,
  timestamp                               AS enqueuedTime,
  CAST(NULL AS STRING)                    AS publisher,
  CAST(key AS STRING)                     AS partitionKey,
  coalesce(map_from_entries(transform(headers, h -> struct(h.key, CAST(h.value AS STRING)))),
           CAST(map() AS MAP<STRING, STRING>))                                      AS properties,
  map('x-opt-sequence-number', CAST(offset AS STRING),
      'x-opt-enqueued-time',   CAST(timestamp AS STRING),
      'x-opt-partition-key',   CAST(key AS STRING))                                 AS systemProperties
FROM STREAM read_kafka(
  bootstrapServers => '${bootstrap}',
  subscribe        => '${topic}',
  startingOffsets  => '${starting_offsets}',
  includeHeaders   => 'true',
  failOnDataLoss   => 'true'
);
