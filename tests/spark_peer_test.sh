#!/usr/bin/env bash
# Apache Spark 4 with Delta Lake, and delta-rs, as real peers of weir (installed, pinned, by
# scripts/install-python-peers.sh). One SparkSession (local[2], 1 GB driver) runs every Spark-side
# step of tests/peers/spark/peer_checks.py, which drives weir as a subprocess:
#   weir_tables   Spark and delta-rs read what weir writes (bronze/silver/quarantine of
#                 examples/orders.sql, partitioned, OPTIMIZE, VACUUM, checkpoint, MERGE flow and
#                 `table merge`, auto-compaction): exactly weir's rows; DESCRIBE HISTORY works
#   concurrent    Spark + weir, and delta-rs + weir, appending to one table at once: no lost commit
#   spark_tables  weir on tables Spark creates (defaults, deletion vectors, column mapping, change
#                 data feed, liquid clustering): it works and Spark reads the result back
#                 identically, or weir refuses naming the feature and the table is untouched
#   deltars       weir reads and appends to tables delta-rs writes
#   handover      Spark Structured Streaming (Kafka -> Delta, availableNow), then `weir run` on the
#                 same checkpoint, then Spark again: no gap, no duplicate; a stateful Spark
#                 checkpoint (dropDuplicates) refused. Against Apache Kafka (tests/tools/kafka_peer.sh):
#                 Spark's Kafka client (kafka-clients 3.9 AdminClient) cannot use `weir broker`
#                 (librdkafka's mock cluster): its listNodes call times out (docs/broker.md).
# SPARK_PEER_CASES="handover deltars" runs only those. Missing peers fail under CI=true, else the
# suite is skipped loudly.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
source "$(dirname "$0")/tools/kafka_peer.sh"
skip() {
  if [ "${CI:-}" = "true" ]; then echo "FAIL: $(basename "$0"): $1"; exit 1; fi
  echo "SKIPPED (LOUDLY): $(basename "$0"): $1"
  exit 0
}
peers=$("$WEIR_SOURCE_DIR/scripts/install-python-peers.sh" --dir) ||
  skip "the Spark / delta-rs peers are not installed (scripts/install-python-peers.sh failed)"
[ -x "$peers/venv/bin/python" ] && ls "$peers"/jars/delta-spark_*.jar > /dev/null 2>&1 ||
  skip "incomplete peer install at $peers (run scripts/install-python-peers.sh)"
command -v java > /dev/null || skip "no java on PATH (a JDK 17 runs Spark)"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; kafka_peer_stop; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start=$(date +%s)
[ -n "${KEEP:-}" ] && echo "spark_peer_test.sh: work folder $work (kept)"
start_broker orders:4
KAFKA_PLAINTEXT=
if [ -z "${SPARK_PEER_CASES:-}" ] || [[ " $SPARK_PEER_CASES " == *" handover "* ]]; then
  kafka_peer_start
  kafka_admin create handover 3 > /dev/null || { echo "FAIL: create the topic handover"; exit 1; }
  echo "spark_peer_test.sh: Apache Kafka up after $(( $(date +%s) - start )) s"
fi
export TZ=UTC PYSPARK_PYTHON="$peers/venv/bin/python" WEIR_SOURCE_DIR
# Spark's JVM logs go to a file; its tail is printed when a check fails.
"$peers/venv/bin/python" "$WEIR_SOURCE_DIR/tests/peers/spark/peer_checks.py" --weir "$WEIR" \
  --work "$work" --bootstrap "$BOOTSTRAP" --kafka "$KAFKA_PLAINTEXT" --jars "$peers/jars" --cases "${SPARK_PEER_CASES:-}" \
  2> "$work/spark.log"
rc=$?
if [ "$rc" != 0 ]; then
  echo "--- last lines of Spark's log:"
  grep -v -E '^\s*at |WARN' "$work/spark.log" | tail -20 | sed 's/^/    /'
fi
echo "spark_peer_test.sh: took $(( $(date +%s) - start )) s"
exit $rc
