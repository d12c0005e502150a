#!/usr/bin/env node
// Usage: node selftest.mjs            run the self-checks (node:test; ends with "# pass N" / "# fail N")
//        node selftest.mjs --report   print a Markdown table: which conformance files each reader can read
//
// Checks the tests/js readers themselves, through their command lines:
//  - the exact JSON text of every convention (duckdb_query.mjs on literal values),
//  - duckdb_write.mjs with every codec x v1/v2, read back by duckdb_cat.mjs and wasm_cat.mjs (must agree),
//  - wasm_write.mjs writes DataPage V2 headers and keeps the rows,
//  - row order on a multi-row-group file, Delta log / checkpoint reading, exit codes,
//  - DuckDB against the upstream *_expect.csv files,
//  - every file under $WEIR_CONFORMANCE_DIR/parquet against the table EXPECTED below (what each reader does
//    with it is a fact of the pinned versions; a change there should be noticed).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const CONFORMANCE = process.env.WEIR_CONFORMANCE_DIR ?? '';  // the Makefile sets it
const PARQUET = path.join(CONFORMANCE, 'parquet');

// What the pinned readers do with each conformance file; files not listed: both read it, outputs identical.
const EXPECTED = {
  'byte_stream_split_extended.gzip.parquet': 'wasm-only', // DuckDB: BYTE_STREAM_SPLIT only for FLOAT/DOUBLE
  'dict-page-offset-zero.parquet': 'duckdb-only',
  'hadoop_lz4_compressed.parquet': 'wasm-only', // DuckDB has no LZ4 (codec 5), only LZ4_RAW
  'non_hadoop_lz4_compressed.parquet': 'wasm-only',
  'int96_from_spark.parquet': 'differ', // rows 3 and 6 are outside int64 nanoseconds; parquet-wasm overflows
  'nested/map_no_value.parquet': 'wasm-only',
  'nested/repeated_no_annotation.parquet': 'differ', // footer says 0 rows: DuckDB reads 6, parquet-wasm 0
  'malformed/ARROW-GH-47662.parquet': 'neither',
  'malformed/ARROW-RS-GH-6229-DICTHEADER.parquet': 'neither',
  'malformed/PARQUET-1481.parquet': 'neither',
  'malformed/nation.dict-malformed.parquet': 'duckdb-only', // DuckDB reads all 25 rows; parquet-wasm panics
};

// Runs one of our scripts; resolves to { code, stdout, stderr }.
function run(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(HERE, script), ...args]);
    const out = [], err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}

