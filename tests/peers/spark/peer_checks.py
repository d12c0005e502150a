"""Apache Spark (with Delta Lake) and delta-rs as peers of weir, in ONE SparkSession for the suite.

Run by tests/spark_peer_test.sh with the virtual environment of scripts/install-python-peers.sh:
    python peer_checks.py --weir BIN --work DIR --bootstrap HOST:PORT --jars DIR [--cases "a b"]
Cases (all by default):
    weir_tables  Spark and delta-rs read the tables weir writes (bronze, silver, quarantine, a
                 partitioned table, after OPTIMIZE, VACUUM, a checkpoint, a MERGE flow,
                 auto-compaction) and get exactly weir's rows; DESCRIBE HISTORY lists weir's versions
    concurrent   Spark and weir append to one table at the same time; delta-rs and weir too
    spark_tables weir reads, appends to and merges into tables Spark creates (defaults, deletion
                 vectors, column mapping, change data feed, liquid clustering): the result reads
                 back identically in Spark, or weir refuses naming the table feature
    deltars      weir reads and appends to tables delta-rs writes
    handover     a Spark Structured Streaming Kafka -> Delta query, continued by `weir run` from
                 the same checkpoint and then by Spark again: no gap, no duplicate; a stateful Spark
                 checkpoint (dropDuplicates) is refused by weir
Rows are compared as canonical JSON (per the table's Spark schema), sorted, with a SHA-256 over
all of them; a difference prints the first rows that differ. Prints "FAIL: ..." per failed check
and "spark_peer: N passed, N failed" at the end; exits 1 on any failure.
"""

import argparse
import base64
import datetime as dt
import decimal
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import traceback

ap = argparse.ArgumentParser()
ap.add_argument("--weir", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--bootstrap", required=True)
ap.add_argument("--kafka", default="", help="Apache Kafka (PLAINTEXT) for the handover case")
ap.add_argument("--jars", required=True)
ap.add_argument("--cases", default="")
args = ap.parse_args()
WEIR = args.weir
WORK = args.work
BOOTSTRAP = args.bootstrap  # weir broker
KAFKA = args.kafka  # Apache Kafka
CASES = args.cases.split()

passed = 0
failed = 0


def log(msg):
    print(f"spark_peer: {msg}", flush=True)


def check(name, fn, *a):
    """Runs fn(*a); a falsy or None return or no exception is a pass. fn may return a string
    (an explanation) or raise AssertionError with one."""
    global passed, failed
    try:
        r = fn(*a)
        ok = r is None or r is True
        detail = "" if ok else str(r)
    except Exception as e:  # noqa: BLE001 - every error is a failed check, with its text
        ok = False
        detail = "".join(traceback.format_exception_only(type(e), e)).strip()
        if not isinstance(e, AssertionError):
            detail += "\n" + "".join(traceback.format_tb(e.__traceback__)[-3:])
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}", flush=True)
        for line in detail.splitlines()[:25]:
            print(f"    {line}", flush=True)


def wanted(case):
    return not CASES or case in CASES


def weir(*argv, ok=True, **kw):
    """Runs weir; returns CompletedProcess. ok=True raises with its stderr when it fails."""
    p = subprocess.run([WEIR, *map(str, argv)], capture_output=True, text=True, **kw)
    if ok and p.returncode != 0:
        raise AssertionError(f"weir {' '.join(map(str, argv))} exited {p.returncode}:\n"
                             f"{p.stderr[-3000:]}")
    return p


# --- Spark ------------------------------------------------------------------------------------------

os.environ["TZ"] = "UTC"
time.tzset()
t0 = time.time()
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import types as T  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

