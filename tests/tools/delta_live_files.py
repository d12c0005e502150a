#!/usr/bin/env python3
"""Prints the live data files of a Delta table as a JSON list of paths, by replaying its JSON log
(adds minus removes, in version order) independently of weir. Tests hand the list to DuckDB so
that orphan files of interrupted batches are never counted.

usage: delta_live_files.py TABLE_DIR
"""
import json
import os
import sys
from urllib.parse import unquote


def main():
    table = sys.argv[1]
    log = os.path.join(table, "_delta_log")
    live = {}
    for name in sorted(n for n in os.listdir(log) if n.endswith(".json") and n[:20].isdigit()):
        with open(os.path.join(log, name), encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                action = json.loads(line)
                if "add" in action:
                    live[action["add"]["path"]] = action["add"]
                elif "remove" in action:
                    live.pop(action["remove"]["path"], None)
    paths = [os.path.join(table, unquote(p)) for p in sorted(live)]
    for p in paths:
        if not os.path.exists(p):
            print(f"live file missing on disk: {p}", file=sys.stderr)
            return 1
    print(json.dumps(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
