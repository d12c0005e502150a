#!/usr/bin/env bash
# Crash consistency of the bronze flow (issue "Streaming engine"): while at least 200,000 events
# are ingested in small batches, `weir run` is killed with SIGKILL at random moments (at least 20
# times, landing in WAL writes, Parquet writing, Delta commits and commit markers) and restarted;
# then every file-system call of a run is made to fail in turn (EIO through the fault-injecting
# FileSystem, WEIR_TEST_FAIL_NTH_FS_CALL) with a restart after each. At the end the table holds
# every produced event exactly once: no gap and no duplicate in any partition.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; rm -rf "$work"' EXIT
start_broker orders:8
lake=$work/lake
table=$lake/sales/bronze/orders_raw
cat > "$work/bronze.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '1000')
SQL
RUN=("$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP")
run() { "${RUN[@]}"; }
produced=0
produce() {  # produce COUNT SEED
  "$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count "$1" --seed "$2" --compression zstd \
    --duplicates 0.05 > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
  produced=$((produced + $1))
}
produce 200000 1

# Real kills at random moments: 50 ms after the start up to (at first) 650 ms. A run that ends
# before its kill caught up; it gets 20,000 more events, and the next kills come within 90% of the
# time that run took: on a fast machine a fixed window let most runs finish, and the events
# produced for them outgrew the embedded broker's retention (5 MiB a partition, docs/broker.md).
kills=0 seed=2 attempts=0 window_ms=650
RANDOM=42
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
while [ $kills -lt 22 ] && [ $attempts -lt 200 ]; do
  attempts=$((attempts + 1))
  started=$(now_ms)
  "${RUN[@]}" > "$work/run.log" 2>&1 &   # weir itself in the background, so the kill reaches it
  pid=$!
  delay_ms=$((RANDOM % (window_ms - 50) + 50))
  while kill -0 $pid 2>/dev/null && [ $(($(now_ms) - started)) -lt $delay_ms ]; do sleep 0.005; done
  if kill -0 $pid 2>/dev/null; then
    kill -KILL $pid
    wait $pid 2>/dev/null
    kills=$((kills + 1))
  else
    wait $pid
    rc=$?
    [ $rc -eq 0 ] || { echo "FAIL: run exited $rc without being killed"; cat "$work/run.log"; exit 1; }
    window_ms=$(( ($(now_ms) - started) * 9 / 10 ))
    [ $window_ms -ge 100 ] || window_ms=100
    [ $produced -lt 1000000 ] || { echo "FAIL: the runs end before their kills ($produced events)"; exit 1; }
    produce 20000 $seed   # caught up: give it more to do
    seed=$((seed + 1))
  fi
done
echo "killed weir run $kills times with SIGKILL in $attempts runs ($produced events produced)"
check "at least 20 kills landed during ingestion" test $kills -ge 20
check "at least 200000 events were produced" test $produced -ge 200000

# Injected I/O failures at every file-system call of a batch (covers offsets/N, Parquet files,
# the Delta commit, its checkpoint and commits/N), each followed by a restart.
produce 6000 99
failures=0
for n in $(seq 1 60); do
  WEIR_TEST_FAIL_NTH_FS_CALL=$n run > "$work/fault.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    failures=$((failures + 1))
    grep -q "injected fault" "$work/fault.log" || { echo "FAIL: unexpected error at call $n"; cat "$work/fault.log"; }
  fi
  [ $((n % 10)) -eq 0 ] && produce 1500 $((100 + n))
done
echo "injected an I/O failure at each of 60 file-system call positions: $failures runs failed and were restarted"
check "injected faults made runs fail" test $failures -ge 20

check "a final run completes" run
check "the table holds every produced event exactly once (DuckDB vs kcat)" table_matches_topic "$table" orders
check "weir validate finds no gap or duplicate" "$WEIR" validate "$table"
finish
