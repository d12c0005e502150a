#!/usr/bin/env bash
# The operations endpoint end to end (issue "metrics endpoint, falling-behind health, dashboard"):
# `weir run --metrics-port` over the orders pipeline (bronze + silver + quarantine) on `weir broker`
# with a processingTime trigger. While it runs: /metrics scraped with curl agrees with the progress
# JSON (--progress-log) and with the tables' contents (DuckDB); /progress is the latest progress of
# each flow; /health is 200; no secret appears anywhere; `weir status` prints the flows; the
# dashboard, loaded in headless Chromium, draws non-empty rate and lag charts for every flow (DOM
# checked after its script ran, screenshot saved to $OPS_ARTIFACTS). Then a slow flow (a tiny
# maxOffsetsPerTrigger while producing faster) turns /health 503 within a short --behind-window,
# logs a warning, and shows in the metrics and in `weir status`.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
RUN_PID=
PRODUCE_PID=
trap 'kill $RUN_PID $PRODUCE_PID $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
artifacts=${OPS_ARTIFACTS:-$WEIR_SOURCE_DIR/build/test-artifacts/ops}
mkdir -p "$artifacts"
start_broker orders:3 slow:2
lake=$work/lake
secret_value="s3cr3t-ops-$RANDOM$RANDOM"
echo "{\"ops\": {\"client\": \"$secret_value\"}}" > "$work/secrets.json"
# The orders pipeline, with a secret in the Kafka options (must never be served).
sed "s|maxOffsetsPerTrigger => '200000'|maxOffsetsPerTrigger => '1500', \`kafka.client.id\` => secret('ops', 'client')|" \
  "$WEIR_SOURCE_DIR/examples/orders.sql" > "$work/orders.sql"
grep -q "secret('ops', 'client')" "$work/orders.sql" || { echo "FAIL: could not edit the pipeline"; exit 1; }

