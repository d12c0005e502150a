#!/usr/bin/env bash
# Silver availableNow over a bronze table (issue "Silver" benchmark): examples/orders.sql's bronze
# flow loads EVENTS events (default 2,000,000; 5% duplicates, 1% malformed, 1% late) from a
# preloaded `weir broker`, then the silver flow alone (from_json, expectation + quarantine,
# watermark, RocksDB dedup, Parquet) is timed: events/s, MB/s, CPU seconds, peak RSS and the dedup
# state's size on disk, next to the bronze flow of the same run as the baseline.
# Usage: bench/silver.sh [WEIR]
set -euo pipefail
weir=$(realpath "${1:-build/weir}")
events=${EVENTS:-2000000}
work=$(mktemp -d)
trap 'kill $broker 2>/dev/null; rm -rf "$work"' EXIT
"$weir" broker --topic orders:32 --bootstrap-file "$work/bootstrap" > /dev/null 2>&1 &
broker=$!
for _ in $(seq 1 100); do [ -s "$work/bootstrap" ] && break; sleep 0.1; done
bootstrap=$(cat "$work/bootstrap")
"$weir" produce --bootstrap "$bootstrap" --topic orders --count "$events" --compression lz4 \
  --duplicates 0.05 --malformed 0.01 --late 0.01 --manifest "$work/manifest.json" > /dev/null
payload=$(python3 -c "import json; print(json.load(open('$work/manifest.json'))['payload_bytes'])")
here=$(cd "$(dirname "$0")/.." && pwd)
# The pipeline split in two files: bronze (up to the silver step's SET) and the silver step.
python3 - "$here/examples/orders.sql" "$work" <<'PY'
import sys
text = open(sys.argv[1]).read()
cut = text.index("SET order_schema")
open(sys.argv[2] + "/bronze.sql", "w").write(text[:cut])
open(sys.argv[2] + "/silver.sql", "w").write(text[cut:])
PY
measure() {  # measure NAME CMD...
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > /dev/null 2> "$work/err" || { cat "$work/err"; exit 1; }
  read -r wall user sys rss < "$work/time"
  echo "$name $wall $(python3 -c "print($user + $sys)") $rss" >> "$work/results"
}
measure bronze "$weir" run "$work/bronze.sql" --lakehouse "$work/lake" --trigger availableNow \
  --set bootstrap="$bootstrap"
measure silver "$weir" run "$work/silver.sql" --lakehouse "$work/lake" --trigger availableNow \
  --progress-log "$work/progress.jsonl"
state_bytes=$(du -sb "$work/lake/_checkpoints/sales.silver.orders/state" | cut -f1)
python3 - "$work/results" "$events" "$payload" "$state_bytes" "$work/progress.jsonl" <<'PY'
import json, sys
events, payload, state_bytes = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = {}
for line in open(sys.argv[1]):
    name, wall, cpu, rss = line.split()
    rows[name] = (float(wall), float(cpu), int(rss) / 1024)
progress = [json.loads(l) for l in open(sys.argv[5])]
written = sum(p["sink"]["numOutputRows"] for p in progress)
state_rows = progress[-1]["stateOperators"][0]["numRowsTotal"]
print(f"{events:,} events, {payload / 1e6:.0f} MB of payload; silver wrote {written:,} rows; "
      f"dedup state {state_rows:,} keys, {state_bytes / 2**20:.1f} MiB on disk\n")
print("| flow | events/s | MB/s | wall s | CPU s | events per CPU s | peak RSS MiB |")
print("|---|---|---|---|---|---|---|")
for name, (wall, cpu, rss) in rows.items():
    print(f"| {name} | {events / wall:,.0f} | {payload / wall / 1e6:.1f} | {wall:.2f} | {cpu:.2f} | "
          f"{events / cpu:,.0f} | {rss:.0f} |")
print(f"\nsilver: {events / rows['silver'][0]:,.0f} events/s (target >= 300,000 on 2 cores)")
PY
