#!/usr/bin/env bash
# Integration test of `weir broker`, `weir broker ctl` and `weir produce` against independent Kafka
# clients: kcat and python3-confluent-kafka (both from Debian). Run as
#   WEIR=/path/to/weir bash tests/broker_test.sh
# Prints PASS/FAIL lines; exits non-zero when any check failed. Takes about 15 s.
set -uo pipefail

WEIR="${WEIR:-build/weir}"
tmp="$(mktemp -d /tmp/weir-broker-test.XXXXXX)"
broker_pid=""
failures=0

cleanup() {
  if [ -n "$broker_pid" ] && kill -0 "$broker_pid" 2>/dev/null; then
    kill "$broker_pid" 2>/dev/null
    wait "$broker_pid" 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() {  # check "description" command...
  local what="$1"; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# python3 on PATH may be a pyenv without Debian's confluent_kafka; fall back to the system one.
PY=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import confluent_kafka' 2>/dev/null; then PY="$candidate"; break; fi
done
command -v kcat >/dev/null || { echo "FAIL: kcat is not installed (apt-get install kcat)"; exit 1; }
[ -n "$PY" ] || { echo "FAIL: python3-confluent-kafka is not installed"; exit 1; }

# --- start the broker and wait for its bootstrap file --------------------------------------------
ctl_path="$tmp/ctl.sock"
ctl() { "$WEIR" broker ctl --control "$ctl_path" "$@" >/dev/null; }
"$WEIR" broker --topic orders:4 --topic other:1 --bootstrap-file "$tmp/bootstrap" --control "$ctl_path" \
  >"$tmp/broker.out" 2>"$tmp/broker.err" &
broker_pid=$!
for _ in $(seq 100); do [ -s "$tmp/bootstrap" ] && break; sleep 0.1; done
if [ ! -s "$tmp/bootstrap" ]; then
  echo "FAIL: broker did not write its bootstrap file within 10 s"; cat "$tmp/broker.err"; exit 1
fi
B="$(cat "$tmp/bootstrap")"
check "bootstrap file lists three loopback brokers ($B)" \
  bash -c '[[ "$0" =~ ^127\.0\.0\.1:[0-9]+,127\.0\.0\.1:[0-9]+,127\.0\.0\.1:[0-9]+$ ]]' "$B"
for _ in $(seq 50); do [ -s "$tmp/broker.out" ] && break; sleep 0.1; done
check "broker prints the same bootstrap list on stdout" \
  bash -c '[ "$(head -n1 "$0")" = "$1" ]' "$tmp/broker.out" "$B"

# --- weir produce with a manifest, read back with kcat --------------------------------------------
start=$(date +%s.%N)
if "$WEIR" produce --bootstrap "$B" --topic orders --count 10000 --duplicates 0.05 --malformed 0.02 \
     --late 0.03 --headers --seed 7 --manifest "$tmp/manifest.json" >"$tmp/produce.out" 2>&1; then
  pass "weir produce sent 10000 events: $(cat "$tmp/produce.out")"
else
  fail "weir produce exited non-zero: $(cat "$tmp/produce.out")"
fi

kcat -C -b "$B" -t orders -e -q -f '%p\t%o\t%k\t%s\n' >"$tmp/consumed.tsv" 2>"$tmp/kcat.err"
check "kcat reads back 10000 records" test "$(wc -l <"$tmp/consumed.tsv")" -eq 10000

# Compares the records kcat read with the manifest: per-partition counts and offsets, the exact set
# of malformed (partition, offset) pairs, distinct event ids and duplicates.
python3 - "$tmp/manifest.json" "$tmp/consumed.tsv" <<'PYEOF'
import collections, json, sys
manifest = json.load(open(sys.argv[1]))
per_partition = collections.defaultdict(list)
malformed, ids, well_formed = set(), set(), 0
for line in open(sys.argv[2], encoding="utf-8"):
    partition, offset, key, value = line.rstrip("\n").split("\t", 3)
    per_partition[int(partition)].append(int(offset))
    try:
        event = json.loads(value)
    except ValueError:
        event = None
    if not isinstance(event, dict) or "event_id" not in event:
        malformed.add((int(partition), int(offset)))
        continue
    assert event["order_id"] == key, (key, value)
    well_formed += 1
    ids.add(event["event_id"])
ok = True
def expect(what, got, want):
    global ok
    if got != want:
        ok = False
        print(f"FAIL: {what}: consumed {got}, manifest says {want}")
    else:
        print(f"PASS: {what} match the manifest ({want if not isinstance(want, (set, list)) else len(want)})")
expect("per-partition counts",
       {p: len(o) for p, o in per_partition.items()},
       {p["partition"]: p["count"] for p in manifest["partitions"]})
expect("per-partition offset ranges",
       {p: (min(o), max(o)) for p, o in per_partition.items()},
       {p["partition"]: (p["first_offset"], p["last_offset"]) for p in manifest["partitions"]})
expect("malformed (partition, offset) pairs", malformed,
       {tuple(x) for x in manifest["malformed_offsets"]})
expect("distinct valid event ids", len(ids), manifest["valid_distinct_event_ids"])
expect("duplicates", well_formed - len(ids), manifest["duplicates"])
sys.exit(0 if ok else 1)
PYEOF
[ $? -eq 0 ] || failures=$((failures + 1))

headers="$(kcat -C -b "$B" -t orders -p 0 -o beginning -c 1 -e -q -f '%h')"
check "--headers adds source and seq headers ($headers)" \
  bash -c '[[ "$0" == *source=weir-produce* && "$0" == *seq=* ]]' "$headers"

# --- determinism: the same seed puts the same events in the same partitions ---------------------
check "ctl create-topic answers ok" ctl create-topic again 4
"$WEIR" produce --bootstrap "$B" --topic again --count 10000 --duplicates 0.05 --malformed 0.02 \
  --late 0.03 --seed 7 --compression lz4 --manifest "$tmp/again.json" >/dev/null 2>&1
check "same seed gives the same per-partition counts and malformed offsets" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
keys = ("partitions", "malformed_offsets", "valid_distinct_event_ids", "duplicates", "late")
sys.exit(0 if all(a[k] == b[k] for k in keys) else 1)' "$tmp/manifest.json" "$tmp/again.json"
check "same seed gives byte-identical partition 0" bash -c \
  'diff <(kcat -C -b "$0" -t orders -p 0 -e -q -f "%o %k %s\n") \
        <(kcat -C -b "$0" -t again -p 0 -e -q -f "%o %k %s\n") >/dev/null' "$B"

# --- independent producers: kcat and python3-confluent-kafka --------------------------------------
seq 1 500 | sed 's/.*/k&:v&/' | kcat -P -b "$B" -t other -K: 2>"$tmp/kcat-produce.err"
check "kcat produces 500 records that kcat reads back" \
  test "$(kcat -C -b "$B" -t other -e -q -f '%k=%s\n' | grep -c '^k[0-9]*=v[0-9]*$')" -eq 500

"$PY" - "$B" >"$tmp/python.out" 2>&1 <<'PYEOF'
import sys
from confluent_kafka import Consumer, Producer, TopicPartition
bootstrap = sys.argv[1]
producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True,
                     "compression.codec": "zstd"})
