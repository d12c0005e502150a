#!/usr/bin/env python3
"""Checks a bronze table against the topic as an independent client (kcat -J) sees it.

usage: compare_kafka_table.py KCAT_JSONL TABLE_JSONL
  KCAT_JSONL   `kcat -C -e -J` output: partition, offset, key, payload, ts (ms)
  TABLE_JSONL  rows {eh_partition, eh_offset, partition_key, raw_value, enqueued_ms} from DuckDB
Exactly one table row per (partition, offset) of the topic, with the same key, value and
timestamp. Exits 0 when equal, 1 listing the first differences.
"""
import json
import sys


def main():
    topic = {}
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                topic[(r["partition"], r["offset"])] = (r.get("key"), r.get("payload"), r["ts"])
    rows = {}
    duplicates = []
    with open(sys.argv[2], encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                k = (r["eh_partition"], r["eh_offset"])
                if k in rows:
                    duplicates.append(k)
                rows[k] = (r["partition_key"], r["raw_value"], r["enqueued_ms"])
    problems = [f"duplicate row for partition/offset {k}" for k in duplicates[:5]]
    missing = sorted(set(topic) - set(rows))
    extra = sorted(set(rows) - set(topic))
    problems += [f"missing (partition, offset) {k}" for k in missing[:5]]
    problems += [f"row not in the topic {k}" for k in extra[:5]]
    for k in sorted(set(topic) & set(rows)):
        if topic[k] != rows[k]:
            problems.append(f"{k}: topic {topic[k]!r:.200} table {rows[k]!r:.200}")
            if len(problems) > 10:
                break
    if problems:
        print(f"{len(topic)} records in the topic, {len(rows)} distinct rows in the table, "
              f"{len(duplicates)} duplicates, {len(missing)} missing, {len(extra)} extra")
        print("\n".join(problems))
        return 1
    print(f"OK: {len(rows)} rows, one per record")
    return 0


if __name__ == "__main__":
    sys.exit(main())
