#!/usr/bin/env bash
# `weir kafka read` and `weir kafka check` against `weir broker` over TCP, checked with independent
# clients (python3-confluent-kafka and kcat; issue "Kafka / Event Hubs source"):
#  1. the rows weir reads equal what the producers sent and their delivery reports said (every
#     partition, offset, key, value, timestamp, timestampType, header), for every starting
#     position (earliest, latest, JSON offsets with -2/-1 and numbers, assign) and includeHeaders;
#  2. retention loss (the broker keeps 5 MiB per partition): failOnDataLoss=true fails with
#     Spark's explanation, false warns and reads exactly the retained offsets, both for a start
#     below the log start and for data aged out in the middle of a read;
#  3. Fetch / ListOffsets errors, brokers down and up, leader moves before and during a read:
#     still exactly the produced records;
#  4. Event Hubs SAS keys and Entra ID client secrets never appear in any output;
#  5. `weir kafka check` lists partitions with offsets; a closed port fails at step 'connect'.
# Needs kcat and Debian's python3-confluent-kafka. Takes about 45 s (the secret checks wait for
# weir's 30 s metadata timeout in the background).
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"

work=$(mktemp -d /tmp/weir-kafka-test.XXXXXX)
broker_pid=""
background=()
cleanup() {
  local pid
  for pid in "${background[@]}" $broker_pid; do
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Debian's python has confluent_kafka; a pyenv python3 on PATH usually does not.
PY=""
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c 'import confluent_kafka' 2>/dev/null; then PY=$candidate; break; fi
done
[ -n "$PY" ] || { echo "FAIL: python3-confluent-kafka is not installed (apt-get install python3-confluent-kafka)"; exit 1; }
command -v kcat >/dev/null || { echo "FAIL: kcat is not installed (apt-get install kcat)"; exit 1; }

produce() { "$PY" "$WEIR_SOURCE_DIR/tests/kafka/produce.py" "$@"; }
compare() { "$PY" "$WEIR_SOURCE_DIR/tests/kafka/compare.py" "$@"; }
# check, and print a PASS line too.
expect() {
  local before=$fail_count
  check "$@"
  [ "$fail_count" -eq "$before" ] && echo "PASS: $1"
  return 0
}
# read_rows NAME OPTION...: `weir kafka read` with the broker's bootstrap list and the given
# --option values; rows in $work/NAME.out, stderr in NAME.err, exit status in NAME.rc.
read_rows() {
  local name=$1 opts=() o
  shift
  for o in "$@"; do opts+=(--option "$o"); done
  "$WEIR" kafka read --option "kafka.bootstrap.servers=$B" "${opts[@]}" --format jsonl \
    >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.rc"
}
rc_of() { cat "$work/$1.rc"; }
exited() { [ "$(rc_of "$1")" = "$2" ] || { echo "exit $(rc_of "$1"), want $2"; cat "$work/$1.err"; return 1; }; }
stderr_has() { grep -qF -- "$2" "$work/$1.err" || { echo "stderr lacks '$2':"; cat "$work/$1.err"; return 1; }; }
no_rows() { [ ! -s "$work/$1.out" ] || { echo "$(wc -l <"$work/$1.out") rows"; return 1; }; }
all_of_f() { exited "$1" 0 && compare "$work/f.expected" "$work/$1.out" --no-headers; }
# check runs commands in a subshell; `bash -c` scripts below need these too.
export -f produce compare rc_of exited stderr_has no_rows all_of_f
export work PY
ctl() { "$WEIR" broker ctl --control "$work/ctl.sock" "$@" >/dev/null; }
# Prints "OFFSET" lines kcat reads from TOPIC-PARTITION, as "PARTITION OFFSET".
kcat_offsets() { kcat -C -b "$B" -t "$1" -p "$2" -o beginning -e -q -f "$2 %o\n"; }

# --- the broker ------------------------------------------------------------------------------------
"$WEIR" broker --topic t:3 --topic r:1 --topic s:1 --topic f:3 \
  --bootstrap-file "$work/bootstrap" --control "$work/ctl.sock" >"$work/broker.out" 2>"$work/broker.err" &
broker_pid=$!
for _ in $(seq 150); do [ -s "$work/bootstrap" ] && break; sleep 0.1; done
[ -s "$work/bootstrap" ] || { echo "FAIL: weir broker wrote no bootstrap file in 15 s"; cat "$work/broker.err"; exit 1; }
B=$(cat "$work/bootstrap")

# --- 4 (started first: the reads wait for weir's 30 s metadata timeout in the background) ----------
SAS_KEY='SuperSecretKey123='
CONNECTION_STRING="Endpoint=sb://weirtest.servicebus.windows.net/;SharedAccessKeyName=listen;SharedAccessKey=$SAS_KEY"
CLIENT_SECRET='Cl1entSecret~Value.XYZ'
JAAS_PASSWORD='JaasPa55word-Secret'
ENTRA=(--option eventhubs.tenantId=11111111-2222-3333-4444-555555555555
       --option eventhubs.clientId=66666666-7777-8888-9999-000000000000
       --option "eventhubs.clientSecret=$CLIENT_SECRET")
secret_run() {  # secret_run NAME weir-args...: all output in $work/secret-NAME.log
  local name=$1
  shift
  "$WEIR" "$@" >"$work/secret-$name.log" 2>&1
  echo "exit $?" >>"$work/secret-$name.log"
}
# Event Hubs as configured (the host does not resolve here), and pointed at the live broker so
# the SASL_SSL / OAUTHBEARER paths run (TLS handshake fails; the token endpoint is unreachable).
secret_run read-sas kafka read --option "eventhubs.connectionString=$CONNECTION_STRING" \
  --option subscribe=hub --option kafka.request.timeout.ms=3000 --option kafkaConsumer.pollTimeoutMs=3000 &
background+=($!)
secret_run read-sas-live kafka read --option "kafka.bootstrap.servers=$B" --option subscribe=t \
  --option "eventhubs.connectionString=$CONNECTION_STRING" --option kafka.debug=all &
background+=($!)
secret_run read-entra-live kafka read --option "kafka.bootstrap.servers=$B" --option subscribe=t \
  --option eventhubs.namespace=weirtest "${ENTRA[@]}" --option kafka.debug=security,broker &
background+=($!)
secret_run read-entra kafka read --option kafka.bootstrap.servers=weirtest.servicebus.windows.net:9093 \
  --option subscribe=hub "${ENTRA[@]}" &
background+=($!)
secret_start=$(date +%s)

# --- 1. exact rows -----------------------------------------------------------------------------------
produce mixed "$B" t "$work/t.expected" >"$work/produce-t.log" 2>&1
expect "python3-confluent-kafka produces the mixed records to t (3 partitions, none/zstd/snappy): $(cat "$work/produce-t.log")" \
  grep -q '^produced 153 records' "$work/produce-t.log"
produce kcat "$B" t 1 "$work/t.expected" >"$work/kcat-t.log" 2>&1
expect "kcat -K: -H -z gzip produces 6 records to t-1: $(cat "$work/kcat-t.log")" \
  grep -q '^kcat produced 6 records' "$work/kcat-t.log"
produce watermarks "$B" t 3 >"$work/t.watermarks"
declare -A LATEST
while read -r p _ high; do LATEST[$p]=$high; done <"$work/t.watermarks"

read_rows earliest subscribe=t startingOffsets=earliest includeHeaders=true
expect "startingOffsets=earliest: every row equals what was produced" \
  bash -c 'exited "$0" 0 && compare "$1" "$2"' earliest "$work/t.expected" "$work/earliest.out"
read_rows default subscribe=t
expect "defaults (earliest..latest, includeHeaders=false): every row, no headers column" \
  bash -c 'exited "$0" 0 && compare "$1" "$2" --no-headers' default "$work/t.expected" "$work/default.out"
read_rows noheaders subscribe=t includeHeaders=false endingOffsets=latest
expect "includeHeaders=false endingOffsets=latest: every row, no headers column" \
  bash -c 'exited "$0" 0 && compare "$1" "$2" --no-headers' noheaders "$work/t.expected" "$work/noheaders.out"
read_rows pattern subscribePattern='^t$' includeHeaders=true
expect "subscribePattern=^t\$: every row" \
  bash -c 'exited "$0" 0 && compare "$1" "$2"' pattern "$work/t.expected" "$work/pattern.out"

read_rows json subscribe=t includeHeaders=true \
  'startingOffsets={"t":{"0":-2,"1":5,"2":17}}' 'endingOffsets={"t":{"0":-1,"1":40,"2":30}}'
expect "JSON startingOffsets -2/5/17, endingOffsets -1/40/30: exactly those ranges" \
  bash -c 'exited "$0" 0 && compare "$1" "$2" --from t:1=5 --from t:2=17 --until t:1=40 --until t:2=30' \
  json "$work/t.expected" "$work/json.out"
k1=$(sed -n 's/.* offsets \([0-9]*\)\.\..*/\1/p' "$work/kcat-t.log")
t0_from=$((LATEST[0] - 3))
read_rows json-kcat subscribe=t includeHeaders=true \
  "startingOffsets={\"t\":{\"0\":$t0_from,\"1\":$((k1 - 1)),\"2\":-2}}" \
  "endingOffsets={\"t\":{\"0\":${LATEST[0]},\"1\":-1,\"2\":0}}"
expect "JSON offsets t-0 $t0_from..${LATEST[0]}, t-1 $((k1 - 1))..-1 (kcat's records), t-2 -2..0 (empty)" \
  bash -c 'exited "$0" 0 && compare "$1" "$2" --from t:0=$3 --from t:1=$4 --until t:2=0' \
  json-kcat "$work/t.expected" "$work/json-kcat.out" "$t0_from" "$((k1 - 1))"
read_rows assign 'assign={"t":[0,2]}' includeHeaders=true
expect "assign={\"t\":[0,2]}: partitions 0 and 2 only, every row" \
  bash -c 'exited "$0" 0 && compare "$1" "$2" --select t:0,2' assign "$work/t.expected" "$work/assign.out"
read_rows assign-json 'assign={"t":[0,2]}' 'startingOffsets={"t":{"0":3,"2":-2}}' \
  'endingOffsets={"t":{"0":10,"2":-1}}'
expect "assign with JSON offsets {0:3..10, 2:-2..-1}" \
  bash -c 'exited "$0" 0 && compare "$1" "$2" --select t:0,2 --from t:0=3 --until t:0=10 --no-headers' \
  assign-json "$work/t.expected" "$work/assign-json.out"

# latest: a batch query rejects it as Spark does; explicit latest offsets read nothing.
read_rows latest subscribe=t startingOffsets=latest
expect "startingOffsets=latest is rejected with Spark's text, no rows" \
  bash -c 'exited "$0" 2 && stderr_has "$0" "starting offset can'"'"'t be latest for batch queries on Kafka" && no_rows "$0"' latest
read_rows latest-json subscribe=t 'startingOffsets={"t":{"0":-1,"1":0,"2":0}}'
expect "JSON startingOffsets -1 is rejected with Spark's text" \
  bash -c 'exited "$0" 2 && stderr_has "$0" "startingOffsets for t-0 can'"'"'t be latest for batch queries on Kafka"' latest-json
read_rows ending-earliest subscribe=t endingOffsets=earliest
expect "endingOffsets=earliest is rejected with Spark's text" \
  bash -c 'exited "$0" 2 && stderr_has "$0" "ending offset can'"'"'t be earliest for batch queries on Kafka"' ending-earliest
read_rows at-latest subscribe=t \
  "startingOffsets={\"t\":{\"0\":${LATEST[0]},\"1\":${LATEST[1]},\"2\":${LATEST[2]}}}"
expect "starting at the latest offsets (${LATEST[*]}) reads nothing" \
  bash -c 'exited "$0" 0 && no_rows "$0"' at-latest
read_rows partial subscribe=t 'startingOffsets={"t":{"0":-2,"1":2}}'
expect "JSON startingOffsets missing a partition fails as Spark does" \
  bash -c 'exited "$0" 2 && stderr_has "$0" "Specified: Set(t-0, t-1) Assigned: Set(t-0, t-1, t-2)"' partial

# --- 5. weir kafka check ------------------------------------------------------------------------------
"$WEIR" kafka check --option "kafka.bootstrap.servers=$B" --option subscribe=t >"$work/check.out" 2>&1
echo $? >"$work/check.rc"
expect "kafka check against the broker exits 0 with every step ok" \
  bash -c '[ "$(cat "$0.rc")" = 0 ] && grep -q "^metadata ok" "$0.out" && grep -q "^offsets  ok" "$0.out"' "$work/check"
expect "kafka check lists t-0..t-2 with the earliest/latest offsets python reports" \
  "$PY" -c '
import re, sys
want = {int(p): (int(l), int(h)) for p, l, h in (x.split() for x in open(sys.argv[2]))}
got = {int(m[1]): (int(m[2]), int(m[3])) for m in
       re.finditer(r"^t-(\d+)\s+(\d+)\s+(\d+)\s+\d+$", open(sys.argv[1]).read(), re.M)}
print("check:", got, "python:", want)
sys.exit(0 if got == want else 1)' "$work/check.out" "$work/t.watermarks"
closed_port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$WEIR" kafka check --option "kafka.bootstrap.servers=127.0.0.1:$closed_port" --option subscribe=t \
  --timeout-ms 3000 >"$work/closed.out" 2>"$work/closed.err"
echo $? >"$work/closed.rc"
expect "kafka check against a closed port exits 2 naming step 'connect'" \
  bash -c '[ "$(cat "$0.rc")" = 2 ] && grep -q "^connect  FAILED" "$0.out" &&
           grep -q "failed at step '"'"'connect'"'"'" "$0.err"' "$work/closed"

# --- 2. retention loss ---------------------------------------------------------------------------------
# 700 uncompressed 10 KiB records (7 MiB) into r-0: the broker keeps the newest 5 MiB.
produce bulk "$B" r 1 700 "$work/r.expected" --value-bytes 10240 >"$work/produce-r.log" 2>&1
kcat_offsets r 0 >"$work/r.kcat"
r_first=$(head -n1 "$work/r.kcat" | cut -d' ' -f2)
expect "r-0 overflowed: kcat reads $(wc -l <"$work/r.kcat") of 700 records, from offset $r_first" \
  bash -c '[ "$0" -gt 0 ] && [ "$(tail -n1 "$1" | cut -d" " -f2)" = 699 ]' "$r_first" "$work/r.kcat"
read_rows loss-fail assign='{"r":[0]}' 'startingOffsets={"r":{"0":0}}' failOnDataLoss=true
expect "startingOffsets {r:{0:0}} failOnDataLoss=true fails with Spark's data-loss explanation" \
  bash -c 'exited "$0" 2 && stderr_has "$0" "KAFKA_DATA_LOSS" && stderr_has "$0" "failOnDataLoss to false" &&
           stderr_has "$0" "Starting offset for r-0 was 0 but consumer reset to $1" && no_rows "$0"' \
  loss-fail "$r_first"
read_rows loss-skip assign='{"r":[0]}' 'startingOffsets={"r":{"0":0}}' failOnDataLoss=false
expect "failOnDataLoss=false warns (Spark's text) and reads exactly kcat's retained offsets" \
  bash -c 'exited "$0" 0 && stderr_has "$0" "warning: startingOffsets for r-0 was 0 but consumer reset to $1" &&
           stderr_has "$0" "\"failOnDataLoss\" to \"true\"" && compare "$2" "$3" --offsets-from "$4" --no-headers' \
  loss-skip "$r_first" "$work/r.expected" "$work/loss-skip.out" "$work/r.kcat"
read_rows loss-earliest subscribe=r startingOffsets=earliest
expect "startingOffsets=earliest after retention loss: the retained offsets, no warning" \
  bash -c 'exited "$0" 0 && [ ! -s "$1" ] && compare "$2" "$3" --offsets-from "$4" --no-headers' \
  loss-earliest "$work/loss-earliest.err" "$work/r.expected" "$work/loss-earliest.out" "$work/r.kcat"
"$WEIR" kafka check --option "kafka.bootstrap.servers=$B" --option subscribe=r >"$work/check-r.out" 2>&1
expect "kafka check shows r-0's earliest offset $r_first after the loss" \
  grep -Eq "^r-0 +$r_first +700 +$((700 - r_first))\$" "$work/check-r.out"

# Loss in the middle of a read: weir plans [0, 450) of s-0, its first Fetch is held for 3.5 s, and
# meanwhile 300 more records push the log start past 0.
produce bulk "$B" s 1 450 "$work/s.expected" --value-bytes 10240 >"$work/produce-s.log" 2>&1
midread_loss() {  # midread_loss NAME FIRST failOnDataLoss
  local name=$1 first=$2 fail=$3 pid
  ctl leader s 0 1
  ctl broker-request-errors 1 Fetch REQUEST_TIMED_OUT@3500
  produce watermarks "$B" s 1 >"$work/$name.before"
  read_rows "$name" subscribe=s startingOffsets=earliest "failOnDataLoss=$fail" &
  pid=$!
  sleep 1.2
  produce bulk "$B" s 1 300 "$work/s.expected" --value-bytes 10240 --first "$first" >/dev/null 2>&1
  wait "$pid"
  kcat_offsets s 0 >"$work/$name.kcat"
}
midread_loss midread-skip 450 false
s_until=$(cut -d' ' -f3 "$work/midread-skip.before")
s_first=$(head -n1 "$work/midread-skip.kcat" | cut -d' ' -f2)
expect "data aged out during a read, failOnDataLoss=false: warns 'skip missing records in [0, $s_first)' and reads exactly [$s_first, $s_until)" \
  bash -c 'exited "$0" 0 && stderr_has "$0" "skip missing records in [0, $1)" &&
           stderr_has "$0" "TopicPartition: s-0" && [ "$1" -gt 0 ] && [ "$1" -lt "$2" ] &&
           compare "$3" "$4" --offsets-from "$5" --until s:0="$2" --no-headers' \
  midread-skip "$s_first" "$s_until" "$work/s.expected" "$work/midread-skip.out" "$work/midread-skip.kcat"
midread_loss midread-fail 750 true
s_from=$(cut -d' ' -f2 "$work/midread-fail.before")
s_first=$(head -n1 "$work/midread-fail.kcat" | cut -d' ' -f2)
expect "data aged out during a read, failOnDataLoss=true: fails with KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE [$s_from, $s_first)" \
  bash -c 'exited "$0" 2 && stderr_has "$0" "[KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE]" &&
           stderr_has "$0" "failOnDataLoss to false" &&
           stderr_has "$0" "Could not read records in offset [$1, $2) for topic partition s-0"' \
  midread-fail "$s_from" "$s_first"

# --- 3. faults -----------------------------------------------------------------------------------------
# 6000 uncompressed records in batches of 50 over f-0..f-2.
produce bulk "$B" f 3 6000 "$work/f.expected" --batch-records 50 >"$work/produce-f.log" 2>&1
expect "python produces 6000 records to f: $(cat "$work/produce-f.log")" \
  grep -q '^produced 6000 records' "$work/produce-f.log"
ctl request-errors Fetch NOT_LEADER_FOR_PARTITION REQUEST_TIMED_OUT _TRANSPORT \
  UNKNOWN_TOPIC_OR_PART OFFSET_OUT_OF_RANGE NOT_LEADER_OR_FOLLOWER
read_rows fetch-errors subscribe=f
ctl clear-request-errors Fetch
expect "Fetch errors (NOT_LEADER, REQUEST_TIMED_OUT, _TRANSPORT, UNKNOWN_TOPIC_OR_PART, OFFSET_OUT_OF_RANGE): exactly the records" \
  all_of_f fetch-errors

ctl request-errors ListOffsets NOT_LEADER_FOR_PARTITION REQUEST_TIMED_OUT UNKNOWN_TOPIC_OR_PART
read_rows listoffsets-errors subscribe=f fetchOffset.retryIntervalMs=100
expect "ListOffsets errors: exactly the records" all_of_f listoffsets-errors
expect "the pushed ListOffsets errors were all used up by weir (kcat -Q answers)" \
  bash -c 'kcat -Q -b "$0" -t f:0:-1 2>&1 | grep -q "f \[0\] offset 2000"' "$B"
ctl clear-request-errors ListOffsets

ctl leader f 0 3; ctl leader f 1 1; ctl leader f 2 2
read_rows leaders-moved subscribe=f
expect "after leader moves: exactly the records" all_of_f leaders-moved

ctl broker-down all
read_rows broker-down subscribe=f &
pid=$!
sleep 2
still_running=$(kill -0 "$pid" 2>/dev/null && echo yes || echo no)
ctl broker-up all
wait "$pid"
expect "all brokers down when the read starts: the read waits for them" test "$still_running" = yes
expect "brokers up again 2 s later: exactly the records" all_of_f broker-down

# Leaders move while the read starts: after weir fetched metadata (100 ms per response), before
# it lists offsets. A client must refresh its metadata and ask the new leaders.
ctl rtt all 100
read_rows moved-at-start subscribe=f &
pid=$!
sleep 0.3
ctl leader f 0 1; ctl leader f 1 2; ctl leader f 2 3
wait "$pid"
ctl rtt all 0
expect "leaders move while the read starts (after metadata, before ListOffsets): exactly the records" \
  all_of_f moved-at-start

# During a read slowed down (60 ms per response, 1 KiB fetches: about 3 s), once rows flow:
# leaders move, a partition is leaderless for 0.5 s, a broker goes down and up, Fetch errors.
ctl rtt all 60
read_rows during subscribe=f kafka.max.partition.fetch.bytes=1024 &
pid=$!
for _ in $(seq 100); do [ -s "$work/during.out" ] && break; sleep 0.1; done
rows_before=$(wc -l <"$work/during.out")
ctl leader f 0 2; ctl leader f 1 3
sleep 0.2
ctl leader f 2 none; sleep 0.5; ctl leader f 2 1
ctl broker-down 1; sleep 0.5; ctl broker-up 1
ctl leader f 0 3
ctl request-errors Fetch NOT_LEADER_FOR_PARTITION _TRANSPORT
still_running=$(kill -0 "$pid" 2>/dev/null && echo yes || echo no)
wait "$pid"
ctl rtt all 0; ctl clear-request-errors Fetch
expect "the faults came while the read was running (rows before the first: $rows_before; running after the last: $still_running)" \
  bash -c '[ "$0" -gt 0 ] && [ "$0" -lt 6000 ] && [ "$1" = yes ]' "$rows_before" "$still_running"
expect "leader moves, a leaderless partition, a broker down/up and Fetch errors during the read: exactly the records" \
  all_of_f during

# --- 4. secrets ---------------------------------------------------------------------------------------
secret_run check-sas kafka check --option "eventhubs.connectionString=$CONNECTION_STRING" \
  --option subscribe=hub --timeout-ms 3000 --verbose
secret_run check-sas-live kafka check --option "kafka.bootstrap.servers=$B" --option subscribe=t \
  --option "eventhubs.connectionString=$CONNECTION_STRING" --option kafka.debug=all --timeout-ms 8000 --verbose
secret_run check-entra-live kafka check --option "kafka.bootstrap.servers=$B" --option subscribe=t \
  --option eventhubs.namespace=weirtest "${ENTRA[@]}" --timeout-ms 8000 --verbose
secret_run check-entra kafka check --option kafka.bootstrap.servers=weirtest.servicebus.windows.net:9093 \
  --option subscribe=hub "${ENTRA[@]}" --timeout-ms 3000 --verbose
secret_run check-jaas kafka check --option "kafka.bootstrap.servers=$B" --option subscribe=t \
  --option kafka.security.protocol=SASL_PLAINTEXT --option kafka.sasl.mechanism=PLAIN \
  --option "kafka.sasl.jaas.config=kafkashaded.org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"$JAAS_PASSWORD\";" \
  --timeout-ms 3000 --verbose
# Databricks' Entra ID form: the client secret inside an OAuthBearerLoginModule JAAS config.
secret_run check-jaas-oauth kafka check --option "kafka.bootstrap.servers=$B" --option subscribe=t \
  --option kafka.security.protocol=SASL_SSL --option kafka.sasl.mechanism=OAUTHBEARER \
  --option "kafka.sasl.jaas.config=kafkashaded.org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\"66666666-7777-8888-9999-000000000000\" clientSecret=\"$CLIENT_SECRET\" scope=\"https://weirtest.servicebus.windows.net/.default\" ssl.protocol=\"SSL\";" \
  --option kafka.sasl.oauthbearer.token.endpoint.url=https://login.microsoftonline.com/11111111-2222-3333-4444-555555555555/oauth2/v2.0/token \
  --option kafka.sasl.login.callback.handler.class=kafkashaded.org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler \
  --timeout-ms 3000 --verbose
printf 'eventhubs.connectionString=%s\nsubscribe=hub\n' "$CONNECTION_STRING" >"$work/sas.options"
secret_run check-option-file kafka check --option-file "$work/sas.options" --timeout-ms 3000 --verbose
secret_run bad-sas-1 kafka check --option "eventhubs.connectionString=Endpoint=bogus;SharedAccessKey=$SAS_KEY" --option subscribe=hub
secret_run bad-sas-2 kafka read --option "eventhubs.connectionString=$SAS_KEY" --option subscribe=hub
secret_run bad-secret kafka read --option kafka.bootstrap.servers=127.0.0.1:1 --option subscribe=hub \
  --option eventhubs.tenantId=x --option "eventhubs.clientSecret=$CLIENT_SECRET"
secret_run bad-option kafka read --option "eventhubs.connectionString=$CONNECTION_STRING" \
  --option startingOffsets=bogus
secret_run help-read kafka read --help --option "eventhubs.connectionString=$CONNECTION_STRING" "${ENTRA[@]}"
secret_run help-check kafka check --help --option "eventhubs.connectionString=$CONNECTION_STRING" "${ENTRA[@]}"
secret_run help-weir --help
expect "check with the SAS connection string fails at 'resolve' for weirtest.servicebus.windows.net:9093" \
  grep -q "^resolve  FAILED cannot resolve weirtest.servicebus.windows.net:9093" "$work/secret-check-sas.log"
expect "check with the SAS connection string against the broker fails at 'metadata' (TLS)" \
  bash -c 'grep -q "^metadata FAILED" "$0" && grep -q "cause  the TLS handshake failed" "$0"' \
  "$work/secret-check-sas-live.log"
expect "check with Entra ID options against the broker fails at 'metadata' (no token)" \
  grep -q "^metadata FAILED.*token endpoint" "$work/secret-check-entra-live.log"
expect "check with an OAuthBearerLoginModule JAAS config against the broker fails at 'metadata' (no token)" \
  bash -c 'grep -q "^metadata FAILED.*token endpoint" "$0"' "$work/secret-check-jaas-oauth.log"
expect "check with a JAAS PLAIN password against the broker fails at 'metadata' (SASL)" \
  grep -q "^metadata FAILED" "$work/secret-check-jaas.log"
for _ in $(seq 100); do
  running=0
  for pid in "${background[@]}"; do kill -0 "$pid" 2>/dev/null && running=1; done
  [ "$running" = 0 ] && break
  sleep 0.5
done
expect "the background kafka reads with secrets ended (after $(( $(date +%s) - secret_start )) s)" test "$running" = 0
expect "kafka read with Event Hubs options exits 2 naming the bootstrap servers" \
  bash -c 'for f in "$@"; do grep -q "^exit 2$" "$f" && grep -q "cannot fetch metadata from" "$f" || { cat "$f"; exit 1; }; done' \
  "$work"/secret-read-*.log
expect "none of $(ls "$work"/secret-*.log | wc -l) outputs contains the SAS key, client secret or JAAS password" \
  bash -c '! grep -F -e SuperSecretKey123 -e Cl1entSecret -e "$0" -- "$@"' "$JAAS_PASSWORD" "$work"/secret-*.log

finish
