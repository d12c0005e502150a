#!/usr/bin/env bash
# The whole orders pipeline (examples/orders.sql: bronze, silver, quarantine) end to end against
# `weir broker` (issues "SQL expressions ... quarantine" and "Silver"): events from `weir produce`
# with duplicates, malformed payloads and late events; silver read back by DuckDB holds exactly one
# row per produced event_id with the payload's fields; the quarantine table holds exactly the
# malformed events' (partition, offset); re-sending every event (same seed) adds nothing to
# silver (deduplication state across runs); SIGKILLs during silver runs lose and duplicate nothing;
# late events behind the watermark are dropped.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker orders:8 tutorial:2
lake=$work/lake
silver=$lake/sales/silver/orders
quarantine=$lake/sales/silver/orders_quarantine
pipeline=$WEIR_SOURCE_DIR/examples/orders.sql

run_pipeline() {  # output in $work/run.log, progress appended to $work/progress.jsonl
  "$WEIR" run "$pipeline" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
    --progress-log "$work/progress.jsonl" > "$work/run.log" 2>&1
}
query() {  # query SQL-with-$silver/$quarantine-files
  local silver_files quarantine_files
  silver_files=$(python3 "$WEIR_SOURCE_DIR/tests/tools/delta_live_files.py" "$silver") || return 1
  quarantine_files=$(python3 "$WEIR_SOURCE_DIR/tests/tools/delta_live_files.py" "$quarantine") || return 1
  js duckdb_query.mjs --sql "$(echo "$1" | sed "s|SILVER|read_parquet($silver_files)|g; s|QUARANTINE|read_parquet($quarantine_files)|g")"
}
expect() {  # expect NAME EXPECTED-JSON-LINE SQL
  local got
  got=$(query "$3") || return 1
  [ "$got" = "$2" ] || { echo "expected $2, got $got"; return 1; }
}

# 0. The tutorial's local check: Kafka-shaped rows with one duplicate delivery and one malformed
# payload give exactly the silver rows and the quarantine count the tutorial prints.
tutorial_lake=$work/tutorial
sed "s/subscribe            => 'orders'/subscribe            => 'tutorial'/" "$pipeline" > "$work/tutorial.sql"
ev() { echo "{\"event_id\":\"$1\",\"order_id\":\"$2\",\"status\":\"$3\",\"amount\":$4,\"event_time\":\"$5\"}"; }
{
  echo "SO-1|$(ev e1 SO-1 created 10.50 '2026-06-08 09:00:00')" | kcat -P -b "$BOOTSTRAP" -t tutorial -p 0 -K'|'
  echo "SO-9|{\"event_id\": \"e9\", \"order_id\"" | kcat -P -b "$BOOTSTRAP" -t tutorial -p 1 -K'|'
  echo "SO-1|$(ev e2 SO-1 paid 10.50 '2026-06-08 09:00:05')" | kcat -P -b "$BOOTSTRAP" -t tutorial -p 1 -K'|'
  echo "SO-1|$(ev e2 SO-1 paid 10.50 '2026-06-08 09:00:05')" | kcat -P -b "$BOOTSTRAP" -t tutorial -p 1 -K'|'
  echo "SO-2|$(ev e3 SO-2 created 99.00 '2026-06-08 09:00:07')" | kcat -P -b "$BOOTSTRAP" -t tutorial -p 1 -K'|'
} 2>/dev/null
check "the tutorial's pipeline runs on its sample" "$WEIR" run "$work/tutorial.sql" --lakehouse "$tutorial_lake" \
  --trigger availableNow --set bootstrap="$BOOTSTRAP"
