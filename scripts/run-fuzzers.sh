#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*_fuzz.cc) with clang under ASan/UBSan in build-fuzz/, replays
# the saved reproducers in fuzz/crashes/<target>/ (bugs found earlier: they must stay fixed), then
# fuzzes each target for FUZZ_SECONDS (default 20) over its seed corpus fuzz/corpus/<target>/ plus
# the corpus grown by earlier runs (build-fuzz/corpus/<target>/). Exits non-zero if any target
# crashes, leaks, times out (-timeout=10) or passes -rss_limit_mb=2048; new reproducers are
# written to build-fuzz/artifacts/<target>/ and the sanitizer report is printed.
# Usage: scripts/run-fuzzers.sh [target ...]   (targets like parquet_reader_fuzz; default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}
if [ $# -gt 0 ]; then
  targets="$*"
else
  targets=$(ls fuzz/*_fuzz.cc 2>/dev/null | xargs -rn1 basename | sed 's/\.cc$//')
fi
if [ -z "$targets" ]; then echo "fuzz: no targets"; exit 0; fi

log=build-fuzz/configure.log
mkdir -p build-fuzz
if ! CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DWEIR_BUILD_FUZZ=ON -DWEIR_SANITIZE=address,undefined >"$log" 2>&1; then
  cat "$log"
  echo "fuzz: cmake configure failed (clang and libclang-rt-dev are needed)" >&2
  exit 1
fi
# shellcheck disable=SC2086
cmake --build build-fuzz -j "$(nproc)" --target $targets

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# Prints the interesting part of a libFuzzer log: the sanitizer report and the artifact line.
report() {
  local start='ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|ALARM: working on'
  local noise='Test unit written to|in fuzzer::|in __libc_start|in _start|in main '
  grep -E -m1 -A25 "$start" "$1" | grep -E -v "$noise" || true
  grep -E -m1 'Test unit written to' "$1" || true
}

failed=()
for t in $targets; do
  name=${t%_fuzz}
  binary=build-fuzz/fuzz/$t
  out=build-fuzz/logs
  mkdir -p "$out" "build-fuzz/corpus/$name" "build-fuzz/artifacts/$name"

  # Regression: every saved reproducer must now be handled cleanly.
  if [ -d "fuzz/crashes/$name" ] && [ -n "$(ls -A "fuzz/crashes/$name")" ]; then
    echo "fuzz: $t replaying fuzz/crashes/$name/"
    for input in "fuzz/crashes/$name"/*; do
      if ! "$binary" -rss_limit_mb=2048 -timeout=10 "$input" >"$out/$name-replay.log" 2>&1; then
        echo "fuzz: $t FAILS on the saved reproducer $input:"
        report "$out/$name-replay.log"
        failed+=("$t (reproducer $input)")
      fi
    done
  fi

  echo "fuzz: $t for ${seconds}s"
  seeds=()
  [ -d "fuzz/corpus/$name" ] && seeds+=("fuzz/corpus/$name")
  if "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="build-fuzz/artifacts/$name/" "build-fuzz/corpus/$name" "${seeds[@]}" \
      >"$out/$name.log" 2>&1; then
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$out/$name.log" | tr '\n' ' '
    echo
  else
    echo "fuzz: $t FAILED (full log: $out/$name.log):"
    report "$out/$name.log"
    failed+=("$t")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failures: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all targets ran clean"
