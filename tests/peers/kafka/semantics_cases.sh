# Kafka semantics cases of tests/kafka_real_test.sh (sourced by it: uses its helpers, $work,
# $WEIR, the running broker). Each case is one `if wanted NAME` block.

bronze_table() { echo "$1/sales/bronze/orders_raw"; }
# table_rows TABLE: rows in a table (its live files, read by DuckDB); 0 if it has none yet.
table_rows() {
  local files
  files=$("$PY" "$WEIR_SOURCE_DIR/tests/tools/delta_live_files.py" "$1" 2>/dev/null) || { echo 0; return; }
  js duckdb_query.mjs --sql "SELECT count(*) AS n FROM read_parquet($files)" 2>/dev/null |
    "$PY" -c "import json,sys; print(json.loads(sys.stdin.readline())['n'])" 2>/dev/null || echo 0
}
topic_records() {  # topic_records TOPIC: visible records, as kcat counts them
  kcat -C -b "$KAFKA_PLAINTEXT" -t "$1" -e -q -f '.\n' 2>/dev/null | wc -l
}
# wait_rows TABLE N SECONDS: until the table holds N rows.
wait_rows() {
  local _
  for _ in $(seq 1 $(( $3 * 2 ))); do
    [ "$(table_rows "$1")" -ge "$2" ] && return 0
    sleep 0.5
  done
  return 1
}
# read_offsets NAME OPTION...: `weir kafka read` (jsonl) into $d/NAME.out, stderr NAME.err,
# exit code NAME.rc; NAME.first gets "PARTITION FIRST_OFFSET COUNT" lines.
read_offsets() {
  local name=$1 opts=()
  shift
  for o in "$@"; do opts+=(--option "$o"); done
  "$WEIR" kafka read --option "kafka.bootstrap.servers=$KAFKA_PLAINTEXT" "${opts[@]}" --format jsonl \
    > "$d/$name.out" 2> "$d/$name.err"
  echo $? > "$d/$name.rc"
  "$PY" -c '
import json, sys
first = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    f = first.setdefault(r["partition"], [r["offset"], 0])
    f[0] = min(f[0], r["offset"]); f[1] += 1
for p in sorted(first): print(p, first[p][0], first[p][1])' "$d/$name.out" > "$d/$name.first"
}
rc_is() { [ "$(cat "$d/$1.rc")" = "$2" ] || { cat "$d/$1.err"; return 1; }; }
# first_is NAME EXPECTED: the read succeeded and its NAME.first is EXPECTED.
first_is() {
  rc_is "$1" 0 || return 1
  [ "$(cat "$d/$1.first")" = "$2" ] || { echo "got:"; cat "$d/$1.first"; echo "expected:"; echo "$2"; return 1; }
}
rows_are() { [ "$(table_rows "$1")" = "$2" ] || { echo "$(table_rows "$1") rows, expected $2"; return 1; }; }

# --- timestamps ---------------------------------------------------------------------------------------
if wanted timestamps; then
  case_start timestamps
  d=$work/timestamps
  # CreateTime: record i (partition i % 3) has timestamp 1700000000000 + 1000 * i.
  kafka_admin create ts-create 3 retention.ms=-1  # 2023 timestamps: no time retention
  kafka_admin produce ts-create 3 30 --ts-start 1700000000000 --ts-step 1000
  t0=1700000000000
  # 10500 ms after t0: the first record at or after it is i = 11 (partition 2, offset 3), then 12
  # (partition 0, offset 4) and 13 (partition 1, offset 4).
  read_offsets g startingTimestamp=$((t0 + 10500)) subscribe=ts-create
  check "CreateTime, startingTimestamp: per partition the first offset whose timestamp >= it" \
    first_is g "$(printf "0 4 6\n1 4 6\n2 3 7")"
  read_offsets p "startingOffsetsByTimestamp={\"ts-create\":{\"0\":$((t0 + 3000)),\"1\":$((t0 + 25000)),\"2\":$t0}}" subscribe=ts-create
  check "CreateTime, startingOffsetsByTimestamp: each partition its own timestamp" \
    first_is p "$(printf "0 1 9\n1 8 2\n2 0 10")"
  read_offsets ts-exact startingTimestamp=$((t0 + 12000)) subscribe=ts-create
  check "a timestamp equal to a record's: that record is the first (>=, not >)" \
    grep -qx "0 4 6" "$d/ts-exact.first"
  read_offsets none startingTimestamp=$((t0 + 60000)) subscribe=ts-create
  check "no offset at or after the timestamp, strategy error (default): Spark's message" \
    grep -q "No offset matched from request of topic-partition ts-create-[012] and timestamp $((t0 + 60000))\." "$d/none.err"
  read_offsets latest startingTimestamp=$((t0 + 28500)) startingOffsetsByTimestampStrategy=latest subscribe=ts-create
  check "strategy latest: partitions without a match start at their latest offset" \
    first_is latest "2 9 1"
  # The same through a streaming query: startingTimestamp beats startingOffsets.
  cat > "$d/flow.sql" <<SQL
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time, timestampType AS tt
FROM STREAM read_kafka(bootstrapServers => '$KAFKA_PLAINTEXT', subscribe => 'ts-create',
                       startingOffsets => 'earliest', startingTimestamp => '$((t0 + 10500))');
