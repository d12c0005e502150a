#!/usr/bin/env bash
# `weir checkpoint reset` against Apache Kafka 4.4 (tests/tools/kafka_peer.sh, brought up once):
# the incident runbook's "controlled restart from a later position (new checkpoint with
# startingOffsets by timestamp) plus a backfill" (docs/migration.md).
#   - a bronze flow reads a 3-partition topic of timestamped records, and stops;
#   - its checkpoint is moved away and the flow reset to a timestamp (a new checkpoint whose
#     batch 0 is the reset; the table's history records it); the next run starts there, without
#     "startingOffsets is ignored", and the table holds exactly the expected offsets;
#   - `weir validate` names the skipped ranges as deliberate, and still reports a real gap;
#   - the backfill (weir kafka read of the exact range → a staging table → the same SELECT as a
#     pipeline flow → weir table merge on (partition, offset)) fills them: every (partition,
#     offset) exactly once, the rows as kcat sees them, validate clean;
#   - a reset of a flow that keeps its checkpoint (by-timestamp JSON) appends a committed batch;
#   - refusals change nothing: a dry run, a position behind the table's progress, partitions
#     missing from the JSON, an unknown flow, a flow reading a table, a running flow, --confirm
#     without --reason.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
source "$(dirname "$0")/tools/kafka_peer.sh"
work=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  kafka_peer_stop
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
suite_start=$(date +%s)
kafka_peer_start
echo "reset: broker up in $(( $(date +%s) - suite_start )) s"
BOOTSTRAP=$KAFKA_PLAINTEXT  # table_matches_topic reads the topic with kcat here
d=$work
lake=$d/lake
table=$lake/sales/bronze/orders_raw
cpdir=$lake/_checkpoints/sales.bronze.orders_raw
flow=sales.bronze.orders_raw
T0=1700000000000

# Record i goes to partition i % 3 with CreateTime T0 + 1000 i: partition p's offset k is record
# 3k + p. 2023 timestamps: no time retention.
kafka_admin create resets 3 retention.ms=-1
produce() { kafka_admin produce resets 3 "$2" --first "$1" --ts-start $((T0 + 1000 * $1)) --ts-step 1000; }

cat > "$d/bronze.sql" <<SQL
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(bootstrapServers => '$KAFKA_PLAINTEXT', subscribe => 'resets',
                       startingOffsets => 'earliest');
SQL
run_bronze() {  # run_bronze NAME [LAKE]: availableNow; NAME.out, NAME.err, NAME.rc
  "$WEIR" run "$d/bronze.sql" --lakehouse "${2:-$lake}" --trigger availableNow \
    > "$d/$1.out" 2> "$d/$1.err"
  echo $? > "$d/$1.rc"
}
reset() {  # reset NAME ARGS...: weir checkpoint reset of the bronze flow; NAME.out/.err/.rc
  local name=$1
  shift
  "$WEIR" checkpoint reset "$d/bronze.sql" --flow "$flow" --lakehouse "$lake" "$@" \
    > "$d/$name.out" 2> "$d/$name.err"
  echo $? > "$d/$name.rc"
}
rc_is() { [ "$(cat "$d/$1.rc")" = "$2" ] || { echo "exit $(cat "$d/$1.rc"), expected $2"; cat "$d/$1.err"; return 1; }; }
has() {  # has FILE TEXT...: the file has every TEXT
  local f=$1 t
  shift
  for t in "$@"; do grep -qF -- "$t" "$f" || { echo "no '$t' in $f:"; cat "$f"; return 1; }; done
}
lacks() { ! grep -qF -- "$2" "$1" || { echo "'$2' in $1:"; cat "$1"; return 1; }; }
# state: the table's log and the checkpoint's files (names and sizes), to show nothing changed.
state() { (cd "$lake" && find sales/bronze/orders_raw/_delta_log _checkpoints -type f -printf '%p %s\n' 2>/dev/null | sort); }
unchanged() { state > "$d/state.now"; diff "$d/state.before" "$d/state.now"; }
# offsets_are TABLE EXPECTED: the table's (partition, offset) pairs as DuckDB reads its live files,
# each once, are exactly EXPECTED ("p:from-to" inclusive ranges, space separated).
offsets_are() {
  bronze_rows "$1" > "$d/rows.jsonl" || return 1
  "$PY" - "$d/rows.jsonl" "$2" <<'PY'
import collections, json, sys
got = collections.Counter()
for line in open(sys.argv[1]):
    if line.strip():
        r = json.loads(line)
        got[(r["eh_partition"], r["eh_offset"])] += 1
want = collections.Counter()
for spec in sys.argv[2].split():
    p, r = spec.split(":")
    a, b = map(int, r.split("-"))
    for o in range(a, b + 1):
        want[(int(p), o)] += 1
if got != want:
    print("extra or duplicated:", sorted((got - want).items())[:10])
    print("missing:", sorted((want - got).items())[:10])
    sys.exit(1)
PY
}
json_field() { "$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$@"; }

