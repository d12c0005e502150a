#!/usr/bin/python3
"""Produces deterministic records with independent clients (python3-confluent-kafka, kcat) and
writes the rows `weir kafka read --format jsonl` must print for them, one JSON object a line, in
weir's conventions: key/value/header values base64 (null stays null), timestamp ISO-8601 UTC with
microseconds and Z, timestampType 0 (CreateTime), headers null when a record has none.
Partitions and offsets come from the producer's delivery reports (kcat: from the high watermark
before and after, on one partition).

usage (run with Debian's /usr/bin/python3, which has confluent_kafka):
  produce.py mixed BOOTSTRAP TOPIC OUT        ~150 records over 3 partitions: null/empty/binary
                                             keys and values, tombstones, explicit timestamps,
                                             headers (null values, duplicates, binary); three
                                             producers (none, zstd, snappy)
  produce.py kcat BOOTSTRAP TOPIC PARTITION OUT
                                             a few lines through `kcat -P -K: -H ... -z gzip`;
                                             timestamps are checked against the send window
  produce.py bulk BOOTSTRAP TOPIC PARTITIONS COUNT OUT [--value-bytes N] [--first I]
                 [--batch-records N]         COUNT uncompressed records round-robin over
                                             partitions 0..PARTITIONS-1
  produce.py watermarks BOOTSTRAP TOPIC PARTITIONS
                                             prints "PARTITION LOW HIGH" lines
OUT is appended to. Exits 1 when a delivery fails.
"""
import base64
import datetime
import json
import subprocess
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def b64(data):
    return None if data is None else base64.b64encode(data).decode("ascii")


def iso(ms):
    t = EPOCH + datetime.timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}Z"


def row(topic, partition, offset, key, value, timestamp, headers):
    return {
        "key": b64(key), "value": b64(value), "topic": topic, "partition": partition,
        "offset": offset, "timestamp": timestamp, "timestampType": 0,
        "headers": None if not headers else [{"key": k, "value": b64(v)} for k, v in headers],
    }


class Sender:
    """Produces through several producers and collects the expected rows from delivery reports."""

    def __init__(self, bootstrap, topic, configs):
        self.topic = topic
        self.producers = [Producer({"bootstrap.servers": bootstrap, **c}) for c in configs]
        self.rows, self.errors = [], []

    def send(self, producer_index, key, value, timestamp_ms, headers=None, partition=None):
        def delivered(err, msg):
            if err is not None:
                self.errors.append(f"{err} (key {key!r})")
                return
            self.rows.append(row(self.topic, msg.partition(), msg.offset(), key, value,
                                 iso(timestamp_ms), headers))
        kwargs = {"key": key, "value": value, "timestamp": timestamp_ms, "on_delivery": delivered}
        if headers:
            kwargs["headers"] = headers
        if partition is not None:
            kwargs["partition"] = partition
        p = self.producers[producer_index]
        while True:
            try:
                p.produce(self.topic, **kwargs)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)

    def finish(self, out_path):
        for p in self.producers:
            left = p.flush(30)
            if left:
                self.errors.append(f"{left} message(s) not delivered within 30 s")
        if self.errors:
            print("delivery failed: " + "; ".join(self.errors[:5]), file=sys.stderr)
            sys.exit(1)
        self.rows.sort(key=lambda r: (r["partition"], r["offset"]))
        with open(out_path, "a", encoding="utf-8") as out:
            for r in self.rows:
                out.write(json.dumps(r, ensure_ascii=False) + "\n")
        return self.rows


ALL_BYTES = bytes(range(256))
KEYS = [
    lambda i: None,                              # null key
    lambda i: b"",                               # empty key
    lambda i: b"key-%d" % i,
    lambda i: ALL_BYTES[i % 200:] + b"\x00",     # binary
    lambda i: ("ключ-%d-✓" % i).encode(),        # UTF-8
    lambda i: b"\xff\xfe\xc3(%d" % i,            # invalid UTF-8
]
VALUES = [
    lambda i: None,                              # tombstone
    lambda i: b"",
    lambda i: json.dumps({"n": i, "s": "x\"y\\z\n"}).encode(),
    lambda i: ALL_BYTES * (1 + i % 3),
    lambda i: ("значение %d — ü" % i).encode(),
    lambda i: b"\x00" * (i % 5),
    lambda i: bytes((i * 7 + j) % 256 for j in range(3000)),
]
TIMESTAMPS = [1, 999, 946684800000, 1700000000123, 1234567890987, 4102444799999, 253402300799999]
HEADERS = [
    lambda i: None,                                              # no headers: null column
    lambda i: [("nullvalue", None)],                             # a null header value
    lambda i: [("dup", b"first"), ("dup", b"second"), ("n", str(i).encode())],
    lambda i: [("bin", ALL_BYTES), ("empty", b"")],
    lambda i: [('quo"te\\back\nslash ü ✓', b"x"), ("\t", None)],
]


