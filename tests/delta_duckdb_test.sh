#!/usr/bin/env bash
# Tables written by `weir table append` read back by an independent reader: DuckDB, through
# tests/delta/duckdb_delta.mjs, which replays the NDJSON log (and checkpoints) itself and reads the
# data files with read_parquet. For tables with every type, partitioned and not, null and escaped
# partition values, after checkpoints, with txn: DuckDB's rows must equal `weir table scan`'s and
# the input's row count; add.size must be the file size; stats must match DuckDB's aggregates.
# Also: exactly-once re-runs (--txn), CSV and Parquet input, history and describe.
# Run as WEIR=/path/to/weir bash tests/delta_duckdb_test.sh. Takes about 15 s.
set -uo pipefail

WEIR="$(realpath "${WEIR:-build/weir}")"
cd "$(dirname "$0")/.."
tmp="$(mktemp -d /tmp/weir-delta-duckdb.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if [ ! -d tests/js/node_modules/@duckdb ]; then
  (cd tests/js && npm ci --silent >/dev/null 2>&1) || { echo "FAIL: npm ci in tests/js failed"; exit 1; }
fi

# compare TABLE NAME EXPECTED_ROWS: DuckDB's reading equals weir's scan, with EXPECTED_ROWS rows.
compare() {
  local table="$1" name="$2" expected="$3"
  if ! node tests/delta/duckdb_delta.mjs "$table" > "$tmp/duck.jsonl" 2> "$tmp/duck.err"; then
    fail "$name: DuckDB check failed: $(tr '\n' ' ' < "$tmp/duck.err")"
    return
  fi
  if ! "$WEIR" table scan "$table" > "$tmp/weir.jsonl" 2> "$tmp/weir.err"; then
    fail "$name: weir table scan failed: $(cat "$tmp/weir.err")"
    return
  fi
  sort "$tmp/duck.jsonl" > "$tmp/duck.sorted"
  sort "$tmp/weir.jsonl" > "$tmp/weir.sorted"
  local n
  n=$(wc -l < "$tmp/weir.sorted")
  if ! cmp -s "$tmp/duck.sorted" "$tmp/weir.sorted"; then
    fail "$name: DuckDB and weir disagree:"
    diff "$tmp/duck.sorted" "$tmp/weir.sorted" | head -6
  elif [ "$n" -ne "$expected" ]; then
    fail "$name: $n rows, expected $expected"
  else
    pass "$name: DuckDB reads the same $n rows as weir ($(tail -1 "$tmp/duck.err" | sed 's/^duckdb_delta: [^:]*: //'))"
  fi
}

# --- 1. every type, not partitioned, several commits, a checkpoint in between --------------------
ALL='id BIGINT NOT NULL, i INT, s SMALLINT, t TINYINT, f FLOAT, d DOUBLE, b BOOLEAN, str STRING,
     bin BINARY, dec DECIMAL(10,3), big DECIMAL(30,5), dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ,
     st STRUCT<x: INT, y: STRING>, arr ARRAY<INT>, m MAP<STRING, DOUBLE>'
cat > "$tmp/all1.jsonl" <<'EOF'
{"id":1,"i":-7,"s":300,"t":-8,"f":1.5,"d":2.25,"b":true,"str":"héllo, \"world\"","bin":"AAEC","dec":12.345,"big":"123456789012345678901234.56789","dt":"2024-02-29","ts":"2024-05-01T12:30:45.123456Z","ntz":"2024-05-01 12:30:45","st":{"x":1,"y":"a"},"arr":[1,null,3],"m":{"k":1.0}}
{"id":2}
{"id":3,"i":2147483647,"s":-32768,"t":127,"f":-0.25,"d":-1e300,"b":false,"str":"","bin":"","dec":"-0.001","big":0,"dt":"1970-01-01","ts":"1969-12-31T23:59:59.999999Z","ntz":"1900-01-01T00:00:00","st":{"x":null,"y":null},"arr":[],"m":{}}
EOF
cat > "$tmp/all2.jsonl" <<'EOF'
{"id":4,"str":"a string longer than thirty-two characters, to truncate its statistics","dt":"9999-12-31","ts":"9999-12-31T23:59:59.999999Z","arr":[7]}
{"id":5,"i":0,"d":0.1,"dec":"99.999","st":null}
EOF
T1="$tmp/all_types"
"$WEIR" table append "$T1" --input "$tmp/all1.jsonl" --create --schema "$ALL" >/dev/null &&
  "$WEIR" table append "$T1" --input "$tmp/all2.jsonl" >/dev/null &&
  "$WEIR" table checkpoint "$T1" >/dev/null &&
  "$WEIR" table append "$T1" --input "$tmp/all1.jsonl" >/dev/null ||
  fail "all_types: loading failed"
[ -f "$T1/_delta_log/00000000000000000002.checkpoint.parquet" ] && pass "all_types: checkpoint at version 2" ||
  fail "all_types: no checkpoint file"
compare "$T1" "all_types" 8