# --- the first run, then the incident ---------------------------------------------------------------
produce 0 300  # offsets 0..99 per partition
run_bronze first
first_ok() { rc_is first 0 && offsets_are "$table" "0:0-99 1:0-99 2:0-99"; }
check "the bronze flow's first run reads offsets 0..99 of each partition" first_ok
produce 300 300  # offsets 100..199: the backlog the incident skips in part

# A new checkpoint (the runbook's): the old one is moved away.
mv "$cpdir" "$d/old-checkpoint"
# 451 s after T0: record 453 (partition 0, offset 151), 451 (partition 1, offset 150) and 452
# (partition 2, offset 150) are the first at or after it.
TS=$((T0 + 451000))
state > "$d/state.before"
reset dry --starting-timestamp "$TS" --format json
check "dry run: the plan, exit 0" rc_is dry 0
check "dry run: the new positions resolved by timestamp" \
  test "$(json_field "$d/dry.out" new_offsets)" = '{"resets":{"0":151,"1":150,"2":150}}'
check "dry run: the table's progress is the position moved from" \
  test "$(json_field "$d/dry.out" current_offsets)" = '{"resets":{"0":100,"1":100,"2":100}}'
check "dry run: 151 offsets skipped, the backfill's range, no checkpoint yet" "$PY" - "$d/dry.out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["skipped"] == 151 and j["reprocessed"] == 0, j
assert j["backfill"] == {"startingOffsets": '{"resets":{"0":100,"1":100,"2":100}}',
                         "endingOffsets": '{"resets":{"0":151,"1":150,"2":150}}'}, j["backfill"]
assert j["checkpoint_exists"] is False and j["batch"] == 0 and j["refusals"] == [], j
assert [p["current_from"] for p in j["partitions"]] == ["table"] * 3, j["partitions"]
PY
check "dry run: nothing changed (no checkpoint made, no commit)" unchanged
reset dry-text --starting-timestamp "$TS"
check "dry run (text): per partition table → new and the skipped range" \
  has "$d/dry-text.out" "resets-0" "skips 51 [100, 151)" "skips 50 [100, 150)" "dry run: nothing was changed"

# Refusals before the reset: each changes nothing.
reset no-reason --starting-timestamp "$TS" --confirm
check "--confirm without --reason is refused" has "$d/no-reason.err" "--confirm needs --reason"
reset missing --starting-offsets-by-timestamp "{\"resets\":{\"0\":$TS,\"1\":$TS}}" --confirm --reason x
missing_refused() { rc_is missing 2 && has "$d/missing.err" "don't match what are assigned" "resets-2"; }
check "a by-timestamp JSON without every partition is refused (Spark's message)" missing_refused
reset back --starting-offsets '{"resets":{"0":50,"1":100,"2":100}}' --confirm --reason x
back_refused() {
  rc_is back 2 && has "$d/back.err" "behind the table" "resets-0 100 -> 50" "--allow-reprocess" &&
    has "$d/back.out" "BACKWARDS: re-reads 50 [50, 100)"
}
check "a position behind the table's progress is refused without --allow-reprocess" back_refused
"$WEIR" checkpoint reset "$d/bronze.sql" --flow sales.bronze.nope --lakehouse "$lake" --latest \
  > "$d/unknown.out" 2> "$d/unknown.err"
check "an unknown flow is refused, naming the pipeline's flows" \
  has "$d/unknown.err" "unknown flow sales.bronze.nope" "sales.bronze.orders_raw"
check "... and nothing changed" unchanged

# The reset itself.
reset confirm --starting-timestamp "$TS" --confirm --reason "INC-1234: 10 min of lag; skipped to $TS"
check "the reset is carried out" rc_is confirm 0
check "... committing WEIR CHECKPOINT RESET to the table and batch 0 of a new checkpoint" \
  has "$d/confirm.out" "committed version 2" "WEIR CHECKPOINT RESET" "wrote batch 0"
