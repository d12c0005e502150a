#!/usr/bin/python3
"""Topic administration and producers for the real-Kafka tests (Debian's python3-confluent-kafka,
an independent client: librdkafka through Confluent's bindings, not weir).

usage: admin.py BOOTSTRAP COMMAND ...
  create TOPIC PARTITIONS [name=value ...]   a topic with topic configs (waits until it has leaders)
  alter TOPIC name=value ...                 changes topic configs (keeps the others)
  delete TOPIC
  watermarks TOPIC                           {"<partition>": [low, high], ...}
  produce TOPIC PARTITIONS COUNT [--ts-start MS --ts-step MS] [--first I] [--value-bytes N]
                                             COUNT records round-robin, key k<i>, value v<i>,
                                             CreateTime timestamps ts-start + i*ts-step if given;
                                             --sync 1: each record in a batch of its own
  txn TOPIC PARTITIONS PATTERN OUT            transactions: PATTERN is a string of c/a (commit /
                                             abort), each a transaction of 10 records per
                                             partition; OUT gets the committed records as JSON
                                             lines {partition, offset, key, value}
  compact TOPIC KEYS ROUNDS                   ROUNDS rounds of KEYS keys (value "<key>:<round>"),
                                             a tombstone for every third key in the last round
"""

import json
import sys
import time

from confluent_kafka import KafkaException, Producer, TopicPartition, Consumer
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic


def admin(bootstrap):
    return AdminClient({"bootstrap.servers": bootstrap})


def wait_leaders(bootstrap, topic, partitions):
    a = admin(bootstrap)
    for _ in range(100):
        md = a.list_topics(topic, timeout=10)
        t = md.topics.get(topic)
        if t and t.error is None and len(t.partitions) == partitions and all(
                p.leader >= 0 for p in t.partitions.values()):
            return
        time.sleep(0.1)
    raise SystemExit("topic %s has no leaders" % topic)


def create(bootstrap, topic, partitions, configs):
    conf = dict(kv.split("=", 1) for kv in configs)
    a = admin(bootstrap)  # kept alive until the future is done
    a.create_topics([NewTopic(topic, int(partitions), 1, config=conf)])[topic].result()
    wait_leaders(bootstrap, topic, int(partitions))


def alter(bootstrap, topic, configs):
    a = admin(bootstrap)
    resource = ConfigResource("topic", topic)
    current = a.describe_configs([resource])[resource].result()
    resource = ConfigResource("topic", topic)
    for name, entry in current.items():
        if not entry.is_default and not entry.is_read_only and entry.value is not None:
            resource.set_config(name, entry.value)
    for kv in configs:
        name, value = kv.split("=", 1)
        resource.set_config(name, value)
    a.alter_configs([resource])[resource].result()


def delete(bootstrap, topic):
    a = admin(bootstrap)
    a.delete_topics([topic])[topic].result()


def watermarks(bootstrap, topic):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "weir-test-watermarks"})
    md = c.list_topics(topic, timeout=10)
    out = {}
    for p in sorted(md.topics[topic].partitions):
        low, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
        out[str(p)] = [low, high]
    c.close()
    print(json.dumps(out))


def delivered(errors):
    def cb(err, msg):
        if err is not None:
            errors.append(str(err))
    return cb


def produce(bootstrap, topic, partitions, count, args):
    opts = dict(zip(args[::2], args[1::2]))
    ts_start = int(opts.get("--ts-start", "0"))
    ts_step = int(opts.get("--ts-step", "0"))
    first = int(opts.get("--first", "0"))
    value_bytes = int(opts.get("--value-bytes", "0"))
    sync = opts.get("--sync") == "1"  # one record per batch (each flushed alone)
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "enable.idempotence": True})
    errors = []
    for i in range(first, first + int(count)):
        value = ("v%d" % i).encode()
        if value_bytes:
            value = value.ljust(value_bytes, b".")
        kwargs = {}
        if ts_step or ts_start:
            kwargs["timestamp"] = ts_start + (i - first) * ts_step
        while True:
            try:
                p.produce(topic, key=("k%d" % i).encode(), value=value,
                          partition=i % int(partitions), on_delivery=delivered(errors), **kwargs)
                break
            except BufferError:
                p.poll(0.1)
        if sync:
            p.flush(30)
        p.poll(0)
    p.flush(60)
    if errors:
        raise SystemExit("produce failed: %s" % errors[:3])


def txn(bootstrap, topic, partitions, pattern, out_path):
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "weir-test-" + topic,
                  "linger.ms": 2})
    p.init_transactions(30)
    committed = []
    pending = []

    def cb(err, msg):
        if err is None:
            pending.append({"partition": msg.partition(), "offset": msg.offset(),
                            "key": msg.key().decode(), "value": msg.value().decode()})

    n = 0
    for t, kind in enumerate(pattern):
        p.begin_transaction()
        pending.clear()
        for i in range(10):
            for part in range(int(partitions)):
                p.produce(topic, key=("t%d-%d" % (t, part)).encode(),
                          value=("%s%d-%d-%d" % (kind, t, part, i)).encode(),
                          partition=part, on_delivery=cb)
                n += 1
        p.flush(30)
        if kind == "c":
            p.commit_transaction(30)
            committed.extend(pending)
        else:
            p.abort_transaction(30)
    with open(out_path, "w") as f:
        for r in sorted(committed, key=lambda r: (r["partition"], r["offset"])):
            f.write(json.dumps(r) + "\n")


def compact(bootstrap, topic, keys, rounds):
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for r in range(int(rounds)):
        for k in range(int(keys)):
            last = r == int(rounds) - 1
            value = None if (last and k % 3 == 0) else ("key%d:%d" % (k, r)).encode()
            p.produce(topic, key=("key%d" % k).encode(), value=value, partition=k % 2)
        p.flush(30)
        time.sleep(1.1)  # segment.ms: each round lands in a segment of its own


def main():
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        if command == "create":
            create(bootstrap, args[0], args[1], args[2:])
        elif command == "alter":
            alter(bootstrap, args[0], args[1:])
        elif command == "delete":
            delete(bootstrap, args[0])
        elif command == "watermarks":
            watermarks(bootstrap, args[0])
        elif command == "produce":
            produce(bootstrap, args[0], args[1], args[2], args[3:])
        elif command == "txn":
            txn(bootstrap, args[0], args[1], args[2], args[3])
        elif command == "compact":
            compact(bootstrap, args[0], args[1], args[2])
        else:
            raise SystemExit("unknown command " + command)
    except KafkaException as e:
        raise SystemExit("%s: %s" % (command, e))


if __name__ == "__main__":
    main()
