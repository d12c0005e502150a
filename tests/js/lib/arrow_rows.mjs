// Converts Apache Arrow record batches (as parquet-wasm yields them) into weir's JSON lines (lib/format.mjs).
// Values are read from the raw Arrow buffers (int64 timestamps, decimal words, offsets), never through
// apache-arrow's convenience getters, which turn timestamps into float milliseconds and decimals into
// lossy numbers.
//
// Supported Arrow types: Null, Bool, Int 8..64 (signed/unsigned), Float 16/32/64, Decimal 128/256, Utf8,
// LargeUtf8, Binary, LargeBinary, FixedSizeBinary (UUID when the field carries the arrow.uuid extension),
// Date (day/ms), Time (any unit), Timestamp (any unit), List, LargeList, FixedSizeList, Struct, Map and
// Dictionary of those. Anything else (Interval, Duration, Union, views) throws "unsupported Arrow type".
import { Type, TimeUnit, DateUnit, Precision } from 'apache-arrow';
import * as F from './format.mjs';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const big = (v) => (typeof v === 'bigint' ? Number(v) : v);
const MICROS_PER_UNIT = { [TimeUnit.SECOND]: 1_000_000n, [TimeUnit.MILLISECOND]: 1000n, [TimeUnit.MICROSECOND]: 1n };

// Decodes IEEE half precision bits into a number.
function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  if (exp === 0) return sign * frac * 2 ** -24;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

// Little-endian two's-complement 32-bit words -> bigint.
function wordsToBigInt(words, begin, count) {
  let v = 0n;
  for (let k = count - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[begin + k]);
  return BigInt.asIntN(32 * count, v);
}

function uuidText(bytes) {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  return `"${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}"`;
}

const isValid = (data, i) => data.nullCount === 0 || data.getValid(i);

// Wraps a converter so that null slots print null.
const nullable = (convert) => (data, i) => (isValid(data, i) ? convert(data, i) : 'null');

function bytesAt(data, i) {
  const o = data.valueOffsets;
  return data.values.subarray(big(o[i]), big(o[i + 1]));
}

// Compiles an Arrow field into a function (Data, index of a non-null slot) -> JSON text.
export function converterFor(field) {
  const type = field.type;
  switch (type.typeId) {
    case Type.Null:
      return () => 'null';
    case Type.Bool:
      return (d, i) => {
        const bit = d.offset + i;
        return d.values[bit >> 3] & (1 << (bit & 7)) ? 'true' : 'false';
      };
    case Type.Int:
      if (type.bitWidth === 64) return (d, i) => F.bigIntText(d.values[i]);
      return (d, i) => String(d.values[i]);
    case Type.Float:
      if (type.precision === Precision.HALF) return (d, i) => F.floatText(halfToNumber(d.values[i]));
      if (type.precision === Precision.SINGLE) return (d, i) => F.floatText(d.values[i]);
      return (d, i) => F.doubleText(d.values[i]);
    case Type.Decimal: {
      const words = type.bitWidth / 32;
      return (d, i) => F.decimalText(wordsToBigInt(d.values, i * words, words), type.scale);
    }
    case Type.Utf8: case Type.LargeUtf8:
      return (d, i) => F.jsonString(utf8.decode(bytesAt(d, i)));
    case Type.Binary: case Type.LargeBinary:
      return (d, i) => F.base64Text(bytesAt(d, i));
    case Type.FixedSizeBinary: {
      const w = type.byteWidth;
      const ext = field.metadata.get('ARROW:extension:name');
      if (ext === 'arrow.uuid' && w === 16) return (d, i) => uuidText(d.values.subarray(i * 16, i * 16 + 16));
      return (d, i) => F.base64Text(d.values.subarray(i * w, (i + 1) * w));
    }
    case Type.Date:
      if (type.unit === DateUnit.DAY) return (d, i) => F.dateText(d.values[i]);
      return (d, i) => F.dateText(Number(F.floorDiv(d.values[i], 86_400_000n)));
    case Type.Time:
      if (type.unit === TimeUnit.NANOSECOND) return (d, i) => F.timeMicrosText(F.floorDiv(BigInt(d.values[i]), 1000n));
      return (d, i) => F.timeMicrosText(BigInt(d.values[i]) * MICROS_PER_UNIT[type.unit]);
    case Type.Timestamp:
      if (type.unit === TimeUnit.NANOSECOND) return (d, i) => F.timestampMicrosText(F.floorDiv(d.values[i], 1000n));
      if (type.unit === TimeUnit.MICROSECOND) return (d, i) => F.timestampMicrosText(d.values[i]);
      return (d, i) => F.timestampMicrosText(BigInt(d.values[i]) * MICROS_PER_UNIT[type.unit]);
    case Type.List: case Type.LargeList: {
      const item = nullable(converterFor(type.children[0]));
      return (d, i) => {
        const child = d.children[0];
        const parts = [];
        for (let j = big(d.valueOffsets[i]), end = big(d.valueOffsets[i + 1]); j < end; j++) parts.push(item(child, j));
        return '[' + parts.join(',') + ']';
      };
    }
    case Type.FixedSizeList: {
      const item = nullable(converterFor(type.children[0]));
      const n = type.listSize;
      return (d, i) => {
        const parts = [];
        for (let j = i * n; j < (i + 1) * n; j++) parts.push(item(d.children[0], j));
        return '[' + parts.join(',') + ']';
      };
    }
    case Type.Struct: {
      const keys = type.children.map((f) => F.jsonString(f.name));
      const fields = type.children.map((f) => nullable(converterFor(f)));
      return (d, i) => F.objectText(keys, fields.map((convert, k) => convert(d.children[k], i)));
    }
    case Type.Map: {
      const [keyField, valueField] = type.children[0].type.children;
      const key = converterFor(keyField);
      const value = nullable(converterFor(valueField));
      return (d, i) => {
        const entries = d.children[0];
        const [keys, values] = entries.children;
        const k = [], v = [];
        for (let j = d.valueOffsets[i], end = d.valueOffsets[i + 1]; j < end; j++) {
          k.push(F.mapKeyText(key(keys, j)));
          v.push(value(values, j));
        }
        return F.objectText(k, v);
      };
    }
    case Type.Dictionary: {
      const value = nullable(converterFor({ type: type.dictionary, metadata: field.metadata }));
      return (d, i) => {
        const dict = d.dictionary.data;
        let j = big(d.values[i]);
        let c = 0;
        while (j >= dict[c].length) j -= dict[c++].length;
        return value(dict[c], j);
      };
    }
    default:
      throw new Error(`unsupported Arrow type ${type} in field ${field.name}`);
  }
}

// Prints every row of an apache-arrow Table (any number of record batches) to stdout; `names` (optional)
// picks and orders the top-level columns.
export async function printTable(table, names) {
  const all = table.schema.fields;
  const order = names ? names.map((n) => all.findIndex((f) => f.name === n)) : all.map((_, i) => i);
  if (order.includes(-1)) throw new Error(`no column named ${names[order.indexOf(-1)]}`);
  const keys = order.map((i) => F.jsonString(all[i].name) + ':');
  const columns = order.map((i) => nullable(converterFor(all[i])));
  for (const batch of table.batches) {
    const data = order.map((i) => batch.data.children[i]);
    let out = '';
    for (let r = 0; r < batch.numRows; r++) {
      let line = '{';
      for (let c = 0; c < columns.length; c++) line += (c ? ',' : '') + keys[c] + columns[c](data[c], r);
      out += line + '}\n';
    }
    await F.writeOut(out);
  }
}
