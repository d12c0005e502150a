# Shared helpers for integration tests (sourced). Requires $WEIR (the weir binary) and
# $WEIR_SOURCE_DIR (the repository root), as tests/run_integration.sh sets them.

# The conformance corpus: $WEIR_CONFORMANCE_DIR (the Makefile sets it). Prints its path, or fails
# the test under CI (CI=true) and skips it loudly elsewhere.
conformance_dir() {
  local dir="${WEIR_CONFORMANCE_DIR:-}"
  if [ -n "$dir" ] && [ -d "$dir" ]; then
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

# Starts `weir broker` with the given --topic specs in the background; sets BOOTSTRAP, BROKER_PID
# and CONTROL (the control socket). REQUIRES: $work is a temporary folder the caller removes.
start_broker() {
  local args=()
  for t in "$@"; do args+=(--topic "$t"); done
  "$WEIR" broker "${args[@]}" --bootstrap-file "$work/bootstrap" --control "$work/control.sock" \
    > "$work/broker.log" 2>&1 &
  BROKER_PID=$!
  CONTROL=$work/control.sock
  for _ in $(seq 1 100); do
    [ -s "$work/bootstrap" ] && break
    sleep 0.1
  done
  BOOTSTRAP=$(cat "$work/bootstrap" 2>/dev/null)
  [ -n "$BOOTSTRAP" ] || { echo "FAIL: the broker did not start"; cat "$work/broker.log"; exit 1; }
}

# Prints a bronze table as JSON lines {eh_partition, eh_offset, partition_key, raw_value,
# enqueued_ms}, reading only its live files (tests/tools/delta_live_files.py) with DuckDB.
bronze_rows() {
  local files
  files=$(python3 "$WEIR_SOURCE_DIR/tests/tools/delta_live_files.py" "$1") || return 1
  js duckdb_query.mjs --sql "SELECT eh_partition, eh_offset, partition_key, raw_value,
      epoch_ms(enqueued_time) AS enqueued_ms FROM read_parquet($files)"
}

# Checks a bronze table against the whole topic as kcat sees it.
table_matches_topic() {
  local table=$1 topic=$2
  kcat -C -b "$BOOTSTRAP" -t "$topic" -e -q -J > "$work/kcat.jsonl" 2>/dev/null || return 1
  bronze_rows "$table" > "$work/table.jsonl" || return 1
  python3 "$WEIR_SOURCE_DIR/tests/tools/compare_kafka_table.py" "$work/kcat.jsonl" "$work/table.jsonl"
}

# Starts Azurite (tests/js) on a free loopback port and creates the container $1 with an
# independent Shared Key client (python3's hmac); sets AZURITE_PORT, AZURITE_PID, AZURE_ACCOUNT
# and AZURE_KEY (Azurite's published development key, not a secret). A missing Azurite fails the
# test under CI and skips it loudly elsewhere. REQUIRES: $work; the caller stops $AZURITE_PID.
start_azurite() {
  local container=$1 azurite=$WEIR_SOURCE_DIR/tests/js/node_modules/.bin/azurite-blob
  if [ ! -e "$azurite" ] || ! command -v node > /dev/null; then
    [ "${CI:-}" = "true" ] && { echo "FAIL: Azurite not installed (npm ci in tests/js)"; exit 1; }
    echo "SKIPPED (LOUDLY): Azurite not installed (npm ci in tests/js)"
    exit 0
  fi
  AZURITE_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  node "$azurite" --blobHost 127.0.0.1 --blobPort "$AZURITE_PORT" --location "$work/azurite" \
    --disableTelemetry --skipApiVersionCheck --loose > "$work/azurite.log" 2>&1 &
  AZURITE_PID=$!
  for _ in $(seq 1 300); do  # up to 30 s: node starts slowly on a busy machine
    grep -q "successfully listens" "$work/azurite.log" 2>/dev/null && break
    sleep 0.1
  done
  grep -q "successfully listens" "$work/azurite.log" ||
    { echo "FAIL: Azurite did not start"; cat "$work/azurite.log"; exit 1; }
  AZURE_ACCOUNT=devstoreaccount1
  AZURE_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
  python3 - "$AZURITE_PORT" "$AZURE_ACCOUNT" "$AZURE_KEY" "$container" <<'PY' || { echo "FAIL: create container"; exit 1; }
import base64, hashlib, hmac, sys, urllib.request, email.utils
port, account, key, container = sys.argv[1:5]
headers = {"x-ms-date": email.utils.formatdate(usegmt=True), "x-ms-version": "2023-11-03"}
canon = "".join(f"{k}:{v}\n" for k, v in sorted(headers.items()))
to_sign = "\n".join(["PUT", "", "", "", "", "application/octet-stream", "", "", "", "", "", ""]) + \
    "\n" + canon + f"/{account}/{account}/{container}\nrestype:container"
sig = base64.b64encode(hmac.new(base64.b64decode(key), to_sign.encode(), hashlib.sha256).digest()).decode()
headers["Authorization"] = f"SharedKey {account}:{sig}"
headers["Content-Type"] = "application/octet-stream"
urllib.request.urlopen(urllib.request.Request(
    f"http://127.0.0.1:{port}/{account}/{container}?restype=container", method="PUT",
    headers=headers, data=b""))
PY
}