async function ok(script, args) {
  const r = await run(script, args);
  assert.equal(r.code, 0, `${script} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

const lines = (text) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
const sqlString = (s) => "'" + s.replaceAll("'", "''") + "'";

function parquetFiles(dir, prefix = '') {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return parquetFiles(path.join(dir, e.name), `${prefix}${e.name}/`);
    return e.name.endsWith('.parquet') ? [prefix + e.name] : [];
  }).sort();
}

// Reads one conformance file with both readers and classifies the outcome.
async function classify(file) {
  const [duck, wasm] = await Promise.all([run('duckdb_cat.mjs', [path.join(PARQUET, file)]), run('wasm_cat.mjs', [path.join(PARQUET, file)])]);
  const status = duck.code === 0 && wasm.code === 0 ? (duck.stdout === wasm.stdout ? 'agree' : 'differ')
    : duck.code === 0 ? 'duckdb-only' : wasm.code === 0 ? 'wasm-only' : 'neither';
  return { file, status, duck, wasm };
}

function describe(r) {
  if (r.code !== 0) return 'error: ' + r.stderr.trim().replace(/^error: .*?: /, '').replaceAll('|', '\\|');
  return `${lines(r.stdout).length} rows`;
}

if (process.argv.includes('--report')) {
  process.stdout.write('| file | DuckDB (duckdb_cat) | parquet-wasm (wasm_cat) | outputs |\n|---|---|---|---|\n');
  for (const file of parquetFiles(PARQUET)) {
    const c = await classify(file);
    process.stdout.write(`| ${file} | ${describe(c.duck)} | ${describe(c.wasm)} | ${c.status} |\n`);
  }
  process.exit(0);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-js-selftest-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// One row with every type; the expected text is weir's convention, written out by hand.
const TYPES_SQL = `SELECT 1::TINYINT t, 200::UTINYINT ut, (-32768)::SMALLINT si, 4000000000::UINTEGER ui,
  9007199254740992::BIGINT b53, 9007199254740993::BIGINT b53p1, (-9223372036854775808)::BIGINT bmin,
  18446744073709551615::UBIGINT ubmax, 1.1::FLOAT f, '-0.0'::FLOAT fneg0, 'NaN'::FLOAT fnan, 'inf'::DOUBLE dinf,
  '-inf'::DOUBLE dninf, 0.1::DOUBLE d, 1e300 * 10 dbig, (-0.05)::DECIMAL(10,2) dsmall,
  12345678901234567890.1234567890::DECIMAL(38,10) dec38, 42::DECIMAL(5,0) dec0, 10.5::DECIMAL(9,2) dec2,
  true bo, DATE '1969-12-31' dt, DATE '0001-01-01' dt1, TIME '23:59:59.999999' tm,
  TIMESTAMP '1969-12-31 23:59:59.5' ts, TIMESTAMP '2026-06-08 09:00:00' ts2,
  TIMESTAMP_NS '2026-06-08 09:00:00.123456789' tsns, TIMESTAMP_MS '2026-06-08 09:00:00.123' tsms,
  TIMESTAMP_S '2026-06-08 09:00:00' tss, TIMESTAMPTZ '2026-06-08 11:00:00+02' tstz,
  'e5a3c9f0-1b2c-4d5e-8f90-123456789abc'::UUID u, '\\x00\\xFF'::BLOB bl, 'héllo "q" \\ ' || chr(10) s,
  MAP {2: 'b', 1: 'a'} mi, MAP {'x': [1, 2]} ms, MAP {1.5: true} md, [{'k': 1, 'v': NULL}] ls, [] le,
  {'2': 'two', '1': 'one'} st, NULL::INTEGER n`;
const TYPES_JSON = '{"t":1,"ut":200,"si":-32768,"ui":4000000000,"b53":9007199254740992,"b53p1":"9007199254740993",' +
  '"bmin":"-9223372036854775808","ubmax":"18446744073709551615","f":1.1,"fneg0":-0,"fnan":"NaN","dinf":"Infinity",' +
  '"dninf":"-Infinity","d":0.1,"dbig":1e+301,"dsmall":"-0.05","dec38":"12345678901234567890.1234567890",' +
  '"dec0":"42","dec2":"10.50","bo":true,"dt":"1969-12-31","dt1":"0001-01-01","tm":"23:59:59.999999",' +
  '"ts":"1969-12-31T23:59:59.500000Z","ts2":"2026-06-08T09:00:00.000000Z","tsns":"2026-06-08T09:00:00.123456Z",' +
  '"tsms":"2026-06-08T09:00:00.123000Z","tss":"2026-06-08T09:00:00.000000Z","tstz":"2026-06-08T09:00:00.000000Z",' +
  '"u":"e5a3c9f0-1b2c-4d5e-8f90-123456789abc","bl":"AP8=","s":"héllo \\"q\\" \\\\ \\n","mi":{"2":"b","1":"a"},' +
  '"ms":{"x":[1,2]},"md":{"1.5":true},"ls":[{"k":1,"v":null}],"le":[],"st":{"2":"two","1":"one"},"n":null}';

test('duckdb_query prints every convention exactly', async () => {
  assert.equal(await ok('duckdb_query.mjs', ['--sql', TYPES_SQL]), TYPES_JSON + '\n');
});

test('a DuckDB-written file of every type reads identically in duckdb_cat and wasm_cat', async () => {
  const file = path.join(tmp, 'types.parquet');
  await ok('duckdb_write.mjs', ['--sql', TYPES_SQL, '--out', file]);
  assert.equal(await ok('duckdb_cat.mjs', [file]), TYPES_JSON + '\n');
  // parquet-wasm does not surface the UUID logical type: it prints the 16 bytes as binary (base64).
  const uuidBase64 = Buffer.from('e5a3c9f01b2c4d5e8f90123456789abc', 'hex').toString('base64');
  assert.equal(await ok('wasm_cat.mjs', [file]), TYPES_JSON.replace('"e5a3c9f0-1b2c-4d5e-8f90-123456789abc"', `"${uuidBase64}"`) + '\n');
  for (const script of ['duckdb_cat.mjs', 'wasm_cat.mjs']) {
    assert.equal(await ok(script, [file, '--columns', 'dec2,ts2']), '{"dec2":"10.50","ts2":"2026-06-08T09:00:00.000000Z"}\n');
  }
});

const ROWS_SQL = `SELECT i::BIGINT AS id, 'row ' || i AS s, (i * 1.5)::DECIMAL(12,2) AS amount,
  TIMESTAMP '2026-06-08 09:00:00' + to_microseconds(i) AS ts, CASE WHEN i % 7 = 0 THEN NULL ELSE i / 4 END AS d,
  [i, i + 1] AS l, {'a': i, 'b': 'x'} AS st, MAP {'k': i} AS m FROM range(5000) t(i)`;
const ROW_1 = '{"id":1,"s":"row 1","amount":"1.50","ts":"2026-06-08T09:00:00.000001Z","d":0.25,"l":[1,2],' +
  '"st":{"a":1,"b":"x"},"m":{"k":1}}';
const CODEC_NAMES = { zstd: 'ZSTD', snappy: 'SNAPPY', gzip: 'GZIP', lz4: 'LZ4_RAW', uncompressed: 'UNCOMPRESSED' };

for (const codec of Object.keys(CODEC_NAMES)) {
  for (const version of ['v1', 'v2']) {
    test(`duckdb_write ${codec} ${version}: both readers agree`, async () => {
      const file = path.join(tmp, `rows_${codec}_${version}.parquet`);
      await ok('duckdb_write.mjs', ['--sql', ROWS_SQL, '--out', file, '--codec', codec, '--version', version, '--row-group-size', '2048']);
      const duck = await ok('duckdb_cat.mjs', [file]);
      assert.equal(lines(duck).length, 5000);
      assert.equal(lines(duck)[1], ROW_1);
      assert.equal(await ok('wasm_cat.mjs', [file]), duck);
      const meta = lines(await ok('duckdb_query.mjs', ['--sql',
        `SELECT DISTINCT compression, row_group_id FROM parquet_metadata(${sqlString(file)}) ORDER BY row_group_id`]));
      assert.deepEqual(meta.map((l) => JSON.parse(l).compression), [CODEC_NAMES[codec], CODEC_NAMES[codec], CODEC_NAMES[codec]]);
      const idEncodings = JSON.parse(lines(await ok('duckdb_query.mjs', ['--sql',
        `SELECT encodings FROM parquet_metadata(${sqlString(file)}) WHERE path_in_schema = 'id' AND row_group_id = 0`]))[0]).encodings;
      assert.equal(idEncodings, version === 'v2' ? 'DELTA_BINARY_PACKED' : 'PLAIN');
    });
  }
}

// First data page header of each column chunk: Thrift compact field 1 (type) = 0 DATA_PAGE, 3 DATA_PAGE_V2.
async function pageTypes(file) {
  const bytes = fs.readFileSync(file);
  const meta = lines(await ok('duckdb_query.mjs', ['--sql', `SELECT data_page_offset FROM parquet_metadata(${sqlString(file)})`]));
  return [...new Set(meta.map((l) => {
    const o = JSON.parse(l).data_page_offset;
    assert.equal(bytes[o], 0x15, 'page header must start with field 1 (i32)');
    return bytes[o + 1] >> 1; // zigzag
  }))];
}

test('wasm_write writes DataPage V2 headers and keeps the rows', async () => {
  const source = path.join(tmp, 'source.parquet');
  await ok('duckdb_write.mjs', ['--sql', ROWS_SQL, '--out', source, '--version', 'v2']);
  assert.deepEqual(await pageTypes(source), [0], 'DuckDB writes DataPage V1 headers even with PARQUET_VERSION V2');
  const expected = await ok('duckdb_cat.mjs', [source]);
  for (const [codec, version, pageType] of [['zstd', 'v2', 3], ['gzip', 'v1', 0], ['lz4', 'v2', 3]]) {
    const file = path.join(tmp, `rewritten_${codec}_${version}.parquet`);
    await ok('wasm_write.mjs', ['--in', source, '--out', file, '--codec', codec, '--version', version, '--row-group-size', '1500']);
    assert.deepEqual(await pageTypes(file), [pageType]);
    assert.equal(await ok('duckdb_cat.mjs', [file]), expected);
    assert.equal(await ok('wasm_cat.mjs', [file]), expected);
  }
  const hadoop = path.join(tmp, 'rewritten_lz4_hadoop.parquet');
  await ok('wasm_write.mjs', ['--in', source, '--out', hadoop, '--codec', 'lz4_hadoop']);
  assert.equal(await ok('wasm_cat.mjs', [hadoop]), expected);
});

test('row order is file order across many row groups', async () => {
  const file = path.join(tmp, 'order.parquet');
  await ok('duckdb_write.mjs', ['--sql', 'SELECT i AS id, md5(i::VARCHAR) AS h FROM range(300000) t(i)', '--out', file,
    '--row-group-size', '10240', '--codec', 'zstd']);
  for (const script of ['duckdb_cat.mjs', 'wasm_cat.mjs']) {
    const ids = lines(await ok(script, [file, '--columns', 'id'])).map((l) => JSON.parse(l).id);
    assert.equal(ids.length, 300000);
    assert.ok(ids.every((id, i) => id === i), `${script} reordered rows`);
  }
});

test('Delta log JSON and checkpoint are readable', async () => {
  const log = path.join(CONFORMANCE, 'delta/delta-rs/simple_table_with_checkpoint/delta/_delta_log');
  const adds = lines(await ok('duckdb_query.mjs', ['--sql',
    `SELECT add.path AS path, add.size AS size FROM read_ndjson(${sqlString(log + '/*.json')}, union_by_name = true)
     WHERE add IS NOT NULL ORDER BY path`])).map(JSON.parse);
  assert.ok(adds.length > 0);
  assert.ok(adds.every((a) => a.path.endsWith('.parquet') && Number.isInteger(a.size)));
  const checkpoint = path.join(log, '00000000000000000010.checkpoint.parquet');
  const duck = await ok('duckdb_cat.mjs', [checkpoint]);
  assert.equal(await ok('wasm_cat.mjs', [checkpoint]), duck);
  assert.match(lines(duck)[0], /^\{"txn":null,"add":\{"path":"part-00000-.*"partitionValues":\{\},/);
});

// Minimal CSV (RFC 4180 quoting); an empty unquoted field is null.
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false, wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') quoted = false; else field += ch;
    } else if (ch === '"') { quoted = wasQuoted = true; } else if (ch === ',' || ch === '\n') {
      row.push(field === '' && !wasQuoted ? null : field);
      field = ''; wasQuoted = false;
      if (ch === '\n') { rows.push(row); row = []; }
    } else if (ch !== '\r') field += ch;
  }
  if (field !== '' || row.length) { row.push(field === '' && !wasQuoted ? null : field); rows.push(row); }
  return rows;
}

for (const name of ['delta_binary_packed', 'delta_byte_array', 'delta_encoding_optional_column']) {
  test(`DuckDB matches upstream ${name}_expect.csv`, async () => {
    const [, ...expected] = parseCsv(fs.readFileSync(path.join(PARQUET, `${name}_expect.csv`), 'utf8'));
    const actual = lines(await ok('duckdb_cat.mjs', [path.join(PARQUET, `${name}.parquet`)]))
      .map((l) => Object.values(JSON.parse(l)).map((v) => (v === null ? null : String(v))));
    assert.deepEqual(actual, expected);
  });
}

test('conformance files: each reader behaves as recorded in EXPECTED', async () => {
  const files = parquetFiles(PARQUET);
  assert.ok(files.length >= 50, `expected the parquet conformance corpus under ${PARQUET}`);
  const seen = {};
  for (const file of files) {
    const c = await classify(file);
    seen[file] = c.status;
    for (const r of [c.duck, c.wasm]) if (r.code !== 0) assert.match(r.stderr, /^error: /, `${file}: error must be clean`);
  }
  const want = Object.fromEntries(files.map((f) => [f, EXPECTED[f] ?? 'agree']));
  assert.deepEqual(seen, want);
});

test('exit codes: 2 for usage errors, 1 for unreadable input', async () => {
  assert.equal((await run('duckdb_cat.mjs', [])).code, 2);
  assert.equal((await run('wasm_cat.mjs', ['a', 'b'])).code, 2);
  assert.equal((await run('duckdb_write.mjs', ['--sql', 'SELECT 1'])).code, 2);
  assert.equal((await run('duckdb_write.mjs', ['--sql', 'SELECT 1', '--out', 'x', '--codec', 'lzo'])).code, 2);
  assert.equal((await run('duckdb_query.mjs', ['--bogus', 'x'])).code, 2);
  const missing = path.join(tmp, 'missing.parquet');
  for (const script of ['duckdb_cat.mjs', 'wasm_cat.mjs']) {
    const r = await run(script, [missing]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /missing\.parquet/);
  }
  const bad = await run('duckdb_query.mjs', ['--sql', 'SELECT * FROM no_such_table']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /no_such_table/);
});
