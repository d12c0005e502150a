#!/usr/bin/env bash
# DuckDB-written Parquet with the v2 encodings (issue 32 item 9), read by weir:
#  1. INT32 columns spanning INT32_MIN..INT32_MAX, whose DELTA_BINARY_PACKED miniblocks DuckDB
#     writes with 33-bit deltas (it does not wrap; weir used to refuse them as Corruption), and
#     INT64 columns with both extremes: weir prints exactly DuckDB's values;
#  2. a TIME column (weir, like Delta Lake, has no TIME type): the other columns read, and asking
#     for the TIME column fails with NotImplemented naming the file, the column and its type.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
file=$work/duckdb_v2.parquet

# 20000 rows: alternating extremes, 0 and -1 beside them, runs of one extreme, random values
# (hash), NULLs in the nullable copy. Enough distinct values that DuckDB does not use a dictionary.
SQL="SELECT i AS id,
  (CASE WHEN i < 2000 THEN CASE WHEN i % 2 = 0 THEN -2147483648 ELSE 2147483647 END
        WHEN i % 9 = 0 THEN -2147483648 WHEN i % 9 = 1 THEN 2147483647
        WHEN i % 9 = 2 THEN 0 WHEN i % 9 = 3 THEN -1
        WHEN i BETWEEN 5000 AND 5300 THEN 2147483647
        ELSE (hash(i) % 4294967296)::BIGINT - 2147483648 END)::INTEGER AS i32,
  CASE WHEN i % 13 = 5 THEN NULL
       WHEN i % 2 = 0 THEN -2147483648 + (hash(i) % 100000)::BIGINT
       ELSE 2147483647 - (hash(i + 1) % 100000)::BIGINT END::INTEGER AS i32n,
  (CASE WHEN i < 1000 THEN CASE WHEN i % 2 = 0 THEN -9223372036854775808 ELSE 9223372036854775807 END
        WHEN i % 7 = 0 THEN -9223372036854775808 WHEN i % 7 = 1 THEN 9223372036854775807
        WHEN i % 7 = 2 THEN 0 WHEN i % 7 = 3 THEN -1
        ELSE hash(i)::HUGEINT - 9223372036854775808 END)::BIGINT AS i64,
  TIME '00:00:00' + to_microseconds((hash(i) % 86400000000)::BIGINT) AS t
  FROM range(0, 20000) r(i)"

if ! js duckdb_write.mjs --sql "$SQL" --out "$file" --version v2 --codec zstd 2> "$work/write.err"; then
  echo "FAIL: DuckDB could not write the file: $(cat "$work/write.err")"
  exit 1
fi

