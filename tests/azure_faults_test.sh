#!/usr/bin/env bash
# Ambiguous storage outcomes in Azure (docs/reliability.md): bronze + silver + quarantine
# (examples/orders.sql) with tables and checkpoints in Azurite, reached through a fault proxy
# (tests/js/fault_proxy.mjs) that lets Azurite store a Delta commit and then drops the reply (or
# answers 503), and makes the following reads of that commit fail for longer than the blob
# client's own retries. The commit's outcome is then unknown to weir: its data files must stay,
# the flow must stop naming the table and version, and the next run must settle the batch from
# the log. First with no in-run retries (each ambiguous commit ends the run; plain restarts follow),
# then with the default in-run retries (the run rides the faults out by itself). Both times the
# tables end exact: bronze every event once, silver every valid event once, quarantine exactly
# the malformed ones, every file their logs reference present.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
AZURITE_PID= BROKER_PID= PROXY_PID=
stop_all() {
  for pid in $PROXY_PID $BROKER_PID $AZURITE_PID; do
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
}
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"

start_azurite lake
printf '{"azure": {"key": "%s"}}\n' "$AZURE_KEY" > "$work/secrets.json"
node "$WEIR_SOURCE_DIR/tests/js/fault_proxy.mjs" --target "http://127.0.0.1:$AZURITE_PORT" \
  --port-file "$work/proxy.port" > "$work/proxy.log" 2>&1 &
PROXY_PID=$!
for _ in $(seq 1 100); do [ -s "$work/proxy.port" ] && break; sleep 0.1; done
proxy=$(cat "$work/proxy.port")
[ -n "$proxy" ] || { echo "FAIL: the fault proxy did not start"; cat "$work/proxy.log"; exit 1; }
rule() { curl -s -X POST "http://127.0.0.1:$proxy/__proxy/rules" -d "$1" > /dev/null; }
clear_rules() { curl -s -X DELETE "http://127.0.0.1:$proxy/__proxy/rules" > /dev/null; }

start_broker orders:4
{
  echo "SET fs.azure.account.key.$AZURE_ACCOUNT.dfs.core.windows.net = secret('azure', 'key');"
  sed "s/maxOffsetsPerTrigger => '200000'/maxOffsetsPerTrigger => '4000'/;
       s/FROM STREAM(sales.bronze.orders_raw)/FROM STREAM(sales.bronze.orders_raw) WITH (maxFilesPerTrigger = 2)/" \
    "$WEIR_SOURCE_DIR/examples/orders.sql"
} > "$work/orders.sql"
grep -q "maxFilesPerTrigger = 2" "$work/orders.sql" || { echo "FAIL: examples/orders.sql changed"; exit 1; }
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 16000 --duplicates 0.05 \
  --malformed 0.02 --seed 3 --manifest "$work/manifest.json" > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
topic_messages=$(kcat -C -b "$BOOTSTRAP" -t orders -e -q -f '.\n' 2>/dev/null | wc -l)
table_storage=(--secrets "$work/secrets.json"
               --set "fs.azure.account.key.$AZURE_ACCOUNT.blob.core.windows.net=secret('azure','key')")

# Two ambiguous commits per run of the pipeline: bronze's version 2 (the reply dropped) and
# silver's version 2 (503 after Azurite stored it); 14 reads of each fail afterwards (the blob
# client tries a request 6 times).
arm() {
  clear_rules
  rule "{\"method\":\"PUT\",\"path\":\"$1/sales/bronze/orders_raw/_delta_log/00000000000000000002.json\",\"action\":\"drop\",\"failReads\":14}"
  rule "{\"method\":\"PUT\",\"path\":\"$1/sales/silver/orders/_delta_log/00000000000000000002.json\",\"action\":\"503\",\"failReads\":14}"
}
run_pipeline() {  # run_pipeline LAKE LOG [--max-retries N]
  local lake=$1 log=$2
  shift 2
  "$WEIR" run "$work/orders.sql" --lakehouse "$lake" --trigger availableNow \
    --set bootstrap="$BOOTSTRAP" --secrets "$work/secrets.json" "$@" > "$log" 2>&1
}
exact_tables() {  # exact_tables LAKE
  local lake=$1
  "$WEIR" validate "$lake/sales/bronze/orders_raw" "${table_storage[@]}" > /dev/null || return 1
  local n
  n=$("$WEIR" table scan "$lake/sales/bronze/orders_raw" --columns eh_offset --format jsonl "${table_storage[@]}" | wc -l)
  [ "$n" -eq "$topic_messages" ] || { echo "bronze has $n rows, the topic $topic_messages"; return 1; }
  "$WEIR" table scan "$lake/sales/silver/orders" --columns event_id --format jsonl "${table_storage[@]}" > "$work/silver.jsonl" || return 1
  "$WEIR" table scan "$lake/sales/silver/orders_quarantine" --columns eh_partition,eh_offset --format jsonl \
    "${table_storage[@]}" > "$work/quarantine.jsonl" || return 1
  python3 - "$work/manifest.json" "$work/silver.jsonl" "$work/quarantine.jsonl" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
ids = [json.loads(l)["event_id"] for l in open(sys.argv[2])]
q = sorted((r["eh_partition"], r["eh_offset"]) for r in map(json.loads, open(sys.argv[3])))
want_q = sorted((int(p), int(o)) for p, o in m["malformed_offsets"])
assert len(ids) == len(set(ids)), ("silver duplicates", len(ids) - len(set(ids)))
assert len(ids) == m["valid_distinct_event_ids"], (len(ids), m["valid_distinct_event_ids"])
assert q == want_q, ("quarantine", len(q), len(want_q))
PY
}

# 1. No in-run retries: each ambiguous commit ends the run; restarts settle it from the log.
lake1=http://127.0.0.1:$proxy/$AZURE_ACCOUNT/lake/run1
arm run1
failed=0 unknown=0
for attempt in 1 2 3 4 5 6; do
  if run_pipeline "$lake1" "$work/run1-$attempt.log" --max-retries 0; then break; fi
  failed=$((failed + 1))
  grep -q "unknown outcome" "$work/run1-$attempt.log" && unknown=$((unknown + 1))
done
echo "    without in-run retries: $failed runs stopped ($unknown on an unknown commit outcome), then one completed"
check "both ambiguous commits stopped a run" test $unknown -ge 2
check "the error names the table and the version" grep -qE "version 2 to Delta table .*sales/(bronze|silver)" $work/run1-*.log
check "the error says the files are kept and how it is settled" grep -q "data files are kept" $work/run1-1.log
check "the tables are exact after the restarts" exact_tables "$lake1"
check "no key in the output" bash -c "! grep -qF '$AZURE_KEY' $work/run1-*.log"
curl -s "http://127.0.0.1:$proxy/__proxy/log" > "$work/proxy-hits.jsonl"
check "the proxy applied and then lied about both commits" test "$(grep -c '"applied"' "$work/proxy-hits.jsonl")" -ge 2

# 2. The default in-run retries: one run rides both faults out.
lake2=http://127.0.0.1:$proxy/$AZURE_ACCOUNT/lake/run2
arm run2
check "one run completes despite both ambiguous commits" run_pipeline "$lake2" "$work/run2.log"
check "... after retrying the flows" grep -q "retrying in" "$work/run2.log"
check "the tables are exact" exact_tables "$lake2"
finish