"$WEIR" table history "$table" --format jsonl --limit 1 > "$d/history.jsonl"
check "the table's history records the operation, the skipped ranges and the reason" \
  "$PY" - "$d/history.jsonl" "$TS" <<'PY'
import json, sys
h = json.loads(open(sys.argv[1]).readline())
assert h["version"] == 2 and h["operation"] == "WEIR CHECKPOINT RESET", h
p = h["operationParameters"]
assert p["reason"].startswith("INC-1234"), p
assert p["position"] == "startingTimestamp=" + sys.argv[2], p
assert json.loads(p["skipped"]) == [
    {"topic": "resets", "partition": 0, "from": 100, "to": 151},
    {"topic": "resets", "partition": 1, "from": 100, "to": 150},
    {"topic": "resets", "partition": 2, "from": 100, "to": 150}], p["skipped"]
assert h["adds"] == 0 and h["removes"] == 0, h
assert h["operationMetrics"]["numSkippedOffsets"] == "151", h
PY
"$WEIR" checkpoint inspect "$cpdir" > "$d/inspect.out" 2>&1
check "the new checkpoint: batch 0 committed at the new positions, next batch 1" \
  has "$d/inspect.out" 'batch 0: committed' '{"resets":{"0":151,"1":150,"2":150}}' "next: batch 1"

produce 600 60  # offsets 200..219
run_bronze second
check "the next run succeeds" rc_is second 0
check "... from the new positions: not from the table's old progress, no 'startingOffsets is ignored'" \
  lacks "$d/second.err" "is ignored"
check "the table holds exactly 0..99 and the new position..219 of each partition" \
  offsets_are "$table" "0:0-99 0:151-219 1:0-99 1:150-219 2:0-99 2:150-219"
"$WEIR" validate "$table" > "$d/validate1.out" 2>&1
echo $? > "$d/validate1.rc"
check "weir validate exits 0: the skipped ranges are deliberate, not gaps" rc_is validate1 0
check "... naming each as skipped by checkpoint reset at version 2" \
  has "$d/validate1.out" \
  "skipped by checkpoint reset at version 2: partition 0 offsets [100, 151)" \
  "skipped by checkpoint reset at version 2: partition 1 offsets [100, 150)" \
  "skipped by checkpoint reset at version 2: partition 2 offsets [100, 150)"
check "... and not as missing offsets" lacks "$d/validate1.out" "missing offsets"
"$WEIR" validate "$table" --format json > "$d/validate1.json"
check "validate --format json: skipped_by_reset, no gaps" "$PY" - "$d/validate1.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ok"], j
assert all(p["gaps"] == [] and p["missing"] == 0 for p in j["partitions"]), j["partitions"]
got = [(s["partition"], s["version"], s["from"], s["to_exclusive"]) for s in j["skipped_by_reset"]]
assert got == [("0", 2, 100, 151), ("1", 2, 100, 150), ("2", 2, 100, 150)], got
PY
# A gap the reset does not explain is still a gap.
real_gap() {
  "$WEIR" validate "$table" --where "NOT (eh_partition = 1 AND eh_offset BETWEEN 160 AND 169)" > "$d/gap.out"
  [ $? = 1 ] && has "$d/gap.out" "partition 1: missing offsets [160, 170): 10 offsets" \
    "partition 1 offsets [100, 150)" "FOUND gaps"
}
check "a gap no reset explains is still reported (beside the deliberate ones)" real_gap

# --- the backfill -----------------------------------------------------------------------------------
start=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["backfill"]["startingOffsets"])' "$d/dry.out")
end=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["backfill"]["endingOffsets"])' "$d/dry.out")
"$WEIR" kafka read --option "kafka.bootstrap.servers=$KAFKA_PLAINTEXT" --option subscribe=resets \
  --option "startingOffsets=$start" --option "endingOffsets=$end" > "$d/skipped.jsonl" 2> "$d/read.err"
check "weir kafka read of the skipped range: 151 records" test "$(wc -l < "$d/skipped.jsonl")" = 151
"$WEIR" table append "$lake/backfill/raw/resets" --create \
  --schema 'key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, timestampType INT' \
  --input "$d/skipped.jsonl" > "$d/stage.out" 2>&1
