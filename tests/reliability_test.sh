#!/usr/bin/env bash
# Boundaries and a full file system (issue "Reliability and security", parts 6 and 1):
# 1. Table names cannot escape the lakehouse root: `..`, '/', absolute paths and other characters
#    in a name part are rejected with a clear error before anything is written; a symbolic link
#    inside the lakehouse that points outside it is refused.
# 2. A real full file system (an 8 MiB tmpfs, when this runs as root and mount is permitted;
#    skipped loudly otherwise): the bronze flow fills it and fails with a clear error naming the
#    path; after space is freed, a restart completes with no gap and no duplicate.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
mounted=""
cleanup() {
  kill $BROKER_PID 2>/dev/null
  [ -n "$mounted" ] && umount "$mounted" 2>/dev/null
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
start_broker orders:8
bronze_sql() {  # bronze_sql TABLE-NAME
  cat <<SQL
CREATE OR REFRESH STREAMING TABLE $1 AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time
FROM STREAM read_kafka(bootstrapServers => '\${bootstrap}', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '20000')
SQL
}
run() {  # run PIPELINE LAKE
  "$WEIR" run "$1" --lakehouse "$2" --trigger availableNow --set bootstrap="$BOOTSTRAP" > "$work/run.log" 2>&1
}
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 2000 --seed 1 > /dev/null 2>&1 ||
  { echo "FAIL: produce"; exit 1; }

# --- 1. names and paths ---
lake=$work/lake
mkdir -p "$lake"
rejected() {  # rejected NAME: the run fails with a clear message and writes nothing outside
  bronze_sql "$1" > "$work/name.sql"
  if run "$work/name.sql" "$lake"; then echo "accepted $1"; return 1; fi
  grep -qE "letters, digits|must be|not allowed|escape|invalid" "$work/run.log" ||
    { echo "unclear error: $(tail -1 "$work/run.log")"; return 1; }
  local strays
  strays=$(find "$work" -path "$lake" -prune -o -newer "$work/name.sql" -name '_delta_log' -print)
  [ -z "$strays" ] || { echo "wrote $strays"; return 1; }
}
for name in '`..`.bronze.t' 'sales.`..`.t' 'sales.bronze.`..`' 'sales.bronze.`../../escaped`' \
            'sales.bronze.`/tmp/abs`' '`/etc`.x.y' 'sales.bronze.`a/b`' 'sales.bronze.`.`' \
            'sales.bronze.`a\b`' 'sales.bronze.`t x`' 'sales.bronze.`t%2e%2e`' 'a.b.c.d'; do
  check "table name $name is rejected with a clear error" rejected "$name"
done
check "no table was created anywhere for the rejected names" \
  test -z "$(find "$work" -name _delta_log -print -quit)"
# Quarantine and source table names go through the same rules.
printf '%s\n' "CREATE OR REFRESH STREAMING TABLE sales.silver.s AS SELECT * FROM STREAM(sales.\`..\`.t);" \
  > "$work/source.sql"
check "a source table name with .. is rejected" test "$(run "$work/source.sql" "$lake"; echo $?)" -ne 0
# A symbolic link inside the lakehouse pointing outside it.
outside=$work/outside
mkdir -p "$outside" "$lake/evil"
ln -s "$outside" "$lake/evil/bronze"
bronze_sql evil.bronze.t > "$work/symlink.sql"
run "$work/symlink.sql" "$lake"
rc=$?
check "a symlink in the lakehouse leading outside it is refused, nothing written outside" \
  bash -c "[ $rc -ne 0 ] && [ -z \"\$(ls -A '$outside')\" ]"

# --- 2. a full file system ---
small=$work/small
mkdir -p "$small"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=8m tmpfs "$small" 2> "$work/mount.err"; then
  echo "SKIPPED (LOUDLY): the full-file-system case needs root and mount -t tmpfs ($(cat "$work/mount.err" 2>/dev/null))"
  finish
  exit $?
fi
mounted=$small
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 60000 --seed 2 > /dev/null 2>&1
small_lake=$small/lake
bronze_sql sales.bronze.orders_raw > "$work/full.sql"
# Leave about 300 KiB free: the first batch or two fit, a later one does not.
avail_kb=$(df --output=avail -k "$small" | tail -1)
dd if=/dev/zero of="$small/filler" bs=1K count=$((avail_kb - 300)) status=none 2>/dev/null
run "$work/full.sql" "$small_lake"
rc=$?
err=$(grep -E '^weir: [A-Za-z]+:' "$work/run.log" | tail -1)
echo "    full file system: exit $rc: $err" | cut -c1-400
check "the run stops when the file system is full" test $rc -ne 0
check "the error says the device is full" grep -qiE 'no space left|ENOSPC|disk full' <<< "$err"
check "the error names the path" grep -qF "$small_lake" <<< "$err"
rm -f "$small/filler"
check "after freeing space, a restart completes" run "$work/full.sql" "$small_lake"
check "the table holds every record exactly once (DuckDB vs kcat)" \
  table_matches_topic "$small_lake/sales/bronze/orders_raw" orders
check "weir validate finds no gap or duplicate" "$WEIR" validate "$small_lake/sales/bronze/orders_raw"
finish
