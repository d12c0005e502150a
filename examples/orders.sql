-- The Event Hubs bronze/silver tutorial's pipeline in weir's SQL, which is Databricks'
-- Lakeflow / DLT dialect. Run it against any broker:
--
--   weir run examples/orders.sql --set bootstrap=HOST:PORT --trigger availableNow
--
-- Against Event Hubs, replace the read_kafka arguments with the namespace's endpoint and a
-- connection string kept in a secret (weir resolves secret('scope', 'key') from the environment
-- variable WEIR_SECRET_<SCOPE>_<KEY> or from --secrets FILE):
--
--   bootstrapServers => 'contoso-orders.servicebus.windows.net:9093',
--   `eventhubs.connectionString` => secret('eh', 'orders-listen'),
--
-- Tables live under the lakehouse folder (--lakehouse, default ./lakehouse) as
-- <lakehouse>/sales/bronze/orders_raw, each flow's checkpoint under <lakehouse>/_checkpoints/.

-- Step 4: raw events into bronze, exactly as received, with the Kafka metadata.
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT
  CAST(key AS STRING)   AS partition_key,
  CAST(value AS STRING) AS raw_value,
  partition             AS eh_partition,
  offset                AS eh_offset,
  timestamp             AS enqueued_time,
  current_timestamp()   AS ingested_at
FROM STREAM read_kafka(
  bootstrapServers     => '${bootstrap}',
  subscribe            => 'orders',
  startingOffsets      => 'earliest',
  maxOffsetsPerTrigger => '200000'
);

-- Step 5: bronze read as a stream, parsed with an explicit schema (the tutorial's value_schema);
-- rows without an event_id (malformed JSON, or JSON without the field) go to the quarantine table
-- with their partition and offset; Event Hubs' at-least-once duplicates are dropped within the
-- 30-minute watermark (Spark's dropDuplicatesWithinWatermark, weir's DROP DUPLICATES clause).
-- The from_json(...) repeated below is parsed once per row: equal expressions are shared.
SET order_schema = 'event_id STRING, order_id STRING, status STRING, amount DECIMAL(18,2), event_time STRING';

CREATE OR REFRESH STREAMING TABLE sales.silver.orders (
  CONSTRAINT has_event_id EXPECT (event_id IS NOT NULL) ON VIOLATION QUARANTINE
) AS
SELECT
  partition_key,
  from_json(raw_value, '${order_schema}').event_id AS event_id,
  from_json(raw_value, '${order_schema}').order_id AS order_id,
  from_json(raw_value, '${order_schema}').status   AS status,
  from_json(raw_value, '${order_schema}').amount   AS amount,
  to_timestamp(from_json(raw_value, '${order_schema}').event_time) AS event_time,
  eh_partition,
  eh_offset,
  enqueued_time,
  ingested_at
FROM STREAM(sales.bronze.orders_raw)
  WATERMARK to_timestamp(from_json(raw_value, '${order_schema}').event_time) AS event_time
  DELAY OF INTERVAL 30 MINUTES
DROP DUPLICATES WITHIN WATERMARK (event_id)
QUARANTINE INTO sales.silver.orders_quarantine;
