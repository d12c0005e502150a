#!/usr/bin/env python3
"""fastavro as the independent Avro writer and reader of tests/avro_test.sh.

usage:
  avro_peer.py write DIR [CODEC...]   writes DIR/everything-<codec>.avro for each codec (default:
                                      null, deflate, snappy, zstandard): every Avro type and
                                      logical type, several blocks each, plus edge values
  avro_peer.py compare TABLE FILE...  reads FILEs with fastavro, maps each value as Spark's
                                      spark-avro maps Avro to SQL types, and compares them value
                                      by value (rows matched by `id`) with the Delta table TABLE
                                      read by delta-rs (deltalake + pyarrow); exits 1 listing the
                                      first differences
  avro_peer.py capture DIR            writes an Event Hubs Capture-shaped folder tree under DIR
                                      (namespace/hub/partition/yyyy/mm/dd/hh/mm/ss.avro, deflate,
                                      Capture's EventData schema) and DIR/expected.json, the Kafka
                                      source rows weir should make of it
  avro_peer.py compare-capture TABLE EXPECTED
  avro_peer.py spark-compare TABLE JARS FILE... [--weir WEIR WORKDIR]
                                      Spark with spark-avro as the reference: its schema of the
                                      files (SchemaConverters.toSqlType) is the table's, and its
                                      rows of the files are the table's (JARS: Delta Lake's and
                                      spark-avro's jars); with --weir, Spark also writes the rows
                                      as Avro (snappy), weir loads them, and the same holds for
                                      Spark's files
"""
import datetime as dt
import decimal
import json
import math
import os
import random
import sys
import uuid

import fastavro

decimal.getcontext().prec = 80  # 38-digit decimals without rounding
UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
EPOCH_NAIVE = dt.datetime(1970, 1, 1)

INNER = {"type": "record", "name": "Inner", "fields": [
    {"name": "x", "type": "int"},
    {"name": "tags", "type": {"type": "array", "items": "string"}}]}

SCHEMA = {
    "type": "record", "name": "Everything", "namespace": "weir.test",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "by", "type": "bytes"},
        {"name": "s", "type": "string"},
        {"name": "e", "type": {"type": "enum", "name": "Suit", "symbols": ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "Md5", "size": 16}},
        {"name": "arr", "type": {"type": "array", "items": "int"}},
        {"name": "arr_n", "type": {"type": "array", "items": ["null", "string"]}},
        {"name": "m", "type": {"type": "map", "values": "long"}},
        {"name": "m_n", "type": {"type": "map", "values": ["null", "double"]}},
        {"name": "rec", "type": INNER},
        {"name": "rec_n", "type": ["null", "Inner"]},
        {"name": "n_i", "type": ["null", "int"]},
        {"name": "n_s", "type": ["string", "null"]},
        {"name": "u", "type": ["null", "int", "string", "Inner"]},
        {"name": "u2", "type": ["long", "bytes"]},
        {"name": "il", "type": ["int", "long"]},
        {"name": "fd", "type": ["float", "double"]},
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tmil", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tmic", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "ltsm", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "ltsu", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "decb", "type": {"type": "bytes", "logicalType": "decimal", "precision": 18, "scale": 4}},
        {"name": "decf", "type": {"type": "fixed", "name": "Dec38", "size": 16, "logicalType": "decimal",
                                  "precision": 38, "scale": 6}},
        {"name": "dec_n", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 2}]},
        {"name": "uuid", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "nested", "type": {"type": "map", "values": {"type": "array", "items": ["null", "Inner"]}}},
    ]}

CODECS = ["null", "deflate", "snappy", "zstandard"]
ROWS_PER_FILE = 700


def rand_text(r, n):
    alphabet = "abcxyz019 é€😀\"\\\n\t"
    return "".join(r.choice(alphabet) for _ in range(r.randint(0, n)))


def rand_inner(r):
    return {"x": r.randint(-2**31, 2**31 - 1), "tags": [rand_text(r, 6) for _ in range(r.randint(0, 3))]}


