#!/usr/bin/env node
// Usage: node wasm_write.mjs --in FILE --out FILE [--codec zstd|snappy|gzip|brotli|lz4|lz4_hadoop|uncompressed]
//          [--version v1|v2] [--row-group-size N] [--dictionary on|off]
//
// Re-writes the Parquet file --in (e.g. one made by duckdb_write.mjs) with parquet-wasm's writer (the Rust
// `parquet` crate), which — unlike DuckDB — writes real DataPage V2 headers for --version v2 (DuckDB's
// PARQUET_VERSION V2 only switches encodings; its pages stay DataPage V1). Codecs: "lz4" is LZ4_RAW (codec 7),
// "lz4_hadoop" is the deprecated LZ4 (codec 5, Hadoop framing). Defaults: snappy, v1, dictionary on, the
// crate's row group size. Data goes through Arrow, so types follow the Arrow mapping (e.g. UUID becomes a
// 16-byte FIXED_LEN_BYTE_ARRAY, INTERVAL is unsupported). The whole input is held in memory.
// Exit status: 0 ok, 1 read/write failed (message on stderr), 2 usage error.
import fs from 'node:fs';
import { Compression, readParquet, writeParquet, WriterPropertiesBuilder, WriterVersion } from 'parquet-wasm';
import { fail, parseArgs } from './lib/args.mjs';

const USAGE =
  'usage: node wasm_write.mjs --in FILE --out FILE [--codec zstd|snappy|gzip|brotli|lz4|lz4_hadoop|uncompressed]\n' +
  '         [--version v1|v2] [--row-group-size N] [--dictionary on|off]\n';
const CODECS = {
  zstd: Compression.ZSTD, snappy: Compression.SNAPPY, gzip: Compression.GZIP, brotli: Compression.BROTLI,
  lz4: Compression.LZ4_RAW, lz4_hadoop: Compression.LZ4, uncompressed: Compression.UNCOMPRESSED,
};
const { flags, positional } = parseArgs(process.argv.slice(2), ['in', 'out', 'codec', 'version', 'row-group-size', 'dictionary'], USAGE);
if (flags.in === undefined || flags.out === undefined || positional.length) fail('expected --in and --out', USAGE);
const codec = CODECS[flags.codec ?? 'snappy'];
if (codec === undefined) fail(`unknown codec ${flags.codec}`, USAGE);
const version = { v1: WriterVersion.V1, v2: WriterVersion.V2 }[flags.version ?? 'v1'];
if (version === undefined) fail(`unknown version ${flags.version}`, USAGE);
const dictionary = { on: true, off: false }[flags.dictionary ?? 'on'];
if (dictionary === undefined) fail('--dictionary must be on or off', USAGE);

let builder = new WriterPropertiesBuilder().setCompression(codec).setWriterVersion(version).setDictionaryEnabled(dictionary);
if (flags['row-group-size'] !== undefined) {
  if (!/^[1-9][0-9]*$/.test(flags['row-group-size'])) fail('--row-group-size must be a positive integer', USAGE);
  builder = builder.setMaxRowGroupSize(Number(flags['row-group-size']));
}
try {
  const table = readParquet(fs.readFileSync(flags.in));
  fs.writeFileSync(flags.out, writeParquet(table, builder.build()));
} catch (e) {
  process.stderr.write(`error: parquet-wasm could not rewrite ${flags.in} to ${flags.out}: ${String(e?.message ?? e).split('\n')[0]}\n`);
  process.exit(1);
}
