#!/usr/bin/env bash
# Worker mode (issue "Beyond one machine"): three `weir run --workers-group` processes share the
# bronze flow of a 16-partition topic while ~300,000 events arrive; one worker is SIGKILLed and
# another is added mid-run. The consumer group moves partitions between them and each resumes a
# partition from the table's per-partition txn, so the table must end with every record of the
# topic exactly once (compared with kcat's view through DuckDB, and `weir validate`). Also: what
# worker mode refuses, and --tables.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
PIDS=()
trap 'kill "${PIDS[@]}" $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker orders:16
lake=$work/lake
table=$lake/sales/bronze/orders_raw
# A short session timeout: the broker reassigns a killed worker's partitions after it.
cat > "$work/bronze.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '20000',
                       `kafka.session.timeout.ms` => '6000', `kafka.heartbeat.interval.ms` => '500');

CREATE OR REFRESH STREAMING TABLE sales.silver.orders AS
SELECT raw_value FROM STREAM(sales.bronze.orders_raw);
SQL
start_worker() {  # start_worker N: worker N in the background, its log in $work/wN.log
  "$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger processingTime=500ms \
    --set bootstrap="$BOOTSTRAP" --tables sales.bronze.orders_raw --workers-group bronze-workers \
    --progress-log "$work/w$1.jsonl" > "$work/w$1.log" 2>&1 &
  PIDS[$1]=$!
}
table_rows() {  # rows in the bronze table (its live files, read by DuckDB)
  local files
  files=$(python3 "$WEIR_SOURCE_DIR/tests/tools/delta_live_files.py" "$table" 2>/dev/null) || { echo 0; return; }
  js duckdb_query.mjs --sql "SELECT count(*) AS n FROM read_parquet($files)" 2>/dev/null |
    python3 -c "import json,sys; print(json.loads(sys.stdin.readline())['n'])" 2>/dev/null || echo 0
}

# 1. What worker mode refuses, before anything runs.
refused() {  # refused PATTERN ARGS...: weir run fails and says PATTERN
  local out
  out=$("$WEIR" run "$work/bronze.sql" --lakehouse "$work/refused" --set bootstrap="$BOOTSTRAP" "${@:2}" 2>&1)
  [ $? -ne 0 ] && grep -q -- "$1" <<< "$out" || { echo "$out"; return 1; }
}
check "worker mode refuses availableNow" refused "processingTime trigger" \
  --trigger availableNow --workers-group g --tables sales.bronze.orders_raw
check "worker mode refuses a flow reading a Delta table" refused "reads a Delta table" \
  --trigger processingTime=1s --workers-group g
check "--tables refuses a table the pipeline does not define" refused "does not define" \
  --trigger availableNow --tables sales.bronze.nope

# 2. Three workers, 300,000 events arriving, one worker killed, one added.
for n in 1 2 3; do start_worker $n; done
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 300000 --rate 25000 \
  --compression lz4 > "$work/produce.log" 2>&1 &
PRODUCER=$!
sleep 5
kill -KILL "${PIDS[2]}"
sleep 3
start_worker 4
sleep 2
start_worker 5  # joins and leaves while batches run: partitions move under running batches
sleep 4
kill -TERM "${PIDS[5]}"
wait "${PIDS[5]}"
check "worker 5 leaves cleanly on SIGTERM" test $? -eq 0
# Stopped while it joins, before its first assignment (librdkafka 2.0.2 aborted closing a
# cooperative-sticky member then: issue 4312; weir uses the round-robin assignor).
start_worker 6
sleep 0.3
kill -TERM "${PIDS[6]}"
wait "${PIDS[6]}"
check "a worker stopped while it joins the group exits cleanly" test $? -eq 0
wait $PRODUCER || { echo "FAIL: produce"; cat "$work/produce.log"; exit 1; }
expected=$(kcat -C -b "$BOOTSTRAP" -t orders -e -q -f '.\n' 2>/dev/null | wc -l)
check "the topic holds the 300,000 events" test "$expected" -ge 300000
for _ in $(seq 1 90); do
  [ "$(table_rows)" -ge "$expected" ] && break
  sleep 2
done
sleep 2  # a last in-flight batch would show as a duplicate below
for n in 1 3 4; do kill -TERM "${PIDS[$n]}" 2>/dev/null; done
for n in 1 3 4; do
  wait "${PIDS[$n]}"
  check "worker $n stops cleanly on SIGTERM" test $? -eq 0
done
check "the table holds every record of the topic exactly once (DuckDB vs kcat)" \
  table_matches_topic "$table" orders
check "weir validate finds no gap or duplicate" "$WEIR" validate "$table"
rows_written() {  # rows worker N says it wrote ("...: B batches, R rows written this run")
  sed -n 's/.*orders_raw: [0-9]* batches, \([0-9]*\) rows written this run.*/\1/p' "$work/w$1.log"
}
for n in 1 3 4; do
  check "worker $n wrote part of the table" bash -c "[ '$(rows_written $n)' -gt 0 ]"
done
check "the killed worker's partitions were reassigned (a survivor got more)" \
  bash -c "grep -h 'assigned' '$work/w1.log' '$work/w3.log' | wc -l | xargs test 2 -le"
check "the added worker was given partitions" grep -q "worker group bronze-workers: assigned" "$work/w4.log"
progress_per_worker() {  # each worker's progress has its own query id
  python3 - "$work" <<'PY'
import json, sys
ids = set()
for n in (1, 3, 4):
    lines = [json.loads(l) for l in open(f"{sys.argv[1]}/w{n}.jsonl") if l.strip()]
    assert lines, f"worker {n} reported no progress"
    ids.add(lines[0]["id"])
assert len(ids) == 3, ids
PY
}
check "every worker reports its own progress (its own query id)" progress_per_worker
check "workers keep their batch logs apart" \
  bash -c "[ \$(ls '$lake/_checkpoints/sales.bronze.orders_raw/workers/bronze-workers' | wc -l) -ge 5 ]"
echo "batches abandoned after losing a partition to another worker: $(cat "$work"/w*.log | grep -c abandoned)"
finish
