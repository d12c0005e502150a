#!/usr/bin/env bash
# Storage faults in the silver flow (tests/crash_test.sh does the same for bronze): the
# silver step of examples/orders.sql (from_json, expectation + quarantine, watermark, RocksDB
# dedup) runs its next batch over a bronze table built once (duplicates, malformed and late
# events), with the N-th file-system call failing with EIO (the test build weir_testing,
# WEIR_TEST_FAIL_NTH_FS_CALL, src/cli/testing/fault_hook.cc). The test counts the run's calls, fails each one of its second half
# (the batches: state store version folder, quarantine and silver Parquet files and Delta commits,
# offsets/N, commits/N, the no-data batch that moves the watermark) and a sample of the first
# (checkpoint, Delta logs, state store restore). A faulty run must fail with an error naming the
# injected fault and a path, or succeed; a plain restart must then leave silver with exactly one
# row per valid event_id and quarantine with exactly the malformed records, and the dedup state
# must hold every key: a replay of the batch's events (bronze re-fed the same events) adds no
# silver row. Expected sets are computed in Python from bronze (`weir table scan`) and checked
# against the producer's manifests. The RocksDB state store does its own file I/O inside its
# _work folder (WAL, flushes, compactions, checkpoint hard links) through RocksDB's Env, which the
# fault-injecting FileSystem cannot see: only weir's own calls around it are failed here.
# SIGKILL variants are in tests/silver_test.sh. Knobs: SILVER_FAULTS_STRIDE (12), KEEP=1.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker orders:4
python3 - "$WEIR_SOURCE_DIR/examples/orders.sql" "$work" <<'PY'
import sys
text = open(sys.argv[1]).read()
cut = text.index("SET order_schema")
open(sys.argv[2] + "/bronze.sql", "w").write(text[:cut])
open(sys.argv[2] + "/silver.sql", "w").write(text[cut:])
PY
lake=$work/lake
produce() {  # produce COUNT SEED MANIFEST
  "$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count "$1" --seed "$2" --duplicates 0.05 \
    --malformed 0.01 --late 0.01 --manifest "$3" > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
}
bronze_run() {
  "$WEIR" run "$work/bronze.sql" --lakehouse "$1" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
    > "$work/bronze.log" 2>&1 || { echo "FAIL: bronze run"; cat "$work/bronze.log"; exit 1; }
}
silver_run() {  # silver_run LAKE LOG
  "${SILVER_WEIR:-$WEIR}" run "$work/silver.sql" --lakehouse "$1" --trigger availableNow > "$2" 2>&1
}

# Step 1: 4,000 events (seed 1) through bronze and silver: silver's first batch, no fault.
produce 4000 1 "$work/m1.json"
bronze_run "$lake"
silver_run "$lake" "$work/silver1.log" || { echo "FAIL: first silver run"; cat "$work/silver1.log"; exit 1; }
# Step 2: 4,000 more (seed 2, an hour later: its late events are behind silver's watermark) into
# bronze only. $work/pre is the state every trial starts from: silver's next batch reads step 2.
produce 4000 2 "$work/m2.json"
bronze_run "$lake"
cp -a "$lake" "$work/pre"
# Step 3: step 2's events again (same seed: all duplicates of silver's state) into bronze, kept
# aside as $work/bronze3 (bronze's log up to step 2 is the same files).
produce 4000 2 "$work/m3.json"
bronze_run "$lake"
cp -a "$lake/sales/bronze/orders_raw" "$work/bronze3"

# Expected silver event_ids and quarantine (partition, offset) after step 2 and after step 3, from
# bronze: a row is valid when raw_value is a JSON object with a non-null event_id; steps are told
# apart by offsets (the manifests' per-partition ranges); step 1 keeps its late events (silver's
# first batch has no watermark yet), later steps drop events older than seed 2's first event.
"$WEIR" table scan "$work/bronze3" --columns eh_partition,eh_offset,raw_value --format jsonl \
  > "$work/bronze.jsonl" || { echo "FAIL: bronze scan"; exit 1; }
python3 - "$work" <<'PY' || { echo "FAIL: expected sets"; exit 1; }
import json, sys
work = sys.argv[1]
m = [json.load(open(f"{work}/m{i}.json")) for i in (1, 2, 3)]
ends = []  # per step: partition -> first offset after the step
for man in m:
    ends.append({p["partition"]: p["last_offset"] + 1 for p in man["partitions"]})
def step(p, o):
    for i, e in enumerate(ends):
        if o < e.get(p, -1): return i + 1
    raise SystemExit(f"offset {p}/{o} beyond the manifests")
def valid(raw):
    try:
        j = json.loads(raw)
    except ValueError:
        return None
    return j if isinstance(j, dict) and j.get("event_id") is not None else None
