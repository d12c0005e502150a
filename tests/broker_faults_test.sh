#!/usr/bin/env bash
# Broker faults during bronze ingestion (issue "Reliability and security", part 2), through
# `weir broker`'s control channel (docs/broker.md): request errors on every request type weir's
# Kafka source sends (Metadata, ListOffsets, Fetch, ApiVersions) with retriable and transport
# errors, all brokers down then up, one broker down, leadership moves and a leaderless partition,
# slow brokers (RTT). Each scenario produces new events, starts `weir run` (availableNow, small
# batches) and injects the fault while it ingests, then lifts it. A run may fail (with one clear
# error line) if the fault outlasts its timeouts; a plain restart must then complete. At the end
# the bronze table holds every produced record exactly once (compared with kcat's view of the
# topic, and `weir validate`), and the progress JSON of the runs under an outage or slow brokers
# shows the stall (a batch phase of several seconds).
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker orders:4
lake=$work/lake
table=$lake/sales/bronze/orders_raw
cat > "$work/bronze.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '500',
                       `kafkaConsumer.pollTimeoutMs` => '20000')
SQL
ctl() { "$WEIR" broker ctl --control "$CONTROL" "$@" > /dev/null 2>&1 || echo "note: ctl $* failed"; }
seed=1
produced=0
produce() {
  "$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count "$1" --seed "$seed" --compression zstd \
    > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
  seed=$((seed + 1))
  produced=$((produced + $1))
}
run_bg() {  # starts weir run; RUN_PID
  "$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
    --progress-log "$work/progress-$1.jsonl" > "$work/run-$1.log" 2>&1 &
  RUN_PID=$!
}
max_stall_ms() {  # the longest phase of any batch in a progress log
  python3 -c "
import json, sys
m = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    m = max([m] + [v for v in r['durationMs'].values()])
print(m)" "$1" 2>/dev/null || echo 0
}

summary=()
wait_batches() {  # wait_batches NAME N: until run NAME has committed N batches (or ended; 30 s at most)
  local i
  for i in $(seq 1 3000); do
    [ "$({ wc -l < "$work/progress-$1.jsonl"; } 2>/dev/null || echo 0)" -ge "$2" ] && return 0
    kill -0 "$RUN_PID" 2> /dev/null || return 0
    sleep 0.01
  done
}

# scenario NAME AFTER-BATCHES HOLD-SECONDS INJECT-CMD CLEAR-CMD [min-stall-ms] [must-survive]
# AFTER-BATCHES 0: the fault is in place when the run starts; N: it comes once the run has
# committed N batches (a count of batches, not a delay: how long a batch takes varies from machine
# to machine, and a fast one finished all 80 batches within a fixed half second).
scenario() {
  local name=$1 after=$2 hold=$3 inject=$4 clear=$5 want_stall=${6:-0} survive=${7:-}
  produce "${EVENTS:-40000}"
  if [ "$after" = 0 ]; then
    eval "$inject"
    run_bg "$name"
  else
    run_bg "$name"
    wait_batches "$name" "$after"
    eval "$inject"
    if ! kill -0 "$RUN_PID" 2> /dev/null; then
      echo "FAIL: $name: the run had finished before the fault; give it more events"
      fail_count=$((fail_count + 1))
    fi
  fi
  sleep "$hold"
  eval "$clear"
  wait $RUN_PID
  local rc=$? outcome=ok
  if [ $rc -ne 0 ] && [ -n "$survive" ]; then
    echo "FAIL: $name: the run failed although the fault was shorter than its retries"
    tail -2 "$work/run-$name.log" | cut -c1-300 | sed 's/^/    /'
    fail_count=$((fail_count + 1))
  fi
  if [ $rc -ne 0 ]; then
    outcome="failed, restarted"
    local err
    err=$(grep -E '^weir: [A-Za-z]+:' "$work/run-$name.log" | tail -1)
    if [ -z "$err" ]; then
      echo "FAIL: $name: run exited $rc without a clear error line"
      tail -5 "$work/run-$name.log" | sed 's/^/    /'
      fail_count=$((fail_count + 1))
    fi
    echo "    $name: run failed as the fault outlasted it: $err"
    "$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
      --progress-log "$work/progress-$name-restart.jsonl" > "$work/restart-$name.log" 2>&1 ||
      { echo "FAIL: $name: the restart after the fault failed"; tail -3 "$work/restart-$name.log"; fail_count=$((fail_count + 1)); }
  fi
  local stall
  stall=$(max_stall_ms "$work/progress-$name.jsonl")
  summary+=("$(printf '%-34s %-18s longest batch phase %6s ms' "$name" "$outcome" "$stall")")
  if [ "$want_stall" -gt 0 ] && [ "$rc" -eq 0 ]; then
    check "$name: the progress JSON shows the stall (a phase >= $want_stall ms, got $stall)" test "$stall" -ge "$want_stall"
  fi
}

