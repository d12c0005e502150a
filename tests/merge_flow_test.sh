#!/usr/bin/env bash
# The connector migration's overlap MERGE as a streaming table (docs/migration.md, "Dedupe the
# overlap"): MERGE ON (partition, sequence number) AND a time predicate on the target, so that the
# merge does not read all of bronze. bronze holds what the old stream wrote: rows three days old,
# in files whose offset ranges span the new events' offsets (statistics on the keys alone cannot
# skip them), and the recent rows of the overlap (offsets 0..999 of each partition). The new flow
# starts from the earliest offsets, so it reads the overlap again. Checked: every merge reads none
# of the old files (its scan count), every (partition, offset) is in the table exactly once, and
# the old rows are untouched.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker telemetry:2
lake=$work/lake
table=$lake/prod/bronze/telemetry
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic telemetry --count 4000 > /dev/null 2>&1 ||
  { echo "FAIL: produce"; exit 1; }
kcat -C -b "$BOOTSTRAP" -t telemetry -e -q -f '%p %o\n' 2>/dev/null | sort > "$work/topic.txt"
topic_rows=$(wc -l < "$work/topic.txt")

python3 - "$work" "$work/topic.txt" <<'EOF'
import datetime, json, sys
work, topic = sys.argv[1], sys.argv[2]
now = datetime.datetime.now(datetime.timezone.utc)
fmt = lambda t: t.strftime("%Y-%m-%d %H:%M:%S")
# Two files of old rows per the old stream: offsets -5 and 3,000,000 (they span every new offset).
for f in (0, 1):
    with open(f"{work}/old{f}.jsonl", "w") as out:
        for p in (0, 1):
            for o in (-5 - f, 3_000_000 + f):
                out.write(json.dumps({"body": None, "eh_partition": p, "eh_offset": o,
                                      "enqueued_time": fmt(now - datetime.timedelta(days=3))}) + "\n")
# The overlap: the first 1,000 offsets of each partition, written an hour ago.
with open(f"{work}/recent.jsonl", "w") as out:
    for line in open(topic):
        p, o = map(int, line.split())
        if o < 1000:
            out.write(json.dumps({"body": None, "eh_partition": p, "eh_offset": o,
                                  "enqueued_time": fmt(now - datetime.timedelta(hours=1))}) + "\n")
EOF
for f in old0 old1 recent; do
  "$WEIR" table append "$table" --create --schema 'body BINARY, eh_partition INT, eh_offset BIGINT, enqueued_time TIMESTAMP' \
    --input "$work/$f.jsonl" > /dev/null || { echo "FAIL: append $f"; exit 1; }
done
cat > "$work/overlap.sql" <<'SQL'
CREATE OR REFRESH STREAMING TABLE prod.bronze.telemetry
MERGE ON (eh_partition, eh_offset) AND t.enqueued_time >= current_timestamp() - INTERVAL 1 DAY
AS SELECT value AS body, partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time
FROM STREAM read_kafka(bootstrapServers => '${bootstrap}', subscribe => 'telemetry',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '1500');
SQL
"$WEIR" run "$work/overlap.sql" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
  > "$work/run.log" 2>&1
rc=$?
check "the MERGE flow runs" test $rc -eq 0
grep "MERGE:" "$work/run.log" > "$work/merges.txt"
check "it merged in several batches" test "$(wc -l < "$work/merges.txt")" -ge 2
# "... ; R of F files read": the two old files are never among the files read.
never_read_old() {
  python3 - "$work/merges.txt" <<'EOF'
import re, sys
for line in open(sys.argv[1]):
    m = re.search(r"(\d+) of (\d+) files read", line)
    read, total = int(m.group(1)), int(m.group(2))
    # the two old files and the overlap file exist before the first merge; files the merges
    # write come after: at most total - 2 can be read.
    assert read <= total - 2, line
print("ok")
EOF
}
check "the time predicate keeps every merge off the old files (scan count)" never_read_old
check "the overlap rows are recognised (already present)" grep -q "already present" "$work/merges.txt"
once() {
  "$WEIR" table scan "$table" --columns eh_partition,eh_offset --format csv | tail -n +2 | sort > "$work/table.txt"
  python3 - "$work/table.txt" "$work/topic.txt" <<'EOF'
import collections, sys
rows = [tuple(map(int, l.strip().split(","))) for l in open(sys.argv[1]) if l.strip()]
topic = {tuple(map(int, l.split())) for l in open(sys.argv[2])}
counts = collections.Counter(rows)
doubled = [k for k, n in counts.items() if n > 1]
assert not doubled, ("doubled", doubled[:5])
old = {(p, o) for p in (0, 1) for o in (-5, -6, 3_000_000, 3_000_001)}
assert set(counts) == topic | old, (len(set(counts)), len(topic | old))
print(len(rows), "rows")
EOF
}
check "every (partition, offset) once, old rows kept ($topic_rows in the topic)" once
finish
