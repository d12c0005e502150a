#!/usr/bin/env bash
# Concurrent writers: 4 processes each run `weir table append` 50 times against one table (each
# append a separate process, with its own txn appId/version). Commits race on put-if-absent and
# retry; checkpoints (every 10 versions) are written concurrently too. The table must end with
# exactly 200 data commits after the create (versions 1..200, contiguous), every row present once,
# and each writer's txn at its last version. DuckDB then reads the table independently.
# Run as WEIR=/path/to/weir bash tests/delta_concurrency_test.sh. Takes about 10 s.
set -uo pipefail

WEIR="$(realpath "${WEIR:-build/weir}")"
cd "$(dirname "$0")/.."
tmp="$(mktemp -d /tmp/weir-delta-concurrency.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

WRITERS=4
APPENDS=50
T="$tmp/table"
"$WEIR" table append "$T" --input /dev/null --format jsonl --create --schema 'writer INT, seq INT, payload STRING' \
  --property delta.checkpointInterval=10 >/dev/null || { echo "FAIL: create"; exit 1; }

writer() {
  local w="$1" i out
  for ((i = 0; i < APPENDS; i++)); do
    printf '{"writer":%d,"seq":%d,"payload":"w%d-%d"}\n' "$w" "$i" "$w" "$i" > "$tmp/in-$w.jsonl"
    if ! out=$("$WEIR" table append "$T" --input "$tmp/in-$w.jsonl" --txn "writer-$w=$i" 2>&1); then
      echo "writer $w append $i failed: $out" >> "$tmp/errors"
    fi
    echo "$out" >> "$tmp/log-$w"
  done
}
start=$(date +%s%N)
for ((w = 0; w < WRITERS; w++)); do writer "$w" & done
wait
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))

if [ -s "$tmp/errors" ]; then fail "appends failed: $(head -3 "$tmp/errors")"; else pass "$((WRITERS * APPENDS)) appends succeeded in ${elapsed_ms} ms"; fi
retries=$(cat "$tmp"/log-* | grep -c 'attempts)' || true)
pass "$retries appends lost a put-if-absent race and retried"

expected=$((WRITERS * APPENDS))
commits=$(ls "$T/_delta_log" | grep -cE '^[0-9]{20}\.json$')
[ "$commits" -eq $((expected + 1)) ] && pass "$commits commit files (create + $expected appends)" ||
  fail "$commits commit files, expected $((expected + 1))"
data_commits=$(grep -l '"add"' "$T"/_delta_log/*.json | wc -l)
[ "$data_commits" -eq "$expected" ] && pass "exactly $data_commits data commits" ||
  fail "$data_commits data commits, expected $expected"
latest=$("$WEIR" table describe "$T" | sed -n 's/^version: //p')
[ "$latest" = "$expected" ] && pass "latest version $latest (the log is contiguous)" || fail "latest version $latest"

"$WEIR" table scan "$T" > "$tmp/rows.jsonl" || fail "scan failed"
rows=$(wc -l < "$tmp/rows.jsonl")
unique=$(sort -u "$tmp/rows.jsonl" | wc -l)
[ "$rows" -eq "$expected" ] && [ "$unique" -eq "$expected" ] && pass "all $rows rows present, none twice" ||
  fail "$rows rows ($unique unique), expected $expected"
for ((w = 0; w < WRITERS; w++)); do
  n=$(grep -c "\"writer\":$w," "$tmp/rows.jsonl")
  [ "$n" -eq "$APPENDS" ] || fail "writer $w has $n rows"
done

# Every writer's progress is in the table: re-running its last load is a no-op.
out=$("$WEIR" table append "$T" --input "$tmp/in-0.jsonl" --txn "writer-0=$((APPENDS - 1))")
[[ "$out" == skipped* ]] && pass "re-running writer 0's last append is skipped" || fail "re-run: $out"
ls "$T/_delta_log" | grep -q '00000000000000000200.checkpoint.parquet' && pass "checkpoint at version 200" ||
  fail "no checkpoint at version 200"

if node tests/delta/duckdb_delta.mjs "$T" 2> "$tmp/duck.err" | sort > "$tmp/duck.sorted"; then
  sort "$tmp/rows.jsonl" | cmp -s - "$tmp/duck.sorted" && pass "DuckDB reads the same $expected rows" ||
    fail "DuckDB rows differ"
else
  fail "DuckDB check: $(cat "$tmp/duck.err")"
fi

echo "delta_concurrency_test: $failures failure(s)"
[ "$failures" -eq 0 ]
