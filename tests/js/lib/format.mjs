// weir's JSON-lines value conventions, shared by every reader in tests/js/.
// Each function turns one non-null value into JSON *text* (the readers assemble rows as text so that key
// order — including numeric-looking keys — is kept exactly). Callers handle null themselves ("null").
//
//   integers            JSON number; 64-bit and wider beyond ±2^53 (|v| > 2^53) as a JSON string "123…"
//   decimal(p,s)        JSON string with exactly s fractional digits: "10.50", "-0.05"; s = 0 gives "42"
//   double              JSON number (shortest round-trip text); -0 as -0; NaN/±Inf as "NaN","Infinity","-Infinity"
//   float               JSON number: the shortest decimal that round-trips to the same float32 (what C++
//                       std::to_chars(float) gives), so 1.1f prints 1.1, not 1.100000023841858
//   boolean             true / false
//   timestamp           "YYYY-MM-DDTHH:MM:SS.ffffffZ" in UTC, always 6 fractional digits; nanosecond values are
//                       floored to the microsecond; years outside 0000..9999 as "-0001"/"+10000"
//   date                "YYYY-MM-DD"
//   time                "HH:MM:SS.ffffff" (nanoseconds floored to micros)
//   string              JSON string;  binary: base64 JSON string;  uuid: "xxxxxxxx-xxxx-…" lowercase
//   struct              JSON object, fields in schema order;  list: JSON array
//   map                 JSON object, entries in stored order, each key converted to its JSON text and, when that
//                       is not already a JSON string, wrapped into one (1 -> "1", true -> "true", 2.5 -> "2.5")

const TWO_53 = 2n ** 53n;
const MICROS_PER_DAY = 86_400_000_000;
const MICROS_PER_DAY_N = 86_400_000_000n;

export const jsonString = (s) => JSON.stringify(s);

export function bigIntText(v) {
  return v > TWO_53 || v < -TWO_53 ? `"${v}"` : v.toString();
}

export function doubleText(x) {
  if (Number.isNaN(x)) return '"NaN"';
  if (x === Infinity) return '"Infinity"';
  if (x === -Infinity) return '"-Infinity"';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

export function floatText(x) {
  if (!Number.isFinite(x) || x === 0) return doubleText(x);
  for (let p = 1; p < 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(Number(x.toPrecision(9)));
}

// `unscaled` is a bigint holding value * 10^scale.
export function decimalText(unscaled, scale) {
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return `"${neg ? '-' : ''}${digits}"`;
}

export const base64Text = (bytes) =>
  `"${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}"`;

const pad2 = (n) => (n < 10 ? '0' : '') + n;
const pad6 = (n) => String(n).padStart(6, '0');

function yearText(y) {
  if (y >= 0 && y <= 9999) return String(y).padStart(4, '0');
  return (y < 0 ? '-' : '+') + String(Math.abs(y)).padStart(4, '0');
}

// Proleptic Gregorian civil date from days since 1970-01-01 (H. Hinnant's algorithm).
function civilDate(days) {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return `${yearText(yoe + era * 400 + (m <= 2 ? 1 : 0))}-${pad2(m)}-${pad2(d)}`;
}

export const dateText = (days) => `"${civilDate(days)}"`;

// Time of day from microseconds since midnight (0 <= micros <= 86400e6; 24:00:00 is legal in TIME).
function clockText(micros) {
  const secs = Math.floor(micros / 1e6);
  return `${pad2(Math.floor(secs / 3600))}:${pad2(Math.floor(secs / 60) % 60)}:${pad2(secs % 60)}.${pad6(micros % 1e6)}`;
}

export const timeMicrosText = (micros) => `"${clockText(Number(micros))}"`;

// `micros` since the epoch as a bigint or a number (numbers must be integral).
export function timestampMicrosText(micros) {
  let days, rest;
  const n = Number(micros);
  if (Number.isSafeInteger(n)) {
    days = Math.floor(n / MICROS_PER_DAY);
    rest = n - days * MICROS_PER_DAY;
  } else {
    const m = BigInt(micros);
    let d = m / MICROS_PER_DAY_N;
    if (m % MICROS_PER_DAY_N < 0n) d -= 1n;
    days = Number(d);
    rest = Number(m - d * MICROS_PER_DAY_N);
  }
  return `"${civilDate(days)}T${clockText(rest)}Z"`;
}

// Floor division of a bigint by a positive bigint (BigInt division truncates toward zero).
export function floorDiv(a, b) {
  const q = a / b;
  return a % b < 0n ? q - 1n : q;
}

// Map key -> object key: its JSON text, wrapped into a JSON string unless it already is one.
export const mapKeyText = (keyJson) => (keyJson.charCodeAt(0) === 34 ? keyJson : JSON.stringify(keyJson));

export const objectText = (keysJson, valuesJson) => {
  let out = '{';
  for (let i = 0; i < keysJson.length; i++) out += (i ? ',' : '') + keysJson[i] + ':' + valuesJson[i];
  return out + '}';
};

// A reader that stops early (`| head`) is not an error.
process.stdout.on('error', (e) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(0);
});

// Writes text to stdout, waiting when the pipe is full so that large outputs stream in bounded memory.
export async function writeOut(text) {
  if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
}

// Prints one stderr note per distinct message (used for values printed in a fallback string form).
const noted = new Set();
export function noteOnce(message) {
  if (noted.has(message)) return;
  noted.add(message);
  process.stderr.write(`note: ${message}\n`);
}
