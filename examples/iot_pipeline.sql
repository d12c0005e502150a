-- An IoT ingestion pipeline as a Databricks pipeline defines it: its parameters come from the
-- pipeline's settings (examples/iot_pipeline.json, its `configuration`), read here as ${name}.
-- Run it with the settings file as it is; `continuous: false` makes the run process what the
-- topic holds and stop, `target` is the schema of unqualified table names and `storage` the
-- lakehouse (weir's tables and checkpoints go under it):
--
--   weir run --settings examples/iot_pipeline.json --set bootstrap=HOST:PORT
--
-- (`libraries` names this file.) Against Event Hubs, drop --set bootstrap and add the
-- namespace's connection string to read_kafka, kept in a secret:
--
--   `eventhubs.connectionString` => secret('${io.ingestion.eh.secretsScopeName}', 'eh-connection'),
SET bootstrap = '${iot.ingestion.eh.namespace}.servicebus.windows.net:9093';

CREATE OR REFRESH STREAMING TABLE iot_raw
COMMENT 'Raw IOT Events'
PARTITIONED BY (eh_enqueued_date)
TBLPROPERTIES ('quality' = 'bronze', 'pipelines.reset.allowed' = 'false')
AS SELECT
  key,
  topic,
  partition,
  offset,
  CAST(value AS STRING) AS records,
  from_json(CAST(value AS STRING), 'battery_level BIGINT, c02_level BIGINT, cca2 STRING, cca3 STRING, cn STRING, device_id BIGINT, device_name STRING, humidity BIGINT, ip STRING, latitude DOUBLE, lcd STRING, longitude DOUBLE, scale STRING, temp BIGINT, timestamp BIGINT') AS parsed_records,
  timestamp             AS eh_enqueued_timestamp,
  to_date(timestamp)    AS eh_enqueued_date,
  current_timestamp()   AS etl_processed_timestamp
FROM STREAM read_kafka(
  bootstrapServers           => '${bootstrap}',
  subscribe                  => '${iot.ingestion.eh.name}',
  `kafka.request.timeout.ms` => '${iot.ingestion.kafka.requestTimeout}',
  `kafka.session.timeout.ms` => '${iot.ingestion.kafka.sessionTimeout}',
  maxOffsetsPerTrigger       => '${iot.ingestion.spark.maxOffsetsPerTrigger}',
  failOnDataLoss             => '${iot.ingestion.spark.failOnDataLoss}',
  startingOffsets            => '${iot.ingestion.spark.startingOffsets}'
);
