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
# The same run by the test build, whose flows' file system injects a fault (weir_testing).
run_faulty() { "$WEIR_TESTING" "${RUN[@]:1}"; }
produced=0
produce() {  # produce COUNT SEED
  "$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count "$1" --seed "$2" --compression zstd \
    --duplicates 0.05 > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
  produced=$((produced + $1))
}
produce 200000 1

# Real kills at random moments, placed by the run's progress rather than by a delay (runs take a
# different time on every machine): 0-30 ms after the run's k-th new Delta commit, k random in
# 0..18 (k = 0: while it starts and recovers), so the 22 kills spread over about 200 batches of
# 1,000 events. A batch takes 10-30 ms here, so the kill lands anywhere in one: offsets WAL,
# Parquet files, Delta commit, commit marker. A run that finishes first caught up; it gets 20,000
# more events.
commits_in_log() {
  local files=("$table"/_delta_log/*.json)
  if [ -e "${files[0]}" ]; then echo ${#files[@]}; else echo 0; fi
}
kills=0 seed=2 attempts=0
RANDOM=42
while [ $kills -lt 22 ] && [ $attempts -lt 200 ]; do
  attempts=$((attempts + 1))
  before=$(commits_in_log)
  "${RUN[@]}" > "$work/run.log" 2>&1 &   # weir itself in the background, so the kill reaches it
  pid=$!
  commits=$((RANDOM % 19)) extra_ms=$((RANDOM % 31))
  for _ in $(seq 1 6000); do  # 30 s at most
    kill -0 $pid 2>/dev/null || break
    [ $(( $(commits_in_log) - before )) -ge $commits ] && break
    sleep 0.005
  done
  sleep "0.$(printf '%03d' $extra_ms)"
  kill -KILL $pid 2>/dev/null
  wait $pid 2>/dev/null  # (no "Killed" line)
  rc=$?
  if [ $rc -eq 137 ]; then   # 128 + SIGKILL: the kill landed
    kills=$((kills + 1))
  elif [ $rc -eq 0 ]; then   # it finished first
    produce 20000 $seed
    seed=$((seed + 1))
  else
    echo "FAIL: run exited $rc without being killed"; cat "$work/run.log"; exit 1
  fi
done
echo "killed weir run $kills times with SIGKILL in $attempts runs, which committed $(commits_in_log) batches ($produced events produced)"
check "at least 20 kills landed during ingestion" test $kills -ge 20
check "at least 200000 events were produced" test $produced -ge 200000

# Injected I/O faults at every file-system call of a batch (covers offsets/N, Parquet files,
# the Delta commit, its checkpoint and commits/N), each followed by a restart, in the three modes
# of the test build: the call fails; the call takes effect and then reports EIO, with the next
# two reads of its path failing too (an ambiguous outcome: a Delta commit that may have landed);
# the call takes effect and the machine crashes right after it.
produce 6000 99
failures=0
modes=(fail lie crash)
for n in $(seq 1 60); do
  for mode in "${modes[@]}"; do
    WEIR_TEST_FAIL_NTH_FS_CALL=$n WEIR_TEST_FS_FAULT_MODE=$mode WEIR_TEST_FS_FAIL_READS=2 \
      run_faulty > "$work/fault.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
      failures=$((failures + 1))
      grep -q "injected fault\|fault injection" "$work/fault.log" ||
        { echo "FAIL: unexpected error at call $n ($mode)"; cat "$work/fault.log"; }
    fi
  done
  [ $((n % 10)) -eq 0 ] && produce 1500 $((100 + n))
done
echo "injected a fault at each of 60 file-system call positions in ${#modes[@]} modes: $failures runs failed and were restarted"
check "injected faults made runs fail" test $failures -ge 60

check "a final run completes" run
check "the table holds every produced event exactly once (DuckDB vs kcat)" table_matches_topic "$table" orders
check "weir validate finds no gap or duplicate" "$WEIR" validate "$table"
finish
