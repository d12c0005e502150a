// Runs SQL in an in-memory DuckDB and streams the result to stdout as JSON lines in weir's conventions
// (lib/format.mjs). Rows are fetched one DuckDB chunk (2048 rows) at a time, so result size does not
// bound memory. Column values are converted from DuckDB's own value objects (raw micros, unscaled decimal
// bigints, byte arrays), never from DuckDB's display strings.
import { DuckDBInstance, DuckDBTypeId as T } from '@duckdb/node-api';
import * as F from './format.mjs';

export async function openDuckDB() {
  // preserve_insertion_order is DuckDB's default; set it explicitly since row order is part of the contract.
  const instance = await DuckDBInstance.create(':memory:', { preserve_insertion_order: 'true' });
  return instance.connect();
}

const str = (v) => F.jsonString(String(v));
// DuckDB's infinite dates/timestamps (raw value ±(2^63-1), dates ±(2^31-1)) print as "infinity" / "-infinity".
// (Compared here rather than through the isFinite getter, which is a native call per value.)
const INF64 = 2n ** 63n - 1n;
const finite = (raw, convert, inf = INF64) => (v) => {
  const r = raw(v);
  return r === inf || r === -inf ? str(v) : convert(v);
};

// Compiles a DuckDB type into a function (non-null value) -> JSON text.
export function converterFor(type, where) {
  switch (type.typeId) {
    case T.BOOLEAN:
      return (v) => (v ? 'true' : 'false');
    case T.TINYINT: case T.SMALLINT: case T.INTEGER:
    case T.UTINYINT: case T.USMALLINT: case T.UINTEGER:
      return (v) => String(v);
    case T.BIGINT: case T.UBIGINT: case T.HUGEINT: case T.UHUGEINT:
      return (v) => F.bigIntText(BigInt(v));
    case T.FLOAT:
      return F.floatText;
    case T.DOUBLE:
      return F.doubleText;
    case T.DECIMAL:
      return (v) => F.decimalText(v.value, type.scale);
    case T.VARCHAR:
      return F.jsonString;
    case T.BLOB:
      return (v) => F.base64Text(v.bytes);
    case T.DATE:
      return finite((v) => v.days, (v) => F.dateText(v.days), 2 ** 31 - 1);
    case T.TIME:
      return (v) => F.timeMicrosText(v.micros);
    case T.TIME_NS:
      return (v) => F.timeMicrosText(F.floorDiv(v.nanos, 1000n));
    case T.TIMESTAMP: case T.TIMESTAMP_TZ:
      return finite((v) => v.micros, (v) => F.timestampMicrosText(v.micros));
    case T.TIMESTAMP_S:
      return finite((v) => v.seconds, (v) => F.timestampMicrosText(v.seconds * 1_000_000n));
    case T.TIMESTAMP_MS:
      return finite((v) => v.millis, (v) => F.timestampMicrosText(v.millis * 1000n));
    case T.TIMESTAMP_NS:
      return finite((v) => v.nanos, (v) => F.timestampMicrosText(F.floorDiv(v.nanos, 1000n)));
    case T.UUID: case T.ENUM:
      return str;
    case T.LIST: case T.ARRAY: {
      const item = nullable(converterFor(type.valueType, where));
      return (v) => '[' + v.items.map(item).join(',') + ']';
    }
    case T.STRUCT: {
      const names = type.entryNames;
      const keys = names.map(F.jsonString);
      const fields = type.entryTypes.map((t) => nullable(converterFor(t, where)));
      return (v) => F.objectText(keys, names.map((n, i) => fields[i](v.entries[n])));
    }
    case T.MAP: {
      const key = converterFor(type.keyType, where);
      const value = nullable(converterFor(type.valueType, where));
      return (v) => F.objectText(v.entries.map((e) => F.mapKeyText(key(e.key))), v.entries.map((e) => value(e.value)));
    }
    case T.SQLNULL:
      return () => 'null';
    default:
      // INTERVAL, TIME_TZ, BIT, UNION, BIGNUM, GEOMETRY, VARIANT: DuckDB's string form.
      return (v) => {
        F.noteOnce(`${where}: DuckDB type ${type} printed as its string form`);
        return str(v);
      };
  }
}

const nullable = (convert) => (v) => (v === null || v === undefined ? 'null' : convert(v));

// Streams the rows of `sql` (with positional `params`) to stdout. Returns the number of rows printed.
export async function printQuery(connection, sql, params = []) {
  const result = await connection.stream(sql, params);
  const names = result.deduplicatedColumnNames();
  const keys = names.map((n) => F.jsonString(n) + ':');
  const columns = result.columnTypes().map((t, i) => nullable(converterFor(t, `column ${names[i]}`)));
  let rows = 0;
  // The next chunk is fetched (on DuckDB's thread) while this one is converted.
  let pending = result.fetchChunk();
  for (;;) {
    const chunk = await pending;
    if (!chunk || chunk.rowCount === 0) break;
    const data = chunk.getColumns();
    pending = result.fetchChunk();
    const n = data.length ? data[0].length : 0;
    let out = '';
    for (let r = 0; r < n; r++) {
      let line = '{';
      for (let c = 0; c < columns.length; c++) line += (c ? ',' : '') + keys[c] + columns[c](data[c][r]);
      out += line + '}\n';
    }
    rows += n;
    await F.writeOut(out);
  }
  return rows;
}

// Quotes an SQL identifier.
export const ident = (name) => '"' + name.replaceAll('"', '""') + '"';
