#!/usr/bin/env bash
# Bronze availableNow over a preloaded `weir broker` (issue "Streaming engine" benchmark), next to
# weir's raw source rate (no sink) and `kcat -C -e -q`, measured in the same run: events/s, MB/s,
# CPU seconds and peak RSS. maxOffsetsPerTrigger=500000 with the whole backlog waiting.
# Usage: bench/bronze.sh [WEIR] ; EVENTS (default 2,000,000), PARTITIONS (32).
set -euo pipefail
weir=$(realpath "${1:-build/weir}")
events=${EVENTS:-2000000}
partitions=${PARTITIONS:-32}
work=$(mktemp -d)
trap 'kill $broker 2>/dev/null; rm -rf "$work"' EXIT
"$weir" broker --topic orders:$partitions --bootstrap-file "$work/bootstrap" > /dev/null 2>&1 &
broker=$!
for _ in $(seq 1 100); do [ -s "$work/bootstrap" ] && break; sleep 0.1; done
bootstrap=$(cat "$work/bootstrap")
# lz4 producer batches, so the embedded broker's 5 MiB per-partition limit keeps every event.
"$weir" produce --bootstrap "$bootstrap" --topic orders --count "$events" --compression lz4 \
  --manifest "$work/manifest.json" > /dev/null
payload=$(python3 -c "import json; print(json.load(open('$work/manifest.json'))['payload_bytes'])")
cat > "$work/bronze.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'orders',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '500000');
SQL
measure() {  # measure NAME CMD...
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > /dev/null 2> "$work/err" || { cat "$work/err"; exit 1; }
  read -r wall user sys rss < "$work/time"
  echo "$name $wall $(python3 -c "print($user + $sys)") $rss" >> "$work/results"
}
measure kcat kcat -C -b "$bootstrap" -t orders -o beginning -e -q
measure weir-source "$weir" kafka read --bootstrap-servers "$bootstrap" --topic orders --format none
measure weir-bronze "$weir" run "$work/bronze.sql" --lakehouse "$work/lake" --trigger availableNow \
  --set bootstrap="$bootstrap"
"$weir" validate "$work/lake/sales/bronze/orders_raw" > "$work/validate" || { cat "$work/validate"; exit 1; }
table_bytes=$(du -sb "$work/lake/sales/bronze/orders_raw" | cut -f1)
python3 - "$work/results" "$events" "$payload" "$table_bytes" <<'PY'
import sys
events, payload, table_bytes = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = {}
for line in open(sys.argv[1]):
    name, wall, cpu, rss = line.split()
    rows[name] = (float(wall), float(cpu), int(rss) / 1024)
print(f"{events:,} events, {payload / 1e6:.0f} MB of payload; bronze table {table_bytes / 1e6:.0f} MB\n")
print("| run | events/s | MB/s | wall s | CPU s | events per CPU s | peak RSS MiB |")
print("|---|---|---|---|---|---|---|")
for name, (wall, cpu, rss) in rows.items():
    print(f"| {name} | {events / wall:,.0f} | {payload / wall / 1e6:.1f} | {wall:.2f} | {cpu:.2f} | {events / cpu:,.0f} | {rss:.0f} |")
ratio = rows["weir-source"][0] / rows["weir-bronze"][0]
print(f"\nbronze / raw source throughput: {ratio:.2f}x (target >= 0.6); peak RSS {rows['weir-bronze'][2]:.0f} MiB (target < 512)")
PY