cutoff = m[1]["first_event_time"]  # ISO-8601 UTC, same format as the payload's: compare as text
ids = {2: set(), 3: set()}
quarantine = {2: set(), 3: set()}
rows = 0
for line in open(f"{work}/bronze.jsonl"):
    r = json.loads(line)
    rows += 1
    s = step(r["eh_partition"], r["eh_offset"])
    j = valid(r["raw_value"])
    for after in (2, 3):
        if s > after: continue
        if j is None:
            quarantine[after].add((r["eh_partition"], r["eh_offset"]))
        elif s == 1 or j["event_time"] >= cutoff:
            ids[after].add(str(j["event_id"]))
assert rows == sum(x["count"] for x in m), (rows, [x["count"] for x in m])
# Cross-check with the producer's own counts.
assert len(ids[2]) == m[0]["valid_distinct_event_ids"] + m[1]["valid_distinct_event_ids"] - m[1]["late"], len(ids[2])
assert ids[3] == ids[2]
assert len(quarantine[3]) == m[0]["malformed"] + m[1]["malformed"] + m[2]["malformed"]
for after in (2, 3):
    json.dump({"ids": sorted(ids[after]), "quarantine": sorted(quarantine[after])},
              open(f"{work}/expected{after}.json", "w"))
print(f"expected: {len(ids[2])} silver rows; quarantine {len(quarantine[2])} after step 2, "
      f"{len(quarantine[3])} after the replay")
PY

# verify LAKE STEP: silver and quarantine hold exactly the expected sets.
verify() {
  "$WEIR" table scan "$1/sales/silver/orders" --columns event_id --format jsonl > "$work/silver.jsonl" &&
  "$WEIR" table scan "$1/sales/silver/orders_quarantine" --columns eh_partition,eh_offset --format jsonl \
    > "$work/quarantine.jsonl" || return 1
  python3 - "$work" "$2" <<'PY'
import collections, json, sys
work, after = sys.argv[1], sys.argv[2]
want = json.load(open(f"{work}/expected{after}.json"))
ids = [json.loads(l)["event_id"] for l in open(f"{work}/silver.jsonl")]
keys = [tuple(json.loads(l)[k] for k in ("eh_partition", "eh_offset")) for l in open(f"{work}/quarantine.jsonl")]
problems = []
def compare(name, got, expected):
    counts = collections.Counter(got)
    doubled = [k for k, n in counts.items() if n > 1]
    missing = expected - set(counts)
    extra = set(counts) - expected
    if doubled: problems.append(f"{name}: {len(doubled)} doubled, e.g. {doubled[:3]}")
    if missing: problems.append(f"{name}: {len(missing)} missing, e.g. {sorted(missing)[:3]}")
    if extra: problems.append(f"{name}: {len(extra)} unexpected, e.g. {sorted(extra)[:3]}")
compare("silver event_id", ids, set(want["ids"]))
compare("quarantine (partition, offset)", keys, set(tuple(k) for k in want["quarantine"]))
if problems:
    print("\n".join(problems)); sys.exit(1)
PY
}

# The number of file-system calls of the run: the last N whose run reports the fault ("injected"
# in its output), found by doubling then bisection on copies of $work/pre.
trial_lake=$work/trial
fresh() { rm -rf "$trial_lake" && cp -a "$work/pre" "$trial_lake"; }
injected_at() {  # injected_at N: 0 when the fault at N fired (the run reports it)
  fresh
  SILVER_WEIR=$WEIR_TESTING WEIR_TEST_FAIL_NTH_FS_CALL=$1 silver_run "$trial_lake" "$work/probe.log"
  grep -q "injected" "$work/probe.log"
}
hi=64
while injected_at $hi; do hi=$((hi * 2)); [ $hi -le 65536 ] || { echo "FAIL: no end to the calls"; exit 1; }; done
lo=$((hi / 2))
while [ $((hi - lo)) -gt 1 ]; do
  mid=$(((lo + hi) / 2))
  if injected_at $mid; then lo=$mid; else hi=$mid; fi
done
calls=$lo
# Some calls' errors are tolerated (best-effort steps after a commit): a probe landing on one looks
# like the end. Climb while one of the next 8 calls still reports the fault.
climbing=1
while [ $climbing -eq 1 ]; do
  climbing=0
  for k in 1 2 3 4 5 6 7 8; do
    if injected_at $((calls + k)); then calls=$((calls + k)); climbing=1; break; fi
  done
done
echo "silver's batch makes $calls file-system calls through weir's FileSystem (fault positions 1..$calls)"
check "the batch makes file-system calls" test "$calls" -gt 10