spark = (SparkSession.builder.master("local[2]").appName("weir-peers")
         .config("spark.jars", ",".join(sorted(glob.glob(os.path.join(args.jars, "*.jar")))))
         .config("spark.driver.memory", "1g")
         .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
         .config("spark.sql.catalog.spark_catalog",
                 "org.apache.spark.sql.delta.catalog.DeltaCatalog")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.databricks.delta.snapshotPartitions", "2")
         .config("spark.sql.warehouse.dir", os.path.join(WORK, "spark-warehouse"))
         .config("spark.driver.host", "127.0.0.1")
         .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
         .getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
log(f"SparkSession {spark.version} up in {time.time() - t0:.1f} s")

from deltalake import DeltaTable, write_deltalake  # noqa: E402
import pyarrow as pa  # noqa: E402


# --- canonical rows ----------------------------------------------------------------------------------

def _ts(v, ntz=False):
    if v is None:
        return None
    if isinstance(v, str):
        s = v.replace(" ", "T")
        if s.endswith("Z"):
            s = s[:-1] + "+00:00"
        v = dt.datetime.fromisoformat(s)
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return v.strftime("%Y-%m-%dT%H:%M:%S.%f")


def canon(v, t):
    """A value of Spark type t from Spark (collect), delta-rs (pyarrow to_pylist) or weir (JSON
    lines of `weir table scan`) as one canonical JSON-able value."""
    if v is None:
        return None
    if isinstance(t, T.StructType):
        if not isinstance(v, dict):
            v = v.asDict(recursive=False)
        return {f.name: canon(v.get(f.name), f.dataType) for f in t.fields}
    if isinstance(t, T.ArrayType):
        return [canon(x, t.elementType) for x in v]
    if isinstance(t, T.MapType):
        items = v.items() if isinstance(v, dict) else v
        out = [[canon(k, t.keyType), canon(x, t.valueType)] for k, x in items]
        return sorted(out, key=lambda kv: json.dumps(kv, sort_keys=True))
    if isinstance(t, T.DecimalType):
        q = decimal.Decimal(1).scaleb(-t.scale)
        return str(decimal.Decimal(str(v)).quantize(q))
    if isinstance(t, T.TimestampNTZType):
        return _ts(v, ntz=True)
    if isinstance(t, T.TimestampType):
        return _ts(v)
    if isinstance(t, T.DateType):
        return v if isinstance(v, str) else v.isoformat()
    if isinstance(t, T.BinaryType):
        return v if isinstance(v, str) else base64.b64encode(bytes(v)).decode()
    if isinstance(t, (T.FloatType, T.DoubleType)):
        return repr(float(v))
    if isinstance(t, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return int(v)
    if isinstance(t, T.BooleanType):
        return bool(v)
    return str(v)


def canon_rows(rows, schema):
    out = [json.dumps(canon(r, schema), sort_keys=True, separators=(",", ":")) for r in rows]
    out.sort()
    return out


def digest(rows):
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]


def spark_df(path):
    return spark.read.format("delta").load(path)


def spark_rows(path):
    df = spark_df(path)
    return canon_rows(df.collect(), df.schema), df.schema


def weir_rows(path, schema):
    p = weir("table", "scan", path, "--format", "jsonl")
    return canon_rows([json.loads(line) for line in p.stdout.splitlines() if line.strip()], schema)


def deltars_rows(path, schema):
    return canon_rows(DeltaTable(path).to_pyarrow_table().to_pylist(), schema)


def same_rows(a, b, what_a, what_b):
    if a == b:
        return None
    sa, sb = set(a), set(b)
    only_a = sorted(sa - sb)[:3]
    only_b = sorted(sb - sa)[:3]
    return (f"{what_a}: {len(a)} rows (sha {digest(a)}), {what_b}: {len(b)} rows (sha {digest(b)})\n"
            f"only in {what_a}: {only_a}\nonly in {what_b}: {only_b}")


def spark_reads_like_weir(path, min_rows=1):
    s, schema = spark_rows(path)
    w = weir_rows(path, schema)
    if len(w) < min_rows:
        return f"weir scans only {len(w)} rows"
    return same_rows(s, w, "Spark", "weir")


def deltars_reads_like_weir(path):
    schema = spark_df(path).schema
    return same_rows(deltars_rows(path, schema), weir_rows(path, schema), "delta-rs", "weir")


def history_matches(path):
    spark_versions = sorted(r["version"] for r in
                            spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect())
    p = weir("table", "history", path, "--format", "jsonl")
    weir_versions = sorted(json.loads(line)["version"] for line in p.stdout.splitlines() if line)
    if spark_versions != weir_versions or not spark_versions:
        return f"Spark's DESCRIBE HISTORY versions {spark_versions} != weir's {weir_versions}"


def spark_readable(path, expect_rows=None):
    n = spark_df(path).count()
    if expect_rows is not None and n != expect_rows:
        return f"Spark counts {n} rows, expected {expect_rows}"


def all_readers_agree(label, path, history=True):
    check(f"{label}: Spark reads exactly weir's rows", spark_reads_like_weir, path)
    check(f"{label}: delta-rs reads exactly weir's rows", deltars_reads_like_weir, path)
    if history:
        check(f"{label}: Spark's DESCRIBE HISTORY lists weir's versions", history_matches, path)


def write_jsonl(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return path


def copy_table(src, dst):
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    return dst


def produce(topic, count, seed, bootstrap=None, **extra):
    argv = ["produce", "--bootstrap", bootstrap or BOOTSTRAP, "--topic", topic, "--count", count,
            "--seed", seed]
    for k, v in extra.items():
        argv += [f"--{k}", v]
    weir(*argv)


BRONZE_SQL = """
CREATE OR REFRESH STREAMING TABLE {name} {clauses} AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(bootstrapServers => '{bootstrap}', subscribe => '{topic}',
                       startingOffsets => 'earliest', maxOffsetsPerTrigger => '{max}');
"""


def run_pipeline(sql_text, lake, name, trigger="availableNow", ok=True, bootstrap=None):
    f = os.path.join(WORK, f"{name}.sql")
    with open(f, "w") as out:
        out.write(sql_text)
    return weir("run", f, "--lakehouse", lake, "--trigger", trigger, "--set",
                f"bootstrap={bootstrap or BOOTSTRAP}", ok=ok)


def live_paths(path):
    return {f for f in DeltaTable(path).file_uris()}


# --- 1. the tables weir writes ------------------------------------------------------------------------

def case_weir_tables():
    lake = os.path.join(WORK, "weir-lake")
    produce("orders", 20000, 1, duplicates=0.05, malformed=0.02, late=0.02)
    src = os.path.join(os.environ["WEIR_SOURCE_DIR"], "examples", "orders.sql")
    weir("run", src, "--lakehouse", lake, "--trigger", "availableNow", "--set",
         f"bootstrap={BOOTSTRAP}")
    produce("orders", 5000, 2, duplicates=0.05, malformed=0.02)
    weir("run", src, "--lakehouse", lake, "--trigger", "availableNow", "--set",
         f"bootstrap={BOOTSTRAP}")
    bronze = f"{lake}/sales/bronze/orders_raw"
    silver = f"{lake}/sales/silver/orders"
    quarantine = f"{lake}/sales/silver/orders_quarantine"
    check("bronze holds all 25000 events", spark_readable, bronze, 25000)
    all_readers_agree("bronze (examples/orders.sql, two runs)", bronze)
    all_readers_agree("silver", silver)
    check("quarantine has rows", lambda: None if spark_df(quarantine).count() > 0 else "empty")
    all_readers_agree("quarantine", quarantine)

    # A streaming table partitioned by the Kafka partition, an auto-compacted one, and a MERGE
    # flow (upsert on the order id), in small batches.
    sql = ("SET spark.databricks.delta.autoCompact.minNumFiles = 4;\n"
           + BRONZE_SQL.format(name="peers.bronze.by_partition", clauses="PARTITIONED BY (eh_partition)",
                               bootstrap=BOOTSTRAP, topic="orders", max=4000)
           + BRONZE_SQL.format(name="peers.bronze.compacted",
                               clauses="TBLPROPERTIES ('delta.autoOptimize.autoCompact' = 'true')",
                               bootstrap=BOOTSTRAP, topic="orders", max=1500)
           + BRONZE_SQL.format(name="peers.silver.latest",
                               clauses="MERGE ON (partition_key) WHEN MATCHED THEN UPDATE SET *",
                               bootstrap=BOOTSTRAP, topic="orders", max=3000))
    run_pipeline(sql, lake, "peers")
    part = f"{lake}/peers/bronze/by_partition"
    compacted = f"{lake}/peers/bronze/compacted"
    latest = f"{lake}/peers/silver/latest"
    all_readers_agree("a table partitioned by eh_partition", part)
    check("auto-compaction ran (OPTIMIZE in the history)",
          lambda: None if any(r["operation"] == "OPTIMIZE" for r in
                              spark.sql(f"DESCRIBE HISTORY delta.`{compacted}`").collect())
          else "no OPTIMIZE commit")
    all_readers_agree("an auto-compacted streaming table", compacted)
    check("the MERGE flow keeps one row per key",
          lambda: None if spark_df(latest).count() == spark_df(latest).select("partition_key").distinct().count()
          else "duplicate keys")
    all_readers_agree("a MERGE ON ... UPDATE SET * flow", latest)

    # Partition values that need escaping, dates, timestamps, decimals, binary, maps, nulls.
    odd = os.path.join(WORK, "weir-odd")
    rows = []
    regions = ["eu west", "a:b/c=d", "ü€😀", "%25 literal", None, "plain"]
    for i in range(600):
        rows.append({"id": i, "region": regions[i % len(regions)],
                     "day": f"2026-06-{1 + i % 3:02d}",
                     "ts": f"2026-06-08T09:{i % 60:02d}:{i % 60:02d}.{i:06d}Z",
                     "amount": f"{i}.{i % 100:02d}", "ratio": i / 7.0, "flag": i % 2 == 0,
                     "raw": base64.b64encode(bytes([i % 256, 0, 255])).decode(),
                     "tags": {"k": str(i)}, "items": [i, i + 1],
                     "note": None if i % 5 == 0 else f"n{i}"})
    schema = ("id BIGINT, region STRING, day DATE, ts TIMESTAMP, amount DECIMAL(12,2), "
              "ratio DOUBLE, flag BOOLEAN, raw BINARY, tags MAP<STRING,STRING>, items ARRAY<INT>, "
              "note STRING")
    for k in range(3):
        weir("table", "append", odd, "--input", write_jsonl(f"{WORK}/odd{k}.jsonl", rows[k * 200:(k + 1) * 200]),
             "--create", "--schema", schema, "--partition-by", "region,day")
    all_readers_agree("partitioned by escaped strings, a null and a date, every type", odd)

    # OPTIMIZE, then VACUUM with no retention (Spark must not need a removed file).
    opt = copy_table(bronze, os.path.join(WORK, "weir-optimized"))
    before = len(live_paths(opt))
    weir("table", "optimize", opt)
    check("OPTIMIZE compacted the bronze files",
          lambda: None if len(live_paths(opt)) < before else f"{before} files before and after")
    all_readers_agree("after weir table optimize", opt)
    weir("table", "vacuum", opt, "--retain", "0", "--force-retention")
    check("VACUUM deleted the compacted files",
          lambda: None if len(glob.glob(f"{opt}/*.parquet")) == len(live_paths(opt))
          else "files not live remain")
    all_readers_agree("after weir table vacuum --retain 0", opt)
    opt_odd = copy_table(odd, os.path.join(WORK, "weir-odd-optimized"))
    weir("table", "optimize", opt_odd)
    weir("table", "vacuum", opt_odd, "--retain", "0", "--force-retention")
    all_readers_agree("the partitioned table after optimize + vacuum", opt_odd)

    # A checkpoint: Spark and delta-rs must read it (the JSON commits before it are deleted).
    ck = copy_table(odd, os.path.join(WORK, "weir-checkpointed"))
    weir("table", "checkpoint", ck)
    weir("table", "append", ck, "--input", f"{WORK}/odd0.jsonl")
    cps = glob.glob(f"{ck}/_delta_log/*.checkpoint.parquet")
    check("weir wrote a Parquet checkpoint and _last_checkpoint",
          lambda: None if cps and os.path.exists(f"{ck}/_delta_log/_last_checkpoint") else str(cps))
    if cps:
        v = int(os.path.basename(cps[0]).split(".")[0])
        for n in range(v):
            os.remove(f"{ck}/_delta_log/{n:020d}.json")
    all_readers_agree("from weir's checkpoint alone (earlier commits deleted)", ck, history=False)
    check("... Spark reads 800 rows", spark_readable, ck, 800)

    # `weir table merge` into silver: updates and inserts.
    merged = copy_table(silver, os.path.join(WORK, "weir-merged"))
    some = [json.loads(line) for line in
            weir("table", "scan", merged, "--limit", "50").stdout.splitlines()]
    for r in some:
        r["status"] = "shipped"
    some.append(dict(some[0], event_id="new-1", status="created"))
    weir("table", "merge", merged, "--source", write_jsonl(f"{WORK}/merge.jsonl", some),
         "--keys", "event_id", "--update")
    check("weir table merge updated 50 rows",
          lambda: None if spark_df(merged).where("status = 'shipped'").count() >= 50 else "no update")
    all_readers_agree("after weir table merge --update", merged)


# --- 2. concurrent appends ---------------------------------------------------------------------------

def concurrent_weir_appends(table, n, tag):
    """Starts a process appending n single-row commits (writer=tag, seq=i); returns it."""
    script = os.path.join(WORK, f"appends-{tag}.sh")
    with open(script, "w") as f:
        f.write("set -e\n")
        for i in range(n):
            row = os.path.join(WORK, f"{tag}-{i}.jsonl")
            write_jsonl(row, [{"writer": tag, "seq": i}])
            f.write(f"'{WEIR}' table append '{table}' --input '{row}' > /dev/null\n")
    return subprocess.Popen(["bash", script], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)


def expect_writers(table, want):
    rows = spark_df(table).groupBy("writer").agg(F.count("*").alias("n"),
                                                 F.countDistinct("seq").alias("d")).collect()
    got = {r["writer"]: (r["n"], r["d"]) for r in rows}
    want = {k: (v, v) for k, v in want.items()}
    if got != want:
        return f"rows per writer (count, distinct seq): {got}, expected {want}"


def case_concurrent():
    # Spark and weir.
    table = os.path.join(WORK, "concurrent-spark")
    spark.createDataFrame([("init", -1)], "writer STRING, seq BIGINT").write.format("delta").save(table)
    proc = concurrent_weir_appends(table, 15, "weir")
    for i in range(6):
        spark.createDataFrame([("spark", i)], "writer STRING, seq BIGINT").write.format("delta") \
            .mode("append").save(table)
    err = proc.communicate()[1]
    check("weir's appends beside Spark's all succeed", lambda: None if proc.returncode == 0 else err)
    check("Spark + weir appending at once: every commit of both survives", expect_writers, table,
          {"init": 1, "weir": 15, "spark": 6})
    check("... 22 versions in the log", lambda: None if len(spark.sql(
        f"DESCRIBE HISTORY delta.`{table}`").collect()) == 22 else "wrong version count")
    check("... and weir reads the same rows", spark_reads_like_weir, table)
    # delta-rs and weir.
    table = os.path.join(WORK, "concurrent-deltars")
    sch = pa.schema([("writer", pa.string()), ("seq", pa.int64())])
    write_deltalake(table, pa.table({"writer": ["init"], "seq": [-1]}, schema=sch))
    proc = concurrent_weir_appends(table, 15, "weir")
    for i in range(8):
        write_deltalake(table, pa.table({"writer": ["deltars"], "seq": [i]}, schema=sch), mode="append")
    err = proc.communicate()[1]
    check("weir's appends beside delta-rs' all succeed", lambda: None if proc.returncode == 0 else err)
    check("delta-rs + weir appending at once: every commit of both survives", expect_writers, table,
          {"init": 1, "weir": 15, "deltars": 8})
    check("... delta-rs reads the same rows as weir", deltars_reads_like_weir, table)


# --- 3. tables Spark creates ---------------------------------------------------------------------------

SPARK_SCHEMA = ("id BIGINT, name STRING, amount DECIMAL(18,2), ts TIMESTAMP, day DATE, "
                "tags MAP<STRING,STRING>, score DOUBLE")


def spark_source_rows(first, n):
    return spark.sql(f"""
      SELECT id, concat('name-', id) AS name, CAST(id * 1.25 AS DECIMAL(18,2)) AS amount,
             TIMESTAMP '2026-06-08 09:00:00' + make_interval(0, 0, 0, 0, 0, 0, id * 0.001) AS ts,
             date_add(DATE '2026-06-01', CAST(id % 5 AS INT)) AS day,
             map('k', CAST(id AS STRING)) AS tags, CAST(id AS DOUBLE) / 3 AS score
      FROM range({first}, {first + n})""")


def weir_json_rows(first, n):
    return [{"id": i, "name": f"name-{i}", "amount": str(decimal.Decimal(i) * decimal.Decimal("1.25")),
             "ts": (dt.datetime(2026, 6, 8, 9) + dt.timedelta(milliseconds=i)).isoformat() + "Z",
             "day": (dt.date(2026, 6, 1) + dt.timedelta(days=i % 5)).isoformat(),
             "tags": {"k": str(i)}, "score": i / 3.0} for i in range(first, first + n)]


def weir_write_attempt(label, table, feature_names):
    """weir appends and merges into a Spark-created table. Each must either work (Spark then reads
    exactly weir's rows) or be refused naming the table feature, leaving the table as it was."""
    before = spark_df(table).count()
    before_version = spark.sql(f"DESCRIBE HISTORY delta.`{table}`").collect()[0]["version"]
    a = weir("table", "append", table, "--input",
             write_jsonl(f"{WORK}/{label}-append.jsonl", weir_json_rows(10000, 100)), ok=False)
    # The merge source as Parquet (nested columns): 10 existing ids and 5 new ones, by Spark.
    src = os.path.join(WORK, f"{label}-merge".replace(" ", "-"))
    spark_source_rows(0, 10).union(spark_source_rows(20000, 5)).withColumn("name", F.lit("merged")) \
        .coalesce(1).write.parquet(src)
    m = weir("table", "merge", table, "--source", glob.glob(f"{src}/part-*.parquet")[0],
             "--keys", "id", "--update", ok=False)
    outcome = []
    expect = before
    for what, p, added in (("append", a, 100), ("merge", m, 5)):
        if p.returncode == 0:
            outcome.append(f"{what}: written")
            expect += added
        else:
            outcome.append(f"{what}: refused")
            check(f"{label}: a refused weir {what} names the table feature",
                  lambda p=p: None if any(f in p.stderr for f in feature_names)
                  else f"exit {p.returncode}, no {feature_names} in: {p.stderr[-800:]}")
    log(f"{label}: weir {', '.join(outcome)}")
    check(f"{label}: Spark still reads the table after weir's writes ({', '.join(outcome)})",
          spark_readable, table, expect)
    if a.returncode != 0 and m.returncode != 0:
        after_version = spark.sql(f"DESCRIBE HISTORY delta.`{table}`").collect()[0]["version"]
        check(f"{label}: refusals commit nothing",
              lambda: None if after_version == before_version else f"{before_version} -> {after_version}")
    if m.returncode == 0:
        check(f"{label}: weir's merge updated the matched rows",
              lambda: None if spark_df(table).where("name = 'merged'").count() == 15 else
              f"{spark_df(table).where(F.col('name') == 'merged').count()} merged rows")
    if a.returncode == 0 or m.returncode == 0:
        check(f"{label}: Spark reads back exactly weir's rows", spark_reads_like_weir, table)
    return a.returncode == 0, m.returncode == 0


def case_spark_tables():
    # Spark's defaults.
    t = os.path.join(WORK, "spark-default")
    spark_source_rows(0, 500).write.format("delta").save(t)
    spark_source_rows(500, 500).write.format("delta").mode("append").save(t)
    check("Spark defaults: weir reads exactly Spark's rows", spark_reads_like_weir, t)
    wrote, merged = weir_write_attempt("Spark defaults", t, ["feature"])
    check("Spark defaults: weir's append and merge both work", lambda: None if wrote and merged
          else "refused")
    check("Spark defaults: delta-rs reads weir's writes", deltars_reads_like_weir, t)
    spark.sql(f"INSERT INTO delta.`{t}` SELECT * FROM (SELECT 99999 AS id, 'spark-after' AS name, "
              f"CAST(1 AS DECIMAL(18,2)) AS amount, TIMESTAMP '2026-01-01' AS ts, DATE '2026-01-01' AS day, "
              f"map('k','v') AS tags, 1.0D AS score)")
    check("Spark defaults: Spark appends after weir's commits, weir reads it", spark_reads_like_weir, t)

    # Deletion vectors: a Spark DELETE writes a DV.
    t = os.path.join(WORK, "spark-dv")
    spark_source_rows(0, 1000).write.format("delta") \
        .option("delta.enableDeletionVectors", "true").save(t)
    spark.sql(f"DELETE FROM delta.`{t}` WHERE id % 7 = 0")
    has_dv = any("deletionVector" in line for f in glob.glob(f"{t}/_delta_log/*.json")
                 for line in open(f))
    check("deletion vectors: Spark's DELETE wrote a deletion vector",
          lambda: None if has_dv else "no deletionVector in the log")
    def dv_read():
        p = weir("table", "scan", t, ok=False)
        if p.returncode == 0:
            return spark_reads_like_weir(t)
        if "deletionVectors" not in p.stderr or "REORG TABLE" not in p.stderr:
            return f"exit {p.returncode} without naming deletionVectors and REORG: {p.stderr[-800:]}"
        log("deletion vectors: weir refuses to read live files with deletion vectors")
    check("deletion vectors: weir reads exactly Spark's rows, or refuses naming deletionVectors and "
          "REORG TABLE ... APPLY (PURGE)", dv_read)
    weir_write_attempt("deletion vectors", t, ["deletionVectors"])
    spark.sql(f"REORG TABLE delta.`{t}` APPLY (PURGE)")
    check("deletion vectors purged by Spark's REORG: weir reads exactly Spark's rows",
          spark_reads_like_weir, t)
    weir_write_attempt("deletion vectors purged", t, ["deletionVectors"])

    # Column mapping (name), with a renamed column.
    t = os.path.join(WORK, "spark-colmap")
    spark_source_rows(0, 300).write.format("delta") \
        .option("delta.columnMapping.mode", "name").save(t)
    spark.sql(f"ALTER TABLE delta.`{t}` RENAME COLUMN score TO score_renamed")
    spark.sql(f"ALTER TABLE delta.`{t}` RENAME COLUMN score_renamed TO score")
    check("column mapping: weir reads exactly Spark's rows (renamed column)", spark_reads_like_weir, t)
    weir_write_attempt("column mapping", t, ["columnMapping", "column mapping"])

    # Change data feed.
    t = os.path.join(WORK, "spark-cdf")
    spark_source_rows(0, 300).write.format("delta") \
        .option("delta.enableChangeDataFeed", "true").save(t)
    check("change data feed: weir reads exactly Spark's rows", spark_reads_like_weir, t)
    v0 = spark.sql(f"DESCRIBE HISTORY delta.`{t}`").collect()[0]["version"]
    wrote, merged = weir_write_attempt("change data feed", t, ["changeDataFeed", "change data feed"])
    if wrote or merged:
        def cdf_right():
            ch = spark.read.format("delta").option("readChangeFeed", "true") \
                .option("startingVersion", v0 + 1).load(t)
            got = {(r["_change_type"], r["n"]) for r in ch.groupBy("_change_type").agg(
                F.count("*").alias("n")).collect()}
            want = set()
            if wrote:
                want.add(("insert", 100 + (5 if merged else 0)))
            if merged:
                want |= {("update_preimage", 10), ("update_postimage", 10)}
            if got != want:
                return f"Spark's change feed after weir's writes: {sorted(got)}, expected {sorted(want)}"
        check("change data feed: Spark's change feed shows exactly weir's changes", cdf_right)

    # Liquid clustering.
    t = os.path.join(WORK, "spark-clustered")
    spark.sql(f"CREATE TABLE delta.`{t}` ({SPARK_SCHEMA}) USING delta CLUSTER BY (id)")
    spark_source_rows(0, 300).write.format("delta").mode("append").save(t)
    check("liquid clustering: weir reads exactly Spark's rows", spark_reads_like_weir, t)
    weir_write_attempt("liquid clustering", t, ["clustering", "domainMetadata"])


# --- 4. delta-rs tables --------------------------------------------------------------------------------

def case_deltars():
    t = os.path.join(WORK, "deltars-table")
    sch = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.decimal128(18, 2)),
                     ("ts", pa.timestamp("us", tz="UTC")), ("day", pa.date32()),
                     ("raw", pa.binary()), ("ok", pa.bool_()), ("score", pa.float64()),
                     ("region", pa.string())])

    def batch(first, n):
        ids = list(range(first, first + n))
        return pa.table({
            "id": ids, "name": [None if i % 9 == 0 else f"n{i}" for i in ids],
            "amount": [decimal.Decimal(i) / 4 for i in ids],
            "ts": [dt.datetime(2026, 6, 8, 9, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=i * 1001)
                   for i in ids],
            "day": [dt.date(2026, 6, 1 + i % 4) for i in ids], "raw": [bytes([i % 256]) * 3 for i in ids],
            "ok": [i % 2 == 0 for i in ids], "score": [i / 3 for i in ids],
            "region": [["eu west", "us:east", "ü"][i % 3] for i in ids]}, schema=sch)

    write_deltalake(t, batch(0, 400), partition_by=["region"])
    write_deltalake(t, batch(400, 400), mode="append")
    DeltaTable(t).create_checkpoint()
    write_deltalake(t, batch(800, 100), mode="append")
    schema = spark_df(t).schema
    check("delta-rs table (partitioned, checkpointed): weir reads exactly delta-rs' rows",
          lambda: same_rows(deltars_rows(t, schema), weir_rows(t, schema), "delta-rs", "weir"))
    rows = [{"id": i, "name": f"weir{i}", "amount": f"{i}.25", "ts": "2026-06-09T10:00:00.123456Z",
             "day": "2026-06-09", "raw": base64.b64encode(b"xyz").decode(), "ok": True,
             "score": 0.5, "region": "eu west"} for i in range(5000, 5050)]
    weir("table", "append", t, "--input", write_jsonl(f"{WORK}/deltars-append.jsonl", rows))
    check("delta-rs table after weir's append: delta-rs reads exactly weir's rows",
          lambda: same_rows(deltars_rows(t, schema), weir_rows(t, schema), "delta-rs", "weir"))
    check("... and Spark does too", spark_reads_like_weir, t)
    DeltaTable(t).optimize.compact()
    DeltaTable(t).vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False)
    check("after delta-rs OPTIMIZE + VACUUM: weir reads exactly delta-rs' rows",
          lambda: same_rows(deltars_rows(t, schema), weir_rows(t, schema), "delta-rs", "weir"))


