#!/usr/bin/env bash
# Small-file maintenance (`weir table optimize|vacuum`, issue 11): a bronze table made of many
# small files (tiny maxOffsetsPerTrigger) is compacted while a processingTime stream keeps
# appending to it: neither side fails, and DuckDB reading the live files finds exactly the topic's
# records, before and after. OPTIMIZE --where limits it to partitions. VACUUM keeps every file a
# version within the retention needs (time travel still reads), --dry-run deletes nothing, a
# retention below delta.deletedFileRetentionDuration is refused without --force-retention.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
RUN_PID=
PRODUCE_PID=
trap 'kill $BROKER_PID $RUN_PID $PRODUCE_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker orders:3
lake=$work/lake
table=$lake/ops/bronze/orders_raw
cat > "$work/bronze.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE ops.bronze.orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '${max}');
SQL
run_bronze() {  # run_bronze TRIGGER MAX
  "$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger "$1" --set bootstrap="$BOOTSTRAP" \
    --set max="$2" --progress-log "$work/progress.jsonl" > "$work/run.log" 2>&1
}
progress_rows() { python3 -c "
import json,sys
print(sum(json.loads(l)['numInputRows'] for l in open(sys.argv[1]) if l.strip()))" "$work/progress.jsonl"; }
live_files() { python3 -c "
import json,subprocess,sys
print(len(json.loads(subprocess.check_output([sys.executable, sys.argv[1], sys.argv[2]]))))" \
  "$WEIR_SOURCE_DIR/tests/tools/delta_live_files.py" "$1"; }
# The table's rows as DuckDB reads its live files, sorted, and their digest.
digest() { bronze_rows "$1" | sort | sha256sum | cut -d' ' -f1; }
latest_version() { ls "$1/_delta_log" | grep -E '^[0-9]{20}\.json$' | tail -1 | sed 's/^0*//; s/\.json$//; s/^$/0/'; }
data_files_on_disk() { find "$1" -name '*.parquet' -not -path '*/_delta_log/*' | wc -l; }

# 1. Many small files: availableNow in batches of 40 records.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 1200 > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
check "availableNow run with tiny batches succeeds" run_bronze availableNow 40
check "the table has many small files" test "$(live_files "$table")" -ge 25
check "table holds exactly the topic's records" table_matches_topic "$table" orders
rows_before=$(digest "$table")
files_before=$(live_files "$table")
version_before=$(latest_version "$table")

# 2. OPTIMIZE while a processingTime stream appends (and more events arrive).
: > "$work/progress.jsonl"
"$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger processingTime=200ms --set bootstrap="$BOOTSTRAP" \
  --set max=30 --progress-log "$work/progress.jsonl" > "$work/continuous.log" 2>&1 &
RUN_PID=$!
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 1500 --rate 500 --seed 2 > /dev/null 2>&1 &
PRODUCE_PID=$!
optimize_failures=0
optimize_commits=0
for i in $(seq 1 8); do
  sleep 0.4
  if "$WEIR" table optimize "$table" > "$work/optimize.$i.log" 2>&1; then
    grep -q "^committed version" "$work/optimize.$i.log" && optimize_commits=$((optimize_commits + 1))
  else
    optimize_failures=$((optimize_failures + 1))
    cat "$work/optimize.$i.log"
  fi
done
wait $PRODUCE_PID
PRODUCE_PID=
for _ in $(seq 1 150); do
  [ "$(progress_rows 2>/dev/null)" = 1500 ] && break
  sleep 0.2
done
kill -TERM $RUN_PID
wait $RUN_PID
stream_rc=$?
RUN_PID=
check "every OPTIMIZE next to the stream succeeds" test "$optimize_failures" = 0
check "and some committed" test "$optimize_commits" -ge 2
check "the stream exits 0 (no failed commit)" test "$stream_rc" = 0
check "the stream ingested all 1500 new events" test "$(progress_rows)" = 1500
check "streaming commits landed between the OPTIMIZE commits" python3 - "$table" <<'PY'
import json, os, sys
log = os.path.join(sys.argv[1], "_delta_log")
ops = []
for n in sorted(f for f in os.listdir(log) if f.endswith(".json") and f[:20].isdigit()):
    for line in open(os.path.join(log, n)):
        a = json.loads(line)
        if "commitInfo" in a:
            ops.append(a["commitInfo"]["operation"])
opt = [i for i, o in enumerate(ops) if o == "OPTIMIZE"]
assert len(opt) >= 2, ops
between = [o for o in ops[opt[0]:opt[-1]] if o == "STREAMING UPDATE"]
assert between, "no streaming commit between the first and last OPTIMIZE"
PY
check "OPTIMIZE commits only rearrange data (dataChange=false everywhere)" python3 - "$table" <<'PY'
import json, os, sys
log = os.path.join(sys.argv[1], "_delta_log")
for n in sorted(f for f in os.listdir(log) if f.endswith(".json") and f[:20].isdigit()):
    actions = [json.loads(l) for l in open(os.path.join(log, n))]
    info = next(a["commitInfo"] for a in actions if "commitInfo" in a)
    if info["operation"] != "OPTIMIZE":
        continue
    assert info["operationParameters"]["auto"] == "false", info
    for a in actions:
        for kind in ("add", "remove"):
            if kind in a:
                assert a[kind]["dataChange"] is False, (n, a)
PY
check "table holds exactly the topic's records after the concurrent run (DuckDB vs kcat)" \
  table_matches_topic "$table" orders
check "weir validate finds no gap or duplicate" "$WEIR" validate "$table"

# 3. OPTIMIZE on a quiet table: fewer files, same rows.
rows_mid=$(digest "$table")
check "a final OPTIMIZE succeeds" "$WEIR" table optimize "$table"
check "the table is now one file per bin" test "$(live_files "$table")" -le 2
check "DuckDB reads the same rows after OPTIMIZE (digest)" test "$(digest "$table")" = "$rows_mid"
check "OPTIMIZE again has nothing to do" bash -c "'$WEIR' table optimize '$table' | grep -q 'nothing to optimize'"
check "time travel to before the first OPTIMIZE reads the original rows" bash -c \
  "[ \$('$WEIR' table scan '$table' --version $version_before | wc -l) = 1200 ]"

# 4. VACUUM.
on_disk=$(data_files_on_disk "$table")
version=$(latest_version "$table")
check "VACUUM with a retention below 168 hours is refused" bash -c \
  "! '$WEIR' table vacuum '$table' --retain 0 2> '$work/refused.err'"
check "naming the property and the override" grep -q "deletedFileRetentionDuration.*--force-retention" "$work/refused.err"
check "VACUUM with the default retention succeeds" "$WEIR" table vacuum "$table"
check "and deletes nothing (every removed file is within 168 hours)" test "$(data_files_on_disk "$table")" = "$on_disk"
check "VACUUM --retain 1 --force-retention keeps files removed within the hour" \
  "$WEIR" table vacuum "$table" --retain 1 --force-retention
check "so nothing is deleted" test "$(data_files_on_disk "$table")" = "$on_disk"
check "and time travel to the first version still reads" bash -c \
  "[ \$('$WEIR' table scan '$table' --version $version_before | wc -l) = 1200 ]"
sleep 1.1  # files removed by OPTIMIZE are now older than a retention of 1 second
version=$(latest_version "$table")
"$WEIR" table vacuum "$table" --retain 0.0002 --force-retention --dry-run > "$work/dry.log" 2>&1
check "a dry run lists the compacted-away files" bash -c \
  "[ \$(grep -c '\.parquet$' '$work/dry.log') -ge $files_before ]"
check "a dry run deletes nothing" test "$(data_files_on_disk "$table")" = "$on_disk"
check "a dry run commits nothing" test "$(latest_version "$table")" = "$version"
check "VACUUM --retain 0.0002 --force-retention deletes them" \
  "$WEIR" table vacuum "$table" --retain 0.0002 --force-retention
check "only live files remain" test "$(data_files_on_disk "$table")" = "$(live_files "$table")"
check "VACUUM START / VACUUM END are in the history" bash -c \
  "'$WEIR' table history '$table' --limit 2 | grep -q 'VACUUM END' && '$WEIR' table history '$table' --limit 2 | grep -q 'VACUUM START'"
check "the latest version still holds exactly the topic's records" table_matches_topic "$table" orders

# 5. OPTIMIZE --where on a partitioned table made with `weir table append`.
ptable=$work/parted
for i in $(seq 1 4); do
  for region in eu us; do
    echo "{\"id\": $i, \"region\": \"$region\"}" > "$work/row.jsonl"
    "$WEIR" table append "$ptable" --input "$work/row.jsonl" --create --schema 'id BIGINT, region STRING' \
      --partition-by region > /dev/null || echo "FAIL: append"
  done
done
pversion=$(latest_version "$ptable")
check "OPTIMIZE --where region = 'eu' succeeds" "$WEIR" table optimize "$ptable" --where "region = 'eu'"
check "it compacted only eu (1 + 4 files)" test "$(live_files "$ptable")" = 5
check "the rows are unchanged" bash -c "[ \"\$('$WEIR' table scan '$ptable' | sort)\" = \
  \"\$('$WEIR' table scan '$ptable' --version $pversion | sort)\" ]"
"$WEIR" table optimize "$ptable" --where "id = 1" > "$work/where.log" 2>&1
rc=$?
check "--where on a data column is refused" test "$rc" = 2
check "saying why" grep -q "may only test partition columns" "$work/where.log"
# 6. delta.autoOptimize.autoCompact on a streaming table: small files are compacted after the
# commits that made them, and the table still holds exactly the topic's records.
cat > "$work/auto.sql" <<'SQL'
SET spark.databricks.delta.autoCompact.minNumFiles = 6;
CREATE OR REFRESH STREAMING TABLE ops.bronze.auto
TBLPROPERTIES ('delta.autoOptimize.autoCompact' = 'true') AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '100');
SQL
auto_table=$lake/ops/bronze/auto
check "an autoCompact flow runs in many small batches" \
  "$WEIR" run "$work/auto.sql" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
  --progress-log "$work/auto.jsonl"
check "and logged its compactions" bash -c "'$WEIR' table history '$auto_table' | grep -q OPTIMIZE"
check "few live files remain (fewer than the minimum of 6 small ones)" test "$(live_files "$auto_table")" -lt 6
check "the table holds exactly the topic's records" table_matches_topic "$auto_table" orders
finish
