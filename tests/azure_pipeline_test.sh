#!/usr/bin/env bash
# Tables and checkpoints in Azure storage: Azurite (npm `azurite`,
# tests/js) on loopback and `weir broker`; examples/orders.sql (bronze, silver, quarantine) run
# with --lakehouse on an Azurite URL, the account key given as SET fs.azure.account.key... =
# secret('azure', 'key') with --secrets, availableNow in several batches, SIGKILLed mid-run and
# restarted; then bronze is validated on the URL (every event exactly once), silver and the
# quarantine table are read back with `weir table scan URL` and compared with the producer's
# manifest (as tests/silver_test.sh does); finally 20 concurrent `weir table append` race on one
# table's next version: every append lands as its own version, none is lost or doubled.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
AZURITE_PID=
BROKER_PID=
stop_all() {
  if [ -n "$BROKER_PID" ]; then
    kill "$BROKER_PID" 2>/dev/null
    wait "$BROKER_PID" 2>/dev/null
  fi
  if [ -n "$AZURITE_PID" ]; then
    kill "$AZURITE_PID" 2>/dev/null
    wait "$AZURITE_PID" 2>/dev/null  # it must stop writing its folder before the folder goes
  fi
}
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# The dedup state's local RocksDB cache ($TMPDIR/weir-state-cache/...) goes with the test.
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"

start_azurite lake
port=$AZURITE_PORT account=$AZURE_ACCOUNT key=$AZURE_KEY
printf '{"azure": {"key": "%s"}}\n' "$key" > "$work/secrets.json"

start_broker orders:8
lake=http://127.0.0.1:$port/$account/lake/run1
bronze=$lake/sales/bronze/orders_raw
silver=$lake/sales/silver/orders
quarantine=$lake/sales/silver/orders_quarantine
# The example pipeline in several batches (4,000 offsets per bronze batch, 2 bronze files per
# silver batch), with the storage key as a pipeline setting.
{
  echo "SET fs.azure.account.key.$account.dfs.core.windows.net = secret('azure', 'key');"
  sed "s/maxOffsetsPerTrigger => '200000'/maxOffsetsPerTrigger => '4000'/;
       s/FROM STREAM(sales.bronze.orders_raw)/FROM STREAM(sales.bronze.orders_raw) WITH (maxFilesPerTrigger = 2)/" \
    "$WEIR_SOURCE_DIR/examples/orders.sql"
} > "$work/orders.sql"
grep -q "maxOffsetsPerTrigger => '4000'" "$work/orders.sql" && grep -q "maxFilesPerTrigger = 2" "$work/orders.sql" ||
  { echo "FAIL: examples/orders.sql changed: update the sed above"; exit 1; }
storage=(--secrets "$work/secrets.json")  # table commands: the key through --set
table_storage=(--secrets "$work/secrets.json" --set "fs.azure.account.key.$account.blob.core.windows.net=secret('azure','key')")

run_pipeline() {
  "$WEIR" run "$work/orders.sql" --lakehouse "$lake" --trigger availableNow \
    --set bootstrap="$BOOTSTRAP" "${storage[@]}" --progress-log "$work/progress.jsonl" > "$work/run.log" 2>&1 ||
    { tail -20 "$work/run.log"; return 1; }
}

# 1. 30,000 events (5% duplicates, 1% malformed, 1% late), as tests/silver_test.sh produces them.
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 30000 --duplicates 0.05 \
  --malformed 0.01 --late 0.01 --seed 7 --manifest "$work/manifest.json" > /dev/null 2>&1 ||
  { echo "FAIL: produce"; exit 1; }
m() { python3 -c "import json,sys; print(json.load(open('$work/manifest.json'))[sys.argv[1]])" "$1"; }
distinct=$(m valid_distinct_event_ids)
malformed=$(m malformed)
topic_messages=$(kcat -C -b "$BOOTSTRAP" -t orders -e -q -f '.\n' 2>/dev/null | wc -l)

