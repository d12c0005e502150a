#!/usr/bin/python3
"""Compares the rows `weir kafka read --format jsonl` printed with the rows the producers
expected (tests/kafka/produce.py), field by field.

usage: compare.py EXPECTED ACTUAL [--select TOPIC:P[,P...]]... [--from TOPIC:P=OFFSET]...
                  [--until TOPIC:P=OFFSET]... [--no-headers] [--offsets-from FILE]
  --select        only these partitions are expected (default: every partition in EXPECTED)
  --from/--until  only offsets in [from, until) of that partition are expected
  --no-headers    ACTUAL rows must not have a headers column (includeHeaders=false)
  --offsets-from  FILE has "PARTITION OFFSET" lines (e.g. from kcat -C): exactly those
                  (topic of EXPECTED) are expected, intersected with the other filters
Expected timestamps may be {"between": [LOW, HIGH]} (inclusive, ISO strings compare in order).
Checks: no missing, extra or duplicate (partition, offset); every field equal; the column set and
order is Spark's (key, value, topic, partition, offset, timestamp, timestampType[, headers]);
offsets increase within each partition. Prints one summary line; exits 1 on any difference.
"""
import collections
import json
import sys

COLUMNS = ["key", "value", "topic", "partition", "offset", "timestamp", "timestampType"]


def parse_args(argv):
    opts = {"select": {}, "from": {}, "until": {}, "no_headers": False, "offsets_from": None}
    pos = []
    it = iter(argv)
    for a in it:
        if a == "--select":
            topic, parts = next(it).split(":")
            opts["select"].setdefault(topic, set()).update(int(p) for p in parts.split(","))
        elif a in ("--from", "--until"):
            tp, off = next(it).split("=")
            topic, p = tp.split(":")
            opts[a[2:]][(topic, int(p))] = int(off)
        elif a == "--no-headers":
            opts["no_headers"] = True
        elif a == "--offsets-from":
            opts["offsets_from"] = next(it)
        else:
            pos.append(a)
    if len(pos) != 2:
        sys.exit(__doc__)
    return pos[0], pos[1], opts


def wanted(row, opts, listed):
    tp = (row["topic"], row["partition"])
    if opts["select"] and row["partition"] not in opts["select"].get(row["topic"], set()):
        return False
    if row["offset"] < opts["from"].get(tp, -1):
        return False
    if tp in opts["until"] and row["offset"] >= opts["until"][tp]:
        return False
    if listed is not None and (row["partition"], row["offset"]) not in listed:
        return False
    return True


def field_equal(name, want, got):
    if name == "timestamp" and isinstance(want, dict):
        low, high = want["between"]
        return isinstance(got, str) and len(got) == len(low) and low <= got <= high
    return want == got and type(want) == type(got)


def main(argv):
    expected_path, actual_path, opts = parse_args(argv[1:])
    listed = None
    if opts["offsets_from"]:
        listed = set()
        for line in open(opts["offsets_from"], encoding="utf-8"):
            if line.strip():
                p, o = line.split()
                listed.add((int(p), int(o)))
    expected = {}
    for line in open(expected_path, encoding="utf-8"):
        r = json.loads(line)
        if wanted(r, opts, listed):
            expected[(r["topic"], r["partition"], r["offset"])] = r
    if listed is not None:
        topic = next(iter(expected))[0] if expected else ""
        in_range = {(p, o) for p, o in listed
                    if wanted({"topic": topic, "partition": p, "offset": o}, opts, None)}
        if len(in_range) != len(expected):
            print(f"FAIL: {len(in_range)} listed offsets are in range but only {len(expected)} "
                  "of them were produced")
            return 1
    problems = []
    seen = collections.Counter()
    last = {}
    columns = COLUMNS if opts["no_headers"] else COLUMNS + ["headers"]
    actual_rows = 0
    for n, line in enumerate(open(actual_path, encoding="utf-8"), 1):
        actual_rows += 1
        try:
            got = json.loads(line)
        except ValueError as e:
            problems.append(f"line {n}: not JSON ({e}): {line[:120]!r}")
            continue
        if list(got.keys()) != columns:
            problems.append(f"line {n}: columns {list(got.keys())}, want {columns}")
            continue
        key = (got["topic"], got["partition"], got["offset"])
        seen[key] += 1
        tp = key[:2]
        if tp in last and got["offset"] <= last[tp]:
            problems.append(f"line {n}: {tp[0]}-{tp[1]} offset {got['offset']} after {last[tp]}")
        last[tp] = got["offset"]
        want = expected.get(key)
        if want is None:
            problems.append(f"line {n}: unexpected row {key}")
            continue
        for c in columns:
            if not field_equal(c, want[c], got[c]):
                problems.append(f"{key}: {c} is {json.dumps(got[c])[:80]}, "
                                f"want {json.dumps(want[c])[:80]}")
    duplicates = [k for k, c in seen.items() if c > 1]
    missing = sorted(k for k in expected if k not in seen)
    if duplicates:
        problems.insert(0, f"{len(duplicates)} duplicated rows, e.g. {duplicates[:3]}")
    if missing:
        problems.insert(0, f"{len(missing)} missing rows, e.g. {missing[:5]}")
    per_partition = collections.Counter((t, p) for t, p, _ in expected)
    summary = ", ".join(f"{t}-{p}:{c}" for (t, p), c in sorted(per_partition.items()))
    if problems:
        print(f"FAIL: {actual_rows} rows read, {len(expected)} expected ({summary})")
        for p in problems[:15]:
            print("  " + p)
        return 1
    print(f"OK: {actual_rows} rows equal the {len(expected)} expected ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
