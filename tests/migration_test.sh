#!/usr/bin/env bash
# The Event Hubs connector -> Kafka source migration runbook (docs/migration.md), end to
# end on `weir broker`:
#   1. examples/eventhubs_columns.sql maps the Kafka source to the connector's columns and types
#      (runbook step 3): schema and values checked with `weir table describe / scan`.
#   2. A scripted cutover (steps 5-8): an old reader (a weir bronze flow, availableNow with a small
#      maxOffsetsPerTrigger, SIGKILLed at an arbitrary point) -> `weir cutover` option B offsets with
#      a margin -> a new flow from those offsets into the SAME table -> `weir validate` reports
#      exactly the overlap as duplicates (append sink), in a time window too.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
OLD_PID=
trap 'kill $BROKER_PID 2>/dev/null; [ -n "$OLD_PID" ] && kill -KILL $OLD_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# The new flow's sink: a MERGE on (partition, offset) absorbs the re-read overlap (runbook step 6).
# NEW_SINK=append SINK_CLAUSE= bash tests/migration_test.sh shows the blind append's duplicates.
NEW_SINK=${NEW_SINK:-merge}
SINK_CLAUSE=${SINK_CLAUSE-"MERGE ON (eh_partition, eh_offset)"}

start_broker eh:2 telemetry:3
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# --- 1. The Event Hubs connector's columns (runbook step 3) ---------------------------------------
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic eh --count 40 --headers > /dev/null 2>&1 ||
  { echo "FAIL: produce"; exit 1; }
echo "nokey-no-headers" | kcat -P -b "$BOOTSTRAP" -t eh -p 1 2>/dev/null
eh_lake=$work/eh_lake
eh_table=$eh_lake/telemetry/bronze/events
check "examples/eventhubs_columns.sql runs on the embedded broker" \
  "$WEIR" run "$WEIR_SOURCE_DIR/examples/eventhubs_columns.sql" --set bootstrap="$BOOTSTRAP" --set topic=eh \
  --trigger availableNow --lakehouse "$eh_lake"
"$WEIR" table describe "$eh_table" > "$work/describe.txt" 2>&1
eh_schema() {
  sed -n '/^schema:/,$p' "$work/describe.txt" | tail -n +2 | sed 's/^ *//' > "$work/schema.txt"
  diff "$work/schema.txt" - <<'EOF'
body BINARY
partition STRING
offset STRING
sequenceNumber BIGINT
enqueuedTime TIMESTAMP
publisher STRING
partitionKey STRING
properties MAP<STRING, STRING>
systemProperties MAP<STRING, STRING> NOT NULL
EOF
}
check "the table has the connector's column names and types" eh_schema
"$WEIR" table scan "$eh_table" --format jsonl > "$work/eh_rows.jsonl" 2>/dev/null
kcat -C -b "$BOOTSTRAP" -t eh -e -q -J > "$work/eh_kcat.jsonl" 2>/dev/null
eh_values() {
  python3 - "$work/eh_rows.jsonl" "$work/eh_kcat.jsonl" <<'PY'
import base64, json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
recs = {(r["partition"], r["offset"]): r for r in map(json.loads, open(sys.argv[2])) if "offset" in r}
assert len(rows) == len(recs) == 41, (len(rows), len(recs))
for row in rows:
    p, o = int(row["partition"]), row["sequenceNumber"]
    rec = recs[(p, o)]
    assert row["offset"] == str(o), row
    assert base64.b64decode(row["body"]).decode() == rec["payload"], row
    assert row["partitionKey"] == rec["key"], row
    assert row["publisher"] is None
    assert isinstance(row["enqueuedTime"], str) and row["enqueuedTime"].endswith("Z"), row
    sp = row["systemProperties"]
    assert sp["x-opt-sequence-number"] == str(o) and sp["x-opt-partition-key"] == rec["key"], sp
    headers = rec.get("headers") or []
    if headers:  # kcat -J: ["name", "value", ...]
        want = dict(zip(headers[0::2], headers[1::2]))
        assert row["properties"] == want, (row["properties"], want)
        assert want["source"] == "weir-produce"
    else:
        assert row["properties"] == {}, row  # headers NULL -> the connector's empty map
PY
}
check "body, partition, offset, sequenceNumber, partitionKey, properties match the records (kcat)" eh_values
check "weir validate detects the connector's columns (partition, sequenceNumber)" \
  bash -c "'$WEIR' validate '$eh_table' --format json > '$work/eh_validate.json' &&
           grep -q '\"offset_column\": \"sequenceNumber\"' '$work/eh_validate.json'"
