#!/usr/bin/env bash
# Table properties and comments of a running pipeline change as they do in a Databricks pipeline:
# a changed TBLPROPERTIES or COMMENT in a flow's definition is applied to the existing table on
# the next run (a metadata commit, never silently ignored), and an operations runbook's
#   ALTER TABLE main.bronze.telemetry SET TBLPROPERTIES (...autoOptimize...)
# written verbatim in the pipeline file is applied once. Checked in `weir table describe`, in
# `weir table history` and in the Delta log as DuckDB reads it.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker telemetry:2
lake=$work/lake
table=$lake/main/bronze/telemetry
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic telemetry --count 200 > /dev/null 2>&1

definition() {  # definition COMMENT QUALITY: the bronze flow with its COMMENT and TBLPROPERTIES
  cat <<SQL
CREATE OR REFRESH STREAMING TABLE main.bronze.telemetry
COMMENT '$1'
TBLPROPERTIES ('quality' = '$2')
AS SELECT CAST(value AS STRING) AS raw_value, partition AS eh_partition, offset AS eh_offset
FROM STREAM read_kafka(bootstrapServers => '\${bootstrap}', subscribe => 'telemetry',
                       startingOffsets => 'earliest');
SQL
}
run() {  # run FILE: availableNow; output in $work/run.log
  "$WEIR" run "$1" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
    > "$work/run.log" 2>&1
}
describe() { "$WEIR" table describe "$table" > "$work/describe.txt" 2>&1; }
versions() { ls "$table/_delta_log" | grep -c '\.json$'; }
# The table's metadata as DuckDB reads the newest metaData action of the JSON log.
duckdb_metadata() {
  js duckdb_query.mjs --sql "SELECT metaData.description AS description,
      to_json(metaData.configuration) AS configuration
    FROM read_ndjson('$table/_delta_log/*.json', union_by_name=true, filename=true)
    WHERE metaData IS NOT NULL ORDER BY filename DESC LIMIT 1"
}

# 1. The first run creates the table with the definition's COMMENT and TBLPROPERTIES.
definition "raw telemetry" bronze > "$work/v1.sql"
check "the first run succeeds" run "$work/v1.sql"
describe
check "describe shows the COMMENT as the description" grep -qx "description: raw telemetry" "$work/describe.txt"
check "describe shows the TBLPROPERTIES" grep -qx "  quality = bronze" "$work/describe.txt"

# 2. The definition changes (new COMMENT, new quality) and the runbook's ALTER is added verbatim.
definition "raw telemetry, as received" raw > "$work/v2.sql"
cat >> "$work/v2.sql" <<'SQL'
ALTER TABLE main.bronze.telemetry SET TBLPROPERTIES ('delta.autoOptimize.optimizeWrite' = 'true', 'delta.autoOptimize.autoCompact' = 'true');
SQL
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic telemetry --count 50 --seed 2 > /dev/null 2>&1
check "the run with the changed definition and the ALTER succeeds" run "$work/v2.sql"
check "it says the ALTER changed the table" grep -q "ALTER TABLE main.bronze.telemetry: table properties changed" "$work/run.log"
check "it says the changed TBLPROPERTIES and COMMENT were applied" \
  grep -q "applied the definition's TBLPROPERTIES (quality=raw) and COMMENT to main.bronze.telemetry" "$work/run.log"
describe
check "describe shows the new description" grep -qx "description: raw telemetry, as received" "$work/describe.txt"
check "describe shows quality = raw" grep -qx "  quality = raw" "$work/describe.txt"
check "describe shows optimizeWrite" grep -qx "  delta.autoOptimize.optimizeWrite = true" "$work/describe.txt"
check "describe shows autoCompact" grep -qx "  delta.autoOptimize.autoCompact = true" "$work/describe.txt"
check "the rows of both runs are there" grep -qx "rows: 250 (from file statistics)" "$work/describe.txt"
"$WEIR" table history "$table" > "$work/history.txt" 2>&1
check "history records the changes as SET TBLPROPERTIES commits" \
  test "$(grep -c 'SET TBLPROPERTIES' "$work/history.txt")" -ge 2
duckdb_metadata > "$work/duckdb.jsonl" 2>&1
check "DuckDB reads the new description from the log" grep -q '"description":"raw telemetry, as received"' "$work/duckdb.jsonl"
check "DuckDB reads the new properties from the log" python3 -c "
import json, sys
row = json.loads(open(sys.argv[1]).readline())
conf = json.loads(row['configuration'])
assert conf == {'quality': 'raw', 'delta.autoOptimize.optimizeWrite': 'true',
                'delta.autoOptimize.autoCompact': 'true'}, conf" "$work/duckdb.jsonl"

# 3. Running the same file again changes nothing: no metadata commit.
before=$(versions)
check "a rerun of the same pipeline succeeds" run "$work/v2.sql"
check "and commits nothing (no new data, no property change)" test "$(versions)" = "$before"

# 4. A property weir does not know under delta.* is refused before anything is written.
definition "raw telemetry, as received" raw > "$work/bad.sql"
echo "ALTER TABLE main.bronze.telemetry SET TBLPROPERTIES ('delta.autoOptimise.autoCompact' = 'true');" >> "$work/bad.sql"
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic telemetry --count 10 --seed 3 > /dev/null 2>&1
run "$work/bad.sql"
check "a misspelt delta property fails the run" test $? -ne 0
check "naming the property" grep -q "delta.autoOptimise.autoCompact" "$work/run.log"
check "and nothing is committed" test "$(versions)" = "$before"
finish