check "... staged as a table of Kafka rows" test $? = 0
cat > "$d/backfill.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE backfill.raw.resets_bronze AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM(backfill.raw.resets);
SQL
"$WEIR" run "$d/backfill.sql" --lakehouse "$lake" --trigger availableNow > "$d/backfill.out" 2>&1
check "the bronze SELECT over the staged rows (a pipeline flow)" test $? = 0
"$WEIR" table scan "$lake/backfill/raw/resets_bronze" --format jsonl > "$d/backfill.jsonl"
"$WEIR" table merge "$table" --source "$d/backfill.jsonl" --keys eh_partition,eh_offset > "$d/merge.out" 2>&1
check "MERGE on (partition, offset) into the bronze table inserts the 151 rows" \
  has "$d/merge.out" "numTargetRowsInserted=151"
"$WEIR" table merge "$table" --source "$d/backfill.jsonl" --keys eh_partition,eh_offset > "$d/merge2.out" 2>&1
check "... and again inserts nothing (the backfill can be repeated)" has "$d/merge2.out" "numTargetRowsInserted=0"
check "every (partition, offset) 0..219 is in the table exactly once" \
  offsets_are "$table" "0:0-219 1:0-219 2:0-219"
check "... each row as kcat reads the record (key, value, timestamp)" table_matches_topic "$table" resets
"$WEIR" validate "$table" > "$d/validate2.out" 2>&1
echo $? > "$d/validate2.rc"
clean() {
  rc_is validate2 0 && has "$d/validate2.out" "OK: every partition is contiguous, no duplicates" &&
    lacks "$d/validate2.out" "skipped by"
}
check "weir validate is clean after the backfill" clean
produce 660 30
run_bronze third
continues() { rc_is third 0 && offsets_are "$table" "0:0-229 1:0-229 2:0-229" && "$WEIR" validate "$table" > /dev/null; }
check "the flow continues after the backfill; still every offset once, validate clean" continues

# --- a reset that keeps the checkpoint, and a running flow ------------------------------------------
# The same topic into a second lakehouse, its checkpoint kept: the reset is its next batch.
lake2=$d/lake2
run_bronze other "$lake2"
produce 690 60  # offsets 230..249
TS2=$((T0 + 1000 * 720))  # records 720 (p0 offset 240), 721 (p1 240), 722 (p2 240)
"$WEIR" checkpoint reset "$d/bronze.sql" --flow "$flow" --lakehouse "$lake2" --confirm \
  --starting-offsets-by-timestamp "{\"resets\":{\"0\":$TS2,\"1\":$TS2,\"2\":$TS2}}" --reason "INC-2" \
  > "$d/keep.out" 2> "$d/keep.err"
check "a reset keeping the checkpoint writes its next batch" has "$d/keep.out" "wrote batch 1"
"$WEIR" checkpoint inspect "$lake2/_checkpoints/$flow" > "$d/inspect2.out" 2>&1
check "... committed at the new positions (next batch 2)" \
  has "$d/inspect2.out" 'batch 1: committed' '{"resets":{"0":240,"1":240,"2":240}}' "next: batch 2"
run_bronze other2 "$lake2"
check "... and the next run continues from there" \
  offsets_are "$lake2/sales/bronze/orders_raw" "0:0-229 0:240-249 1:0-229 1:240-249 2:0-229 2:240-249"

# A running flow holds its checkpoint: the reset is refused and changes nothing.
"$WEIR" run "$d/bronze.sql" --lakehouse "$lake2" --trigger processingTime=500ms \
  > "$d/live.out" 2> "$d/live.err" &
live=$!
PIDS+=($live)
for _ in $(seq 1 100); do [ -e "$lake2/_checkpoints/$flow/commits/3" ] && break; produce 750 3 > /dev/null; sleep 0.3; done
lake_was=$lake; lake=$lake2
reset running --latest --confirm --reason "while running"
running_refused() { rc_is running 2 && has "$d/running.err" "the flow is running: process $live"; }
check "the reset of a running flow is refused, naming the process" running_refused
kill -TERM $live
wait $live
lake=$lake_was
"$WEIR" table history "$lake2/sales/bronze/orders_raw" --format jsonl > "$d/history2.jsonl"
check "... and commits nothing (the table's only reset is the earlier one)" \
  test "$(grep -c 'WEIR CHECKPOINT RESET' "$d/history2.jsonl")/$(grep -c 'while running' "$d/history2.jsonl")" = 1/0
"$WEIR" checkpoint reset "$d/backfill.sql" --flow backfill.raw.resets_bronze --lakehouse "$lake" --latest \
  > "$d/silver.out" 2> "$d/silver.err"
check "a flow that reads a table, not Kafka, is refused" has "$d/silver.err" "not Kafka"

echo "reset: suite took $(( $(date +%s) - suite_start )) s"
finish