check "weir cutover detects them too (enqueuedTime for option A)" \
  bash -c "'$WEIR' cutover '$eh_table' --topic eh --margin 5 --sink merge --format json > '$work/eh_cutover.json' 2>/dev/null &&
           grep -q '\"time_column\": \"enqueuedTime\"' '$work/eh_cutover.json'"

# --- 2. The scripted cutover ------------------------------------------------------------------------
lake=$work/lake
cat > "$work/bronze.sql" <<'SQL'
SET starting_offsets = 'earliest';
CREATE OR REFRESH STREAMING TABLE ${table} ${sink_clause} AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'telemetry',
                       startingOffsets => '${starting_offsets}', maxOffsetsPerTrigger => '${max}');
SQL
# Phase A (entirely read by the old reader), a time boundary, then phase B (the old reader stops
# somewhere inside it).
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic telemetry --count 300 --seed 1 > /dev/null 2>&1
sleep 1.2
boundary=$(date -u +%Y-%m-%dT%H:%M:%S.%3N)
sleep 0.3
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic telemetry --count 30000 --seed 2 > /dev/null 2>&1 ||
  { echo "FAIL: produce phase B"; exit 1; }
total=30300

# The old reader: a weir flow under another name, standing in for the connector's job (a weir flow
# of the same name would resume from the table's own per-partition progress and need no cutover).
"$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
  --set table=legacy.bronze.telemetry --set max=100 --set sink_clause= \
  --progress-log "$work/old_progress.jsonl" > "$work/old.log" 2>&1 &
OLD_PID=$!
for _ in $(seq 1 3000); do
  [ "$(cat "$work/old_progress.jsonl" 2>/dev/null | wc -l)" -ge 12 ] && break
  sleep 0.02
done
kill -KILL $OLD_PID 2>/dev/null
wait $OLD_PID 2>/dev/null
OLD_PID=
# Runbook step 7: the new job owns the table from here (the old checkpoint is kept for rollback).
mkdir -p "$lake/sales/bronze"
mv "$lake/legacy/bronze/telemetry" "$lake/sales/bronze/telemetry"
table=$lake/sales/bronze/telemetry
old_rows=$("$WEIR" table scan "$table" --format csv 2>/dev/null | tail -n +2 | wc -l)
check "the old reader stopped part-way (some but not all of the $total events)" \
  bash -c "[ $old_rows -gt 600 ] && [ $old_rows -lt $total ]"
check "what the old reader wrote is contiguous from offset 0 (weir validate exit 0)" "$WEIR" validate "$table"

# Runbook step 5, option B: per-partition max(eh_offset) - margin.
margin=50
"$WEIR" cutover "$table" --topic telemetry --margin $margin --partitions 3 --sink "$NEW_SINK" \
  --format json > "$work/cutover.json" 2> "$work/cutover.err"
check "weir cutover succeeds" test -s "$work/cutover.json"
cutover_offsets() {
  python3 - "$work/cutover.json" "$margin" <<'PY'
import json, sys
c, margin = json.load(open(sys.argv[1])), int(sys.argv[2])
assert c["partition_column"] == "eh_partition" and c["offset_column"] == "eh_offset", c
assert c["time_column"] == "enqueued_time", c
starting = json.loads(c["startingOffsets"])
assert list(starting) == ["telemetry"], starting
parts = {p["partition"]: p for p in c["partitions"]}
assert sorted(starting["telemetry"]) == ["0", "1", "2"] == sorted(parts), (starting, parts)
for name, p in parts.items():
    assert p["starting_offset"] == p["max_offset"] - margin == starting["telemetry"][name], p
assert isinstance(c["startingTimestamp"], int) and c["startingTimestamp"] > 1700000000000, c
PY
}
check "option B: startingOffsets = max(eh_offset) - $margin for each partition (Spark's JSON)" cutover_offsets
if [ "$NEW_SINK" = append ]; then
  check "it warns that the blind append will duplicate the overlap" grep -q "DUPLICATED" "$work/cutover.err"