endpoint_of() {  # endpoint_of LOG: waits for "metrics ... at http://ADDR:PORT/" and prints the URL
  for _ in $(seq 1 100); do
    url=$(grep -o 'http://[^ ]*:[0-9]*/' "$1" 2>/dev/null | head -1)
    [ -n "$url" ] && { echo "${url%/}"; return 0; }
    sleep 0.1
  done
  return 1
}
# Waits until the progress log shows `rows` input rows for flow `flow` (a name suffix).
wait_rows() {
  local flow=$1 rows=$2
  for _ in $(seq 1 300); do
    got=$(python3 -c "
import json,sys
print(sum(json.loads(l)['numInputRows'] for l in open(sys.argv[1]) if l.strip() and json.loads(l)['name'].endswith(sys.argv[2])))" \
      "$work/progress.jsonl" "$flow" 2>/dev/null)
    [ "${got:-0}" -ge "$rows" ] && return 0
    sleep 0.2
  done
  echo "flow $flow read ${got:-0} rows, expected $rows"
  return 1
}

# 1. A continuous run with the endpoint on an ephemeral port.
"$WEIR" run "$work/orders.sql" --lakehouse "$lake" --trigger processingTime=500ms \
  --set bootstrap="$BOOTSTRAP" --secrets "$work/secrets.json" --progress-log "$work/progress.jsonl" \
  --metrics-port 0 > "$work/run.log" 2>&1 &
RUN_PID=$!
URL=$(endpoint_of "$work/run.log") || { echo "FAIL: no metrics endpoint"; cat "$work/run.log"; exit 1; }
check "the endpoint listens on loopback" bash -c "echo '$URL' | grep -q '^http://127.0.0.1:'"
check "/health is 200 before any data" bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' '$URL/health') = 200 ]"
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 6000 --duplicates 0.05 --malformed 0.02 \
  --rate 3000 > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
check "bronze read the 6000 events" wait_rows orders_raw 6000
bronze_rows_done() { wait_rows .silver.orders 6000; }
check "silver read the 6000 bronze rows" bronze_rows_done
sleep 1.5  # a processingTime batch may still be reporting
curl -s "$URL/metrics" > "$work/metrics.txt"
curl -s "$URL/progress" > "$work/progress.json"
curl -s -D "$work/health.headers" "$URL/health" > "$work/health.json"
cp "$work/progress.jsonl" "$work/progress.snapshot.jsonl"

metric() {  # metric NAME LABELS-SUBSTRING: the value of the first matching sample
  python3 - "$work/metrics.txt" "$1" "$2" <<'PY'
import sys
path, name, labels = sys.argv[1:]
for line in open(path):
    if line.startswith(name + "{") and labels in line:
        print(line.rsplit(" ", 1)[1].strip()); break
    if line.startswith(name + " ") and not labels:
        print(line.split(" ")[1].strip()); break
PY
}
check "/metrics is Prometheus text" bash -c "grep -q '^# TYPE weir_flow_input_rows_total counter' '$work/metrics.txt' && \
  curl -sI '$URL/metrics' | grep -qi 'content-type: text/plain; version=0.0.4'"
metrics_agree_with_progress() {
  python3 - "$work/metrics.txt" "$work/progress.snapshot.jsonl" "$work/progress.json" <<'PY'
import json, sys, re
metrics_path, log_path, endpoint_path = sys.argv[1:]
samples = {}
for line in open(metrics_path):
    if line.startswith("#") or not line.strip(): continue
    key, value = line.rsplit(" ", 1)
    samples[key] = float(value)
def get(name, **labels):
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    key = f"{name}{{{want}}}" if want else name
    assert key in samples, f"missing sample {key}"
    return samples[key]
log = [json.loads(l) for l in open(log_path) if l.strip()]
endpoint = json.load(open(endpoint_path))
flows = sorted({p["name"] for p in log})
assert len(flows) == 2, flows
for flow in flows:
    mine = [p for p in log if p["name"] == flow]
    last = mine[-1]
    assert endpoint[flow]["batchId"] == last["batchId"], (flow, endpoint[flow]["batchId"], last["batchId"])
    assert endpoint[flow] == last, f"/progress differs from the log's last record for {flow}"
    assert get("weir_flow_batches_total", flow=flow) == len(mine)
    assert get("weir_flow_batch_id", flow=flow) == last["batchId"]
    assert get("weir_flow_input_rows_total", flow=flow) == sum(p["numInputRows"] for p in mine)
    assert get("weir_flow_output_rows_total", flow=flow) == sum(max(p["sink"]["numOutputRows"], 0) for p in mine)
    assert abs(get("weir_flow_input_rows_per_second", flow=flow) - last["inputRowsPerSecond"]) < 1e-3 * max(1, last["inputRowsPerSecond"])
    assert abs(get("weir_flow_processed_rows_per_second", flow=flow) - last["processedRowsPerSecond"]) < 1e-3 * max(1, last["processedRowsPerSecond"])
    assert get("weir_flow_batch_duration_seconds", flow=flow) * 1000 == last["batchDuration"]
    for part, ms in last["durationMs"].items():
        assert round(get("weir_flow_batch_duration_part_seconds", flow=flow, part=part) * 1000) == ms, part
    assert get("weir_flow_files_written_total", flow=flow) == sum(p.get("weir", {}).get("filesWritten", 0) for p in mine)
    src = last["sources"][0]
    if flow.endswith("orders_raw"):
        end, latest = src["endOffset"]["orders"], src["latestOffset"]["orders"]
        for part, offset in end.items():
            assert get("weir_flow_partition_committed_offset", flow=flow, topic="orders", partition=part) == offset
            assert get("weir_flow_partition_offsets_behind", flow=flow, topic="orders", partition=part) == latest[part] - offset
        assert get("weir_flow_offsets_behind", flow=flow) == sum(latest[p] - end[p] for p in end)
    else:
        quality = [p["data_quality"] for p in mine if "data_quality" in p]
        quarantined = sum(q["quarantined_records"] for q in quality)
        assert get("weir_flow_quarantined_records_total", flow=flow) == quarantined
        for name in {e["name"] for q in quality for e in q["expectations"]}:
            failed = sum(e["failed_records"] for q in quality for e in q["expectations"] if e["name"] == name)
            passed = sum(e["passed_records"] for q in quality for e in q["expectations"] if e["name"] == name)
            assert get("weir_flow_expectation_failed_records_total", flow=flow, expectation=name) == failed
            assert get("weir_flow_expectation_passed_records_total", flow=flow, expectation=name) == passed
        dup = sum(o["customMetrics"].get("numDroppedDuplicateRows", 0) for p in mine for o in p["stateOperators"])
        assert get("weir_flow_duplicates_dropped_total", flow=flow) == dup
        ops = last["stateOperators"]
        if ops:
            assert get("weir_flow_state_rows", flow=flow, operator=ops[0]["operatorName"]) == ops[0]["numRowsTotal"]
print("ok")
PY
}
check "/metrics and /progress agree with the progress log" metrics_agree_with_progress

table_count() {  # table_count TABLE-DIR: rows in the Delta table's live files (DuckDB)
  local files
  files=$(python3 "$WEIR_SOURCE_DIR/tests/tools/delta_live_files.py" "$1") || return 1
  js duckdb_query.mjs --sql "SELECT count(*) AS n FROM read_parquet($files)" | python3 -c "import json,sys; print(json.loads(sys.stdin.readline())['n'])"
}
metrics_agree_with_tables() {
  local bronze silver quarantine committed out_bronze out_silver quarantined failed
  bronze=$(table_count "$lake/sales/bronze/orders_raw") || return 1
  silver=$(table_count "$lake/sales/silver/orders") || return 1
  quarantine=$(table_count "$lake/sales/silver/orders_quarantine") || return 1
  committed=$(python3 -c "
import sys
print(int(sum(float(l.rsplit(' ',1)[1]) for l in open(sys.argv[1]) if l.startswith('weir_flow_partition_committed_offset{flow=\"sales.bronze.orders_raw\"'))))" "$work/metrics.txt")
  out_bronze=$(metric weir_flow_output_rows_total 'sales.bronze.orders_raw')
  out_silver=$(metric weir_flow_output_rows_total 'sales.silver.orders"')
  quarantined=$(metric weir_flow_quarantined_records_total 'sales.silver.orders"')
  failed=$(metric weir_flow_expectation_failed_records_total 'expectation="has_event_id"')
  echo "bronze=$bronze committed=$committed out=$out_bronze silver=$silver out=$out_silver quarantine=$quarantine quarantined=$quarantined failed=$failed"
  [ "$bronze" = 6000 ] && [ "$committed" = 6000 ] && [ "$out_bronze" = 6000 ] && [ "$silver" = "$out_silver" ] &&
    [ "$quarantine" = "$quarantined" ] && [ "$quarantine" = "$failed" ] && [ "$quarantine" -gt 0 ]
}
check "metrics agree with the tables (bronze, silver, quarantine counted by DuckDB)" metrics_agree_with_tables
check "/health is 200 and healthy while keeping up" bash -c "head -1 '$work/health.headers' | grep -q ' 200' && grep -q '\"status\":\"healthy\"' '$work/health.json'"
check "time behind is 0 when caught up" bash -c "[ \"\$(grep '^weir_flow_time_behind_seconds{flow=\"sales.bronze.orders_raw\"}' '$work/metrics.txt' | cut -d' ' -f2)\" = 0 ]"
no_secret_served() {
  for path in /metrics /progress /health /api/history /; do
    curl -s "$URL$path" | grep -q "$secret_value" && { echo "secret served at $path"; return 1; }
  done
  grep -q "$secret_value" "$work/run.log" && { echo "secret in the log"; return 1; }
  return 0
}
check "no endpoint serves the secret" no_secret_served
check "unknown paths are 404, POST is 405" bash -c "[ \$(curl -s -o /dev/null -w '%{http_code}' '$URL/nope') = 404 ] && \
  [ \$(curl -s -o /dev/null -w '%{http_code}' -X POST '$URL/metrics') = 405 ]"
status_view() {
  "$WEIR" status "$URL" > "$work/status.txt" || { cat "$work/status.txt"; return 1; }
  grep -q "^weir at $URL: healthy (2 flows)" "$work/status.txt" && grep -q "^sales.silver.orders: healthy" "$work/status.txt" &&
    grep -q "expectation has_event_id:" "$work/status.txt" && grep -q "behind: 0 offsets (orders/0 0" "$work/status.txt" ||
    { cat "$work/status.txt"; return 1; }
}
check "weir status prints the flows (exit 0 when healthy)" status_view

# 2. The dashboard in headless Chromium, while the run goes on and more events arrive.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 4000 --seed 7 --rate 2000 > /dev/null 2>&1 &
PRODUCE_PID=$!
chromium_run() {  # chromium_run ARGS...: headless Chromium with a private profile
  timeout 60 chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$work/chromium" --virtual-time-budget=6000 "$@" 2>> "$work/chromium.log"
}
dashboard_dom() {
  chromium_run --dump-dom "$URL/" > "$artifacts/dashboard.dom.html" || return 1
  js dashboard_dom.mjs "$artifacts/dashboard.dom.html" sales.bronze.orders_raw sales.silver.orders
}
check "the dashboard draws rate, duration, lag and time-behind charts for every flow" dashboard_dom
dashboard_screenshot() {
  rm -f "$artifacts/dashboard.png"
  chromium_run --window-size=1400,1900 --screenshot="$artifacts/dashboard.png" "$URL/" > /dev/null || return 1
  [ -s "$artifacts/dashboard.png" ] && python3 -c "
import sys
b = open(sys.argv[1], 'rb').read(24)
assert b[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
w, h = int.from_bytes(b[16:20], 'big'), int.from_bytes(b[20:24], 'big')
assert w >= 1000 and h >= 1000, (w, h)" "$artifacts/dashboard.png"
}
check "a screenshot of the dashboard is saved ($artifacts/dashboard.png)" dashboard_screenshot
wait $PRODUCE_PID
PRODUCE_PID=
kill -TERM $RUN_PID
wait $RUN_PID
check "the run stops cleanly on SIGTERM" test $? -eq 0
RUN_PID=

# 3. Falling behind: a tiny maxOffsetsPerTrigger while producing faster than it reads.
cat > "$work/slow.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE ops.bronze.slow AS
SELECT CAST(value AS STRING) AS raw_value, partition AS p, offset AS o
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'slow',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '20');
SQL
"$WEIR" run "$work/slow.sql" --lakehouse "$work/slowlake" --trigger processingTime=200ms \
  --set bootstrap="$BOOTSTRAP" --metrics-port 0 --behind-window 3s > "$work/slow.log" 2>&1 &
RUN_PID=$!
URL=$(endpoint_of "$work/slow.log") || { echo "FAIL: no metrics endpoint"; cat "$work/slow.log"; exit 1; }
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic slow --count 20000 --rate 1000 > /dev/null 2>&1 &
PRODUCE_PID=$!
start=$(date +%s.%N)
becomes_unhealthy() {
  for _ in $(seq 1 150); do
    code=$(curl -s -o "$work/slow_health.json" -w '%{http_code}' "$URL/health")
    [ "$code" = 503 ] && return 0
    sleep 0.2
  done
  echo "still $code: $(cat "$work/slow_health.json")"
  return 1
}
check "/health turns 503 while the flow falls behind" becomes_unhealthy
elapsed=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$start" "$(date +%s.%N)")
echo "ops_test: unhealthy after ${elapsed}s (window 3s)"
check "... within a few seconds of the 3 s window" python3 -c "assert $elapsed < 15, $elapsed"
check "the reason says the input outpaces processing" grep -q 'falling behind: input [0-9.]* rows/s > processing [0-9.]* rows/s over the last 3s' "$work/slow_health.json"
curl -s "$URL/metrics" > "$work/metrics.txt"
check "metrics show it (falling_behind 1, healthy 0, arrival > committed)" python3 - "$work/metrics.txt" <<'PY'
import sys
s = {}
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip(): continue
    k, v = line.rsplit(" ", 1); s[k] = float(v)
f = 'flow="ops.bronze.slow"'
assert s["weir_healthy"] == 0
assert s["weir_flow_falling_behind{%s}" % f] == 1
assert s["weir_flow_arrival_rows_per_second{%s}" % f] > s["weir_flow_committed_rows_per_second{%s}" % f]
assert s["weir_flow_offsets_behind{%s}" % f] > 0
assert s["weir_flow_time_behind_seconds{%s}" % f] > 0
total = s["weir_flow_estimated_bytes_behind{%s}" % f]
parts = [v for k, v in s.items() if k.startswith("weir_flow_partition_estimated_bytes_behind{%s," % f)]
assert total > 0 and len(parts) == 2 and abs(sum(parts) - total) <= 2, (total, parts)
PY
check "a warning is logged" grep -q '^weir: WARN ops.bronze.slow is unhealthy: falling behind' "$work/slow.log"
status_unhealthy() {
  "$WEIR" status "$URL" > "$work/status.txt"
  local rc=$?
  [ $rc -eq 1 ] && grep -q "UNHEALTHY" "$work/status.txt" && grep -q "! falling behind" "$work/status.txt" ||
    { echo "rc=$rc"; cat "$work/status.txt"; return 1; }
}
check "weir status shows it and exits 1" status_unhealthy
kill $PRODUCE_PID 2>/dev/null; wait $PRODUCE_PID 2>/dev/null
PRODUCE_PID=
kill -TERM $RUN_PID; wait $RUN_PID
RUN_PID=
check "weir status exits 2 when nothing listens" bash -c "'$WEIR' status '$URL' > /dev/null 2>&1; [ \$? -eq 2 ]"
check "--metrics-bind refuses a bad address" bash -c "'$WEIR' run '$work/slow.sql' --set bootstrap=x --metrics-port 0 --metrics-bind nowhere 2>&1 | grep -q 'not a numeric IP address'"
finish
