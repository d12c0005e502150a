#!/usr/bin/env bash
# Transient faults are ridden out within a run (stream::Pipeline, docs/reliability.md): a
# processingTime bronze + silver pipeline runs with --metrics-port while `weir produce` feeds it;
# every broker goes down for 20 s in the middle of the run. During the outage /health (and `weir
# status`) report the flow as `retrying` with the cause, the run does not exit, and once the broker
# is back the flows continue by themselves. At the end bronze holds every produced event exactly
# once (kcat vs DuckDB, `weir validate`) and silver every valid event once. Permanent errors still
# stop at once: a bad option, and a schema mismatch with an existing table.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
RUN_PID=
trap 'kill $RUN_PID $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker orders:4
lake=$work/lake
ctl() { "$WEIR" broker ctl --control "$CONTROL" "$@" > /dev/null 2>&1 || echo "note: ctl $* failed"; }
produced=0
produce() {  # produce COUNT SEED [RATE]
  "$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count "$1" --seed "$2" \
    ${3:+--rate $3} > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
  produced=$((produced + $1))
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
health() { curl -s "http://127.0.0.1:$port/health"; }

# Short timeouts so that an outage surfaces as an error (Unavailable) within a few seconds.
sed -e "s/maxOffsetsPerTrigger => '200000'/maxOffsetsPerTrigger => '5000', \`kafkaConsumer.pollTimeoutMs\` => '4000', \`fetchOffset.numRetries\` => '1', \`kafka.socket.timeout.ms\` => '3000', \`kafka.metadata.max.age.ms\` => '2000'/" \
  "$WEIR_SOURCE_DIR/examples/orders.sql" > "$work/orders.sql"
grep -q "pollTimeoutMs" "$work/orders.sql" || { echo "FAIL: could not shorten the example's timeouts"; exit 1; }

produce 20000 1
port=$(free_port)
"$WEIR" run "$work/orders.sql" --lakehouse "$lake" --trigger processingTime=500ms \
  --set bootstrap="$BOOTSTRAP" --metrics-port "$port" > "$work/run.log" 2>&1 &
RUN_PID=$!
wait_for() {  # wait_for SECONDS COMMAND...: true once the command succeeds
  local deadline=$(( $(date +%s) + $1 ))
  shift
  until "$@"; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}
rows_in() { "$WEIR" table scan "$1" --columns eh_offset --format jsonl 2>/dev/null | wc -l; }
caught_up() { [ "$(rows_in "$lake/sales/bronze/orders_raw")" -ge "$produced" ]; }
check "the run ingests the first events" wait_for 60 caught_up

# The outage: every broker down for 20 s while events are waiting to be read.
ctl broker-down all
down_at=$(date +%s)
saw_retrying=0
while [ $(( $(date +%s) - down_at )) -lt 20 ]; do
  if health | grep -q '"status":"retrying"'; then saw_retrying=1; fi
  sleep 1
done
health > "$work/health-during.json"
"$WEIR" status "http://127.0.0.1:$port" > "$work/status-during.txt" 2>&1
ctl broker-up all
check "/health reported the flow retrying during the outage" test $saw_retrying -eq 1
check "weir status showed RETRYING with the cause" grep -q "RETRYING" "$work/status-during.txt"
check "the run kept going through the outage" kill -0 $RUN_PID
check "each retry was logged with its cause" grep -q "retrying in .* ms" "$work/run.log"

produce 20000 2 10000
check "the flows resume by themselves and catch up" wait_for 120 caught_up
check "/health is healthy again" wait_for 30 sh -c "curl -s http://127.0.0.1:$port/health | grep -q '\"status\":\"healthy\"'"
kill -TERM $RUN_PID
wait $RUN_PID
rc=$?
RUN_PID=
check "the run stops cleanly on SIGTERM" test $rc -eq 0
check "bronze holds every event exactly once (DuckDB vs kcat)" table_matches_topic "$lake/sales/bronze/orders_raw" orders
check "weir validate: no gap, no duplicate" "$WEIR" validate "$lake/sales/bronze/orders_raw"
dup_ids() {
  "$WEIR" table scan "$lake/sales/silver/orders" --columns event_id --format jsonl | sort | uniq -d | wc -l
}
check "silver has no duplicate event_id" test "$(dup_ids)" -eq 0

# Permanent errors stop at once, retried never.
sed -i "s/startingOffsets      => 'earliest'/startingOffsets => 'earliest', failOnDataLoss => 'maybe'/" "$work/orders.sql"
timeout 60 "$WEIR" run "$work/orders.sql" --lakehouse "$work/lake3" --trigger processingTime=500ms \
  --set bootstrap="$BOOTSTRAP" > "$work/bad-option.log" 2>&1
rc=$?
check "a bad option stops the run with an error" test $rc -ne 0 -a $rc -ne 124
check "... naming the option" grep -q "failOnDataLoss" "$work/bad-option.log"
check "... without retrying" bash -c "! grep -q 'retrying in' '$work/bad-option.log'"
# A schema mismatch: the silver flow's table exists with other columns.
mkdir -p "$work/lake4"
"$WEIR" table append "$work/lake4/sales/silver/orders" --create --schema 'event_id BIGINT' \
  --input /dev/null --format jsonl > /dev/null 2>&1
timeout 60 "$WEIR" run "$WEIR_SOURCE_DIR/examples/orders.sql" --lakehouse "$work/lake4" \
  --trigger processingTime=500ms --set bootstrap="$BOOTSTRAP" > "$work/mismatch.log" 2>&1
rc=$?
check "a schema mismatch stops the run at once (not by the timeout)" test $rc -ne 0 -a $rc -ne 124
check "... saying so" grep -q "schema mismatch" "$work/mismatch.log"
finish