failed = []
for i in range(1000):
    producer.produce("other", key=f"py{i % 7}", value=f'{{"n":{i}}}',
                     on_delivery=lambda err, msg: err and failed.append(err))
assert producer.flush(15) == 0 and not failed, failed
consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "weir-broker-test",
                     "enable.partition.eof": True, "auto.offset.reset": "earliest"})
low, high = consumer.get_watermark_offsets(TopicPartition("other", 0), timeout=10)
consumer.assign([TopicPartition("other", 0, 0)])
seen = 0
while True:
    msg = consumer.poll(10)
    assert msg is not None, "timed out consuming"
    if msg.error():
        break  # end of partition
    seen += 1
consumer.close()
print(f"low={low} high={high} seen={seen}")
assert (low, high, seen) == (0, 1500, 1500), (low, high, seen)
PYEOF
check "python3-confluent-kafka produces 1000 (zstd, idempotent) and consumes all 1500: $(tail -n1 "$tmp/python.out")" \
  grep -q '^low=0 high=1500 seen=1500$' "$tmp/python.out"

# --- fault injection through the control socket ---------------------------------------------------
check "ctl ping answers ok" ctl ping
out="$("$WEIR" broker ctl --control "$ctl_path" broker-down 9 2>&1)"; rc=$?
check "ctl with a bad broker id exits 2 with the reason ($out)" \
  bash -c '[ "$0" -eq 2 ] && [[ "$1" == *"error: no broker 9"* ]]' "$rc" "$out"

