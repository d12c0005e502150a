#!/usr/bin/env node
// Usage: node tests/delta/duckdb_delta.mjs TABLE_DIR
//
// An independent Delta reader for weir's integration tests, built on DuckDB only: it reads the
// newest classic checkpoint (read_parquet) and the NDJSON commits after it (read_ndjson), replays
// adds and removes by path, then reads every live data file with read_parquet, adding the
// partition columns back by CASTing the log's partitionValues text to the column's type. It checks,
// for every live file: the file exists and add.size equals its size on disk; stats.numRecords
// equals DuckDB's row count; stats minValues/maxValues/nullCount of top-level primitive columns
// match DuckDB's min()/max()/count. Prints the table's rows as JSON lines in weir's conventions
// (the same as `weir table scan`), and a summary line on stderr. Exit status: 0 ok, 1 a check
// failed (reason on stderr), 2 usage error.
import fs from 'node:fs';
import path from 'node:path';
import { fail, parseArgs } from '../js/lib/args.mjs';
import { converterFor, ident, openDuckDB } from '../js/lib/duckdb_rows.mjs';
import * as F from '../js/lib/format.mjs';

const USAGE = 'usage: node duckdb_delta.mjs TABLE_DIR\n';
const { positional } = parseArgs(process.argv.slice(2), [], USAGE);
if (positional.length !== 1) fail('expected exactly one TABLE_DIR', USAGE);
const root = positional[0];
const logDir = path.join(root, '_delta_log');

const problems = [];
const check = (ok, message) => {
  if (!ok) problems.push(message);
};
const sqlString = (s) => "'" + String(s).replaceAll("'", "''") + "'";

// Delta schemaString types -> DuckDB types.
function duckType(t) {
  if (typeof t === 'object') {
    if (t.type === 'struct') return 'STRUCT(' + t.fields.map((f) => `${ident(f.name)} ${duckType(f.type)}`).join(', ') + ')';
    if (t.type === 'array') return duckType(t.elementType) + '[]';
    if (t.type === 'map') return `MAP(${duckType(t.keyType)}, ${duckType(t.valueType)})`;
  }
  const simple = {
    string: 'VARCHAR', long: 'BIGINT', integer: 'INTEGER', short: 'SMALLINT', byte: 'TINYINT',
    float: 'FLOAT', double: 'DOUBLE', boolean: 'BOOLEAN', binary: 'BLOB', date: 'DATE',
    timestamp: 'TIMESTAMPTZ', timestamp_ntz: 'TIMESTAMP',
  };
  if (simple[t]) return simple[t];
  const m = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
  if (m) return `DECIMAL(${m[1]},${m[2]})`;
  throw new Error(`unsupported Delta type ${JSON.stringify(t)}`);
}

// Percent-decodes a log path at the byte level (the path may also hold raw UTF-8).
function decodePath(p) {
  const bytes = Buffer.from(p, 'utf8');
  const hex = (b) => (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102);
  const out = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x25 && i + 2 < bytes.length && hex(bytes[i + 1]) && hex(bytes[i + 2])) {
      out.push(parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16));
      i += 2;
    } else {
      out.push(bytes[i]);
    }
  }
  return Buffer.from(out).toString('utf8');
}

const db = await openDuckDB();
async function rows(sql) {
  const reader = await db.runAndReadAll(sql);
  return reader.getRowObjectsJson();
}

// ---- the log
const names = fs.readdirSync(logDir);
const version = (n) => Number(n.slice(0, 20));
const checkpoints = names.filter((n) => /^\d{20}\.checkpoint\.parquet$/.test(n)).sort();
const commits = names.filter((n) => /^\d{20}\.json$/.test(n)).sort();
const files = new Map(); // path -> add
let schemaString = null;
let partitionColumns = [];
const txns = new Map();
let startAfter = -1;
if (checkpoints.length) {
  const cp = path.join(logDir, checkpoints[checkpoints.length - 1]);
  startAfter = version(checkpoints[checkpoints.length - 1]);
  for (const r of await rows(`SELECT add.path AS path, add.size AS size, to_json(add.partitionValues) AS pv, add.stats AS stats
                              FROM read_parquet(${sqlString(cp)}) WHERE add IS NOT NULL`)) {
    files.set(r.path, { path: r.path, size: Number(r.size), partitionValues: r.pv ? JSON.parse(r.pv) : {}, stats: r.stats });
  }
  for (const r of await rows(`SELECT metaData.schemaString AS s, to_json(metaData.partitionColumns) AS p
                              FROM read_parquet(${sqlString(cp)}) WHERE metaData IS NOT NULL`)) {
    schemaString = r.s;
    partitionColumns = JSON.parse(r.p);
  }
  for (const r of await rows(`SELECT txn.appId AS a, txn.version AS v FROM read_parquet(${sqlString(cp)}) WHERE txn IS NOT NULL`)) {
    txns.set(r.a, Number(r.v));
  }
}
let lastVersion = startAfter;
for (const name of commits) {
  const v = version(name);
  if (v <= startAfter) continue;
  check(v === lastVersion + 1, `commit ${v} does not follow ${lastVersion}`);
  lastVersion = v;
  // Each line is one action; read the objects as JSON values, one row per line.
  const lines = await rows(`SELECT json FROM read_ndjson_objects(${sqlString(path.join(logDir, name))})`);
  for (const { json } of lines) {
    const action = typeof json === 'string' ? JSON.parse(json) : json;
    if (action.add) files.set(action.add.path, action.add);
    if (action.remove) files.delete(action.remove.path);
    if (action.metaData) {
      schemaString = action.metaData.schemaString;
      partitionColumns = action.metaData.partitionColumns;
    }
    if (action.txn) txns.set(action.txn.appId, action.txn.version);
  }
}
check(schemaString !== null, 'no metaData in the log');
const schema = JSON.parse(schemaString);
const isPartition = new Set(partitionColumns);