def rand_ts(r, precision_us):
    us = r.randint(-2208988800 * 10**6, 4102444800 * 10**6)  # 1900 .. 2100
    return us - us % precision_us


def make_row(r, row_id, edge):
    """A random record; `edge` 0..3 picks extreme values for the first rows of a file."""
    int_edges = [-2**31, 2**31 - 1, 0, -1]
    long_edges = [-2**63, 2**63 - 1, 0, 1]
    float_edges = [float("nan"), float("inf"), -0.0, 3.4028234663852886e38]
    double_edges = [float("-inf"), float("nan"), 5e-324, -1.7976931348623157e308]
    ts_m = rand_ts(r, 1000)
    ts_u = rand_ts(r, 1)
    row = {
        "id": row_id,
        "b": r.random() < 0.5,
        "i": int_edges[edge] if edge is not None else r.randint(-2**31, 2**31 - 1),
        "l": long_edges[edge] if edge is not None else r.randint(-2**63, 2**63 - 1),
        "f": float_edges[edge] if edge is not None else r.uniform(-1e6, 1e6),
        "d": double_edges[edge] if edge is not None else r.uniform(-1e300, 1e300),
        "by": bytes(r.randint(0, 255) for _ in range(r.randint(0, 20))),
        "s": rand_text(r, 30),
        "e": r.choice(["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]),
        "fx": bytes(r.randint(0, 255) for _ in range(16)),
        "arr": [r.randint(-1000, 1000) for _ in range(r.randint(0, 5))],
        "arr_n": [None if r.random() < 0.3 else rand_text(r, 5) for _ in range(r.randint(0, 4))],
        "m": {rand_text(r, 4) + str(k): r.randint(-2**63, 2**63 - 1) for k in range(r.randint(0, 4))},
        "m_n": {"k%d" % k: (None if r.random() < 0.3 else r.random()) for k in range(r.randint(0, 3))},
        "rec": rand_inner(r),
        "rec_n": None if r.random() < 0.4 else rand_inner(r),
        "n_i": None if r.random() < 0.4 else r.randint(-2**31, 2**31 - 1),
        "n_s": None if r.random() < 0.4 else rand_text(r, 8),
        "u": r.choice([None, r.randint(-5, 5), rand_text(r, 4), rand_inner(r)]),
        "u2": r.choice([r.randint(-2**63, 2**63 - 1), bytes([1, 2, 3])]),
        "il": r.choice([r.randint(-2**31, 2**31 - 1), r.randint(2**40, 2**50)]),
        "fd": r.choice([0.5, r.uniform(-1, 1)]),
        "date": dt.date(1970, 1, 1) + dt.timedelta(days=r.randint(-719162, 2932896)),  # 0001-01-01 .. 9999-12-31
        "tmil": dt.time(r.randint(0, 23), r.randint(0, 59), r.randint(0, 59), r.randint(0, 999) * 1000),
        "tmic": dt.time(r.randint(0, 23), r.randint(0, 59), r.randint(0, 59), r.randint(0, 999999)),
        "tsm": EPOCH + dt.timedelta(microseconds=ts_m),
        "tsu": EPOCH + dt.timedelta(microseconds=ts_u),
        "ltsm": EPOCH_NAIVE + dt.timedelta(microseconds=ts_m),
        "ltsu": EPOCH_NAIVE + dt.timedelta(microseconds=ts_u),
        "decb": decimal.Decimal(r.randint(-10**18 + 1, 10**18 - 1)).scaleb(-4),
        "decf": decimal.Decimal(r.choice([10**38 - 1, -(10**38 - 1), r.randint(-10**38 + 1, 10**38 - 1)])).scaleb(-6),
        "dec_n": None if r.random() < 0.3 else decimal.Decimal(r.randint(-99999, 99999)).scaleb(-2),
        "uuid": str(uuid.UUID(int=r.getrandbits(128))),
        "nested": {"n%d" % k: [None if r.random() < 0.3 else rand_inner(r) for _ in range(r.randint(0, 2))]
                   for k in range(r.randint(0, 2))},
    }
    if edge == 0:  # the smallest dates and timestamps, and the empty collections
        row.update(date=dt.date(1, 1, 1), tsu=dt.datetime(1, 1, 1, tzinfo=UTC), ltsu=dt.datetime(1, 1, 1),
                   arr=[], m={}, s="", by=b"")
    if edge == 1:
        row.update(date=dt.date(9999, 12, 31), tsu=dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
                   tmic=dt.time(23, 59, 59, 999999))
    return row


def write(out_dir, codecs):
    os.makedirs(out_dir, exist_ok=True)
    parsed = fastavro.parse_schema(SCHEMA)
    for n, codec in enumerate(codecs):
        r = random.Random(1000 + n)
        rows = [make_row(r, n * 100000 + k, k if k < 4 else None) for k in range(ROWS_PER_FILE)]
        with open(os.path.join(out_dir, "everything-%s.avro" % codec), "wb") as f:
            # A small sync interval: many blocks per file.
            fastavro.writer(f, parsed, rows, codec=codec, sync_interval=8000)


# ---- The Spark value of each Avro value (spark-avro's AvroDeserializer), in a canonical form the
# Delta side is normalized to as well: timestamps as microseconds, maps as dicts, NaN as "NaN".

def micros(v):
    if v.tzinfo is None:
        return (v - EPOCH_NAIVE) // dt.timedelta(microseconds=1)
    return (v - EPOCH) // dt.timedelta(microseconds=1)


def canon_float(v):
    return "NaN" if isinstance(v, float) and math.isnan(v) else v


def named(schema, names):
    if isinstance(schema, str) and schema in names:
        return names[schema]
    return schema


def spark_value(schema, v, names):
    schema = named(schema, names)
    if isinstance(schema, list):  # union
        non_null = [named(s, names) for s in schema if s != "null"]
        if v is None:
            return None
        kinds = sorted(s if isinstance(s, str) else s["type"] for s in non_null)
        if len(non_null) == 1 or kinds in (["int", "long"], ["double", "float"]):
            if len(non_null) == 1:
                return spark_value(non_null[0], v, names)
            return canon_float(float(v)) if kinds == ["double", "float"] else int(v)
        # STRUCT<member0, ...>: the branch is the one whose Python type the value has.
        out = {}
        chosen = None
        for k, s in enumerate(non_null):
            t = s if isinstance(s, str) else s["type"]
            fits = {"int": isinstance(v, int) and not isinstance(v, bool), "long": isinstance(v, int),
                    "string": isinstance(v, str), "bytes": isinstance(v, bytes),
                    "record": isinstance(v, dict)}.get(t, False)
            if fits and chosen is None:
                chosen = k
                out["member%d" % k] = spark_value(s, v, names)
            else:
                out["member%d" % k] = None
        return out
    if isinstance(schema, dict):
        t = schema["type"]
        lt = schema.get("logicalType")
        if t == "record":
            return {f["name"]: spark_value(f["type"], v[f["name"]], names) for f in schema["fields"]}
        if t == "array":
            return [spark_value(schema["items"], x, names) for x in v]
        if t == "map":
            return {k: spark_value(schema["values"], x, names) for k, x in v.items()}
        if lt in ("timestamp-millis", "timestamp-micros", "local-timestamp-millis", "local-timestamp-micros"):
            return micros(v)
        if lt in ("time-millis", "time-micros"):  # Spark: INT / BIGINT of the raw value
            us = ((v.hour * 60 + v.minute) * 60 + v.second) * 10**6 + v.microsecond
            return us // 1000 if lt == "time-millis" else us
        if lt == "uuid":
            return str(v)
        if lt == "decimal":
            return decimal.Decimal(v)
        if t in ("enum", "fixed", "string", "bytes", "int", "long", "boolean", "date"):
            return v
        return spark_value(t, v, names)
    if schema in ("float", "double"):
        return canon_float(v)
    return v


def collect_names(schema, names):
    if isinstance(schema, list):
        for s in schema:
            collect_names(s, names)
    elif isinstance(schema, dict):
        if schema.get("type") in ("record", "enum", "fixed"):
            names[schema["name"]] = schema
            for f in schema.get("fields", []):
                collect_names(f["type"], names)
        for key in ("items", "values"):
            if key in schema:
                collect_names(schema[key], names)


def canon_arrow(typ, v):
    import pyarrow as pa
    if v is None:
        return None
    if pa.types.is_timestamp(typ):
        return micros(v)
    if pa.types.is_map(typ):
        return {k: canon_arrow(typ.item_type, x) for k, x in v}
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        return [canon_arrow(typ.value_type, x) for x in v]
    if pa.types.is_struct(typ):
        return {typ.field(i).name: canon_arrow(typ.field(i).type, v[typ.field(i).name]) for i in range(typ.num_fields)}
    if pa.types.is_floating(typ):
        return canon_float(v)
    if pa.types.is_binary(typ) or pa.types.is_large_binary(typ) or pa.types.is_fixed_size_binary(typ):
        return bytes(v)
    return v


def read_table(path):
    from deltalake import DeltaTable
    table = DeltaTable(path).to_pyarrow_table()
    rows = []
    for row in table.to_pylist():
        rows.append({f.name: canon_arrow(f.type, row[f.name]) for f in table.schema})
    return rows, table.schema


def diff(expected, actual, limit=10):
    problems = []
    for key in sorted(set(expected) | set(actual), key=str):
        if key not in actual:
            problems.append("row %s missing from the table" % (key,))
        elif key not in expected:
            problems.append("row %s in the table but not in the files" % (key,))
        else:
            e, a = expected[key], actual[key]
            for col in e:
                if e[col] != a.get(col):
                    problems.append("row %s column %s: files %r, table %r" % (key, col, e[col], a.get(col)))
        if len(problems) >= limit:
            break
    return problems


def compare(table, files):
    expected = {}
    for path in files:
        with open(path, "rb") as f:
            reader = fastavro.reader(f)
            schema = reader.writer_schema
            names = {}
            collect_names(schema, names)
            for rec in reader:
                expected[rec["id"]] = {fd["name"]: spark_value(fd["type"], rec[fd["name"]], names)
                                       for fd in schema["fields"]}
    rows, arrow_schema = read_table(table)
    actual = {row["id"]: row for row in rows}
    problems = diff(expected, actual)
    values = sum(len(r) for r in expected.values())
    if problems:
        print("\n".join(problems))
        return 1
    print("equal: %d rows, %d values (%d columns)" % (len(expected), values, len(arrow_schema)))
    return 0


# ---- Event Hubs Capture

CAPTURE_SCHEMA = {
    "type": "record", "name": "EventData", "namespace": "Microsoft.ServiceBus.Messaging",
    "fields": [
        {"name": "SequenceNumber", "type": "long"},
        {"name": "Offset", "type": "string"},
        {"name": "EnqueuedTimeUtc", "type": "string"},
        {"name": "SystemProperties", "type": {"type": "map", "values": ["long", "double", "string", "bytes"]}},
        {"name": "Properties", "type": {"type": "map", "values": ["long", "double", "string", "bytes", "null"]}},
        {"name": "Body", "type": ["null", "bytes"]},
    ]}


def capture_time(t):
    # Capture's EnqueuedTimeUtc: "8/31/2017 7:12:14 PM" (M/d/yyyy h:mm:ss tt, UTC).
    hour12 = t.hour % 12 or 12
    return "%d/%d/%d %d:%02d:%02d %s" % (t.month, t.day, t.year, hour12, t.minute, t.second,
                                         "AM" if t.hour < 12 else "PM")


def header_value(v):
    if v is None:
        return None
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, float):
        return repr(v).encode()
    return str(v).encode()


def capture(out_dir):
    r = random.Random(7)
    parsed = fastavro.parse_schema(CAPTURE_SCHEMA)
    expected = []
    hub = "telemetry"
    for partition in range(3):
        seq = 1000 * partition
        for hour in (22, 23, 0):
            day = 31 if hour else 1
            month = 12 if hour else 1
            year = 2025 if hour else 2026
            start = dt.datetime(year, month, day, hour, 0, 0, tzinfo=UTC)
            folder = os.path.join(out_dir, "myns", hub, str(partition), "%04d" % year, "%02d" % month,
                                  "%02d" % day, "%02d" % hour, "05")
            os.makedirs(folder, exist_ok=True)
            events = []
            # One empty window (Capture writes empty files when asked to).
            for k in range(0 if (hour == 23 and partition == 1) else r.randint(1, 40)):
                seq += 1
                t = start + dt.timedelta(minutes=5, seconds=r.randint(0, 3000))
                sysprops = {"x-opt-sequence-number": seq, "x-opt-offset": str(seq * 1024),
                            "x-opt-enqueued-time": int((t - EPOCH).total_seconds() * 1000)}
                if r.random() < 0.7:
                    sysprops["x-opt-partition-key"] = "device-%d" % r.randint(0, 9)
                props = {}
                for j in range(r.randint(0, 3)):
                    props["p%d" % j] = r.choice([r.randint(-99, 99), 0.25, "text é", b"\x00\x01", None])
                body = None if r.random() < 0.1 else json.dumps({"n": seq, "v": r.random()}).encode()
                events.append({"SequenceNumber": seq, "Offset": str(seq * 1024), "EnqueuedTimeUtc": capture_time(t),
                               "SystemProperties": sysprops, "Properties": props, "Body": body})
                key = sysprops.get("x-opt-partition-key")
                expected.append({
                    "key": key.encode().hex() if key is not None else None,
                    "value": body.hex() if body is not None else None,
                    "topic": hub, "partition": partition, "offset": seq,
                    "timestamp": (t.replace(microsecond=0) - EPOCH) // dt.timedelta(microseconds=1),
                    "timestampType": 1,
                    "headers": None if not props else sorted(
                        [k, None if header_value(v) is None else header_value(v).hex()] for k, v in props.items()),
                })
            with open(os.path.join(folder, "%02d.avro" % r.randint(0, 59)), "wb") as f:
                fastavro.writer(f, parsed, events, codec="deflate", sync_interval=2000)
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f)
    print("capture: %d events in %d files" % (len(expected), 9))