SQL
  "$WEIR" run "$d/flow.sql" --lakehouse "$d/lake" --trigger availableNow > "$d/flow.out" 2>&1
  check "a streaming query with startingTimestamp starts where Spark does (19 rows from i = 11)" \
    rows_are "$(bronze_table "$d/lake")" 19

  # LogAppendTime: the broker stamps records; a timestamp between two bursts selects the second.
  kafka_admin create ts-append 2 message.timestamp.type=LogAppendTime
  kafka_admin produce ts-append 2 20 --ts-start 1000 --ts-step 1
  sleep 0.05
  between=$(date +%s%3N)
  sleep 0.05
  kafka_admin produce ts-append 2 10 --first 20 --ts-start 1000 --ts-step 1
  read_offsets append startingTimestamp=$between subscribe=ts-append
  check "LogAppendTime: the broker's append time decides (the second burst: offset 10 of each partition)" \
    first_is append "$(printf "0 10 5\n1 10 5")"
  check "... and the rows say timestampType 1 (LogAppendTime) with the broker's time" \
    "$PY" -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows and all(r["timestampType"] == 1 for r in rows), rows[:1]
assert all(not r["timestamp"].startswith("1970") for r in rows), rows[:1]' "$d/append.out"
  read_offsets append-old startingTimestamp=1005 subscribe=ts-append
  check "LogAppendTime: the producer's CreateTime (1005) is not what is searched: every record" \
    first_is append-old "$(printf "0 0 15\n1 0 15")"
  case_end
fi

