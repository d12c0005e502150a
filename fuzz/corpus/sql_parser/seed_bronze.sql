CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT
  CAST(key AS STRING)   AS partition_key,
  CAST(value AS STRING) AS raw_value,
  partition             AS eh_partition,
  offset                AS eh_offset,
  timestamp             AS enqueued_time,
  current_timestamp()   AS ingested_at
FROM STREAM read_kafka(
  bootstrapServers  => 'contoso-orders.servicebus.windows.net:9093',
  subscribe         => '${topic}',
  `kafka.sasl.jaas.config` => 'password="' || secret('eh', 'conn') || '";'
);