# --- 2. partitioned by six types, with nulls and characters that need escaping -----------------------
cat > "$tmp/part.jsonl" <<'EOF'
{"v":1,"p":"a/b","dt":"2024-01-01","n":1,"ts":"2024-01-01T10:00:00Z","dec":"1.50","b":true}
{"v":2,"p":null,"dt":null,"n":null,"ts":null,"dec":null,"b":null}
{"v":3,"p":"x y%z:=#","dt":"2024-01-02","n":-5,"ts":"2024-01-01T10:00:00.123456Z","dec":"-2.00","b":false}
{"v":4,"p":"😈","dt":"2024-01-01","n":1,"ts":"2024-01-01T10:00:00Z","dec":"1.50","b":true}
{"v":5,"p":"a/b","dt":"2024-01-01","n":1,"ts":"2024-01-01T10:00:00Z","dec":"1.50","b":true}
EOF
T2="$tmp/partitioned"
"$WEIR" table append "$T2" --input "$tmp/part.jsonl" --create \
  --schema 'v INT, p STRING, dt DATE, n INT, ts TIMESTAMP, dec DECIMAL(10,2), b BOOLEAN' \
  --partition-by p,dt,n,ts,dec,b >/dev/null || fail "partitioned: loading failed"
[ -d "$T2/p=__HIVE_DEFAULT_PARTITION__/dt=__HIVE_DEFAULT_PARTITION__" ] && [ -d "$T2/p=a%2Fb" ] &&
  [ -d "$T2/p=x y%25z%3A%3D%23" ] && pass "partitioned: Hive-style escaped directories" ||
  { fail "partitioned: unexpected directories"; ls "$T2"; }
compare "$T2" "partitioned" 5
# DuckDB's own Hive partition discovery agrees with the directory names.
hive=$(node tests/js/duckdb_query.mjs --sql "SELECT count(*) AS n, count(DISTINCT p) AS p FROM read_parquet('$T2/**/*.parquet', hive_partitioning=true)")
[ "$hive" = '{"n":5,"p":3}' ] && pass "partitioned: DuckDB hive_partitioning reads the directories ($hive)" ||
  fail "partitioned: DuckDB hive_partitioning gave $hive"

# --- 3. txn (exactly-once loads) and checkpoints every 2 commits --------------------------------------
T3="$tmp/txn"
printf '{"id":1}\n{"id":2}\n' > "$tmp/ids.jsonl"
"$WEIR" table append "$T3" --input "$tmp/ids.jsonl" --create --schema 'id INT' \
  --property delta.checkpointInterval=2 --txn loader=1 >/dev/null || fail "txn: first load failed"
out=$("$WEIR" table append "$T3" --input "$tmp/ids.jsonl" --txn loader=1)
[[ "$out" == skipped* ]] && pass "txn: a re-run of the same load is skipped" || fail "txn: re-run gave: $out"
for v in 2 3 4; do "$WEIR" table append "$T3" --input "$tmp/ids.jsonl" --txn loader=$v >/dev/null; done
[ -f "$T3/_delta_log/00000000000000000004.checkpoint.parquet" ] && pass "txn: checkpoints at versions 2 and 4" ||
  fail "txn: missing checkpoint"
"$WEIR" table append "$T3" --input "$tmp/ids.jsonl" --txn loader=3 | grep -q skipped &&
  pass "txn: an older load after a checkpoint is skipped" || fail "txn: older load not skipped"
compare "$T3" "txn" 8
node tests/delta/duckdb_delta.mjs "$T3" 2>&1 >/dev/null | grep -q "loader=4" &&
  pass "txn: DuckDB sees txn loader=4 (checkpoint + log)" || fail "txn: txn not found by DuckDB"
n=$(node tests/js/duckdb_query.mjs --sql "SELECT count(*) AS n FROM read_parquet('$T3/_delta_log/00000000000000000004.checkpoint.parquet') WHERE txn.appId = 'loader'")
[ "$n" = '{"n":1}' ] && pass "txn: the checkpoint holds the txn" || fail "txn: checkpoint txn rows: $n"

# --- 4. CSV and Parquet input --------------------------------------------------------------------
T4="$tmp/csv"
printf 'name,qty,price,day\n"Smith, J",3,9.99,2024-03-01\nplain,,0.5,\n"multi\nline",1,,2024-03-02\n' > "$tmp/in.csv"
"$WEIR" table append "$T4" --input "$tmp/in.csv" --create \
  --schema 'name STRING, qty INT, price DECIMAL(6,2), day DATE' --partition-by day >/dev/null ||
  fail "csv: load failed"
compare "$T4" "csv" 3
"$WEIR" table scan "$T4" | grep -q '"name":"multi\\nline"' && pass "csv: quoted newline kept" ||
  fail "csv: quoted newline lost"
T5="$tmp/from_parquet"
node tests/js/duckdb_write.mjs --out "$tmp/in.parquet" \
  --sql "SELECT i::BIGINT AS id, 'row ' || i AS label, (i % 3)::INT AS bucket FROM range(1000) t(i)" ||
  fail "parquet: DuckDB could not write the input"
"$WEIR" table append "$T5" --input "$tmp/in.parquet" --create --partition-by bucket >/dev/null ||
  fail "parquet: load failed"
compare "$T5" "from_parquet" 1000

# --- 5. describe and history ----------------------------------------------------------------------
desc=$("$WEIR" table describe "$T3")
echo "$desc" | grep -q '^version: 4$' && echo "$desc" | grep -q 'delta.checkpointInterval = 2' &&
  echo "$desc" | grep -q '^files: 4$' && pass "describe: version, properties, files" ||
  { fail "describe output"; echo "$desc"; }
hist=$("$WEIR" table history "$T3" --format jsonl --limit 2)
[ "$(echo "$hist" | wc -l)" -eq 2 ] && echo "$hist" | head -1 | grep -q '"version":4' &&
  echo "$hist" | head -1 | grep -q '"operation":"WRITE"' && echo "$hist" | grep -q '"numOutputRows":"2"' &&
  pass "history: newest first with operation and metrics" || { fail "history output"; echo "$hist"; }

echo "delta_duckdb_test: $failures failure(s)"
[ "$failures" -eq 0 ]
