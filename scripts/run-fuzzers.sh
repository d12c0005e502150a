#!/usr/bin/env bash
# Builds the libFuzzer targets with clang under ASan/UBSan and runs each for a bounded time over its
# seed corpus (fuzz/corpus/<target>/). FUZZ_SECONDS sets the time per target (default 20).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}
targets=$(ls fuzz/*_fuzz.cc 2>/dev/null | xargs -rn1 basename | sed 's/\.cc$//')
if [ -z "$targets" ]; then echo "fuzz: no targets"; exit 0; fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWEIR_BUILD_FUZZ=ON -DWEIR_BUILD_TESTS=OFF -DWEIR_SANITIZE=address,undefined >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target $targets
for t in $targets; do
  corpus=fuzz/corpus/${t%_fuzz}
  work=build-fuzz/corpus-$t
  mkdir -p "$work"
  echo "fuzz: $t for ${seconds}s"
  build-fuzz/fuzz/$t -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 "$work" \
    $( [ -d "$corpus" ] && echo "$corpus" ) 2>&1 | tail -n 3
done
