#!/usr/bin/env bash
# The Parquet codec against independent readers (issue "Foundation and the Parquet codec"):
#  1. every conformance file is read by weir and compared with DuckDB's output (parquet-wasm where
#     DuckDB cannot read the file, the upstream *_expect.csv where one exists, pinned values where
#     both readers are wrong);
#  2. every malformed file gives a Corruption error naming the file;
#  3. files weir writes (every type, codec, nulls, empty, 1 row, 10M rows, dictionary fallback) are
#     read back identically by DuckDB and parquet-wasm;
#  4. files DuckDB and parquet-wasm write (every codec, v1 and v2 pages) are read by weir.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
C=$(conformance_dir)/parquet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
compare() { python3 "$WEIR_SOURCE_DIR/tests/tools/compare_jsonl.py" "$@"; }

# Reads FILE with weir and with REFERENCE (duckdb, wasm, csv:PATH or pinned:PATH); compares.
weir_reads_like() {
  local file=$1 reference=$2 out
  out=$work/$(basename "$file").$RANDOM
  "$WEIR" parquet cat "$file" > "$out.weir" || return 1
  case $reference in
    duckdb) js duckdb_cat.mjs "$file" > "$out.ref" || return 1; compare "$out.ref" "$out.weir" ;;
    wasm) js wasm_cat.mjs "$file" > "$out.ref" || return 1; compare "$out.ref" "$out.weir" ;;
    csv:*) compare "${reference#csv:}" "$out.weir" --csv ;;
    pinned:*) printf '%s\n' "${reference#pinned:}" > "$out.ref"; compare "$out.ref" "$out.weir" ;;
  esac
}

# Files DuckDB cannot read (see tests/js/selftest.mjs for the survey) and files where both
# readers are wrong. int96_from_spark's last row is year 290000: weir computes microseconds as
# Spark does (Julian day * 86400e6 + nanos / 1000); DuckDB overflows through nanoseconds.
INT96_FROM_SPARK='{"a":"2024-01-01T20:34:56.123456Z"}
{"a":"2024-01-01T01:00:00.000000Z"}
{"a":"9999-12-31T03:00:00.000000Z"}
{"a":"2024-12-30T23:00:00.000000Z"}
{"a":null}
{"a":"290000-12-30T23:00:00.000000Z"}'
reference_for() {
  case $(basename "$1") in
    byte_stream_split_extended.gzip.parquet | hadoop_lz4_compressed.parquet | \
      non_hadoop_lz4_compressed.parquet | map_no_value.parquet) echo wasm ;;
    int96_from_spark.parquet) echo "pinned:$INT96_FROM_SPARK" ;;
    *) echo duckdb ;;
  esac
}

