#!/usr/bin/env bash
# The bronze flow end to end against `weir broker` (issue "Streaming engine"): events from
# `weir produce` and from kcat land exactly once in the Delta table, read back by DuckDB and
# compared with the topic as kcat sees it; availableNow in several batches; restart; processingTime
# with a graceful SIGTERM; a deleted checkpoint resumed from the table's per-partition txns; a
# changed subscription refused; progress JSON with Spark's fields.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID $RUN_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
RUN_PID=
start_broker orders:4 other:2
lake=$work/lake
table=$lake/sales/bronze/orders_raw
cat > "$work/bronze.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => '${topic}',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '${max}');
SQL
run_bronze() {  # run_bronze TRIGGER [extra --set]... ; output in $work/run.log
  "$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger "$1" --set bootstrap="$BOOTSTRAP" \
    --set topic=orders --set max=7000 --progress-log "$work/progress.jsonl" "${@:2}" > "$work/run.log" 2>&1
}
progress_rows() { python3 -c "
import json,sys
print(sum(json.loads(l)['numInputRows'] for l in open(sys.argv[1]) if l.strip()))" "$work/progress.jsonl"; }

# 1. availableNow over events from weir produce and from kcat, in several batches.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 30000 --duplicates 0.05 --malformed 0.01 \
  --late 0.02 --manifest "$work/manifest.json" > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
for i in $(seq 1 100); do echo "k$i:kcat value $i"; done | kcat -P -b "$BOOTSTRAP" -t orders -K: 2>/dev/null
check "availableNow run succeeds" run_bronze availableNow
check "availableNow took several batches" bash -c "[ \$(wc -l < '$work/progress.jsonl') -ge 5 ]"
check "table holds exactly the topic's records (DuckDB vs kcat)" table_matches_topic "$table" orders
check "weir validate finds no gap or duplicate" "$WEIR" validate "$table"
check "weir validate --where limits the check (a window of offsets is still contiguous)" \
  "$WEIR" validate "$table" --where "eh_offset BETWEEN 100 AND 2000 AND enqueued_time > TIMESTAMP '2020-01-01'"
check "weir validate reports a gap (exit 1) when the window leaves one out" \
  bash -c "'$WEIR' validate '$table' --where 'eh_offset <> 50' > /dev/null; [ \$? -eq 1 ]"
check "numInputRows sums to the events ingested" test "$(progress_rows)" = 30100
progress_fields() {
  python3 - "$work/progress.jsonl" <<'PY'
import json, sys
need = ["id", "runId", "name", "timestamp", "batchId", "batchDuration", "numInputRows",
        "inputRowsPerSecond", "processedRowsPerSecond", "durationMs", "stateOperators", "sources", "sink"]
for line in open(sys.argv[1]):
    p = json.loads(line)
    missing = [k for k in need if k not in p]
    assert not missing, f"missing {missing}"
    for k in ["latestOffset", "walCommit", "getBatch", "addBatch", "commitOffsets", "triggerExecution"]:
        assert k in p["durationMs"], f"durationMs.{k} missing"
    s = p["sources"][0]
    for k in ["description", "startOffset", "endOffset", "latestOffset", "numInputRows", "metrics"]:
        assert k in s, f"sources[0].{k} missing"
    for k in ["minOffsetsBehindLatest", "maxOffsetsBehindLatest", "avgOffsetsBehindLatest"]:
        assert k in s["metrics"], f"metrics.{k} missing"
    assert p["sink"]["description"].startswith("DeltaSink["), p["sink"]
    assert p["name"] == "main.default.orders_raw" or p["name"].endswith("orders_raw")
PY
}
check "progress JSON has Spark's fields" progress_fields

# 2. Restart: only the new events are read.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 5000 --seed 2 > /dev/null 2>&1
: > "$work/progress.jsonl"
check "restart run succeeds" run_bronze availableNow
check "restart reads only the 5000 new events" test "$(progress_rows)" = 5000
check "table matches the topic after restart" table_matches_topic "$table" orders

# 3. processingTime: a continuous run picks up events as they arrive; SIGTERM stops it cleanly.
: > "$work/progress.jsonl"
"$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger processingTime=500ms --set bootstrap="$BOOTSTRAP" \
  --set topic=orders --set max=7000 --progress-log "$work/progress.jsonl" > "$work/continuous.log" 2>&1 &
RUN_PID=$!
# Rounds 2 and 3 reach only some partitions: batches with idle partitions must commit too.
for round in "3 0" "4 1" "5 2"; do
  set -- $round
  sleep 1
  "$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 4000 --seed $1 --partitions $2 \
    > /dev/null 2>&1
done
for _ in $(seq 1 100); do
  [ "$(progress_rows 2>/dev/null)" = 12000 ] && break
  sleep 0.2
done
kill -TERM $RUN_PID
wait $RUN_PID
check "processingTime run exits 0 on SIGTERM" test $? -eq 0
RUN_PID=
check "processingTime ingested 12000 events" test "$(progress_rows)" = 12000
check "in several batches" test "$(wc -l < "$work/progress.jsonl")" -ge 3
check "table matches the topic after the continuous run" table_matches_topic "$table" orders
check "no batch was skipped as already committed" bash -c "! grep -q 'already complete' '$work/continuous.log'"

# 4. The checkpoint is lost: the flow resumes every partition from the table's txns.
rm -rf "$lake/_checkpoints"
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 3000 --seed 6 > /dev/null 2>&1
check "run without its checkpoint succeeds" run_bronze availableNow
check "it says it resumes from the table's per-partition progress" \
  grep -q "resuming every partition from the table's per-partition progress" "$work/run.log"
check "no gap or duplicate after the lost checkpoint" table_matches_topic "$table" orders

# 5. A changed subscription on an existing checkpoint is refused (Spark: the old topic's
# partitions are gone, a data-loss failure), and nothing is written.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic other --count 100 > /dev/null 2>&1
version_before=$(ls "$table/_delta_log" | grep -c json)
run_bronze availableNow --set topic=other
rc=$?
check "changing the subscribed topic fails" test $rc -ne 0
check "naming both subscriptions and what to do" grep -q "was written for the topics \[orders\], but the query now reads .*other.*new checkpoint folder" "$work/run.log"
check "and nothing is committed" bash -c "[ \$(ls '$table/_delta_log' | grep -c json) = $version_before ]"
finish