# --- 5. streaming handover ----------------------------------------------------------------------------

def kafka_options(topic):
    # The bronze query's options as the tutorial writes them, with only the server changed (the
    # Databricks service credential, an Azure login, does not exist outside Databricks).
    return {
        "kafka.bootstrap.servers": KAFKA,
        "subscribe": topic,
        "startingOffsets": "earliest",        # only used on the very first run
        "maxOffsetsPerTrigger": "200000",     # caps each micro-batch
    }


def spark_bronze(topic, table, checkpoint, name="orders_bronze", dedup=False):
    from pyspark.sql.functions import col, current_timestamp
    raw = spark.readStream.format("kafka").options(**kafka_options(topic)).load()
    if dedup:
        raw = raw.dropDuplicates(["key"])
    bronze = raw.select(
        col("key").cast("string").alias("partition_key"),
        col("value").cast("string").alias("raw_value"),
        col("partition").alias("eh_partition"),
        col("offset").alias("eh_offset"),
        col("timestamp").alias("enqueued_time"),
        current_timestamp().alias("ingested_at"),
    )
    q = (bronze.writeStream
         .format("delta")
         .queryName(name)
         .option("checkpointLocation", checkpoint)
         .trigger(availableNow=True)
         .start(table))
    q.awaitTermination(300)
    if q.isActive:
        q.stop()
        raise AssertionError("the Spark query did not finish in 300 s")
    if q.exception():
        raise AssertionError(str(q.exception()))
    return q


