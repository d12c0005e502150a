#!/usr/bin/env bash
# Avro object container files (src/avro/) against an independent writer and reader: fastavro
# (pinned, installed into the Python peers' venv by scripts/install-python-peers.sh) writes files
# of every Avro type and logical type with every codec it has (null, deflate, snappy, zstandard);
# `weir table append --format avro` loads them; delta-rs reads weir's Delta table back and
# tests/tools/avro_peer.py compares it value by value with fastavro's reading of the same files,
# mapped as Spark's spark-avro maps Avro to SQL types; and Spark itself (its spark-avro source,
# the jar beside Delta's) reads the same files into the same schema and values as weir's table,
# and writes Avro files (snappy) that weir loads into what Spark reads from them.
#  1. every codec into one table (created from the first file's schema, then appended to)
#  2. a folder of .avro files in one append
#  3. refusals leave the table as it was: a truncated file, a bad sync marker, a file that is not
#     Avro, an unsupported codec (bzip2), a schema the table does not have
#  4. Event Hubs Capture: a Capture-shaped folder tree (3 partitions x 3 hours across a year
#     boundary, one empty window, Capture's EventData schema, deflate) through --format capture
#     into Kafka source rows, compared with the rows the events make (docs/capture.md)
# Missing peers fail under CI=true, else the suite is skipped loudly.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
skip() {
  if [ "${CI:-}" = "true" ]; then echo "FAIL: $(basename "$0"): $1"; exit 1; fi
  echo "SKIPPED (LOUDLY): $(basename "$0"): $1"
  exit 0
}
peers=$("$WEIR_SOURCE_DIR/scripts/install-python-peers.sh" --dir) ||
  skip "the Python peers are not installed (scripts/install-python-peers.sh failed)"
py=$peers/venv/bin/python
"$py" -c "import fastavro, deltalake, cramjam, backports.zstd" 2>/dev/null ||
  skip "fastavro or deltalake missing in $peers/venv (run scripts/install-python-peers.sh)"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
peer() { "$py" "$WEIR_SOURCE_DIR/tests/tools/avro_peer.py" "$@"; }
version_of() { "$WEIR" table describe "$1" | sed -n 's/^version: //p'; }
# fails_with TEXT COMMAND...: the command fails and its output contains TEXT.
fails_with() {
  local text=$1 out
  shift
  if out=$("$@" 2>&1); then echo "unexpectedly succeeded: $out"; return 1; fi
  if [[ "$out" != *"$text"* ]]; then echo "expected '$text' in: $out"; return 1; fi
}
# has_line TEXT COMMAND...: the command succeeds and prints a line equal to TEXT.
has_line() {
  local text=$1 out
  shift
  out=$("$@" 2>&1) || { echo "$out"; return 1; }
  grep -qxF -- "$text" <<<"$out" || { echo "no line '$text' in: $out"; return 1; }
}

check "fastavro writes every type with every codec" peer write "$work/in"

# 1. Every codec into one table.
check "append everything-null.avro with --create" \
  "$WEIR" table append "$work/t" --input "$work/in/everything-null.avro" --create
for codec in deflate snappy zstandard; do
  check "append everything-$codec.avro" "$WEIR" table append "$work/t" --input "$work/in/everything-$codec.avro"
