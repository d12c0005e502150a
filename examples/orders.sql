-- Seed 001's pipeline ("Azure Event Hubs to Databricks") in weir's SQL, which is Databricks'
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

-- Step 5 (parse, quarantine and deduplicate into sales.silver.orders and
-- sales.silver.orders_quarantine) arrives with the silver flow.
