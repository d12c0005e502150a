#!/usr/bin/env bash
# weir continues a Spark Structured Streaming query from Spark's own checkpoint (issue 10,
# deliverable 4): the Kafka-source fixture written by Spark 2.4.3
# ($WEIR_CONFORMANCE_DIR/spark-checkpoints/.../checkpoint-version-2.4.3-kafka-include-headers-default:
# batch 0 committed, every partition 0-4 of its topic at offset 3). weir must run batch 1 from
# exactly offset 3 (no gap, no duplicate), commit to Delta with txn appId = the checkpoint's query
# id, and leave the checkpoint in Spark's format (offsets/N, commits/N, the recorded conf kept).
# A second copy without commits/0 re-runs batch 0 over Spark's logged range [sources/0/0, offsets/0).
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
conformance=$(conformance_dir) || exit 1
fixture=$conformance/spark-checkpoints/spark-kafka-0-10-sql/structured-streaming/checkpoint-version-2.4.3-kafka-include-headers-default
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
topic=spark-test-topic-2b8619f5-d3c4-4c2d-b5d1-8d9d9458aa62
query_id=fc415a71-f0a2-4c3c-aeaf-f9e258c3f726
start_broker "$topic:5"

# Offsets 0-4 of every partition: "p<partition>-<offset>".
produce() {  # produce FIRST LAST
  for p in 0 1 2 3 4; do
    for i in $(seq "$1" "$2"); do echo "p$p-$i"; done | kcat -P -b "$BOOTSTRAP" -t "$topic" -p $p 2>/dev/null || return 1
  done
}
produce 0 4 || { echo "FAIL: kcat produce"; exit 1; }

cat > "$work/flow.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE main.default.spark_resume AS
SELECT CAST(value AS STRING) AS value, partition, offset
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => '${topic}',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '${max}');
SQL
setup_lake() {  # setup_lake DIR [--keep-state]: the fixture as the flow's checkpoint (the corpus is read-only)
  mkdir -p "$1/_checkpoints"
  cp -r "$fixture" "$1/_checkpoints/main.default.spark_resume"
  chmod -R u+w "$1"
  # Spark's query behind the fixture was stateful (state/0/<shuffle partition>/1.delta); weir
  # continues the offset and commit logs of a stateless query, so the state goes unless asked for.
  [ "${2:-}" = --keep-state ] || rm -rf "$1/_checkpoints/main.default.spark_resume/state"
  # The Delta table the Spark query wrote (batch 0's rows are not part of the fixture): a flow
  # whose checkpoint records commits refuses to recreate a missing table.
  : > "$work/empty.jsonl"
  "$WEIR" table append "$1/main/default/spark_resume" --input "$work/empty.jsonl" --create \
    --schema 'value STRING, partition INT, offset BIGINT' > /dev/null
}
run_flow() {  # run_flow LAKE MAX
  "$WEIR" run "$work/flow.sql" --lakehouse "$1" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
    --set topic="$topic" --set max="$2" > "$work/run.log" 2>&1
}
rows() {  # rows TABLE: "partition,offset,value" lines, sorted
  "$WEIR" table scan "$1" --format csv | tail -n +2 | awk -F, '{print $2","$3","$1}' | sort -t, -k1,1n -k2,2n
}
expected_rows() {  # expected_rows FIRST LAST
  for p in 0 1 2 3 4; do for i in $(seq "$1" "$2"); do echo "$p,$i,p$p-$i"; done; done
}

# 0. As Spark left it, with its state store files, the checkpoint is refused naming the state (weir
# cannot continue a Spark stateful query's state) and nothing is written.
setup_lake "$work/stateful" --keep-state
run_flow "$work/stateful" 5
check "a checkpoint holding Spark state is refused" test $? -ne 0
check "naming the state file and what to do" grep -q "holds the state of a Spark stateful query (state file state/0/.*new checkpoint folder" "$work/run.log"
check "and nothing is committed" test ! -e "$work/stateful/main/default/spark_resume/_delta_log/00000000000000000001.json"

# 1. Resume the committed Spark query: batches 1 and 2 (maxOffsetsPerTrigger 5 = one record per
# partition per batch) over offsets 3 and 4.
lake=$work/lake
cp_dir=$lake/_checkpoints/main.default.spark_resume
table=$lake/main/default/spark_resume
setup_lake "$lake"
check "weir run on the Spark checkpoint succeeds" run_flow "$lake" 5
check "the first batch weir runs is batch 1" grep -q "spark_resume batch 1:" "$work/run.log"
check "no batch 0 was run again" bash -c "! grep -q 'spark_resume batch 0:' '$work/run.log'"
check "the table holds exactly offsets 3 and 4 of every partition (no gap, no duplicate)" \
  diff <(rows "$table") <(expected_rows 3 4)
