#!/usr/bin/env bash
# The Kafka source's raw consumption rate (no sink) next to `kcat -C -e -q`, from the same
# preloaded `weir broker`, in one run (issue "Kafka / Event Hubs source" benchmark).
# Usage: bench/kafka_source.sh [WEIR] ; EVENTS (default 1,000,000), PARTITIONS (32), ROUNDS (3).
# Prints events/s, MB/s, CPU seconds and peak RSS per round and the medians as a Markdown table.
set -euo pipefail
weir=$(realpath "${1:-build/weir}")
events=${EVENTS:-1000000}
partitions=${PARTITIONS:-32}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
trap 'kill $broker 2>/dev/null; rm -rf "$work"' EXIT
"$weir" broker --topic orders:$partitions --bootstrap-file "$work/bootstrap" > /dev/null 2>&1 &
broker=$!
for _ in $(seq 1 100); do [ -s "$work/bootstrap" ] && break; sleep 0.1; done
bootstrap=$(cat "$work/bootstrap")
# lz4 batches so the embedded broker's 5 MiB per-partition limit keeps every event.
"$weir" produce --bootstrap "$bootstrap" --topic orders --count "$events" --compression lz4 \
  --manifest "$work/manifest.json" > /dev/null
bytes=$(python3 -c "import json; print(json.load(open('$work/manifest.json'))['payload_bytes'])")

measure() {  # measure NAME CMD... -> appends "name seconds cpu_seconds rss_kb" to results
  local name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > /dev/null 2> "$work/err" || { cat "$work/err"; exit 1; }
  read -r wall user sys rss < "$work/time"
  echo "$name $wall $(python3 -c "print($user + $sys)") $rss" >> "$work/results"
}
for round in $(seq 1 "$rounds"); do
  measure kcat kcat -C -b "$bootstrap" -t orders -o beginning -e -q
  measure weir-source "$weir" kafka read --bootstrap-servers "$bootstrap" --topic orders --format none
done
python3 - "$work/results" "$events" "$bytes" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, cpu, rss = line.split()
    rows.setdefault(name, []).append((float(wall), float(cpu), int(rss)))
events, payload = int(sys.argv[2]), int(sys.argv[3])
print(f"{events} events, {payload / 1e6:.1f} MB of payload, median of {len(rows['kcat'])} rounds\n")
print("| reader | events/s | MB/s | wall s | CPU s | peak RSS MiB |")
print("|---|---|---|---|---|---|")
medians = {}
for name, runs in rows.items():
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    rss = max(r[2] for r in runs) / 1024
    medians[name] = wall
    print(f"| {name} | {events / wall:,.0f} | {payload / wall / 1e6:.1f} | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")
print(f"\nweir source / kcat throughput: {medians['kcat'] / medians['weir-source']:.2f}x (target >= 1.0)")
PY
