#!/usr/bin/env node
// Usage: node duckdb_write.mjs --sql "SELECT ..." --out FILE
//          [--codec zstd|snappy|gzip|lz4|uncompressed] [--version v1|v2] [--row-group-size N]
//
// Writes the result of the query to the Parquet file FILE with DuckDB's
//   COPY (sql) TO 'FILE' (FORMAT parquet, CODEC ..., PARQUET_VERSION ..., ROW_GROUP_SIZE ...)
// so that weir can be tested on files from another writer. Defaults: codec snappy, version v1 (DuckDB's own
// defaults), DuckDB's row group size. What DuckDB 1.5 writes (codecs, encodings, page headers are checked
// by selftest.mjs): "lz4" is LZ4_RAW (codec 7; DuckDB can neither write nor read the old LZ4 codec 5);
// v2 switches to the v2 encodings (DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT for floats)
// but the pages keep DataPage V1 headers — for real DataPage V2 pages re-write the file with wasm_write.mjs;
// row groups are cut at whole 2048-row vectors (--row-group-size 1000 gives 2048-row groups).
// Prints nothing on success.
// Exit status: 0 ok, 1 DuckDB failed (message on stderr), 2 usage error.
import { fail, parseArgs } from './lib/args.mjs';
import { openDuckDB } from './lib/duckdb_rows.mjs';

const USAGE =
  'usage: node duckdb_write.mjs --sql "SELECT ..." --out FILE [--codec zstd|snappy|gzip|lz4|uncompressed]\n' +
  '         [--version v1|v2] [--row-group-size N]\n';
const { flags, positional } = parseArgs(process.argv.slice(2), ['sql', 'out', 'codec', 'version', 'row-group-size'], USAGE);
if (flags.sql === undefined || flags.out === undefined || positional.length) fail('expected --sql and --out', USAGE);

const codec = flags.codec ?? 'snappy';
if (!['zstd', 'snappy', 'gzip', 'lz4', 'uncompressed'].includes(codec)) fail(`unknown codec ${codec}`, USAGE);
const version = flags.version ?? 'v1';
if (!['v1', 'v2'].includes(version)) fail(`unknown version ${version}`, USAGE);
const options = ['FORMAT parquet', `CODEC '${codec}'`, `PARQUET_VERSION ${version.toUpperCase()}`];
if (flags['row-group-size'] !== undefined) {
  if (!/^[1-9][0-9]*$/.test(flags['row-group-size'])) fail('--row-group-size must be a positive integer', USAGE);
  options.push(`ROW_GROUP_SIZE ${flags['row-group-size']}`);
}

const literal = (s) => "'" + s.replaceAll("'", "''") + "'";
try {
  const connection = await openDuckDB();
  await connection.run(`COPY (${flags.sql}) TO ${literal(flags.out)} (${options.join(', ')})`);
} catch (e) {
  process.stderr.write(`error: DuckDB could not write ${flags.out}: ${e.message.split('\n')[0]}\n`);
  process.exit(1);
}