check "offsets/0, metadata and commits/0 are untouched" bash -c "
  cmp '$fixture/offsets/0' '$cp_dir/offsets/0' && cmp '$fixture/metadata' '$cp_dir/metadata' &&
  cmp '$fixture/commits/0' '$cp_dir/commits/0'"
spark_format() {
  python3 - "$cp_dir" "$topic" <<'PY'
import json, sys, os
cp, topic = sys.argv[1], sys.argv[2]
assert sorted(os.listdir(cp + "/offsets")) == ["0", "1", "2"], os.listdir(cp + "/offsets")
assert sorted(os.listdir(cp + "/commits")) == ["0", "1", "2"], os.listdir(cp + "/commits")
for n, end in ((1, 4), (2, 5)):
    text = open(f"{cp}/offsets/{n}").read()
    assert not text.endswith("\n"), "Spark 2.x-4.0 writes no final newline"
    lines = text.split("\n")
    assert lines[0] == "v1" and len(lines) == 3, lines
    meta = json.loads(lines[1])
    assert meta["batchWatermarkMs"] == 0 and meta["batchTimestampMs"] > 1568508285207, meta
    conf = meta["conf"]
    # Spark re-applies the recorded conf on restart; weir must carry it, not its own defaults.
    assert conf["spark.sql.shuffle.partitions"] == "5", conf
    assert conf["spark.sql.streaming.stateStore.providerClass"].endswith("HDFSBackedStateStoreProvider"), conf
    source = json.loads(lines[2])
    assert source == {topic: {str(p): end for p in range(5)}}, source
    commit = open(f"{cp}/commits/{n}").read()
    assert commit == 'v1\n{"nextBatchWatermarkMs":0}', repr(commit)
PY
}
check "offsets/1, offsets/2 and commits/1, commits/2 are in Spark's format, conf carried" spark_format
delta_txn() {
  python3 - "$table" "$query_id" <<'PY'
import json, sys, glob
table, query_id = sys.argv[1], sys.argv[2]
seen = []
for path in sorted(glob.glob(table + "/_delta_log/*.json")):
    for line in open(path):
        a = json.loads(line)
        if "txn" in a and a["txn"]["appId"] == query_id:
            seen.append(a["txn"]["version"])
        if "commitInfo" in a and a["commitInfo"].get("operation") == "STREAMING UPDATE":
            p = a["commitInfo"]["operationParameters"]
            assert p["queryId"] == query_id, p
assert seen == [1, 2], f"txn versions for {query_id}: {seen}"
PY
}
check "each Delta commit has txn(appId = the Spark query id, version = batch id 1, 2)" delta_txn

# 2. A restart with no new data runs nothing; new records run batch 3 from offset 5.
check "a restart with no new data succeeds" run_flow "$lake" 100
check "and runs no batch" bash -c "! grep -q 'spark_resume batch' '$work/run.log'"
produce 5 6
check "a restart after new records succeeds" run_flow "$lake" 100
check "it runs batch 3" grep -q "spark_resume batch 3:" "$work/run.log"
check "the table holds offsets 3-6 exactly once" diff <(rows "$table") <(expected_rows 3 6)

cutover_kafka_columns() {
  "$WEIR" cutover "$table" --topic "$topic" --margin 0 --sink merge --partitions 5 --format json 2>/dev/null |
    python3 -c 'import json, sys
c = json.load(sys.stdin)
assert c["partition_column"] == "partition" and c["offset_column"] == "offset", c
assert c["time_column"] is None, c  # the flow above keeps no timestamp column
assert json.loads(c["startingOffsets"]) == {sys.argv[1]: {str(p): 6 for p in range(5)}}, c' "$topic"
}
check "weir cutover reads the Kafka source's column names (partition INT, offset BIGINT)" cutover_kafka_columns

# 3. Batch 0 logged but not committed (commits/0 removed): weir re-runs it over exactly Spark's
# logged range, from sources/0/0 (all 0) to offsets/0 (all 3), then continues.
lake2=$work/lake2
setup_lake "$lake2"
rm "$lake2/_checkpoints/main.default.spark_resume/commits/0"
check "re-running Spark's uncommitted batch 0 succeeds" run_flow "$lake2" 1000
check "it says batch 0 is re-run over its logged range" grep -q "re-running batch 0" "$work/run.log"
check "batch 0 holds offsets 0-2 and the next batch the rest: 0-6 exactly once" \
  diff <(rows "$lake2/main/default/spark_resume") <(expected_rows 0 6)
# The Spark checkpoint without the table it wrote: refused, nothing created.
bare=$work/bare
mkdir -p "$bare/_checkpoints"
cp -r "$fixture" "$bare/_checkpoints/main.default.spark_resume"
chmod -R u+w "$bare"
rm -rf "$bare/_checkpoints/main.default.spark_resume/state"
run_flow "$bare" 5
check "without its table the checkpoint is refused (Corruption), no table is created" \
  bash -c "grep -q 'Corruption.*is missing' '$work/run.log' && [ ! -e '$bare/main/default/spark_resume/_delta_log' ]"

finish
