#!/usr/bin/env bash
# weir.commitOffsetsToGroup (issue 11): after each committed batch the bronze flow commits its end
# offsets to a consumer group for Burrow-style lag monitors. An independent client
# (python3-confluent-kafka) reads the group's committed offsets, which must equal the table's
# next offset per partition (max eh_offset + 1), the end offsets of the last progress record and
# the topic's high watermarks, after an availableNow run of many quick batches (rate limited: the
# last offsets are flushed at the end), after a restart and after a processingTime run stopped
# with SIGTERM. Failed commits are warnings: the run succeeds and the table is exact. The option
# is off by default and an unknown weir.* option is refused.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
run_pid=
trap 'kill $BROKER_PID $run_pid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# Debian's python has confluent_kafka; a pyenv python3 on PATH usually does not.
PY=""
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c 'import confluent_kafka' 2>/dev/null; then PY=$candidate; break; fi
done
[ -n "$PY" ] || {
  echo "FAIL: python3-confluent-kafka is not installed (apt-get install python3-confluent-kafka)"
  exit 1
}
start_broker orders:4
lake=$work/lake
table=$lake/sales/bronze/orders_raw
group=weir-lag-$$
write_sql() {  # write_sql FILE EXTRA_OPTION: the bronze flow, EXTRA_OPTION appended to read_kafka's
  cat > "$1" <<SQL
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(bootstrapServers => '\${bootstrap}', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '\${max}'$2);
SQL
}
write_sql "$work/bronze.sql" ", \`weir.commitOffsetsToGroup\` => '\${group}'"
run_bronze() {  # run_bronze LAKE GROUP; output in $work/run.log, progress in $work/progress.jsonl
  : > "$work/progress.jsonl"
  "$WEIR" run "$work/bronze.sql" --lakehouse "$1" --trigger availableNow \
    --set bootstrap="$BOOTSTRAP" --set max=200 --set group="$2" \
    --progress-log "$work/progress.jsonl" > "$work/run.log" 2>&1
}
ctl() { "$WEIR" broker ctl --control "$CONTROL" "$@" > /dev/null 2>&1; }

# committed GROUP: the group's committed offsets as JSON {"partition": offset} (-1001: none).
committed() {
  "$PY" - "$BOOTSTRAP" "$1" <<'PY'
import json, sys
from confluent_kafka import Consumer, TopicPartition
c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": sys.argv[2], "log_level": 0})
tps = c.committed([TopicPartition("orders", p) for p in range(4)], timeout=15)
print(json.dumps({str(tp.partition): tp.offset for tp in tps}, sort_keys=True))
c.close()
PY
}
# The table's next offset per partition: max(eh_offset) + 1.
table_next() {
  bronze_rows "$table" | python3 -c '
import json, sys
nxt = {}
for line in sys.stdin:
    if line.strip():
        r = json.loads(line)
        p = str(r["eh_partition"]); nxt[p] = max(nxt.get(p, 0), int(r["eh_offset"]) + 1)
print(json.dumps(nxt, sort_keys=True))'
}
# The end offsets of the last progress record.
progress_end() {
  python3 - "$work/progress.jsonl" <<'PY'
import json, sys
last = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
end = last["sources"][0]["endOffset"]
end = (json.loads(end) if isinstance(end, str) else end)["orders"]
print(json.dumps({str(p): o for p, o in end.items()}, sort_keys=True))
PY
}
# The topic's high watermarks.
topic_end() {
  "$PY" - "$BOOTSTRAP" <<'PY'
import json, sys
from confluent_kafka import Consumer, TopicPartition
c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": "weir-watermarks", "log_level": 0})
print(json.dumps({str(p): c.get_watermark_offsets(TopicPartition("orders", p), timeout=15)[1]
                  for p in range(4)}, sort_keys=True))
c.close()
PY
}
same() {  # same A B: two JSON texts are equal
  [ "$1" = "$2" ] || { echo "expected $2, got $1"; return 1; }
}
check_offsets() {  # check_offsets LABEL [LOG]: LOG's warnings are shown when the offsets differ
  local got
  got=$(committed "$group")
  [ "$got" = "$(topic_end)" ] || grep -h "WARN" "${2:-$work/run.log}" | head -5 | sed 's/^/    log: /'
  check "$1: committed offsets equal the table's max eh_offset + 1" same "$got" "$(table_next)"
  check "$1: committed offsets equal the last progress endOffset" same "$got" "$(progress_end)"
  check "$1: committed offsets equal the topic's end" same "$got" "$(topic_end)"
}

