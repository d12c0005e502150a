#!/usr/bin/env bash
# `weir table merge` (delta/merge.h, docs/merge.md) against DuckDB computing the same MERGE over the
# same inputs. A target table of six files with disjoint (p, off) ranges gets three source files
# merged one after another on keys (p, off), with duplicates inside a source and overlaps with the
# table: with --update the table must equal DuckDB's "last row per key" over base + sources (window
# dedup); insert-only it must equal "first file holding the key wins, the last row of a key inside
# that file". Before every merge DuckDB computes from the live files' data how many files stats
# pruning may read (per key column, the file's [min, max] holds one of the source's values) and
# the merge must report exactly that many scanned. Also: --prune on time (old rows neither read
# nor matched), --txn re-runs are no-ops, history shows MERGE with its metrics.
# Run as: WEIR=build/weir WEIR_SOURCE_DIR=$PWD bash tests/merge_test.sh
set -uo pipefail
WEIR="$(realpath "${WEIR:-${1:-build/weir}}")"
WEIR_SOURCE_DIR="${WEIR_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
source "$WEIR_SOURCE_DIR/tests/tools/common.sh"
work=$(mktemp -d /tmp/weir-merge-test.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
if [ ! -d "$WEIR_SOURCE_DIR/tests/js/node_modules/@duckdb" ]; then
  (cd "$WEIR_SOURCE_DIR/tests/js" && npm ci --silent >/dev/null 2>&1) || { echo "FAIL: npm ci in tests/js failed"; exit 1; }
fi
SCHEMA='p INT, off BIGINT, n BIGINT, v STRING, ts TIMESTAMP'
COLUMNS="{p: 'INTEGER', off: 'BIGINT', n: 'BIGINT', v: 'VARCHAR', ts: 'TIMESTAMP'}"

# Inputs: base/b0..b5.jsonl (p in 0..2, off 0-49 and 50-99), sources s1..s3.jsonl. n increases
# over all rows in file order (base files, then s1, s2, s3): "later" means a larger n.
python3 - "$work" <<'EOF'
import json, os, random, sys
work = sys.argv[1]
random.seed(7)
n = 0
def row(p, off, v, hour=9):
    global n
    n += 1
    return json.dumps({"p": p, "off": off, "n": n, "v": v, "ts": f"2026-06-08 {hour:02d}:{off % 60:02d}:00"})
k = 0
for p in range(3):
    for lo in (0, 50):
        with open(f"{work}/b{k}.jsonl", "w") as f:
            for off in range(lo, lo + 50):
                f.write(row(p, off, f"base-{p}-{off}") + "\n")
        k += 1
sources = {
    # p 0 offsets 40-60 (both p=0 files) with duplicates inside the batch, and new offsets 100-104.
    "s1": [(0, off) for off in range(40, 61)] + [(0, 45), (0, 50), (0, 50)] + [(0, off) for off in range(100, 105)],
    # p 1 offsets 95-110 (re-delivery overlap + new), plus keys of s1 again: no p=2 file is read.
    "s2": [(1, off) for off in range(95, 111)] + [(0, 102), (0, 41)],
    # only new keys, beyond every range: no file may be read.
    "s3": [(3, off) for off in range(0, 10)] + [(3, 4)],
}
for name, keys in sources.items():
    with open(f"{work}/{name}.jsonl", "w") as f:
        for p, off in keys:
            f.write(row(p, off, f"{name}-{p}-{off}", hour=12) + "\n")
EOF

make_target() {  # make_target DIR: the six base files, one commit each
  for k in 0 1 2 3 4 5; do
    "$WEIR" table append "$1" --create --schema "$SCHEMA" --input "$work/b$k.jsonl" > /dev/null || return 1
  done
}
live_files() { python3 "$WEIR_SOURCE_DIR/tests/tools/delta_live_files.py" "$1"; }
table_rows() {  # sorted rows of a Delta table as weir reads it
  "$WEIR" table scan "$1" --columns p,off,n,v,ts | sort
}
# The number of live files of TABLE whose data, per key column, holds a value of SOURCE's keys
# within its [min, max]: what statistics-based pruning may read.
allowed_files() {
  local files
  files=$(live_files "$1") || return 1
  js duckdb_query.mjs --sql "
    WITH f AS (SELECT filename, min(p) AS p0, max(p) AS p1, min(off) AS o0, max(off) AS o1
               FROM read_parquet($files, filename = true) GROUP BY filename),
         s AS (SELECT DISTINCT p, off FROM read_ndjson('$2', columns = $COLUMNS))
    SELECT count(*) AS n FROM f
    WHERE EXISTS (SELECT 1 FROM s WHERE s.p BETWEEN f.p0 AND f.p1)
      AND EXISTS (SELECT 1 FROM s WHERE s.off BETWEEN f.o0 AND f.o1)" | sed 's/{"n":\([0-9]*\)}/\1/'
}
metric() {  # metric NAME OUTPUT
  echo "$2" | grep -o "$1=[0-9]*" | cut -d= -f2
}
# merge_and_check NAME TABLE SOURCE ARGS...: merges, then checks the scanned count against DuckDB.
merge_and_check() {
  local name=$1 table=$2 source=$3
  shift 3
  local allowed out scanned
  allowed=$(allowed_files "$table" "$source") || { echo "FAIL: $name: DuckDB pruning query failed"; fail_count=$((fail_count + 1)); return; }
  if ! out=$("$WEIR" table merge "$table" --source "$source" --keys p,off "$@" 2>&1); then
    echo "FAIL: $name: weir table merge failed: $out"
    fail_count=$((fail_count + 1))
    return
  fi
  scanned=$(metric numTargetFilesScanned "$out")
  if [ "$scanned" = "$allowed" ]; then
    pass_count=$((pass_count + 1))
    echo "ok: $name: scanned $scanned of $(metric numTargetFilesBeforeSkipping "$out") files (DuckDB: $allowed may match)"
  else
    echo "FAIL: $name: scanned $scanned files, stats pruning allows $allowed: $out"
    fail_count=$((fail_count + 1))
  fi
}
sources_sql() {  # the base and source files read by DuckDB, with the order of files
  echo "SELECT p, off, n, v, ts, filename FROM read_ndjson(['$work/b0.jsonl','$work/b1.jsonl','$work/b2.jsonl',
    '$work/b3.jsonl','$work/b4.jsonl','$work/b5.jsonl','$work/s1.jsonl','$work/s2.jsonl','$work/s3.jsonl'],
    columns = $COLUMNS, filename = true)"
}
same_as_duckdb() {  # same_as_duckdb TABLE SQL
  table_rows "$1" > "$work/weir.jsonl" || return 1
  js duckdb_query.mjs --sql "$2" | sort > "$work/duck.jsonl" || return 1
  [ -s "$work/duck.jsonl" ] || { echo "DuckDB returned nothing"; return 1; }
  diff "$work/duck.jsonl" "$work/weir.jsonl" > "$work/diff.txt" || { head -10 "$work/diff.txt"; return 1; }
}

