#!/usr/bin/env bash
# Runs the Parquet micro-benchmarks of an already built tree and compares weir's encoder with the
# external ceiling `zstd -b1` on the same bytes. Usage: bench/run.sh BUILD_DIR (default: build).
# Results: BUILD_DIR/bench-results/parquet.json (Google Benchmark JSON), the raw datasets
# (*.bin), zstd.txt, and summary.md (the table printed at the end). Environment:
# BENCH_MIN_TIME (seconds per benchmark, default 1), BENCH_FILTER (regex, default all).
set -euo pipefail
build=${1:-build}
binary=$build/bench/parquet_bench
if [ ! -x "$binary" ]; then
  echo "bench: $binary not found; build with -DWEIR_BUILD_BENCH=ON (make bench)" >&2
  exit 1
fi
out=$build/bench-results
mkdir -p "$out"

"$binary" --dump_dir="$out" --benchmark_min_time="${BENCH_MIN_TIME:-1}" \
  --benchmark_repetitions="${BENCH_REPETITIONS:-3}" --benchmark_report_aggregates_only=true \
  --benchmark_enable_random_interleaving=true \
  --benchmark_filter="${BENCH_FILTER:-.}" \
  --benchmark_out="$out/parquet.json" --benchmark_out_format=json

# The external ceiling: zstd's own benchmark, level 1, one thread, on the same bytes.
: >"$out/zstd.txt"
if command -v zstd >/dev/null; then
  for data in json_strings int64_offsets timestamps; do
    zstd -b1 -i3 "$out/$data.bin" 2>&1 | tr '\r' '\n' | grep -E 'MB/s.*MB/s' | tail -n 1 |
      sed "s|^|$data |" >>"$out/zstd.txt"
  done
else
  echo "bench: zstd CLI not found (apt-get install zstd); external ceiling skipped" >&2
fi

python3 - "$out" <<'EOF'
import json, re, sys
out = sys.argv[1]
# The median of the repetitions (or the single run when there is one repetition).
runs = {}
for b in json.load(open(f"{out}/parquet.json"))["benchmarks"]:
    if "error_occurred" in b:
        continue
    if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median":
        runs[b["run_name"]] = b
    elif b.get("run_type", "iteration") == "iteration":
        runs.setdefault(b.get("run_name", b["name"]), b)

def mbps(name):
    b = runs.get(name)
    return b["bytes_per_second"] / 1e6 if b else None

def ratio(name):
    b = runs.get(name)
    return b.get("ratio") if b else None

def fmt(v, digits=1):
    return "n/a" if v is None else f"{v:.{digits}f}"

# zstd -b lines look like: " =-json_strings.bin : 22655541 -> 4353118 (x5.204), 312.6 MB/s, 998.7 MB/s"
zstd_cli = {}
for line in open(f"{out}/zstd.txt"):
    m = re.search(r"^(\S+) .*?\(x?([0-9.]+)\),?\s*([0-9.]+) MB/s\s*,?\s*([0-9.]+) MB/s", line)
    if m:
        zstd_cli[m.group(1)] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))

# The ceiling for an encoder that compresses 1 MiB pages: the faster of zstd on the whole buffer
# and zstd on 1 MiB pieces.
def raw_compress(data, codec):
    if codec == "snappy":
        return mbps(f"raw_compress/{data}/snappy")
    both = [v for v in (mbps(f"raw_compress/{data}/zstd1"),
                        mbps(f"raw_compress/{data}/zstd1_1MiB_chunks")) if v]
    return max(both) if both else None

lines = ["# weir Parquet codec vs raw compression of the same bytes", "",
         "MB/s: 10^6 raw value bytes (the concatenated strings, 8 bytes per integer) per CPU second,",
         "median of the repetitions. raw: ZSTD_compressCCtx level 1 (faster of whole buffer and 1 MiB",
         "pieces) or snappy::RawCompress, in the same binary.", "",
         "| column | codec | weir encode | raw compress | encode / raw | weir decode | raw decompress "
         "| decode / raw | file ratio | raw ratio |",
         "|---|---|---|---|---|---|---|---|---|---|"]
for data in ["json_strings", "int64_offsets", "timestamps"]:
    for codec in ["zstd", "snappy", "zstd_nodict", "uncompressed"]:
        enc = mbps(f"encode/{data}/{codec}")
        if enc is None:
            continue
        dec = mbps(f"decode/{data}/{codec}")
        raw_codec = "snappy" if codec == "snappy" else "zstd1"
        raw_c = raw_compress(data, codec) if codec != "uncompressed" else None
        raw_d = mbps(f"raw_decompress/{data}/{raw_codec}") if codec != "uncompressed" else None
        lines.append(" | ".join([
            f"| {data}", codec, fmt(enc), fmt(raw_c), fmt(enc / raw_c if raw_c else None, 2),
            fmt(dec), fmt(raw_d), fmt(dec / raw_d if (dec and raw_d) else None, 2),
            fmt(ratio(f"encode/{data}/{codec}"), 2),
            fmt(ratio(f"raw_compress/{data}/{raw_codec}") if raw_c else None, 2)]) + " |")
if zstd_cli:
    lines += ["", "External ceiling, `zstd -b1` (one thread, wall time, so lower on a busy machine):", "",
              "| column | zstd -b1 compress MB/s | zstd -b1 decompress MB/s | ratio | weir zstd encode / zstd -b1 |",
              "|---|---|---|---|---|"]
    for data, (r, c, d) in zstd_cli.items():
        enc = mbps(f"encode/{data}/zstd")
        lines.append(f"| {data} | {c:.1f} | {d:.1f} | {r:.2f} | {fmt(enc / c if enc else None, 2)} |")
enc = mbps("encode/json_strings/zstd")
raw_c = raw_compress("json_strings", "zstd")
cli = zstd_cli.get("json_strings")
lines.append("")
if enc and raw_c:
    verdict = "meets" if enc / raw_c >= 0.7 else "BELOW"
    lines.append(f"String column, zstd: weir encode {enc:.1f} MB/s = {enc / raw_c:.2f} x raw zstd level 1 "
                 f"({raw_c:.1f} MB/s); target >= 0.70: {verdict}.")
if enc and cli:
    lines.append(f"Against zstd -b1 ({cli[1]:.1f} MB/s): {enc / cli[1]:.2f} x.")
text = "\n".join(lines) + "\n"
open(f"{out}/summary.md", "w").write(text)
print()
print(text, end="")
EOF