# 1. availableNow in many quick batches (maxOffsetsPerTrigger 200): most commits are held back
# by the 250 ms per-partition limit, the last ones flushed when the run ends.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 12000 > /dev/null 2>&1 ||
  { echo "FAIL: produce"; exit 1; }
check "nothing committed to the group before the run" \
  same "$(committed "$group")" '{"0": -1001, "1": -1001, "2": -1001, "3": -1001}'
check "availableNow run with weir.commitOffsetsToGroup succeeds" run_bronze "$lake" "$group"
check "it took several batches" bash -c "[ \$(wc -l < '$work/progress.jsonl') -ge 5 ]"
check "the table matches the topic" table_matches_topic "$table" orders
check_offsets "first run"

# 2. Restart with new events: the group follows.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 3000 --seed 2 > /dev/null 2>&1
check "restart run succeeds" run_bronze "$lake" "$group"
check_offsets "restart"

# 3. processingTime, stopped with SIGTERM right after its last batch: the held-back offsets are
# committed on the way out.
: > "$work/progress.jsonl"
"$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger processingTime=100ms \
  --set bootstrap="$BOOTSTRAP" --set max=200 --set group="$group" \
  --progress-log "$work/progress.jsonl" > "$work/continuous.log" 2>&1 &
run_pid=$!
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 2000 --seed 4 > /dev/null 2>&1
rows() {
  "$PY" -c "import json, sys
print(sum(json.loads(l)['numInputRows'] for l in open(sys.argv[1]) if l.strip()))" \
    "$work/progress.jsonl"
}
for _ in $(seq 1 150); do
  [ "$(rows 2>/dev/null)" = 2000 ] && break
  sleep 0.1
done
kill -TERM $run_pid
wait $run_pid
check "processingTime run exits 0 on SIGTERM" test $? -eq 0
run_pid=
check "it read the 2000 new events" test "$(rows)" = 2000
check_offsets "processingTime + SIGTERM" "$work/continuous.log"

# 4. Commits fail (the group is not authorized): warnings only, the batch data is exact.
errors=()
for _ in $(seq 1 200); do errors+=(GROUP_AUTHORIZATION_FAILED); done
before=$(committed "$group")
ctl request-errors OffsetCommit "${errors[@]}" || echo "note: request-errors failed"
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 2000 --seed 3 > /dev/null 2>&1
check "a run whose group commits fail still succeeds" run_bronze "$lake" "$group"
check "and warns about the group commit" grep -q "consumer group '$group'" "$work/run.log"
check "without leaking as an error exit or a gap" table_matches_topic "$table" orders
ctl clear-request-errors OffsetCommit
check "the group kept its older offsets" same "$(committed "$group")" "$before"

# 5. Off by default: the same flow without the option commits nothing to any group it names.
write_sql "$work/plain.sql" ""
check "the plain flow has no option" bash -c "! grep -q commitOffsetsToGroup '$work/plain.sql'"
"$WEIR" run "$work/plain.sql" --lakehouse "$work/lake2" --trigger availableNow \
  --set bootstrap="$BOOTSTRAP" --set max=100000 > "$work/plain.log" 2>&1
check "the plain run succeeds" test $? -eq 0
check "the plain run commits nothing (no WARN about groups either)" \
  bash -c "! grep -qi 'consumer group' '$work/plain.log'"
check "an unknown weir.* option is refused" bash -c "
  sed 's/weir.commitOffsetsToGroup/weir.commitOffsetsTo/' '$work/bronze.sql' > '$work/bad.sql'
  ! '$WEIR' run '$work/bad.sql' --lakehouse '$work/lake3' --trigger availableNow \
    --set bootstrap='$BOOTSTRAP' --set max=10 --set group=x > '$work/bad.log' 2>&1 &&
  grep -q 'unknown Kafka source option' '$work/bad.log'"
finish
