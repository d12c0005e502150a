# Shared helpers for integration tests (sourced). Requires $WEIR (the weir binary) and
# $WEIR_SOURCE_DIR (the repository root), as tests/run_integration.sh sets them.

# The conformance corpus: $WEIR_CONFORMANCE_DIR, else ../shared/conformance beside the repository.
# Prints its path, or fails the test under CI (CI=true) and skips it loudly elsewhere.
conformance_dir() {
  local dir="${WEIR_CONFORMANCE_DIR:-$WEIR_SOURCE_DIR/../shared/conformance}"
  if [ -d "$dir" ]; then
    (cd "$dir" && pwd)
    return 0
  fi
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: conformance corpus not found at $dir (set WEIR_CONFORMANCE_DIR)" >&2
    exit 1
  fi
  echo "SKIPPED (LOUDLY): conformance corpus not found at $dir; set WEIR_CONFORMANCE_DIR" >&2
  exit 0
}

# node with the test-only npm packages (tests/js, installed by scripts/install-deps.sh).
js() {
  local script=$1
  shift
  node "$WEIR_SOURCE_DIR/tests/js/$script" "$@"
}

pass_count=0
fail_count=0
check() {  # check NAME COMMAND...: runs the command, records PASS or FAIL with its output
  local name=$1
  shift
  local out
  if out=$("$@" 2>&1); then
    pass_count=$((pass_count + 1))
  else
    fail_count=$((fail_count + 1))
    echo "FAIL: $name"
    echo "$out" | head -20 | sed 's/^/    /'
  fi
}
finish() {  # prints the totals and exits non-zero on any failure
  echo "$(basename "$0"): $pass_count passed, $fail_count failed"
  [ "$fail_count" -eq 0 ]
}