def mixed(bootstrap, topic, out_path):
    sender = Sender(bootstrap, topic, [
        {"enable.idempotence": True, "linger.ms": 0},
        {"enable.idempotence": True, "linger.ms": 20, "compression.codec": "zstd"},
        {"linger.ms": 20, "compression.codec": "snappy", "acks": "all"},
    ])
    count = 150
    for i in range(count):
        timestamp = TIMESTAMPS[i % len(TIMESTAMPS)]
        if timestamp < 10 ** 14:
            timestamp += i  # distinct per record, except the year-9999 maximum
        key = KEYS[i % len(KEYS)](i)
        # Every 10th keyed record lets the partitioner choose (by key hash: deterministic).
        partition = None if i % 10 == 9 and key is not None else i % 3
        sender.send(i % 3, key, VALUES[i % len(VALUES)](i), timestamp, HEADERS[i % len(HEADERS)](i),
                    partition)
    # One large record (200 KB) per partition.
    for p in range(3):
        sender.send(0, b"big-%d" % p, bytes((p + j) % 251 for j in range(200_000)),
                    1700000001000 + p, [("size", b"200000")], p)
    rows = sender.finish(out_path)
    print(f"produced {len(rows)} records: " + ", ".join(
        f"p{p}={sum(r['partition'] == p for r in rows)}" for p in range(3)))


def watermarks(bootstrap, topic, partitions):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "weir-kafka-test-wm"})
    out = {}
    for p in range(partitions):
        out[p] = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
    consumer.close()
    return out


KCAT_LINES = [
    ("kc-1", "v1"),
    (None, "no-delimiter-means-null-key"),
    ("", "empty-key"),
    ("kc-4", ""),
    ("kc-5", "value:with:colons"),
    ("ключ", "значение ✓"),
]
KCAT_HEADERS = [("source", b"kcat"), ("empty", b""), ("nullhdr", None)]


def kcat(bootstrap, topic, partition, out_path):
    before = watermarks(bootstrap, topic, partition + 1)[partition][1]
    text = "".join((v if k is None else f"{k}:{v}") + "\n" for k, v in KCAT_LINES)
    args = ["kcat", "-P", "-b", bootstrap, "-t", topic, "-p", str(partition), "-K:", "-z", "gzip"]
    for k, v in KCAT_HEADERS:
        args += ["-H", k if v is None else f"{k}={v.decode()}"]
    start_ms = int(time.time() * 1000)
    subprocess.run(args, input=text.encode(), check=True, timeout=30)
    end_ms = int(time.time() * 1000) + 1
    after = watermarks(bootstrap, topic, partition + 1)[partition][1]
    if after - before != len(KCAT_LINES):
        print(f"kcat: high watermark moved {before} -> {after}, expected +{len(KCAT_LINES)}",
              file=sys.stderr)
        sys.exit(1)
    with open(out_path, "a", encoding="utf-8") as out:
        for i, (k, v) in enumerate(KCAT_LINES):
            r = row(topic, partition, before + i, None if k is None else k.encode(), v.encode(),
                    {"between": [iso(start_ms), iso(end_ms)]}, KCAT_HEADERS)
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"kcat produced {len(KCAT_LINES)} records at {topic}-{partition} offsets "
          f"{before}..{after - 1}")


def bulk(bootstrap, topic, partitions, count, out_path, value_bytes=64, first=0, batch=100):
    sender = Sender(bootstrap, topic, [{"enable.idempotence": True, "linger.ms": 5,
                                        "batch.num.messages": batch}])
    for i in range(first, first + count):
        value = (b"value-%09d-" % i).ljust(value_bytes, bytes([97 + i % 26]))
        sender.send(0, b"k%d" % i, value, 1700000000000 + i, None, i % partitions)
    rows = sender.finish(out_path)
    print(f"produced {len(rows)} records to {topic}")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == "mixed":
        mixed(*args)
    elif cmd == "kcat":
        kcat(args[0], args[1], int(args[2]), args[3])
    elif cmd == "bulk":
        opts = {"--value-bytes": 64, "--first": 0, "--batch-records": 100}
        pos = []
        it = iter(args)
        for a in it:
            if a in opts:
                opts[a] = int(next(it))
            else:
                pos.append(a)
        bulk(pos[0], pos[1], int(pos[2]), int(pos[3]), pos[4], opts["--value-bytes"],
             opts["--first"], opts["--batch-records"])
    elif cmd == "watermarks":
        for p, (low, high) in watermarks(args[0], args[1], int(args[2])).items():
            print(p, low, high)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