# Positions. In the run's first half (reading the checkpoint, the three tables' logs, planning,
# restoring the state store) every SILVER_FAULTS_STRIDE-th call (default 12) and the first 5; in the
# second half (where the batches write) every call is failed once, and the trial goes on (restart,
# check, replay) when the failed call changes something (open for write, the first append to a file, sync, close,
# put-if-absent, write, rename, delete, create directories, sync directory), when the run
# succeeded despite the fault (the first of a run of such calls), at stride positions and at the
# last 10 calls.
stride=${SILVER_FAULTS_STRIDE:-12}
half=$((calls / 2))
writes='(open for write|append to|sync |close |put-if-absent|write |rename|delete|create directories)'
failed_runs=0 succeeded_runs=0 tried=0 probed=0 survived=""
: > "$work/errors.txt"
for n in $(seq 1 "$calls"); do
  picked=0
  { [ "$n" -le 5 ] || [ $((n % stride)) -eq 0 ] || [ "$n" -gt $((calls - 10)) ]; } && picked=1
  [ $picked -eq 1 ] || [ "$n" -ge "$half" ] || continue
  probed=$((probed + 1))
  fresh
  SILVER_WEIR=$WEIR_TESTING WEIR_TEST_FAIL_NTH_FS_CALL=$n silver_run "$trial_lake" "$work/fault.log"
  rc=$?
  err=$(grep -E '^weir: ' "$work/fault.log" | tail -1)
  failed_call=$(echo "$err" | awk -F': ' '{print $(NF-1)}' | sed -E 's/part-[0-9]+-[0-9a-f-]+/part-*/')
  previous_call=${last_call:-} previous_rc=${last_rc:-1}
  last_call=$failed_call last_rc=$rc
  # a run of calls whose errors are tolerated: the first is enough
  [ $picked -eq 0 ] && [ $rc -eq 0 ] && [ "$previous_rc" -eq 0 ] && { survived="$survived $n"; continue; }
  if [ $picked -eq 0 ] && [ $rc -ne 0 ]; then
    # a read in the second half, or a further append to the same file: probed only
    echo "$failed_call" | grep -qE "^$writes" || continue
    [ "${failed_call#append to }" != "${previous_call#append to }" ] || continue
  fi
  tried=$((tried + 1))
  if [ $rc -ne 0 ]; then
    failed_runs=$((failed_runs + 1))
    echo "$n $err" >> "$work/errors.txt"
    if ! echo "$err" | grep -q "injected" || ! echo "$err" | grep -q "/"; then
      echo "FAIL: call $n: the error does not name the injected fault and a path: ${err:-<none>}"
      tail -3 "$work/fault.log" | sed 's/^/    /'
      fail_count=$((fail_count + 1))
    fi
  else
    succeeded_runs=$((succeeded_runs + 1))
    survived="$survived $n"
  fi
  if ! silver_run "$trial_lake" "$work/restart.log"; then
    echo "FAIL: call $n: the restart after the fault failed: $(grep -E '^weir: ' "$work/restart.log" | tail -1)"
    fail_count=$((fail_count + 1))
    continue
  fi
  if ! out=$(verify "$trial_lake" 2); then
    echo "FAIL: call $n (fault run exit $rc): after the restart, silver is wrong:"
    echo "$out" | sed 's/^/    /'
    fail_count=$((fail_count + 1))
    continue
  fi
  # The dedup state must hold every key of the batch: bronze re-fed the same events adds no row.
  rm -rf "$trial_lake/sales/bronze/orders_raw" && cp -a "$work/bronze3" "$trial_lake/sales/bronze/orders_raw"
  if ! silver_run "$trial_lake" "$work/replay.log"; then
    echo "FAIL: call $n: the replay run failed: $(grep -E '^weir: ' "$work/replay.log" | tail -1)"
    fail_count=$((fail_count + 1))
  elif ! out=$(verify "$trial_lake" 3); then
    echo "FAIL: call $n (fault run exit $rc): after a replay of the batch's events, silver is wrong:"
    echo "$out" | sed 's/^/    /'
    fail_count=$((fail_count + 1))
  else
    pass_count=$((pass_count + 1))
  fi
done
echo "failed $probed of $calls calls; full trials (restart, check, replay) at $tried: $failed_runs faulty runs failed," \
  "$succeeded_runs succeeded anyway \
(the failed call was one whose error weir tolerates:${survived:- none})"
echo "position: the failed call, as the error names it (paths relative to the lakehouse):"
sed -E "s|$trial_lake/||g; s|$work/||g; s/^([0-9]+) weir: IOError: silver.sql: sales.silver.orders: /\1 /;
  s/: Input.output error \[injected fault\]//; s/part-00000-[0-9a-f-]+/part-*/g; s/^/  /" "$work/errors.txt" |
  cut -c1-200 | head -"${SILVER_FAULTS_SHOW:-100}"
check "injected faults made runs fail" test "$failed_runs" -ge $((tried / 3))
finish