seed_query() {
  local files
  files=$(python3 "$WEIR_SOURCE_DIR/tests/tools/delta_live_files.py" "$tutorial_lake/sales/silver/$1") || return 1
  js duckdb_query.mjs --sql "$(echo "$2" | sed "s|TABLE|read_parquet($files)|")"
}
tutorial_silver() {
  diff <(seed_query orders "SELECT event_id, order_id, status, CAST(amount AS VARCHAR) AS amount,
           strftime(event_time, '%Y-%m-%d %H:%M:%S') AS event_time, eh_partition, eh_offset
         FROM TABLE ORDER BY event_id") - <<'ROWS'
{"event_id":"e1","order_id":"SO-1","status":"created","amount":"10.50","event_time":"2026-06-08 09:00:00","eh_partition":0,"eh_offset":0}
{"event_id":"e2","order_id":"SO-1","status":"paid","amount":"10.50","event_time":"2026-06-08 09:00:05","eh_partition":1,"eh_offset":1}
{"event_id":"e3","order_id":"SO-2","status":"created","amount":"99.00","event_time":"2026-06-08 09:00:07","eh_partition":1,"eh_offset":3}
ROWS
}
check "tutorial: the silver rows it prints" tutorial_silver
tutorial_quarantine() {
  local got
  got=$(seed_query orders_quarantine "SELECT count(*) AS n, min(eh_partition) AS p, min(eh_offset) AS o,
      min(quarantine_reason) AS why FROM TABLE") || return 1
  echo "$got" | grep -q '^{"n":1,"p":1,"o":0,"why":"malformed' || { echo "got $got"; return 1; }
}
check "tutorial: quarantined rows: 1 (the malformed payload, with its reason)" tutorial_quarantine

# 1. 30,000 events: 5% duplicates, 1% malformed, 1% late (2 hours behind).
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 30000 --duplicates 0.05 \
  --malformed 0.01 --late 0.01 --seed 7 --manifest "$work/manifest.json" > /dev/null 2>&1 ||
  { echo "FAIL: produce"; exit 1; }
m() { python3 -c "import json,sys; print(json.load(open('$work/manifest.json'))[sys.argv[1]])" "$1"; }
distinct=$(m valid_distinct_event_ids)  # valid and late events, each id once
malformed=$(m malformed)
check "the orders pipeline runs (bronze, silver, quarantine)" run_pipeline
check "silver has one row per distinct event_id" \
  expect silver "{\"n\":$distinct,\"ids\":$distinct}" "SELECT count(*) AS n, count(DISTINCT event_id) AS ids FROM SILVER"
check "silver rows carry the payload's fields and types" \
  expect fields '{"bad":0}' "SELECT count(*) AS bad FROM SILVER WHERE order_id IS NULL OR status IS NULL
     OR amount IS NULL OR event_time IS NULL OR typeof(amount) <> 'DECIMAL(18,2)'
     OR typeof(event_time) <> 'TIMESTAMP WITH TIME ZONE' AND typeof(event_time) <> 'TIMESTAMP'"
check "quarantine holds exactly the malformed events" \
  expect quarantine "{\"n\":$malformed}" "SELECT count(*) AS n FROM QUARANTINE"
check "quarantined (partition, offset) are the producer's malformed ones" python3 -c "
import json, subprocess, sys
want = sorted((int(p), int(o)) for p, o in json.load(open('$work/manifest.json'))['malformed_offsets'])
got = sorted((r['eh_partition'], r['eh_offset']) for r in map(json.loads, sys.stdin.read().split()))
sys.exit(0 if got == want else print('want', want[:5], 'got', got[:5]) or 1)" < <(query "SELECT eh_partition, eh_offset FROM QUARANTINE")
check "quarantine rows say why" \
  expect reasons '{"n":0}' "SELECT count(*) AS n FROM QUARANTINE WHERE quarantine_reason IS NULL OR quarantined_at IS NULL"
check "progress reports expectations and the dedup state operator" python3 -c "
import json
rows = [json.loads(l) for l in open('$work/progress.jsonl')]
silver = [r for r in rows if r['name'] == 'sales.silver.orders']
dq = silver[-1]['data_quality']
assert dq['expectations'][0]['name'] == 'has_event_id', dq
assert sum(r['data_quality']['quarantined_records'] for r in silver) == $malformed, dq
ops = silver[-1]['stateOperators']
assert ops and ops[0]['operatorName'] == 'dedupeWithinWatermark', ops
assert 'watermark' in silver[-1]['eventTime'], silver[-1]
"

# 2. The same events again (same seed): every one is a duplicate of a row in silver's state.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 30000 --duplicates 0.05 \
  --malformed 0.01 --late 0.01 --seed 7 > /dev/null 2>&1
check "second run succeeds" run_pipeline
check "re-sent events add no silver row" \
  expect silver "{\"n\":$distinct}" "SELECT count(*) AS n FROM SILVER"
check "re-sent late events are behind the watermark: dropped and counted" python3 -c "
import json
rows = [json.loads(l) for l in open('$work/progress.jsonl')]
silver = [r for r in rows if r['name'] == 'sales.silver.orders'][-2:]  # the second run's batches
dropped = sum(op['numRowsDroppedByWatermark'] for r in silver for op in r['stateOperators'])
assert dropped == $(m late), (dropped, $(m late))
"
check "re-sent malformed events are quarantined again" \
  expect quarantine "{\"n\":$((2 * malformed))}" "SELECT count(*) AS n FROM QUARANTINE"

# 3. SIGKILL during silver runs: 100,000 new events (seed 8), `weir run` killed 20 times at
# moments spread over the bronze and silver batches (WAL, Parquet, state, Delta commits), then
# finished.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 100000 --compression lz4 --duplicates 0.05 \
  --malformed 0.01 --late 0.01 --seed 8 --manifest "$work/manifest2.json" > /dev/null 2>&1
for delay in 0.2 0.9 0.4 1.3 0.6 1.7 0.3 1.1 0.8 1.5 0.5 1.9 0.7 1.2 0.35 1.6 0.95 0.45 1.4 2.2; do
  "$WEIR" run "$pipeline" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
    --progress-log "$work/progress.jsonl" > "$work/killed.log" 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
check "the pipeline finishes after the kills" run_pipeline
# Its late events are behind the watermark the first runs left: dropped, not in silver.
distinct2=$(python3 -c "import json; m = json.load(open('$work/manifest2.json')); print(m['valid_distinct_event_ids'] - m['late'])")
malformed2=$(python3 -c "import json; print(json.load(open('$work/manifest2.json'))['malformed'])")
check "after the kills: silver has each event_id once" \
  expect silver "{\"n\":$((distinct + distinct2)),\"ids\":$((distinct + distinct2))}" \
  "SELECT count(*) AS n, count(DISTINCT event_id) AS ids FROM SILVER"
check "after the kills: quarantine has each malformed event once per delivery" \
  expect quarantine "{\"n\":$((2 * malformed + malformed2)),\"keys\":$((2 * malformed + malformed2))}" \
  "SELECT count(*) AS n, count(DISTINCT (eh_partition, eh_offset)) AS keys FROM QUARANTINE"
check "state stays within the watermark window: the first events' keys were evicted" python3 -c "
import json
def parsed(line):
    try:
        return json.loads(line)
    except ValueError:  # a line cut by a SIGKILL
        return None
rows = [r for r in map(parsed, open('$work/progress.jsonl')) if r]
last = [r for r in rows if r['name'] == 'sales.silver.orders'][-1]
total = last['stateOperators'][0]['numRowsTotal']
assert 0 < total <= $distinct2, (total, $distinct2)
"
finish