scenario "Fetch NOT_LEADER x4" 2 2 \
  "ctl request-errors Fetch NOT_LEADER_FOR_PARTITION NOT_LEADER_FOR_PARTITION NOT_LEADER_FOR_PARTITION NOT_LEADER_FOR_PARTITION" \
  ":"
scenario "Fetch timeouts and dropped connections" 2 2 \
  "ctl request-errors Fetch REQUEST_TIMED_OUT _TRANSPORT NOT_LEADER_FOR_PARTITION _TRANSPORT" ":"
scenario "ListOffsets errors" 1 2 \
  "ctl request-errors ListOffsets NOT_LEADER_FOR_PARTITION REQUEST_TIMED_OUT LEADER_NOT_AVAILABLE _TRANSPORT" ":"
scenario "ListOffsets errors at start" 0 2 \
  "ctl request-errors ListOffsets REQUEST_TIMED_OUT REQUEST_TIMED_OUT NOT_LEADER_FOR_PARTITION" ":"
scenario "Metadata errors" 0 2 \
  "ctl request-errors Metadata LEADER_NOT_AVAILABLE REQUEST_TIMED_OUT _TRANSPORT" ":"
scenario "ApiVersions errors" 0 2 "ctl request-errors ApiVersions _TRANSPORT _TRANSPORT" ":"
# Each run gets 40,000 events (80 batches of 500, under a second) and a mid-run fault comes after
# its first batches, so that it comes while the run ingests (checked above); zstd batches keep all
# ~480,000 events within the embedded broker's 5 MiB per partition (docs/broker.md). librdkafka may have fetched every record before a fault that comes
# mid-run (availableNow asks the broker nothing else), so the two stall scenarios start with the
# fault in place: the run's first lookups wait for the brokers, and its progress shows it.
scenario "all brokers down 6 s" 0 6 "ctl broker-down all" "ctl broker-up all" 3000
scenario "broker 2 down 5 s" 2 5 "ctl broker-down 2" "ctl broker-up 2"
scenario "leaders move" 2 1 \
  "ctl leader orders 0 2; ctl leader orders 1 3; ctl leader orders 2 1; ctl leader orders 3 2" \
  "ctl leader orders 0 3; ctl leader orders 1 1"
# Offset lookups retry fetchOffset.numRetries (3) times, fetchOffset.retryIntervalMs (1 s) apart,
# as Spark does: a shorter leader election is ridden out, a longer one fails the run cleanly when
# the run looks offsets up during it (an availableNow run whose records are fetched does not).
scenario "partition leaderless 1 s" 2 1 "ctl leader orders 1 none" "ctl leader orders 1 1" 0 survive
scenario "partition leaderless 5 s" 2 5 "ctl leader orders 1 none" "ctl leader orders 1 1"
# A batch whose fetches take a round trip of 800 ms (unslowed phases take ~150 ms).
scenario "slow brokers (RTT 800 ms)" 0 5 "ctl rtt all 800" "ctl rtt all 0" 600

echo "scenario                           outcome            stall"
printf '  %s\n' "${summary[@]}"
check "a final run completes" "$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger availableNow \
  --set bootstrap="$BOOTSTRAP"
check "the table holds every produced record exactly once (DuckDB vs kcat)" table_matches_topic "$table" orders
check "weir validate finds no gap or duplicate" "$WEIR" validate "$table"
rows=$("$WEIR" table scan "$table" --columns eh_offset --format jsonl 2>/dev/null | wc -l)
check "the table holds all $produced events" test "$rows" -eq "$produced"
finish
