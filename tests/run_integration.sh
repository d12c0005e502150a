#!/usr/bin/env bash
# Runs every integration test script tests/*_test.sh with the weir binary given as $1.
# Prints "N passed, N failed" at the end; exits non-zero when any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export WEIR="$(realpath "${1:-build/weir}")"
export WEIR_SOURCE_DIR="$PWD"
passed=0; failed=0; failures=()
for t in tests/*_test.sh; do
  [ -e "$t" ] || continue
  echo "=== $t"
  start=$(date +%s)
  if bash "$t"; then
    passed=$((passed + 1)); echo "--- PASS $t ($(( $(date +%s) - start ))s)"
  else
    failed=$((failed + 1)); failures+=("$t"); echo "--- FAIL $t ($(( $(date +%s) - start ))s)"
  fi
done
[ ${#failures[@]} -gt 0 ] && printf 'failed: %s\n' "${failures[@]}"
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