# kcat -Q sends one ListOffsets request, so one pushed error fails exactly one query.
ctl request-errors ListOffsets TOPIC_AUTHORIZATION_FAILED
out="$(kcat -Q -b "$B" -t orders:0:-1 2>&1)"
check "injected ListOffsets errors reach kcat" grep -q "authorization" <<<"$out"
check "after the injected errors ListOffsets works again" \
  bash -c 'kcat -Q -b "$0" -t orders:0:-1 2>&1 | grep -q "orders \[0\] offset [0-9]"' "$B"

check "ctl broker-down all answers ok" ctl broker-down all
check "kcat metadata request fails while the brokers are down" \
  bash -c '! timeout 10 kcat -L -b "$0" -m 2 >/dev/null 2>&1' "$B"
out="$("$WEIR" produce --bootstrap "$B" --topic orders --count 10 --timeout 2 2>&1)"; rc=$?
check "weir produce exits 2 naming the topic while brokers are down" \
  bash -c '[ "$0" -eq 2 ] && [[ "$1" == *"topic orders"* ]]' "$rc" "$out"
check "ctl broker-up all answers ok" ctl broker-up all
check "kcat metadata request works again after broker-up" \
  bash -c 'timeout 10 kcat -L -b "$0" -m 5 -t orders 2>/dev/null | grep -q "4 partitions"' "$B"

# --- shutdown -------------------------------------------------------------------------------------
kill -TERM "$broker_pid"
wait "$broker_pid"; rc=$?
broker_pid=""
check "broker exits 0 on SIGTERM" test "$rc" -eq 0
check "broker removes its bootstrap file and control socket" \
  bash -c '[ ! -e "$0" ] && [ ! -e "$1" ]' "$tmp/bootstrap" "$ctl_path"
out="$("$WEIR" broker ctl --control "$ctl_path" ping 2>&1)"; rc=$?
check "ctl to a stopped broker exits 2 ($out)" test "$rc" -eq 2

# --- a fixed bootstrap port --------------------------------------------------------------------
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$WEIR" broker --port "$port" --topic fixed:2 --bootstrap-file "$tmp/bootstrap2" >/dev/null 2>&1 &
broker_pid=$!
for _ in $(seq 100); do [ -s "$tmp/bootstrap2" ] && break; sleep 0.1; done
check "--port $port makes 127.0.0.1:$port the bootstrap list" \
  test "$(cat "$tmp/bootstrap2" 2>/dev/null)" = "127.0.0.1:$port"
"$WEIR" produce --bootstrap "127.0.0.1:$port" --topic fixed --count 1000 >/dev/null 2>&1
check "weir produce and kcat work through the fixed port" \
  test "$(kcat -C -b "127.0.0.1:$port" -t fixed -e -q -f '%o\n' 2>/dev/null | wc -l)" -eq 1000
kill -INT "$broker_pid"
wait "$broker_pid"; rc=$?
broker_pid=""
check "broker exits 0 on SIGINT" test "$rc" -eq 0

if [ "$failures" -gt 0 ]; then
  echo "broker_test: $failures check(s) failed"
  exit 1
fi
echo "broker_test: all checks passed"
