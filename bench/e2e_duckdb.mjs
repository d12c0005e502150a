#!/usr/bin/env node
// The do-it-yourself side of bench/e2e: a `kcat -J` dump (one JSON envelope per Kafka record:
// partition, offset, ts, key, payload) turned into bronze, silver and quarantine Parquet files (zstd)
// with DuckDB, as one would without weir.
//   node bench/e2e_duckdb.mjs pipeline DUMP.jsonl OUT_DIR   -> OUT_DIR/{bronze,silver,quarantine}.parquet
//   node bench/e2e_duckdb.mjs query "SELECT ..."            -> the rows as JSON lines (small results only)
// pipeline prints one JSON line with the seconds each step took and the rows of each file.
// Uses DuckDB from tests/js/node_modules (npm install there). Exit status: 0 ok, 1 DuckDB failed, 2 usage.
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/js/package.json', import.meta.url));
const { DuckDBInstance } = require('@duckdb/node-api');

const literal = (s) => "'" + s.replaceAll("'", "''") + "'";
const usage = () => {
  process.stderr.write('usage: e2e_duckdb.mjs pipeline DUMP.jsonl OUT_DIR | query "SQL"\n');
  process.exit(2);
};

// The silver schema of examples/orders.sql; event_id missing or the payload not a JSON object
// sends the record to quarantine, as weir's EXPECT (event_id IS NOT NULL) ON VIOLATION QUARANTINE.
function pipelineSql(dump, out) {
  const bronze = `${out}/bronze.parquet`;
  const parsed = `
    SELECT partition_key, raw_value, eh_partition, eh_offset, enqueued_time,
           CASE WHEN json_valid(raw_value) THEN raw_value::JSON END AS j
    FROM read_parquet(${literal(bronze)})`;
  const fields = `
    partition_key, j->>'$.event_id' AS event_id, j->>'$.order_id' AS order_id, j->>'$.status' AS status,
    TRY_CAST(j->>'$.amount' AS DECIMAL(18,2)) AS amount, TRY_CAST(j->>'$.event_time' AS TIMESTAMP) AS event_time,
    eh_partition, eh_offset, enqueued_time`;
  return [
    ['bronze', `COPY (
       SELECT key AS partition_key, payload AS raw_value, "partition" AS eh_partition, "offset" AS eh_offset,
              make_timestamp(ts * 1000) AS enqueued_time, current_timestamp AS ingested_at
       FROM read_json(${literal(dump)}, format = 'newline_delimited',
                      columns = {"partition": 'INTEGER', "offset": 'BIGINT', ts: 'BIGINT', key: 'VARCHAR', payload: 'VARCHAR'}))
     TO ${literal(bronze)} (FORMAT parquet, CODEC 'zstd')`],
    ['silver', `COPY (
       SELECT ${fields} FROM (${parsed}) WHERE j->>'$.event_id' IS NOT NULL
       QUALIFY row_number() OVER (PARTITION BY j->>'$.event_id' ORDER BY eh_partition, eh_offset) = 1)
     TO ${literal(out + '/silver.parquet')} (FORMAT parquet, CODEC 'zstd')`],
    ['quarantine', `COPY (
       SELECT partition_key, raw_value, eh_partition, eh_offset, enqueued_time FROM (${parsed})
       WHERE j->>'$.event_id' IS NULL)
     TO ${literal(out + '/quarantine.parquet')} (FORMAT parquet, CODEC 'zstd')`],
  ];
}

const [mode, ...args] = process.argv.slice(2);
try {
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  if (mode === 'pipeline' && args.length === 2) {
    const result = {};
    for (const [name, sql] of pipelineSql(args[0], args[1])) {
      const start = process.hrtime.bigint();
      const reader = await connection.runAndReadAll(sql);
      result[name] = { seconds: Number(process.hrtime.bigint() - start) / 1e9, rows: Number(reader.getRows()[0][0]) };
    }
    process.stdout.write(JSON.stringify(result) + '\n');
  } else if (mode === 'query' && args.length === 1) {
    const reader = await connection.runAndReadAll(args[0]);
    for (const row of reader.getRowObjectsJson()) process.stdout.write(JSON.stringify(row) + '\n');
  } else {
    usage();
  }
} catch (e) {
  process.stderr.write(`error: DuckDB failed: ${e.message.split('\n')[0]}\n`);
  process.exit(1);
}