// ---- the data files
const selects = [];
let totalRecords = 0;
for (const add of [...files.values()].sort((a, b) => (a.path < b.path ? -1 : 1))) {
  const local = path.join(root, decodePath(add.path));
  if (!fs.existsSync(local)) {
    check(false, `live file missing: ${add.path} (${local})`);
    continue;
  }
  check(fs.statSync(local).size === Number(add.size), `add.size ${add.size} != ${fs.statSync(local).size} bytes of ${add.path}`);
  const stats = add.stats ? JSON.parse(add.stats) : null;
  const file = sqlString(local);
  const [{ n }] = await rows(`SELECT count(*) AS n FROM read_parquet(${file})`);
  check(stats && Number(stats.numRecords) === Number(n), `${add.path}: stats.numRecords ${stats?.numRecords} but DuckDB counts ${n}`);
  totalRecords += Number(n);
  // Min/max/null counts of top-level primitive columns.
  for (const f of schema.fields) {
    if (isPartition.has(f.name) || typeof f.type !== 'string' || !stats) continue;
    const col = ident(f.name);
    const [agg] = await rows(`SELECT CAST(min(${col}) AS VARCHAR) AS mn, CAST(max(${col}) AS VARCHAR) AS mx,
                                     count(*) - count(${col}) AS nulls FROM read_parquet(${file})`);
    if (stats.nullCount && f.name in stats.nullCount) {
      check(Number(stats.nullCount[f.name]) === Number(agg.nulls), `${add.path} ${f.name}: nullCount ${stats.nullCount[f.name]} != ${agg.nulls}`);
    }
    const comparable = ['long', 'integer', 'short', 'byte', 'date'].includes(f.type) || /^decimal/.test(f.type) ||
      (f.type === 'string' && agg.mx !== null && [...agg.mx].length <= 32);
    if (comparable && stats.minValues && f.name in stats.minValues) {
      const norm = (x) => (f.type === 'string' || f.type === 'date' ? String(x) : Number(x));
      check(norm(stats.minValues[f.name]) === norm(agg.mn), `${add.path} ${f.name}: min ${stats.minValues[f.name]} != ${agg.mn}`);
      check(norm(stats.maxValues[f.name]) === norm(agg.mx), `${add.path} ${f.name}: max ${stats.maxValues[f.name]} != ${agg.mx}`);
    }
  }
  const columns = schema.fields.map((f) => {
    if (!isPartition.has(f.name)) return ident(f.name);
    const value = add.partitionValues[f.name];
    const text = value === null || value === undefined || value === '' ? 'NULL' : sqlString(value);
    return `CAST(${text} AS ${duckType(f.type)}) AS ${ident(f.name)}`;
  });
  selects.push(`SELECT ${columns.join(', ')} FROM read_parquet(${file})`);
}

// ---- print the rows (weir's conventions; timestamp_ntz without the Z, as weir prints it)
let printed = 0;
if (selects.length) {
  const result = await db.stream(selects.join(' UNION ALL '));
  const colNames = result.deduplicatedColumnNames();
  const keys = colNames.map((n) => F.jsonString(n) + ':');
  const ntz = schema.fields.map((f) => f.type === 'timestamp_ntz');
  const convert = result.columnTypes().map((t, i) => {
    const c = converterFor(t, colNames[i]);
    const base = (v) => (v === null || v === undefined ? 'null' : c(v));
    return ntz[i] ? (v) => base(v).replace(/Z"$/, '"') : base;
  });
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const data = chunk.getColumns();
    let out = '';
    for (let r = 0; r < data[0].length; r++) {
      out += '{' + convert.map((fn, c) => keys[c] + fn(data[c][r])).join(',') + '}\n';
    }
    printed += data[0].length;
    await F.writeOut(out);
  }
}
check(printed === totalRecords, `printed ${printed} rows, the files hold ${totalRecords}`);
process.stderr.write(`duckdb_delta: ${root}: version ${lastVersion}, ${files.size} live files, ${printed} rows, ` +
  `${txns.size} txns${txns.size ? ' (' + [...txns].map(([a, v]) => `${a}=${v}`).join(', ') + ')' : ''}\n`);
if (problems.length) {
  for (const p of problems) process.stderr.write(`duckdb_delta: FAIL: ${p}\n`);
  process.exit(1);
}
