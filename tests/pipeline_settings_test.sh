#!/usr/bin/env bash
# `weir run --settings`: a Databricks pipeline's settings JSON used as it is (examples/
# iot_pipeline.json with examples/iot_pipeline.sql): `configuration` feeds ${...} (the topic,
# startingOffsets latest, maxOffsetsPerTrigger, timeouts), `continuous: false` makes the run stop
# by itself, `storage` is the lakehouse, `target` the schema, the single library the pipeline
# file; what weir has no use for is listed in one note; command-line flags win.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker iot-events:2
examples=$WEIR_SOURCE_DIR/examples
table=$work/iot-lakehouse/main/iot/iot_raw
cd "$work" || exit 1
run() {  # run [flags]: the example as its header shows it; output in $work/run.log
  timeout 120 "$WEIR" run --settings "$examples/iot_pipeline.json" --set bootstrap="$BOOTSTRAP" "$@" \
    > "$work/run.log" 2>&1
}
rows() { "$WEIR" table scan "$table" --format csv 2>/dev/null | tail -n +2 | wc -l; }
event() {  # event N: one device reading as JSON
  echo "{\"battery_level\":$1,\"device_id\":$1,\"device_name\":\"d$1\",\"temp\":20,\"timestamp\":1780909200000}"
}

# 1. Records there before the first run are skipped: startingOffsets is 'latest' in the settings.
for i in 1 2 3; do event $i; done | kcat -P -b "$BOOTSTRAP" -t iot-events -p 0 2>/dev/null
check "the first run succeeds and stops by itself (continuous: false)" run
check "it notes what it uses from the settings" \
  grep -q "iot_pipeline.json: using 9 configuration values, continuous: false, development: true, storage, schema iot, the default cluster's spark_conf" "$work/run.log"
check "and lists what weir has no use for in the same line" \
  grep -q "not used by weir: channel, clusters\[0\].num_workers, edition, name, photon" "$work/run.log"
check "the table is in the settings' storage, under the target schema" test -d "$table/_delta_log"
check "the records before the first run are not read (startingOffsets latest)" test "$(rows)" = 0
describe=$("$WEIR" table describe "$table" 2>&1)
check "COMMENT, TBLPROPERTIES and PARTITIONED BY of the definition" bash -c "
  grep -qx 'description: Raw IOT Events' <<< '$describe' &&
  grep -qx '  quality = bronze' <<< '$describe' &&
  grep -qx 'partitioned by: eh_enqueued_date' <<< '$describe'"

# 2. Records produced after the first run are read by the next one.
for i in 4 5 6 7; do event $i; done | kcat -P -b "$BOOTSTRAP" -t iot-events -p 1 2>/dev/null
check "the second run succeeds" run
check "it reads the 4 new records" test "$(rows)" = 4
check "parsed with the payload schema" bash -c \
  "\"$WEIR\" table scan '$table' --format jsonl | grep -q '\"device_name\":\"d5\"'"

# 3. Command-line flags win over the settings, and say so.
check "--trigger wins over continuous" run --trigger once
check "the note names the flags that win" grep -q "(command-line flags win: --trigger)" "$work/run.log"

# 4. The cluster's storage key is a secret reference: never printed.
check "the secret reference's value is not in the output" bash -c "! grep -q 'lake-key' '$work/run.log'"

# 5. A settings file without the pipeline file's library, and a broken one, are refused clearly.
echo '{"configuration": {}}' > "$work/none.json"
"$WEIR" run --settings "$work/none.json" > "$work/none.log" 2>&1
check "no pipeline file and no library: refused" grep -q "weir run needs PIPELINE.sql: .*none.json lists 0 libraries" "$work/none.log"
echo '{"continuous": "sometimes"}' > "$work/bad.json"
"$WEIR" run "$examples/iot_pipeline.sql" --settings "$work/bad.json" > "$work/bad.log" 2>&1
check "a bad value is refused naming the file and the setting" grep -q 'bad.json: "continuous" must be true or false' "$work/bad.log"
finish