def compare_capture(table, expected_path):
    with open(expected_path) as f:
        expected = {(e["partition"], e["offset"]): e for e in json.load(f)}
    rows, _ = read_table(table)
    actual = {}
    for row in rows:
        hexed = dict(row)
        hexed["key"] = row["key"].hex() if row["key"] is not None else None
        hexed["value"] = row["value"].hex() if row["value"] is not None else None
        hexed["headers"] = None if row["headers"] is None else sorted(
            [h["key"], None if h["value"] is None else h["value"].hex()] for h in row["headers"])
        actual[(row["partition"], row["offset"])] = hexed
    problems = diff(expected, actual)
    if problems:
        print("\n".join(problems))
        return 1
    print("equal: %d capture events" % len(expected))
    return 0


def spark_compare(table, jars, files, weir_bin=None, work=None):
    """Spark itself (spark-avro) as the reference: its schema of the files (SchemaConverters, with
    nullability) must be weir's table schema, and its rows of the files weir's table's rows. With
    weir_bin, Spark also writes the rows as Avro (snappy, its default), weir loads
    Spark's files into new tables, and those must equal Spark's reading of its files too."""
    import glob
    import subprocess
    import time
    os.environ["TZ"] = "UTC"
    time.tzset()
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").appName("weir-avro")
             .config("spark.jars", ",".join(sorted(glob.glob(os.path.join(jars, "*.jar")))))
             .config("spark.driver.memory", "1g")
             .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
             .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.host", "127.0.0.1")
             # Files not written by Spark: values as written (proleptic Gregorian), as weir reads them.
             .config("spark.sql.avro.datetimeRebaseModeInRead", "CORRECTED")
             .config("spark.sql.avro.datetimeRebaseModeInWrite", "CORRECTED")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    problems = []
    jvm = spark._jvm
    from deltalake import DeltaTable

    def same_schema(avro_file, table_path, what):
        with open(avro_file, "rb") as f:
            writer_schema = json.dumps(fastavro.reader(f).writer_schema)
        avro_schema = jvm.org.apache.avro.Schema.Parser().parse(writer_schema)
        spark_type = jvm.org.apache.spark.sql.avro.SchemaConverters.toSqlType(avro_schema).dataType().json()
        table_type = json.loads(DeltaTable(table_path).schema().to_json())
        if json.loads(spark_type) != table_type:
            problems.append("%s: schema: spark-avro %s\n        weir's table %s"
                            % (what, spark_type, json.dumps(table_type)))

    # weir's table: its schema from the Delta log, its rows from its Parquet files (Spark's Delta
    # reader is not asked: the point is the Avro mapping, not the table's protocol).
    same_schema(files[0], table, "fastavro's files")
    weir = spark.read.parquet(*DeltaTable(table).file_uris())
    def rows(df):
        # Timestamps as microseconds in Spark: Python's datetime cannot hold all of them.
        from pyspark.sql import functions as F, types as T
        cols = []
        for f in df.schema.fields:
            if isinstance(f.dataType, T.TimestampType):
                cols.append(F.unix_micros(F.col(f.name)).alias(f.name))
            elif isinstance(f.dataType, T.TimestampNTZType):
                cols.append(F.unix_micros(F.col(f.name).cast("timestamp")).alias(f.name))
            else:
                cols.append(F.col(f.name))
        out = {}
        for row in df.select(*cols).collect():
            d = row.asDict(recursive=True)
            out[d["id"]] = {k: canon_spark(v) for k, v in d.items()}
        return out
    problems += diff(rows(spark.read.format("avro").load(files)), rows(weir))
    if weir_bin:
        for codec in ("snappy",):  # Spark's default (fastavro's files cover the other codecs)
            out = os.path.join(work, "spark-written-" + codec)
            (spark.read.format("avro").load(files).write.format("avro").option("compression", codec)
             .mode("overwrite").save(out))
            target = os.path.join(work, "from-spark-" + codec)
            r = subprocess.run([weir_bin, "table", "append", target, "--input", out, "--format", "avro",
                                "--create"], capture_output=True, text=True)
            if r.returncode != 0:
                problems.append("weir table append of Spark's %s files: %s" % (codec, r.stderr.strip()))
                continue
            written = sorted(glob.glob(os.path.join(out, "*.avro")))
            same_schema(written[0], target, "Spark's %s files" % codec)
            problems += diff(rows(spark.read.format("avro").load(out)),
                             rows(spark.read.parquet(*DeltaTable(target).file_uris())))
    spark.stop()
    if problems:
        print("\n".join(problems))
        return 1
    print("Spark reads the files as weir's table holds them" +
          (", and weir loads Spark's own Avro files as Spark reads them" if weir_bin else ""))
    return 0


def canon_spark(v):
    if isinstance(v, dt.datetime):
        return micros(v if v.tzinfo is None else v.astimezone(UTC))
    if isinstance(v, dict):
        return {k: canon_spark(x) for k, x in v.items()}
    if isinstance(v, list):
        return [canon_spark(x) for x in v]
    if isinstance(v, bytearray):
        return bytes(v)
    return canon_float(v)


def main(argv):
    if len(argv) >= 2 and argv[0] == "write":
        write(argv[1], argv[2:] or CODECS)
        return 0
    if len(argv) >= 3 and argv[0] == "compare":
        return compare(argv[1], argv[2:])
    if len(argv) >= 2 and argv[0] == "capture":
        capture(argv[1])
        return 0
    if len(argv) >= 4 and argv[0] == "spark-compare":
        weir_bin = work = None
        if "--weir" in argv:
            i = argv.index("--weir")
            weir_bin, work = argv[i + 1], argv[i + 2]
            argv = argv[:i] + argv[i + 3:]
        return spark_compare(argv[1], argv[2], argv[3:], weir_bin, work)
    if len(argv) == 3 and argv[0] == "compare-capture":
        return compare_capture(argv[1], argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