# 1. Upsert (WHEN MATCHED THEN UPDATE SET *): the last row of every key wins.
upsert=$work/upsert
check "upsert: target created" make_target "$upsert"
for s in s1 s2 s3; do merge_and_check "upsert $s" "$upsert" "$work/$s.jsonl" --update; done
check "upsert: the table equals DuckDB's last row per key" same_as_duckdb "$upsert" "
  SELECT p, off, n, v, ts FROM ($(sources_sql))
  QUALIFY row_number() OVER (PARTITION BY p, off ORDER BY n DESC) = 1"
check "upsert: one row per key" test "$(table_rows "$upsert" | wc -l)" = \
  "$(cat "$work"/b*.jsonl "$work"/s*.jsonl | python3 -c 'import json,sys; print(len({(json.loads(l)["p"], json.loads(l)["off"]) for l in sys.stdin}))')"

# 2. Insert-only (the runbook's overlap dedup): a key's first file wins; inside a source file the
# key's last row.
insert=$work/insert
check "insert-only: target created" make_target "$insert"
before=$(live_files "$insert")
for s in s1 s2 s3; do merge_and_check "insert-only $s" "$insert" "$work/$s.jsonl"; done
check "insert-only: the table equals DuckDB's first-file-wins dedup" same_as_duckdb "$insert" "
  SELECT p, off, n, v, ts FROM ($(sources_sql))
  QUALIFY row_number() OVER (PARTITION BY p, off ORDER BY filename ASC, n DESC) = 1"