# The file is what this test is about: DELTA_BINARY_PACKED INT32/INT64 chunks and a TIME column.
file_is_as_intended() {
  "$WEIR" parquet meta "$file" > "$work/meta" || return 1
  for column in i32 i32n i64; do
    grep -E "^  $column: INT(32|64) .*encodings=[A-Z_,]*DELTA_BINARY_PACKED" "$work/meta" > /dev/null ||
      { echo "column $column is not DELTA_BINARY_PACKED:"; cat "$work/meta"; return 1; }
  done
  # The values span both ends of the range (so some miniblocks need 33 bits).
  local stats
  stats=$(js duckdb_query.mjs --sql "SELECT min(i32) AS lo, max(i32) AS hi,
      count(*) FILTER (WHERE i32 = -1) AS minus_one, count(*) FILTER (WHERE i32 = 0) AS zero,
      count(i32n) AS i32n_values, min(i64)::VARCHAR AS lo64, max(i64)::VARCHAR AS hi64,
      typeof(any_value(t)) AS t_type
    FROM read_parquet('$file')") || return 1
  [ "$stats" = '{"lo":-2147483648,"hi":2147483647,"minus_one":2000,"zero":2000,"i32n_values":18461,"lo64":"-9223372036854775808","hi64":"9223372036854775807","t_type":"TIME"}' ] ||
    { echo "DuckDB found: $stats"; return 1; }
}
check "DuckDB wrote DELTA_BINARY_PACKED full-range integers and a TIME column" file_is_as_intended

# 1. weir's values are DuckDB's, byte for byte (both print weir's JSON conventions), and by value.
reads_like_duckdb() {
  local columns=$1
  "$WEIR" parquet cat "$file" --columns "$columns" > "$work/weir.jsonl" || return 1
  js duckdb_cat.mjs "$file" --columns "$columns" > "$work/duckdb.jsonl" || return 1
  [ "$(wc -l < "$work/duckdb.jsonl")" -eq 20000 ] || { echo "DuckDB printed $(wc -l < "$work/duckdb.jsonl") rows"; return 1; }
  python3 "$WEIR_SOURCE_DIR/tests/tools/compare_jsonl.py" "$work/duckdb.jsonl" "$work/weir.jsonl" || return 1
  cmp "$work/duckdb.jsonl" "$work/weir.jsonl" || { diff "$work/duckdb.jsonl" "$work/weir.jsonl" | head; return 1; }
}
check "INT32 and INT64 extremes read as DuckDB reads them" reads_like_duckdb id,i32,i32n,i64
check "columns in another order" reads_like_duckdb i64,i32

# 2. The TIME column: a clear NotImplemented naming the file, the column and its Parquet type.
refuses_time() {
  local err
  if "$WEIR" parquet cat "$file" "$@" > /dev/null 2> "$work/err"; then
    echo "weir read the TIME column ($*) without an error"
    return 1
  fi
  err=$(cat "$work/err")
  local expected="NotImplemented: Parquet file $file: column 't' has Parquet type INT64 TIME(MICROS, isAdjustedToUTC=false), which weir does not read"
  [[ $err == *"$expected"* ]] || { echo "unexpected error: $err"; return 1; }
}
check "asking for the TIME column names it and its type" refuses_time --columns t
check "asking for it beside other columns names it" refuses_time --columns id,t
check "reading every column names the TIME column" refuses_time
lists_the_readable_columns() {
  local schema
  schema=$("$WEIR" parquet schema "$file") || return 1
  [ "$(grep -v '^-- ' <<< "$schema")" = "$(printf 'id BIGINT\ni32 INT\ni32n INT\ni64 BIGINT')" ] ||
    { echo "schema: $schema"; return 1; }
  grep -q "^-- t: not read (.*TIME(MICROS" <<< "$schema" || { echo "schema: $schema"; return 1; }
}
check "the file's schema lists the columns weir reads, and the TIME column as not read" lists_the_readable_columns

# 3. A Delta table whose data file holds a TIME column where the table has a BIGINT of that name
# (a foreign writer's file; Delta has no TIME type): scanning the column is the same error, not
# nulls; the other columns scan.
delta_scan_refuses_time() {
  local table=$work/table data err
  printf '{"id":1,"t":5}\n{"id":2,"t":6}\n' > "$work/rows.jsonl"
  "$WEIR" table append "$table" --create --schema 'id BIGINT, t BIGINT' --input "$work/rows.jsonl" > /dev/null || return 1
  data=$(ls "$table"/*.parquet) || return 1
  js duckdb_write.mjs --sql "SELECT i::BIGINT AS id, TIME '01:02:03' AS t FROM range(1, 3) r(i)" --out "$data" || return 1
  [ "$("$WEIR" table scan "$table" --columns id)" = "$(printf '{"id":1}\n{"id":2}')" ] || { echo "scan of id failed"; return 1; }
  if "$WEIR" table scan "$table" > /dev/null 2> "$work/err"; then echo "the scan read the TIME column"; return 1; fi
  err=$(cat "$work/err")
  [[ $err == *"NotImplemented"*"column 't' has Parquet type INT64 TIME(MICROS, isAdjustedToUTC=false), which weir does not read"* ]] ||
    { echo "unexpected error: $err"; return 1; }
}
check "a Delta scan refuses a data file's TIME column by name" delta_scan_refuses_time

finish