# --- retention ----------------------------------------------------------------------------------------
if wanted retention; then
  case_start retention
  d=$work/retention
  for mode in true false; do
    topic=ret-$mode
    kafka_admin create $topic 1 segment.ms=1000
    for r in 0 1 2 3 4; do  # five segments of 200 records (a segment rolls after 1 s)
      kafka_admin produce $topic 1 200 --first $((r * 200)) --value-bytes 1000 --sync 1
      sleep 1.1
    done
    # Small fetches (one 1 kB record each) and a 2 kB fetch queue: the flow has not fetched what
    # retention deletes (records it had prefetched would still be read, in Spark too).
    bronze_sql "$d/$mode.sql" $topic "bootstrapServers => '$KAFKA_PLAINTEXT', maxOffsetsPerTrigger => '100', failOnDataLoss => '$mode',
        \`kafka.max.partition.fetch.bytes\` => '1500', \`kafka.queued.max.messages.kbytes\` => '2'"
    "$WEIR" run "$d/$mode.sql" --lakehouse "$d/$mode" --trigger processingTime=1500ms \
      --progress-log "$d/$mode.jsonl" > "$d/$mode.out" 2> "$d/$mode.err" &
    flow=$!
    PIDS+=($flow)
    for _ in $(seq 1 40); do [ -s "$d/$mode.jsonl" ] && break; sleep 0.25; done
    # Retention deletes every segment under the running flow (Kafka 4 rolls and deletes the active
    # one too once it expired): the log starts at its end, 1000. Then 200 more records.
    kafka_admin alter $topic retention.ms=100
    for _ in $(seq 1 60); do
      kafka_admin watermarks $topic | grep -q '"0": \[1000,' && break
      sleep 0.25
    done
    kafka_admin alter $topic retention.ms=3600000
    kafka_admin produce $topic 1 200 --first 1000
    if [ $mode = true ]; then
      for _ in $(seq 1 60); do kill -0 $flow 2>/dev/null || break; sleep 0.25; done
      kill -TERM $flow 2>/dev/null  # (still running: the check below fails)
      wait $flow
      rc=$?
      check "failOnDataLoss=true: the flow fails when retention deleted offsets it had not read" test $rc -ne 0
      check "... with Spark's data-loss explanation naming the partition" \
        has_all "$d/true.err" "KAFKA_DATA_LOSS" "ret-true-0" "failOnDataLoss"
      rows=$(table_rows "$(bronze_table "$d/true")")
      check "... and the table keeps only whole batches from offset 0 ($rows rows)" \
        "$WEIR" validate "$(bronze_table "$d/true")"
    else
      for _ in $(seq 1 60); do  # until it has read the log's end (offset 1199)
        "$WEIR" validate "$(bronze_table "$d/false")" --format json 2>/dev/null | grep -q '"max": *1199' && break
        sleep 0.5
      done
      kill -TERM $flow
      wait $flow
      check "failOnDataLoss=false: the flow goes on after the loss and stops cleanly" test $? -eq 0
      check "... it logged Spark's warning for the skipped offsets" \
        grep -qi "skip missing records in \[" "$d/false.err" "$d/false.out"
      "$WEIR" validate "$(bronze_table "$d/false")" --format json > "$d/false.validate" 2>&1
      check "... and read everything from the new log start (1000..1199), the lost range the only gap" \
        "$PY" -c '
import json, sys
v = json.load(open(sys.argv[1]))
p = v["partitions"][0]
assert p["max"] == 1199 and p["duplicates"] == 0, p
assert len(p["gaps"]) == 1 and p["gaps"][0]["to_exclusive"] == 1000, p' "$d/false.validate"
    fi
  done
  case_end
fi

# --- txn ----------------------------------------------------------------------------------------------
if wanted txn; then
  case_start txn
  d=$work/txn
  kafka_admin create txn 2
  # Per partition: commit (offsets 0-9, marker 10), abort (11-20, 21), commit (22-31, 32),
  # abort (33-42, 43), commit (44-53, 54).
  kafka_admin txn txn 2 cacac "$d/committed.jsonl"
  bronze_sql "$d/rc.sql" txn "bootstrapServers => '$KAFKA_PLAINTEXT', \`kafka.isolation.level\` => 'read_committed'"
  "$WEIR" run "$d/rc.sql" --lakehouse "$d/rc" --trigger availableNow --progress-log "$d/rc.jsonl" > "$d/rc.out" 2>&1
  bronze_rows "$(bronze_table "$d/rc")" > "$d/rc.rows"
  check "read_committed: the table holds exactly the committed records (60), each once" \
    "$PY" -c '
import json, sys
want = sorted((r["partition"], r["offset"], r["value"]) for r in map(json.loads, open(sys.argv[1])))
got = sorted((r["eh_partition"], r["eh_offset"], r["raw_value"]) for r in map(json.loads, open(sys.argv[2])))
assert len(want) == 60 and got == want, (len(got), got[:3], want[:3])' "$d/committed.jsonl" "$d/rc.rows"
  check "... and the checkpoint's end is the log end (55 per partition, markers included)" \
    bash -c '"$1" checkpoint inspect "$2" | grep -q "\"txn\":{\"0\":55,\"1\":55}"' _ "$WEIR" "$d/rc/_checkpoints/sales.bronze.orders_raw"
  # The table alone cannot tell those offsets from lost ones: without the source's options
  # `weir validate` reports the aborted transactions with their markers as gaps, and fails.
  "$WEIR" validate "$(bronze_table "$d/rc")" --format json > "$d/rc.table-only" 2>&1
  check "weir validate without the source: the aborted transactions with their markers are gaps ([10,22), [32,44))" \
    "$PY" -c '
import json, sys
v = json.load(open(sys.argv[1]))
assert not v["ok"] and v["broker"] is None, v["ok"]
for p in v["partitions"]:
    assert p["duplicates"] == 0, p
    assert [(g["from"], g["to_exclusive"]) for g in p["gaps"]] == [(10, 22), (32, 44)], p' "$d/rc.table-only"
  # With the flow's pipeline it asks the broker (read_uncommitted and read_committed reads of each
  # gap) and names the offsets: markers and aborted data are no gaps for a read_committed flow.
  validate_to() {  # validate_to NAME ARGS...: weir validate into $d/NAME.out (.err), exit code NAME.rc
    local name=$1
    shift
    "$WEIR" validate "$@" > "$d/$name.out" 2> "$d/$name.err"
    echo $? > "$d/$name.rc"
  }
  exited() {  # exited NAME CODE: validate_to NAME exited with CODE (else shows its output)
    [ "$(cat "$d/$1.rc")" = "$2" ] || { cat "$d/$1.out" "$d/$1.err"; return 1; }
  }
  validate_to named "$(bronze_table "$d/rc")" --pipeline "$d/rc.sql"
  named_txns() {  # named_txns NAME: both partitions' gaps named, as markers and aborted data
    local p
    for p in 0 1; do
      has_all "$d/$1.out" \
        "partition $p: offset 10 transaction marker, offsets 11-20 aborted transaction, offset 21 transaction marker" \
        "partition $p: offset 32 transaction marker, offsets 33-42 aborted transaction, offset 43 transaction marker" || return 1
    done
  }
  check "weir validate --pipeline: exit 0, each gap named (offset 10 transaction marker, offsets 11-20 aborted transaction, ...)" \
    exited named 0
  check "... in both partitions, and no gap left" \
    eval 'named_txns named && has_all "$d/named.out" "OK: no gaps, no duplicates" "the flow reads read_committed" &&
          ! grep "missing offsets" "$d/named.out"'
  validate_to named-json "$(bronze_table "$d/rc")" --pipeline "$d/rc.sql" --format json
  check "... and in JSON: no gaps, 24 explained offsets per partition (marker, aborted, marker twice)" \
    "$PY" -c '
import json, sys
v = json.load(open(sys.argv[1]))
assert v["ok"] and v["broker"]["consulted"] and v["broker"]["topic"] == "txn", v["broker"]
assert v["broker"]["isolation_level"] == "read_committed" and v["broker"]["cleanup_policy"] == "delete", v["broker"]
for p in v["partitions"]:
    assert p["gaps"] == [] and p["missing"] == 0 and p["explained_offsets"] == 24, p
    got = [(e["from"], e["to_exclusive"], e["reason"]) for e in p["explained"]]
    want = []
    for a in (10, 32):
        want += [(a, a + 1, "transaction_marker"), (a + 1, a + 11, "aborted_transaction"),
                 (a + 11, a + 12, "transaction_marker")]
    assert got == want, got' "$d/named-json.out"
  # A table missing committed records (the window leaves out offsets 7-9 of each partition):
  # still a gap, beside the named marker and aborted transaction that follow it.
  validate_to real-gap "$(bronze_table "$d/rc")" --pipeline "$d/rc.sql" --where "eh_offset < 7 OR eh_offset > 9"
  check "a table missing committed offsets 7-9: still a gap, validate fails (exit 1)" exited real-gap 1
  check "... 'missing offsets [7, 10): 3 offsets, committed records the broker still has', the rest named" \
    has_all "$d/real-gap.out" "partition 0: missing offsets [7, 10): 3 offsets, committed records the broker still has" \
      "partition 1: missing offsets [7, 10): 3 offsets, committed records the broker still has" \
      "partition 0: offset 10 transaction marker, offsets 11-20 aborted transaction, offset 21 transaction marker" \
      "FOUND gaps or duplicates"
  # The source's options on the command line instead: a read_uncommitted flow (the default) reads
  # aborted records, so a table without them has real gaps; the markers are still named.
  validate_to ru-view "$(bronze_table "$d/rc")" --bootstrap-servers "$KAFKA_PLAINTEXT" --topic txn --format json
  check "isolation read_uncommitted (no kafka.isolation.level): the aborted records are gaps the flow should have read" \
    "$PY" -c '
import json, sys
v = json.load(open(sys.argv[1]))
assert not v["ok"] and v["broker"]["isolation_level"] == "read_uncommitted", v["broker"]
for p in v["partitions"]:
    assert [(g["from"], g["to_exclusive"], g["reason"]) for g in p["gaps"]] == [
        (11, 21, "aborted_read_uncommitted"), (33, 43, "aborted_read_uncommitted")], p["gaps"]
    assert p["explained_offsets"] == 4 and all(e["reason"] == "transaction_marker" for e in p["explained"]), p' "$d/ru-view.out"
  # Over SASL_SSL with the Event Hubs connection string from an option file: the same names, and
  # no secret in the output.
  printf 'kafka.bootstrap.servers=%s\neventhubs.connectionString=%s\nkafka.ssl.ca.location=%s\nkafka.isolation.level=read_committed\nsubscribe=txn\n' \
    "$KAFKA_PLAIN" "$EH_CONNECTION_STRING" "$KAFKA_CA" > "$d/source.options"
  validate_to sasl "$(bronze_table "$d/rc")" --option-file "$d/source.options"
  check "weir validate --option-file (SASL_SSL, connection string): exit 0, the gaps named, no secret in the output" \
    eval 'exited sasl 0 && named_txns sasl && no_secret "$d/sasl.out" "$d/sasl.err"'
  # A broker that cannot be reached: the gaps are reported as without it, validate fails, and
  # says why, never with a secret.
  validate_to unreachable "$(bronze_table "$d/rc")" --option-file "$d/source.options" \
    --option kafka.bootstrap.servers=127.0.0.1:1 --option kafka.request.timeout.ms=2000
  check "an unreachable broker: exit 1, 'could not consult the broker: ...', the gaps reported as gaps" \
    eval 'exited unreachable 1 && no_secret "$d/unreachable.out" "$d/unreachable.err" &&
          has_all "$d/unreachable.out" "could not consult the broker: " "partition 0: missing offsets [10, 22): 12 offsets" \
            "partition 1: missing offsets [32, 44): 12 offsets" "FOUND gaps or duplicates"'
  bronze_sql "$d/ru.sql" txn "bootstrapServers => '$KAFKA_PLAINTEXT'"
  "$WEIR" run "$d/ru.sql" --lakehouse "$d/ru" --trigger availableNow > "$d/ru.out" 2>&1
  check "default isolation (Spark's read_uncommitted): committed and aborted records, 100" \
    rows_are "$(bronze_table "$d/ru")" 100
  case_end
fi

# --- compacted ----------------------------------------------------------------------------------------
if wanted compacted; then
  case_start compacted
  d=$work/compacted
  kafka_admin create compacted 2 cleanup.policy=compact segment.ms=1000 min.cleanable.dirty.ratio=0.01 \
    delete.retention.ms=100 min.compaction.lag.ms=0
  kafka_admin compact compacted 60 4  # 240 records, 60 keys, tombstones for every third key last
  kafka_admin produce compacted 2 2 --first 1000  # rolls the last round's segment
  for _ in $(seq 1 60); do [ "$(topic_records compacted)" -lt 150 ] && break; sleep 0.5; done
  check "the broker compacted the topic ($(topic_records compacted) of 242 records left)" \
    test "$(topic_records compacted)" -lt 150
  bronze_sql "$d/flow.sql" compacted "bootstrapServers => '$KAFKA_PLAINTEXT'"
  "$WEIR" run "$d/flow.sql" --lakehouse "$d/lake" --trigger availableNow > "$d/flow.out" 2>&1
  check "a compacted topic: the table is the topic as kcat sees it (tombstones as null values)" \
    table_matches_topic "$(bronze_table "$d/lake")" compacted
  check "... the latest value of each key, and no failure for the compacted offsets (failOnDataLoss=true)" \
    grep -q "key59:3" <(bronze_rows "$(bronze_table "$d/lake")")
  check "weir validate --pipeline: clean (compaction left the last round: no offset missing between min and max)" \
    "$WEIR" validate "$(bronze_table "$d/lake")" --pipeline "$d/flow.sql"
  # Compaction that leaves holes between the records it keeps: 40 keys, then every other key
  # again; the cleaner drops the first values of keys 0, 2, ..., 38 (offsets 0, 2, ..., 38).
  kafka_admin create compacted-gaps 1 cleanup.policy=compact segment.ms=1000 min.cleanable.dirty.ratio=0.01 \
    delete.retention.ms=100 min.compaction.lag.ms=0
  for i in $(seq 0 39); do echo "key$i:key$i:0"; done | kcat -P -b "$KAFKA_PLAINTEXT" -t compacted-gaps -p 0 -K: 2>/dev/null
  sleep 1.1
  for i in $(seq 0 2 38); do echo "key$i:key$i:1"; done | kcat -P -b "$KAFKA_PLAINTEXT" -t compacted-gaps -p 0 -K: 2>/dev/null
  sleep 1.1
  echo "roll:roll" | kcat -P -b "$KAFKA_PLAINTEXT" -t compacted-gaps -p 0 -K: 2>/dev/null  # rolls the segment
  for _ in $(seq 1 60); do [ "$(topic_records compacted-gaps)" -le 41 ] && break; sleep 0.5; done
  check "the broker compacted the keys written twice ($(topic_records compacted-gaps) of 61 records left)" \
    test "$(topic_records compacted-gaps)" -eq 41
  bronze_sql "$d/gaps.sql" compacted-gaps "bootstrapServers => '$KAFKA_PLAINTEXT'"
  "$WEIR" run "$d/gaps.sql" --lakehouse "$d/gaps" --trigger availableNow > "$d/gaps.out" 2>&1
  check "the table is the compacted topic as kcat sees it" table_matches_topic "$(bronze_table "$d/gaps")" compacted-gaps
  # validate alone sees 19 gaps (offsets 2, 4, ..., 38); with the pipeline they are named.
  "$WEIR" validate "$(bronze_table "$d/gaps")" --format json > "$d/table-only.json" 2>&1
  check "weir validate without the source: the compacted offsets 2, 4, ..., 38 are gaps (exit 1)" \
    "$PY" -c '
import json, sys
v = json.load(open(sys.argv[1]))
p = v["partitions"][0]
assert not v["ok"] and [g["from"] for g in p["gaps"]] == list(range(2, 40, 2)), p["gaps"]' "$d/table-only.json"
  "$WEIR" validate "$(bronze_table "$d/gaps")" --pipeline "$d/gaps.sql" > "$d/named.out" 2>&1
  echo $? > "$d/named.rc"
  check "weir validate --pipeline: exit 0, 'offset 2 compacted away (or transaction marker)' ... (cleanup.policy=compact)" \
    bash -c '[ "$(cat "$1/named.rc")" = 0 ] && grep -q "partition 0: offset 2 compacted away (or transaction marker)$" "$1/named.out" &&
             grep -q "partition 0: offset 38 compacted away (or transaction marker)$" "$1/named.out" &&
             grep -q "cleanup.policy=compact" "$1/named.out" && ! grep -q "missing offsets" "$1/named.out" ||
             { cat "$1/named.out"; exit 1; }' _ "$d"
  "$WEIR" validate "$(bronze_table "$d/gaps")" --pipeline "$d/gaps.sql" --format json > "$d/named.json" 2>&1
  check "... in JSON: no gaps, the 19 offsets explained as compacted" \
    "$PY" -c '
import json, sys
v = json.load(open(sys.argv[1]))
assert v["ok"] and v["broker"]["cleanup_policy"] == "compact", v["broker"]
p = v["partitions"][0]
assert p["missing"] == 0 and p["gaps"] == [] and p["explained_offsets"] == 19, p
assert [(e["from"], e["reason"]) for e in p["explained"]] == [(o, "compacted_or_marker") for o in range(2, 40, 2)], p' "$d/named.json"
  # A record compaction kept (offset 5), missing from the table: a gap between compacted ones.
  "$WEIR" validate "$(bronze_table "$d/gaps")" --pipeline "$d/gaps.sql" --where "eh_offset <> 5" > "$d/kept.out" 2>&1
  echo $? > "$d/kept.rc"
  check "a kept record left out of the table (offset 5): a gap between the compacted offsets 4 and 6, exit 1" \
    bash -c '[ "$(cat "$1/kept.rc")" = 1 ] &&
             grep -q "partition 0: offset 4 compacted away (or transaction marker)$" "$1/kept.out" &&
             grep -q "partition 0: missing offsets \[5, 6): 1 offset, committed record the broker still has" "$1/kept.out" &&
             grep -q "partition 0: offset 6 compacted away (or transaction marker)$" "$1/kept.out" ||
             { cat "$1/kept.out"; exit 1; }' _ "$d"
  case_end
fi

# --- workers ------------------------------------------------------------------------------------------
if wanted workers; then
  case_start workers
  d=$work/workers
  kafka_admin create workers 12
  bronze_sql "$d/flow.sql" workers "bootstrapServers => '$KAFKA_PLAINTEXT', maxOffsetsPerTrigger => '10000',
      \`kafka.session.timeout.ms\` => '6000', \`kafka.heartbeat.interval.ms\` => '500'"
  worker() {
    "$WEIR" run "$d/flow.sql" --lakehouse "$d/lake" --trigger processingTime=500ms \
      --workers-group bronze-workers > "$d/w$1.log" 2>&1 &
    WORKER[$1]=$!
    PIDS+=($!)
  }
  declare -A WORKER
  for n in 1 2 3; do worker $n; done
  "$WEIR" produce --bootstrap "$KAFKA_PLAINTEXT" --topic workers --count 120000 --rate 15000 > "$d/produce.log" 2>&1 &
  producer=$!
  sleep 4
  kill -KILL "${WORKER[2]}"
  wait "${WORKER[2]}" 2>/dev/null  # (reaped here: no "Killed" line in the log)
  sleep 2
  worker 4
  wait $producer
  total=$(topic_records workers)
  wait_rows "$(bronze_table "$d/lake")" "$total" 60
  for n in 1 3 4; do kill -TERM "${WORKER[$n]}"; done
  ok=0
  for n in 1 3 4; do wait "${WORKER[$n]}" || ok=1; done
  check "three workers, one SIGKILLed, one added: the others stop cleanly" test $ok -eq 0
  rebalanced() {  # each live worker was assigned partitions; partitions were revoked on the way
    local n
    for n in 1 3 4; do grep -q "worker group bronze-workers: assigned \[workers-" "$d/w$n.log" || return 1; done
    grep -q "worker group bronze-workers: revoked \[workers-" "$d"/w*.log
  }
  check "the group rebalanced: partitions revoked and reassigned, the added worker owns some" rebalanced
  check "the table holds the topic's $total records exactly once" \
    table_matches_topic "$(bronze_table "$d/lake")" workers
  check "weir validate: no gap, no duplicate" "$WEIR" validate "$(bronze_table "$d/lake")"
  case_end
fi

# --- restart ------------------------------------------------------------------------------------------
if wanted restart; then
  case_start restart
  d=$work/restart
  kafka_admin create restart 4
  bronze_sql "$d/flow.sql" restart "bootstrapServers => '$KAFKA_PLAINTEXT'"
  "$WEIR" run "$d/flow.sql" --lakehouse "$d/lake" --trigger processingTime=500ms \
    --progress-log "$d/progress.jsonl" > "$d/flow.out" 2> "$d/flow.err" &
  flow=$!
  PIDS+=($flow)
  "$WEIR" produce --bootstrap "$KAFKA_PLAINTEXT" --topic restart --count 50000 --rate 5000 > "$d/produce.log" 2>&1 &
  producer=$!
  sleep 4
  kafka_peer_stop_broker
  sleep 3
  kafka_peer_start_broker
  wait $producer
  check "the producer delivered everything across the restart" grep -q "produced 50000" "$d/produce.log"
  total=$(topic_records restart)
  wait_rows "$(bronze_table "$d/lake")" "$total" 60
  check "the flow is still running after the broker came back" kill -0 $flow
  kill -TERM $flow
  wait $flow
  check "... and stops cleanly" test $? -eq 0
  check "the table holds the topic's $total records exactly once" \
    table_matches_topic "$(bronze_table "$d/lake")" restart
  check "weir validate: no gap, no duplicate" "$WEIR" validate "$(bronze_table "$d/lake")"
  case_end
fi

# --- partitions ---------------------------------------------------------------------------------------
if wanted partitions; then
  case_start partitions
  d=$work/partitions
  kafka_admin create wide 64
  "$WEIR" produce --bootstrap "$KAFKA_PLAINTEXT" --topic wide --count 64000 > "$d/produce.log" 2>&1
  bronze_sql "$d/flow.sql" wide "bootstrapServers => '$KAFKA_PLAINTEXT', maxOffsetsPerTrigger => '20000', minPartitions => '80'"
  "$WEIR" run "$d/flow.sql" --lakehouse "$d/lake" --trigger availableNow > "$d/flow.out" 2>&1
  check "64 partitions: the table is the topic, exactly once" table_matches_topic "$(bronze_table "$d/lake")" wide
  "$WEIR" validate "$(bronze_table "$d/lake")" --format json > "$d/validate.json"
  check "weir validate: clean over 64 partitions" \
    "$PY" -c 'import json,sys; v = json.load(open(sys.argv[1])); assert v["ok"] and len(v["partitions"]) == 64, v["ok"]' "$d/validate.json"
  case_end
fi

# --- headers ------------------------------------------------------------------------------------------
if wanted headers; then
  case_start headers
  d=$work/headers
  kafka_admin create hdr 3 message.timestamp.after.max.ms=9223372036854775807 retention.ms=-1
  "$PY" "$WEIR_SOURCE_DIR/tests/kafka/produce.py" mixed "$KAFKA_PLAINTEXT" hdr "$d/expected.jsonl" > "$d/produce.log" 2>&1
  check "python3-confluent-kafka produced the mixed records: $(cat "$d/produce.log" | tail -1)" \
    grep -q "^produced 153 records" "$d/produce.log"
  "$WEIR" kafka read --option "kafka.bootstrap.servers=$KAFKA_PLAINTEXT" --option subscribe=hdr \
    --option includeHeaders=true --format jsonl > "$d/weir.jsonl" 2> "$d/weir.err"
  check "null/empty/binary keys and values, headers (null values, duplicates, binary) byte-exact" \
    "$PY" "$WEIR_SOURCE_DIR/tests/kafka/compare.py" "$d/expected.jsonl" "$d/weir.jsonl"
  kcat -C -b "$KAFKA_PLAINTEXT" -t hdr -e -q -J > "$d/kcat.jsonl" 2>/dev/null
  check "... and byte-exact against kcat -J (every record, its bytes read back as kcat wrote them)" \
    "$PY" -c '
import base64, json, sys
def text(b64):  # the bytes as kcat prints them (raw, not re-encoded)
    return None if b64 is None else base64.b64decode(b64).decode("utf-8", "surrogateescape")
weir = {(r["partition"], r["offset"]): r for r in map(json.loads, open(sys.argv[1]))}
compared = 0
for line in open(sys.argv[2], encoding="utf-8", errors="surrogateescape"):
    k = json.loads(line)
    w = weir.pop((k["partition"], k["offset"]))
    assert text(w["key"]) == k.get("key"), (w["offset"], "key")
    assert text(w["value"]) == k.get("payload"), (w["offset"], "value")
    headers = [x for h in (w["headers"] or []) for x in (h["key"], text(h["value"]))]
    assert headers == (k.get("headers") or []), (w["offset"], headers, k.get("headers"))
    compared += 1
assert not weir and compared == 153, (compared, list(weir)[:3])' "$d/weir.jsonl" "$d/kcat.jsonl"
  case_end
fi