done
check "the table holds exactly what fastavro reads from the 4 files" peer compare "$work/t" "$work"/in/*.avro
check "a general union is Spark's STRUCT<member0, ...>" has_line \
  "  u STRUCT<member0: INT, member1: STRING, member2: STRUCT<x: INT NOT NULL, tags: ARRAY<STRING> NOT NULL>>" \
  "$WEIR" table describe "$work/t"
# Spark itself as the reference: spark-avro's schema of the files (SchemaConverters.toSqlType,
# nullability included) is the table's, and Spark's rows of the files are the table's; then Spark
# writes the rows as Avro itself (snappy), weir loads its files, and the same holds.
spark_reads_like_weir() {
  TZ=UTC peer spark-compare "$work/t" "$peers/jars" "$work"/in/*.avro --weir "$WEIR" "$work" \
    2> "$work/spark.log" && return 0
  echo "--- last lines of Spark's log:"
  grep -v -E '^\s*at |WARN' "$work/spark.log" | tail -12
  return 1
}
if command -v java > /dev/null && ls "$peers"/jars/spark-avro_*.jar > /dev/null 2>&1; then
  check "Spark (spark-avro) reads the files as weir's table holds them, and Spark's own files too" \
    spark_reads_like_weir
elif [ "${CI:-}" = "true" ]; then
  check "java and spark-avro are installed (scripts/install-python-peers.sh)" false
else
  echo "SKIPPED (LOUDLY): the Spark comparison: no java or no spark-avro jar in $peers/jars"
fi
check "logical types are Spark's" has_line "  ltsu TIMESTAMP_NTZ NOT NULL" "$WEIR" table describe "$work/t"
check "decimal on fixed" has_line "  decf DECIMAL(38,6) NOT NULL" "$WEIR" table describe "$work/t"

# 2. A folder in one append (no file extension to go by: --format avro).
check "append a folder of .avro files" "$WEIR" table append "$work/t2" --input "$work/in" --format avro --create
check "the folder's table holds what fastavro reads" peer compare "$work/t2" "$work"/in/*.avro
check "the folder was one commit" test "$(version_of "$work/t2")" = 1

# 3. Refusals leave the table as it was.
v=$(version_of "$work/t")
cp "$work/in/everything-deflate.avro" "$work/truncated.avro"
truncate -s -100 "$work/truncated.avro"
check "a truncated file is Corruption naming the file and block" \
  fails_with "Corruption: avro: $work/truncated.avro: block " \
  "$WEIR" table append "$work/t" --input "$work/truncated.avro"
cp "$work/in/everything-snappy.avro" "$work/badsync.avro"
size=$(stat -c %s "$work/badsync.avro")
printf 'X' | dd of="$work/badsync.avro" bs=1 seek=$((size - 3)) conv=notrunc status=none
check "a bad sync marker is Corruption naming the block" \
  fails_with "the sync marker after the block does not match the header's" \
  "$WEIR" table append "$work/t" --input "$work/badsync.avro"
echo '{"not": "avro"}' > "$work/text.avro"
check "a file that is not Avro" \
  fails_with "Corruption: avro: $work/text.avro: not an Avro object container file" \
  "$WEIR" table append "$work/t" --input "$work/text.avro"
check "fastavro writes a bzip2 file" peer write "$work/bz" bzip2
check "bzip2 is NotImplemented naming the codec" \
  fails_with "avro codec 'bzip2' is not supported by weir" \
  "$WEIR" table append "$work/t" --input "$work/bz/everything-bzip2.avro"
check "a missing table needs --create" \
  fails_with "add --create" "$WEIR" table append "$work/none" --input "$work/in/everything-null.avro"
check "the table is unchanged by the refusals" test "$(version_of "$work/t")" = "$v"
check "and still holds exactly the 4 files" peer compare "$work/t" "$work"/in/*.avro

# 4. Event Hubs Capture.
check "fastavro writes a Capture folder tree" peer capture "$work/capture"
check "a Capture file of another schema's table is refused by column" \
  fails_with "column 'SequenceNumber'" \
  "$WEIR" table append "$work/t" --input "$(find "$work/capture" -name '*.avro' | sort | head -1)"
check "append --format capture of the folder tree" \
  "$WEIR" table append "$work/bronze" --input "$work/capture" --format capture --create --partition-by partition
check "the Kafka source rows are the events'" peer compare-capture "$work/bronze" "$work/capture/expected.json"
check "Capture's columns are Spark's Kafka source columns" has_line \
  "  headers ARRAY<STRUCT<key: STRING, value: BINARY>>" "$WEIR" table describe "$work/bronze"
check "--format avro reads Capture's own columns" \
  "$WEIR" table append "$work/raw" --input "$work/capture" --format avro --create
check "SystemProperties' union is STRUCT<member0..3>" has_line \
  "  SystemProperties MAP<STRING, STRUCT<member0: BIGINT, member1: DOUBLE, member2: STRING, member3: BINARY>> NOT NULL" \
  "$WEIR" table describe "$work/raw"
mkdir -p "$work/elsewhere"
cp "$(find "$work/capture" -name '*.avro' | sort | head -1)" "$work/elsewhere/events.avro"
check "--format capture outside Capture's layout says which it expects" \
  fails_with "is not a Capture file path {Namespace}/{EventHub}/{PartitionId}" \
  "$WEIR" table append "$work/bronze" --input "$work/elsewhere/events.avro" --format capture

finish