def table_is_topic(table, topic):
    """The bronze table holds every record of the topic exactly once, as Spark's Kafka batch source
    reads the topic (an independent reader)."""
    topic_rows = spark.read.format("kafka").option("kafka.bootstrap.servers", KAFKA) \
        .option("subscribe", topic).option("startingOffsets", "earliest") \
        .option("endingOffsets", "latest").load() \
        .selectExpr("partition AS eh_partition", "offset AS eh_offset",
                    "CAST(key AS STRING) AS partition_key", "CAST(value AS STRING) AS raw_value",
                    "timestamp AS enqueued_time")
    tab = spark_df(table).select("eh_partition", "eh_offset", "partition_key", "raw_value",
                                 "enqueued_time")
    a = canon_rows(topic_rows.collect(), topic_rows.schema)
    b = canon_rows(tab.collect(), topic_rows.schema)
    dup = tab.count() - tab.select("eh_partition", "eh_offset").distinct().count()
    if dup:
        return f"{dup} duplicate (partition, offset) rows"
    return same_rows(a, b, "topic", "table")


def handover_sql(topic, table_name):
    return BRONZE_SQL.format(name=table_name, clauses="", bootstrap=KAFKA, topic=topic,
                             max=200000)


def case_handover():
    topic = "handover"
    lake = os.path.join(WORK, "handover-lake")
    table = f"{lake}/sales/bronze/orders_raw"
    cp = f"{lake}/_checkpoints/sales.bronze.orders_raw"
    produce(topic, 3000, 11, duplicates=0.02, malformed=0.01, bootstrap=KAFKA)
    spark_bronze(topic, table, cp)
    check("Spark's bronze query read the topic into Delta (batch 0)", table_is_topic, table, topic)
    check("... its checkpoint has offsets/0 and commits/0",
          lambda: None if os.path.exists(f"{cp}/offsets/0") and os.path.exists(f"{cp}/commits/0")
          else str(os.listdir(cp)))
    produce(topic, 2000, 12, bootstrap=KAFKA)
    p = run_pipeline(handover_sql(topic, "sales.bronze.orders_raw"), lake, "handover", ok=False)
    check("weir run continues Spark's checkpoint", lambda: None if p.returncode == 0 else p.stderr[-2000:])
    check("... without re-running Spark's batch 0", lambda: None if "batch 0:" not in p.stdout + p.stderr
          else (p.stdout + p.stderr)[-1500:])
    check("after weir: the table is the topic exactly once (no gap, no duplicate)",
          table_is_topic, table, topic)
    weir_batches = sorted(int(n) for n in os.listdir(f"{cp}/commits") if n.isdigit())
    check("... weir committed a batch after Spark's in the same checkpoint",
          lambda: None if len(weir_batches) >= 2 else str(weir_batches))
    query_id = json.load(open(f"{cp}/metadata"))["id"]
    check("... with Delta txn(appId = Spark's query id)",
          lambda: None if any(f'"appId":"{query_id}"' in line.replace(" ", "")
                              for f in sorted(glob.glob(f"{table}/_delta_log/*.json"))[-1:]
                              for line in open(f)) else "no txn of the query id in the last commit")
    produce(topic, 2000, 13, bootstrap=KAFKA)
    try:
        spark_bronze(topic, table, cp)
        err = None
    except Exception as e:  # noqa: BLE001
        err = str(e)[-2000:]
    check("Spark resumes from the checkpoint weir advanced", lambda: err)
    check("after Spark again: the table is the topic exactly once", table_is_topic, table, topic)
    check("... Spark ran a batch after weir's",
          lambda: None if len(os.listdir(f"{cp}/commits")) > len(weir_batches) else "no new batch")
    all_readers_agree("the handed-over table", table)

    # A stateful Spark query (dropDuplicates): weir refuses its checkpoint, naming what to do.
    lake = os.path.join(WORK, "stateful-lake")
    table = f"{lake}/sales/bronze/orders_raw"
    cp = f"{lake}/_checkpoints/sales.bronze.orders_raw"
    spark_bronze(topic, table, cp, name="orders_dedup", dedup=True)
    check("the stateful Spark query wrote state", lambda: None if os.path.isdir(f"{cp}/state") else "no state/")
    versions = len(glob.glob(f"{table}/_delta_log/*.json"))
    p = run_pipeline(handover_sql(topic, "sales.bronze.orders_raw"), lake, "stateful", ok=False)
    check("weir refuses a live stateful Spark checkpoint", lambda: None if p.returncode != 0 else "it ran")
    check("... naming the state and what to do",
          lambda: None if "state" in p.stderr and "new checkpoint folder" in p.stderr else p.stderr[-1000:])
    check("... and commits nothing",
          lambda: None if len(glob.glob(f"{table}/_delta_log/*.json")) == versions else "a commit was made")


for case, fn in (("weir_tables", case_weir_tables), ("concurrent", case_concurrent),
                 ("spark_tables", case_spark_tables), ("deltars", case_deltars),
                 ("handover", case_handover)):
    if wanted(case):
        t = time.time()
        check(f"case {case} ran to the end", fn)
        log(f"case {case} took {time.time() - t:.0f} s")

spark.stop()
print(f"spark_peer: {passed} passed, {failed} failed", flush=True)
sys.exit(1 if failed else 0)
