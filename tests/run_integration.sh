#!/usr/bin/env bash
# Runs every integration test script tests/*_test.sh with the weir binary given as $1.
# Prints "N passed, N failed" at the end; exits non-zero when any failed. The FAIL lines of the
# failed scripts are printed again at the end, so that they are in the last lines of a long log
# (CI shows its start and end).
set -uo pipefail
cd "$(dirname "$0")/.."
export WEIR="$(realpath "${1:-build/weir}")"
# The test build of weir (a fault-injecting file system under its flows), beside the binary.
export WEIR_TESTING="$(dirname "$WEIR")/weir_testing"
export WEIR_SOURCE_DIR="$PWD"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
passed=0; failed=0; failures=()
for t in tests/*_test.sh; do
  [ -e "$t" ] || continue
  echo "=== $t"
  start=$(date +%s)
  log="$logs/$(basename "$t").log"
  if bash "$t" 2>&1 | tee "$log"; then
    passed=$((passed + 1)); echo "--- PASS $t ($(( $(date +%s) - start ))s)"
  else
    failed=$((failed + 1)); failures+=("$t"); echo "--- FAIL $t ($(( $(date +%s) - start ))s)"
  fi
done
for t in ${failures[@]+"${failures[@]}"}; do  # (an empty array is "unbound" to bash < 4.4)
  echo "failed: $t"
  grep -A 8 -E '^FAIL|^\[  FAILED|^weir: ' "$logs/$(basename "$t").log" | head -40 | sed 's/^/    /'
done
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