# 2. SIGKILL mid-run, each restart resuming from the checkpoints in Azurite: once during bronze's
# batches, then during silver's (read 2 bronze files per batch), each kill as soon as the
# progress log shows the run got that far.
progress_lines() { grep -c "\"name\":\"$1\"" "$work/progress.jsonl" 2>/dev/null; }
kills=0
kill_when() {  # kill_when TABLE N: SIGKILL the run once TABLE has N batches in the progress log
  "$WEIR" run "$work/orders.sql" --lakehouse "$lake" --trigger availableNow \
    --set bootstrap="$BOOTSTRAP" "${storage[@]}" --progress-log "$work/progress.jsonl" > "$work/killed.log" 2>&1 &
  local pid=$! n
  for _ in $(seq 1 1500); do
    n=$(progress_lines "$1")
    [ "${n:-0}" -ge "$2" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.02
  done
  if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
  wait "$pid" 2>/dev/null
}
kill_when sales.bronze.orders_raw 3
kill_when sales.silver.orders 2
kill_when sales.silver.orders 4
echo "    SIGKILLed $kills runs"
check "at least two runs were killed mid-run" test "$kills" -ge 2
check "a local state cache was used" test -d "$TMPDIR/weir-state-cache"
rm -rf "$TMPDIR/weir-state-cache"  # the last run starts as on another machine
check "the pipeline finishes after the kills" run_pipeline
check "no key or secret in the run's output" bash -c "! grep -qF '$key' '$work/run.log' '$work/killed.log' '$work/progress.jsonl'"
check "several bronze batches" python3 -c "
import json
def parsed(line):
    try:
        return json.loads(line)
    except ValueError:  # a line cut by a SIGKILL
        return None
rows = [r for r in map(parsed, open('$work/progress.jsonl')) if r]
bronze = [r for r in rows if r['name'] == 'sales.bronze.orders_raw' and r['numInputRows'] > 0]
assert len(bronze) >= 3, len(bronze)
"
check "checkpoints live in Azurite" "$WEIR" checkpoint inspect "$lake/_checkpoints/sales.silver.orders" "${table_storage[@]}"

# 3. Bronze: every event exactly once (contiguous offsets per partition, no duplicates).
check "weir validate on the bronze URL" "$WEIR" validate "$bronze" "${table_storage[@]}"
bronze_count() {
  local n
  n=$("$WEIR" table scan "$bronze" --columns eh_offset --format jsonl "${table_storage[@]}" | wc -l)
  [ "$n" -eq "$topic_messages" ] || { echo "bronze has $n rows, the topic $topic_messages"; return 1; }
}
check "bronze holds every message of the topic" bronze_count

# 4. Silver and quarantine read back through the URL.
"$WEIR" table scan "$silver" --columns event_id --format jsonl "${table_storage[@]}" > "$work/silver.jsonl" 2> "$work/scan.err"
"$WEIR" table scan "$quarantine" --columns eh_partition,eh_offset --format jsonl "${table_storage[@]}" > "$work/quarantine.jsonl" 2>> "$work/scan.err"
# Late events behind the watermark of an earlier silver batch are dropped, so with several
# batches silver holds every valid event plus the late ones that came early enough: exactly what
# the same pipeline, batches and events give on local disk without kills.
"$WEIR" run "$work/orders.sql" --lakehouse "$work/ref" --trigger availableNow \
  --set bootstrap="$BOOTSTRAP" "${storage[@]}" > "$work/ref.log" 2>&1 || { echo "FAIL: reference run"; tail "$work/ref.log"; }
"$WEIR" table scan "$work/ref/sales/silver/orders" --columns event_id --format jsonl > "$work/ref_silver.jsonl"
check "silver has each event_id once: all valid ones, and exactly the late ones a local run keeps" python3 -c "
import json
ids = [json.loads(l)['event_id'] for l in open('$work/silver.jsonl')]
ref = sorted(json.loads(l)['event_id'] for l in open('$work/ref_silver.jsonl'))
assert len(ids) == len(set(ids)), ('duplicates', len(ids) - len(set(ids)))
assert $(m valid) <= len(ids) <= $distinct, (len(ids), $(m valid), $distinct)
assert sorted(ids) == ref, ('differs from the local run', len(ids), len(ref))
"
check "quarantine holds exactly the producer's malformed (partition, offset)" python3 -c "
import json
want = sorted((int(p), int(o)) for p, o in json.load(open('$work/manifest.json'))['malformed_offsets'])
got = sorted((r['eh_partition'], r['eh_offset']) for r in map(json.loads, open('$work/quarantine.jsonl')))
assert len(want) == $malformed and got == want, (len(got), len(want))
"
# The dedup state's committed versions are in the container (marker last), not only on disk.
state_in_azurite() {
  python3 - "$port" "$account" "$key" lake "run1/_checkpoints/sales.silver.orders/state/0/0/" <<'EOF' > "$work/state.txt" || return 1
import base64, hashlib, hmac, re, sys, urllib.parse, urllib.request, email.utils
port, account, key, container, prefix = sys.argv[1:6]
headers = {"x-ms-date": email.utils.formatdate(usegmt=True), "x-ms-version": "2023-11-03"}
canon = "".join(f"{k}:{v}\n" for k, v in sorted(headers.items()))
params = {"comp": "list", "prefix": prefix, "restype": "container"}
to_sign = "\n".join(["GET"] + [""] * 11) + "\n" + canon + f"/{account}/{account}/{container}" + \
    "".join(f"\n{k}:{v}" for k, v in sorted(params.items()))
sig = base64.b64encode(hmac.new(base64.b64decode(key), to_sign.encode(), hashlib.sha256).digest()).decode()
headers["Authorization"] = f"SharedKey {account}:{sig}"
url = f"http://127.0.0.1:{port}/{account}/{container}?" + urllib.parse.urlencode(params)
body = urllib.request.urlopen(urllib.request.Request(url, headers=headers)).read().decode()
for name in re.findall(r"<Name>([^<]*)</Name>", body):
    print(name[len(prefix):])
EOF
  python3 - "$work/state.txt" <<'EOF'
import collections, sys
files = collections.defaultdict(set)
for line in open(sys.argv[1]).read().split():
    version, _, name = line.partition("/")
    files[version].add(name)
complete = [v for v, names in files.items() if "weir-state.json" in names]
assert complete, dict(files)
for v in complete:
    names = files[v]
    assert "CURRENT" in names and any(n.startswith("MANIFEST-") for n in names), (v, names)
    assert any(n.endswith(".sst") for n in names), (v, names)
EOF
}
check "the dedup state's versions are in Azurite (CURRENT, MANIFEST, SSTs, marker)" state_in_azurite

# 5. "Another machine": no local state cache, and every event sent again (same seed). Silver
# drops them all only if the dedup state was downloaded from Azurite (late ones are behind the
# watermark); malformed ones are quarantined again.
rm -rf "$TMPDIR/weir-state-cache"
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 30000 --duplicates 0.05 \
  --malformed 0.01 --late 0.01 --seed 7 > /dev/null 2>&1 || { echo "FAIL: produce again"; exit 1; }
check "the pipeline runs on the re-sent events" run_pipeline
check "the state was downloaded into a new local cache" test -d "$TMPDIR/weir-state-cache"
resent_check() {
  "$WEIR" table scan "$silver" --columns event_id --format jsonl "${table_storage[@]}" > "$work/silver2.jsonl" || return 1
  "$WEIR" table scan "$quarantine" --columns eh_offset --format jsonl "${table_storage[@]}" > "$work/quarantine2.jsonl" || return 1
  python3 -c "
import json
before = sorted(json.loads(l)['event_id'] for l in open('$work/silver.jsonl'))
after = sorted(json.loads(l)['event_id'] for l in open('$work/silver2.jsonl'))
assert after == before, ('silver changed', len(before), len(after))
n = sum(1 for _ in open('$work/quarantine2.jsonl'))
assert n == 2 * $malformed, (n, 2 * $malformed)
"
}
check "re-sent events add no silver row (downloaded dedup state), quarantine doubles" resent_check

# 6. 20 concurrent appends to one table: each commits its own version (optimistic retries) or
# fails cleanly; no commit is lost, none doubled.
race=$lake/race
printf '{"id": 0, "writer": "seed"}\n' > "$work/seed.jsonl"
check "race table created" "$WEIR" table append "$race" --input "$work/seed.jsonl" --create \
  --schema 'id BIGINT, writer STRING' "${table_storage[@]}"
pids=()
for i in $(seq 1 20); do
  printf '{"id": %d, "writer": "w%d"}\n' "$i" "$i" > "$work/append$i.jsonl"
  "$WEIR" table append "$race" --input "$work/append$i.jsonl" "${table_storage[@]}" \
    > "$work/append$i.log" 2>&1 &
  pids+=($!)
done
ok_writers=()
for i in $(seq 1 20); do
  if wait "${pids[$((i - 1))]}"; then ok_writers+=("$i"); fi
done
echo "    ${#ok_writers[@]} of 20 concurrent appends committed"
race_check() {
  "$WEIR" table history "$race" --format jsonl "${table_storage[@]}" > "$work/history.jsonl" || return 1
  "$WEIR" table scan "$race" --format jsonl "${table_storage[@]}" > "$work/race.jsonl" || return 1
  python3 - "$work" "${ok_writers[*]}" <<'EOF'
import json, re, sys
work, ok = sys.argv[1], sorted(int(i) for i in sys.argv[2].split())
versions = sorted(json.loads(l)["version"] for l in open(f"{work}/history.jsonl"))
rows = [json.loads(l) for l in open(f"{work}/race.jsonl")]
ids = sorted(r["id"] for r in rows)
# Every successful append says which version it committed; no two say the same one.
committed = []
for i in ok:
    m = re.search(r"committed version (\d+)", open(f"{work}/append{i}.log").read())
    assert m, f"writer {i} succeeded without naming its version"
    committed.append(int(m.group(1)))
assert sorted(committed) == list(range(2, 2 + len(ok))), ("versions", sorted(committed))
assert versions == list(range(0, 2 + len(ok))), ("history", versions)
assert ids == [0] + ok, ("rows", ids)
# A writer that failed did so cleanly, with a conflict, and left no row.
for i in set(range(1, 21)) - set(ok):
    text = open(f"{work}/append{i}.log").read()
    assert "Conflict" in text or "conflict" in text, (i, text)
assert len(ok) >= 10, f"only {len(ok)} of 20 appends committed"
EOF
}
check "every concurrent append is its own version, none lost or doubled" race_check
finish