fi
"$WEIR" cutover "$table" --topic telemetry --margin $margin --sink append > "$work/cutover.txt" 2> "$work/cutover_text.err"
check "the text form prints the read_kafka option line" \
  grep -q "startingOffsets => '{\"telemetry\":{\"0\":" "$work/cutover.txt"
check "and the --set form" grep -q -- "--set starting_offsets='{\"telemetry\":" "$work/cutover.txt"
check "and option A's startingTimestamp" grep -q "startingTimestamp => '[0-9]*'" "$work/cutover.txt"
check "--retention shorter than the overlap's age warns (data may be gone)" \
  bash -c "'$WEIR' cutover '$table' --topic telemetry --retention 1s 2>&1 >/dev/null | grep -q 'more than the retention'"
check "--time-margin above --retention warns" \
  bash -c "'$WEIR' cutover '$table' --topic telemetry --time-margin 2h --retention 1h 2>&1 >/dev/null | grep -q 'exceeds the source'"

# The new flow (a new checkpoint) from those offsets into the same table.
starting=$(json "$work/cutover.json" 'd["startingOffsets"]')
check "the new flow runs from the cutover offsets" \
  "$WEIR" run "$work/bronze.sql" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
  --set table=sales.bronze.telemetry --set max=5000 --set starting_offsets="$starting" \
  --set sink_clause="$SINK_CLAUSE"

# Runbook step 8.
"$WEIR" validate "$table" --report --format json > "$work/validate.json"
validate_rc=$?
expect_overlap() {
  python3 - "$work/validate.json" "$work/cutover.json" "$margin" "$total" "$NEW_SINK" <<'PY'
import json, sys
v, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
margin, total, sink = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
parts = {p["partition"]: p for p in v["partitions"]}
cut = {p["partition"]: p for p in c["partitions"]}
assert sorted(parts) == ["0", "1", "2"], parts
assert sum(p["expected"] for p in parts.values()) == total, "every event of the topic is in the table"
for name, p in parts.items():
    assert p["min"] == 0 and p["missing"] == 0 and p["gaps"] == [], p  # no gap across the cutover
    if sink == "append":
        start, end = cut[name]["starting_offset"], cut[name]["max_offset"]
        assert p["duplicates"] == end - start + 1 == margin + 1, p
        assert p["duplicate_ranges"] == [{"from": start, "to": end, "extra_rows": margin + 1}], p
    else:
        assert p["duplicates"] == 0 and p["duplicate_ranges"] == [], p
assert v["ok"] == (sink != "append"), v["ok"]
assert v["rows"] == total + (3 * (margin + 1) if sink == "append" else 0), v["rows"]
PY
}
check "weir validate reports no gap, and exactly the overlap as duplicates per partition" expect_overlap
if [ "$NEW_SINK" = append ]; then
  check "weir validate exits 1 (duplicates found)" test "$validate_rc" -eq 1
  "$WEIR" validate "$table" --report > "$work/validate.txt"
  check "the text report lists each duplicate range" \
    bash -c "[ \$(grep -c 'duplicate offsets \[' '$work/validate.txt') -eq 3 ]"
else
  check "weir validate exits 0 (the MERGE sink absorbed the overlap)" test "$validate_rc" -eq 0
fi

# Step 8's time window on the enqueued time (timestamps as strings, UTC).
check "a window before the cutover (phase A only) is clean" \
  bash -c "'$WEIR' validate '$table' --where \"enqueued_time < '$boundary'\" > '$work/window_a.txt' &&
           grep -q '^OK' '$work/window_a.txt' && [ \$(awk '\$1 ~ /^[0-9]+\$/ {s += \$2} END {print s}' '$work/window_a.txt') -eq 300 ]"
window_rc=$([ "$NEW_SINK" = append ] && echo 1 || echo 0)
check "a window around the cutover (runbook's BETWEEN) reports the overlap" \
  bash -c "'$WEIR' validate '$table' --where \"enqueued_time BETWEEN '$boundary' AND '2099-01-01T00:00:00'\" --format json > '$work/window.json';
           [ \$? -eq $window_rc ]"
check "a window with no rows is not reported as clean" \
  bash -c "'$WEIR' validate '$table' --where \"enqueued_time BETWEEN '2020-01-01T00:00:00' AND '2020-01-02T00:00:00'\" > '$work/empty.txt';
           [ \$? -eq 1 ] && grep -q 'NO ROWS' '$work/empty.txt'"
finish