check "insert-only: no base file was rewritten" python3 -c "
import json, sys
before = set(json.loads(sys.argv[1])); after = set(json.loads(sys.argv[2]))
sys.exit(0 if before <= after else 1)" "$before" "$(live_files "$insert")"
check "insert-only: no remove action in the log" bash -c "! grep -q '\"remove\"' $insert/_delta_log/*.json"

# 3. Exactly once: the same --txn again is a no-op.
txn_table=$work/txn
check "txn: target created" make_target "$txn_table"
check "txn: first run commits" "$WEIR" table merge "$txn_table" --source "$work/s1.jsonl" --keys p,off --update --txn q1=3
version_after() { ls "$1/_delta_log/" | grep -c '^[0-9]*\.json$'; }
v1=$(version_after "$txn_table")
out=$("$WEIR" table merge "$txn_table" --source "$work/s2.jsonl" --keys p,off --update --txn q1=3 2>&1)
check "txn: a re-run is skipped" grep -q "skipped: txn q1=3 is already committed" <<< "$out"
check "txn: no new version" test "$(version_after "$txn_table")" = "$v1"

# 4. --prune on time: rows of the 09:xx files are neither read nor matched, so a re-delivered key
# whose row is older than the bound is inserted again (the runbook's time predicate).
prune=$work/prune
check "prune: target created" make_target "$prune"
python3 -c "
import json
print(json.dumps({'p': 0, 'off': 3, 'n': 1000, 'v': 'again', 'ts': '2026-06-08 12:00:00'}))
print(json.dumps({'p': 9, 'off': 1, 'n': 1001, 'v': 'new', 'ts': '2026-06-08 12:00:00'}))" > "$work/late.jsonl"
out=$("$WEIR" table merge "$prune" --source "$work/late.jsonl" --keys p,off --prune "ts >= '2026-06-08 10:00:00'" 2>&1)
check "prune: no base file read" test "$(metric numTargetFilesScanned "$out")" = 0
check "prune: both rows inserted" test "$(metric numTargetRowsInserted "$out")" = 2
check "prune: key (0, 3) now twice" test "$(table_rows "$prune" | grep -c '"p":0,"off":3,')" = 2
out=$("$WEIR" table merge "$prune" --source "$work/late.jsonl" --keys p,off --prune "ts >= '2026-06-08 10:00:00'" 2>&1)
check "prune: a second delivery matches the new rows" test "$(metric numTargetRowsInserted "$out")" = 0
check "prune: bad condition is a usage error" bash -c "! '$WEIR' table merge '$prune' --source '$work/late.jsonl' --keys p,off --prune 'ts ~ x' 2>/dev/null"

# 5. History: MERGE with Delta's parameters and metrics.
hist=$("$WEIR" table history "$upsert" --format jsonl --limit 1)
check "history: operation MERGE" grep -q '"operation":"MERGE"' <<< "$hist"
check "history: predicate" grep -q 't.p = s.p AND t.off = s.off' <<< "$hist"
check "history: metrics" grep -q '"numTargetRowsInserted"' <<< "$hist"

finish
