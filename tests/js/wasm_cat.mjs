#!/usr/bin/env node
// Usage: node wasm_cat.mjs FILE [--columns a,b]
//
// Second, independent Parquet reader: parquet-wasm (the Rust `parquet` crate compiled to WebAssembly) decodes
// FILE into Arrow record batches, streamed 8192 rows at a time; lib/arrow_rows.mjs prints them as JSON lines
// in exactly duckdb_cat.mjs's conventions (lib/format.mjs), so the two outputs can be compared line by line.
//
// Type subset (see lib/arrow_rows.mjs): ints, floats (incl. FLOAT16), decimals, strings, binary, FLBA, date,
// time, timestamp, and nested list/struct/map of those; INTERVAL fails with "unsupported Arrow type".
// Differences from duckdb_cat.mjs worth knowing:
//  - INT96 is read as nanosecond timestamps, so INT96 values outside 1677..2262 overflow (DuckDB reads them
//    as microseconds and gets e.g. 9999-12-31 right).
//  - UUID columns print as base64 binary: this parquet-wasm build does not expose the UUID logical type
//    (FIXED_LEN_BYTE_ARRAY(16) arrives without the arrow.uuid extension).
//  - A footer whose num_rows disagrees with the row groups: parquet-wasm believes the footer.
//  - --columns selects top-level columns by name, printed in --columns order (as duckdb_cat.mjs does).
// Exit status: 0 ok, 1 the file could not be read (message on stderr), 2 usage error.
import fs from 'node:fs';
import { tableFromIPC } from 'apache-arrow';
import { ParquetFile } from 'parquet-wasm';
import { fail, parseArgs } from './lib/args.mjs';
import { printTable } from './lib/arrow_rows.mjs';

const USAGE = 'usage: node wasm_cat.mjs FILE [--columns a,b]\n';
const { flags, positional } = parseArgs(process.argv.slice(2), ['columns'], USAGE);
if (positional.length !== 1) fail('expected exactly one FILE', USAGE);

const failRead = (e) => {
  process.stderr.write(`error: parquet-wasm could not read ${positional[0]}: ${String(e?.message ?? e).split('\n')[0]}\n`);
  process.exit(1);
};
// A Rust panic inside the wasm module surfaces as an uncaught RuntimeError ("unreachable") from the stream.
process.on('uncaughtException', failRead);
process.on('unhandledRejection', failRead);
try {
  const file = await ParquetFile.fromFile(await fs.openAsBlob(positional[0]));
  const options = { batchSize: 8192 };
  if (flags.columns !== undefined) {
    options.columns = flags.columns.split(',');
    // parquet-wasm panics on an unknown column name; say which one instead.
    const schema = file.schema();
    for (const name of options.columns) if (schema.indexOf(name) < 0) throw new Error(`no column named ${name}`);
  }
  for await (const batch of await file.stream(options)) await printTable(tableFromIPC(batch.intoIPCStream()), options.columns);
} catch (e) {
  failRead(e);
}
