#!/usr/bin/env node
// Usage: node duckdb_cat.mjs FILE [--columns a,b]
//
// Prints every row of the Parquet file FILE, read by DuckDB, as one JSON object per line, keys in column
// order (or in --columns order), rows in file order. Value conventions are weir's, listed in lib/format.mjs:
// int64 beyond ±2^53 as strings, decimals as strings with exactly `scale` digits, timestamps (any unit, INT96
// too) as "2026-06-08T09:00:00.000000Z", dates "YYYY-MM-DD", binary as base64, NaN/±Infinity as strings,
// map as a JSON object with string keys, TIME as "HH:MM:SS.ffffff". Types without a weir convention
// (INTERVAL, TIME_TZ, …) print DuckDB's string form and a note on stderr.
//
// What DuckDB itself decides (so tests know what they compare against):
//  - BYTE_ARRAY without a STRING/UTF8/JSON/ENUM annotation is BLOB -> base64 (binary_as_string stays off).
//  - FLOAT16 is widened to FLOAT; DECIMAL with precision > 38 is read as DOUBLE (lossy; weir writes <= 38).
//  - Timestamps with isAdjustedToUTC=false are printed the same way (as if UTC).
// Exit status: 0 ok, 1 DuckDB could not read the file (message on stderr), 2 usage error.
import { fail, parseArgs } from './lib/args.mjs';
import { ident, openDuckDB, printQuery } from './lib/duckdb_rows.mjs';

const USAGE = 'usage: node duckdb_cat.mjs FILE [--columns a,b]\n';
const { flags, positional } = parseArgs(process.argv.slice(2), ['columns'], USAGE);
if (positional.length !== 1) fail('expected exactly one FILE', USAGE);

const select = flags.columns === undefined ? '*' : flags.columns.split(',').map(ident).join(', ');
try {
  const connection = await openDuckDB();
  await printQuery(connection, `SELECT ${select} FROM read_parquet(?)`, [positional[0]]);
} catch (e) {
  process.stderr.write(`error: DuckDB could not read ${positional[0]}: ${e.message.split('\n')[0]}\n`);
  process.exit(1);
}