# 1. Conformance files.
for file in "$C"/*.parquet "$C"/nested/*.parquet; do
  check "conformance $(basename "$file")" weir_reads_like "$file" "$(reference_for "$file")"
  expect_csv=${file%.parquet}_expect.csv
  [ -f "$expect_csv" ] && check "expected values $(basename "$expect_csv")" weir_reads_like "$file" "csv:$expect_csv"
done

# 2. Malformed files: Corruption naming the file. ARROW-GH-43605 is an edge case that may decode
# (a dictionary page whose index bit width is 0): then it must match DuckDB.
fails_with_corruption() {
  local file=$1 err
  if "$WEIR" parquet cat "$file" > /dev/null 2> "$work/err"; then
    echo "weir read $file without an error"
    return 1
  fi
  err=$(cat "$work/err")
  [[ $err == *Corruption* && $err == *"$file"* ]] || { echo "unexpected error: $err"; return 1; }
}
for file in "$C"/malformed/*.parquet; do
  if [ "$(basename "$file")" = ARROW-GH-43605.parquet ]; then
    check "malformed $(basename "$file") decodes like DuckDB" weir_reads_like "$file" duckdb
  else
    check "malformed $(basename "$file")" fails_with_corruption "$file"
  fi
done

# 3. Files weir writes, read by DuckDB and parquet-wasm.
"$(dirname "$WEIR")/weir_parquet_testgen" "$work/weir" > /dev/null || { echo "FAIL: testgen"; exit 1; }
for file in "$work"/weir/*.parquet; do
  [ "$(basename "$file")" = big.parquet ] && continue
  check "weir-written $(basename "$file") read by DuckDB" weir_reads_like "$file" duckdb
  check "weir-written $(basename "$file") read by parquet-wasm" weir_reads_like "$file" wasm
done
big_file_checks() {
  local result
  result=$(js duckdb_query.mjs --sql "SELECT count(*) AS n,
      count(*) FILTER (WHERE v <> id * 7) AS bad_v,
      count(*) FILTER (WHERE s <> 'row-' || id) AS bad_s,
      count(*) FILTER (WHERE ts <> TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_milliseconds(id)) AS bad_ts,
      count(*) FILTER (WHERE (id % 1000 = 0) <> (n IS NULL) OR n <> id) AS bad_n,
      count(DISTINCT id) AS ids
    FROM read_parquet('$work/weir/big.parquet')") || return 1
  [ "$result" = '{"n":10000000,"bad_v":0,"bad_s":0,"bad_ts":0,"bad_n":0,"ids":10000000}' ] || {
    echo "DuckDB found: $result"
    return 1
  }
}
check "weir-written 10M-row file verified by DuckDB" big_file_checks

# 4. Files DuckDB writes (every codec; V2 = DuckDB's v2 encodings on v1 pages) and parquet-wasm
# writes (real DataPage V2), read by weir.
DUCKDB_SQL="SELECT (i % 100)::TINYINT AS i8, (i * 3)::SMALLINT AS i16, i::INTEGER AS i32,
  i * 1000003 AS i64, (i % 200)::UTINYINT AS u8, i::UINTEGER AS u32, (i * 1000000007)::UBIGINT AS u64,
  CASE WHEN i % 11 = 0 THEN NULL ELSE i / 7 END::FLOAT AS f, i / 3 AS d,
  (i * 1.25)::DECIMAL(9,2) AS dec9, (i * 12345.678)::DECIMAL(18,3) AS dec18,
  (i::HUGEINT * 100000000000000000000)::DECIMAL(38,5) AS dec38,
  CASE WHEN i % 5 = 0 THEN NULL WHEN i % 7 = 0 THEN '' ELSE 'str-' || (i % 300) END AS s,
  ('bin' || i)::BLOB AS b, DATE '2026-01-01' + i::INTEGER AS dt,
  TIMESTAMP '2026-01-01' + to_seconds(i) AS ts, TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_microseconds(i) AS tstz,
  i % 2 = 0 AS flag, [i, NULL, i + 1] AS lst, {'a': i, 'b': 's' || i} AS st,
  CASE WHEN i % 3 = 0 THEN NULL ELSE MAP {'k' || i: i} END AS m
  FROM range(0, 5000) t(i)"
for codec in uncompressed snappy gzip zstd lz4; do
  for version in v1 v2; do
    file=$work/duckdb_${codec}_$version.parquet
    if js duckdb_write.mjs --sql "$DUCKDB_SQL" --out "$file" --codec $codec --version $version --row-group-size 2048; then
      check "DuckDB-written $codec $version" weir_reads_like "$file" duckdb
    else
      check "DuckDB writes $codec $version" false
    fi
  done
done
for codec in snappy zstd gzip lz4_hadoop uncompressed; do
  file=$work/wasm_v2_$codec.parquet
  if js wasm_write.mjs --in "$work/duckdb_zstd_v1.parquet" --out "$file" --codec $codec --version v2; then
    check "parquet-wasm-written DataPage V2 $codec" weir_reads_like "$file" wasm
  else
    check "parquet-wasm writes $codec v2" false
  fi
done

finish
