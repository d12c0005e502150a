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
runs = {b["name"]: b for b in json.load(open(f"{out}/parquet.json"))["benchmarks"]
        if b.get("run_type", "iteration") == "iteration" and "error_occurred" not in b}

def mbps(name):
    b = runs.get(name)
    return b["bytes_per_second"] / 1e6 if b else None

def ratio(name):
    b = runs.get(name)
    return b.get("ratio") if b else None

# zstd -b lines look like: " |-json_strings.bin :  24000000 ->   5000000 (x4.800),  480.1 MB/s, 1500.2 MB/s"
zstd_cli = {}
for line in open(f"{out}/zstd.txt"):
    m = re.search(r"^(\S+) .*?\(x?([0-9.]+)\),?\s*([0-9.]+) MB/s\s*,?\s*([0-9.]+) MB/s", line)
    if m:
        zstd_cli[m.group(1)] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))

def fmt(v, digits=1):
    return "n/a" if v is None else f"{v:.{digits}f}"

lines = ["# weir Parquet codec vs raw compression of the same bytes",
         "",
         "MB/s = 10^6 raw value bytes per CPU second (Google Benchmark) or per wall second (zstd -b1).",
         "raw = ZSTD_compressCCtx level 1 / snappy::RawCompress on the whole buffer, in the same binary.",
         ""]
lines.append("| column | codec | weir encode MB/s | weir decode MB/s | file ratio | raw compress MB/s | "
             "raw decompress MB/s | raw ratio | encode / raw | zstd -b1 compress MB/s | "
             "zstd -b1 decompress MB/s | encode / zstd -b1 |")
lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
for data in ["json_strings", "int64_offsets", "timestamps"]:
    for codec in ["zstd", "snappy", "zstd_nodict"]:
        enc = mbps(f"encode/{data}/{codec}")
        if enc is None:
            continue
        dec = mbps(f"decode/{data}/{codec}")
        raw_codec = "snappy" if codec == "snappy" else "zstd1"
        raw_c = mbps(f"raw_compress/{data}/{raw_codec}")
        raw_d = mbps(f"raw_decompress/{data}/{raw_codec}")
        cli = zstd_cli.get(data) if codec != "snappy" else None
        lines.append(" | ".join([
            f"| {data}", codec, fmt(enc), fmt(dec), fmt(ratio(f"encode/{data}/{codec}"), 2),
            fmt(raw_c), fmt(raw_d), fmt(ratio(f"raw_compress/{data}/{raw_codec}"), 2),
            fmt(enc / raw_c if raw_c else None, 2),
            fmt(cli[1]) if cli else "-", fmt(cli[2]) if cli else "-",
            fmt(enc / cli[1], 2) if cli else "-"]) + " |")
enc = mbps("encode/json_strings/zstd")
raw_c = mbps("raw_compress/json_strings/zstd1")
cli = zstd_cli.get("json_strings")
lines.append("")
if enc and raw_c:
    verdict = "meets" if enc / raw_c >= 0.7 else "BELOW"
    lines.append(f"String column, zstd: weir encode {enc:.1f} MB/s = {enc / raw_c:.2f} x raw zstd level 1 "
                 f"({raw_c:.1f} MB/s, same binary, CPU time); target >= 0.70: {verdict}.")
if enc and cli:
    lines.append(f"Against the zstd CLI (zstd -b1, wall time, {cli[1]:.1f} MB/s): {enc / cli[1]:.2f} x.")
text = "\n".join(lines) + "\n"
open(f"{out}/summary.md", "w").write(text)
print()
print(text, end="")
EOF
