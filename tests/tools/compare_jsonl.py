#!/usr/bin/env python3
"""Compares two row outputs in weir's JSON-lines conventions, row by row.

usage: compare_jsonl.py EXPECTED ACTUAL [--csv] [--sorted]
  EXPECTED  JSON lines from an independent reader (DuckDB, parquet-wasm), or with --csv an
            expected-values CSV (header row; empty cell = null)
  ACTUAL    JSON lines printed by weir
  --sorted  compare as multisets (row order not significant)
Values compare equal when identical, timestamps with and without the trailing Z (TIMESTAMP_NTZ), or when both are numbers (or numeric strings, as decimals and
unsigned 64-bit values are printed by one side) with the same value; floats within 1e-6 relative.
Exits 0 when equal, 1 with the first differences listed.
"""
import csv
import json
import re
import sys
from decimal import Decimal, InvalidOperation


def as_number(v):
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
    if isinstance(v, str):
        try:
            return Decimal(v)
        except InvalidOperation:
            return None
    return None


TIMESTAMP = re.compile(r"^[+-]?\d{4,6}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z?$")


def equal(a, b):
    if a == b and type(a) == type(b):
        return True
    if isinstance(a, str) and isinstance(b, str) and TIMESTAMP.match(a) and TIMESTAMP.match(b):
        # TIMESTAMP_NTZ prints without the zone in weir; readers print every timestamp as UTC.
        return a.rstrip("Z").lstrip("+") == b.rstrip("Z").lstrip("+")
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a.keys()) == list(b.keys()) and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    na, nb = as_number(a), as_number(b)
    if na is not None and nb is not None:
        if not (na.is_finite() and nb.is_finite()):
            return str(na) == str(nb)
        if na == nb:
            return True
        scale = max(abs(na), abs(nb))
        return scale > 0 and abs(na - nb) / scale < Decimal("1e-6")
    return False


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = [h.strip() for h in next(reader)]
        return [{h: (v if v != "" else None) for h, v in zip(header, row)} for row in reader]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    expected = load_csv(args[0]) if "--csv" in flags else load_jsonl(args[0])
    actual = load_jsonl(args[1])
    if "--csv" in flags:
        # CSV cells are text: compare each value's text form or number.
        actual = [{k: (None if v is None else v if isinstance(v, str) else json.dumps(v))
                   for k, v in row.items()} for row in actual]
    if "--sorted" in flags:
        key = lambda r: json.dumps(r, sort_keys=True)
        expected, actual = sorted(expected, key=key), sorted(actual, key=key)
    problems = []
    if len(expected) != len(actual):
        problems.append(f"row count: expected {len(expected)}, weir printed {len(actual)}")
    for i, (e, a) in enumerate(zip(expected, actual)):
        if not equal(e, a):
            problems.append(f"row {i}:\n  expected {json.dumps(e)[:400]}\n  weir     {json.dumps(a)[:400]}")
        if len(problems) >= 5:
            break
    if problems:
        print("\n".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
