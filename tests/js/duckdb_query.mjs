#!/usr/bin/env node
// Usage: node duckdb_query.mjs --sql "SELECT ..."
//
// Runs one SQL statement in a fresh in-memory DuckDB and prints its result as JSON lines in weir's
// conventions (lib/format.mjs: int64 beyond ±2^53 as strings, decimals as exact strings, timestamps as
// "2026-06-08T09:00:00.000000Z", binary as base64, maps as objects), keys in column order, streamed in
// chunks. Row order is the query's: add ORDER BY when the query does not fix one (joins, GROUP BY, globs over
// several files). Typical uses in tests:
//   --sql "SELECT * FROM read_ndjson('t/_delta_log/00000000000000000000.json')"   (Delta log actions)
//   --sql "SELECT count(*) AS n FROM read_parquet('t/*.parquet')"
// Delta log JSON is best read with read_ndjson(..., format='newline_delimited', union_by_name=true) or
// read_json(..., columns={...}) to pin the schema; read_json_auto infers one from the sample.
// Exit status: 0 ok, 1 the query failed (message on stderr), 2 usage error.
import { fail, parseArgs } from './lib/args.mjs';
import { openDuckDB, printQuery } from './lib/duckdb_rows.mjs';

const USAGE = 'usage: node duckdb_query.mjs --sql "SELECT ..."\n';
const { flags, positional } = parseArgs(process.argv.slice(2), ['sql'], USAGE);
if (flags.sql === undefined || positional.length) fail('expected --sql "..." and nothing else', USAGE);

try {
  await printQuery(await openDuckDB(), flags.sql);
} catch (e) {
  process.stderr.write(`error: DuckDB query failed: ${e.message}\n`);
  process.exit(1);
}
