#!/usr/bin/env bash
# Corrupt state (issue "Reliability and security", part 3): the orders pipeline (examples/orders.sql,
# bronze + silver + quarantine) runs twice, then each file it depends on is damaged in a fresh copy
# of the lakehouse — checkpoint offsets/commits/metadata/sources, Delta commits, the Delta
# checkpoint and _last_checkpoint, the silver state store (weir-state.json, SST, CURRENT, a whole
# version) — and the pipeline is run again with new events waiting. Each damage must stop the run
# with a Corruption error naming the damaged file and saying what to do, and must not write
# anything (no "created Delta table", no new Delta version: never a silent restart from scratch).
# A damaged _last_checkpoint is only a hint (the Delta protocol's readers list the log): the run
# must then succeed with the same rows as an undamaged run.
# Cases marked XFAIL are known bugs in files this test's author does not own (see
# docs/reliability.md); they are reported, not counted as failures, and turn into XPASS when fixed.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker orders:4
pipeline=$WEIR_SOURCE_DIR/examples/orders.sql
run() {  # run LAKE: the orders pipeline, output in $work/out.log
  "$WEIR" run "$pipeline" --lakehouse "$1" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
    > "$work/out.log" 2>&1
}
produce() {
  "$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count "$1" --seed "$2" \
    --duplicates 0.05 --malformed 0.02 > /dev/null 2>&1 || { echo "FAIL: produce"; exit 1; }
}
base=$work/base
produce 3000 1
check "first run" run "$base"
produce 2000 2
check "second run" run "$base"
# A Delta checkpoint at bronze's latest version, then one more commit after it.
check "bronze Delta checkpoint" "$WEIR" table checkpoint "$base/sales/bronze/orders_raw"
produce 1000 3
check "third run" run "$base"
produce 700 4  # waiting for every damaged run: each must read the log and the checkpoints

BC=_checkpoints/sales.bronze.orders_raw
SC=_checkpoints/sales.silver.orders
BL=sales/bronze/orders_raw/_delta_log
SL=sales/silver/orders/_delta_log
ST=$SC/state/0/0
last_of() { ls "$base/$1" | grep -E '^[0-9]+$' | sort -n | tail -1; }
bo=$(last_of $BC/offsets)
sv=$(last_of $ST)
bl_last=$(ls "$base/$BL" | grep -E '^[0-9]{20}\.json$' | sort | tail -1)
bl_cp=$(ls "$base/$BL" | grep -E '\.checkpoint\.parquet$' | tail -1)
sl_last=$(ls "$base/$SL" | grep -E '^[0-9]{20}\.json$' | sort | tail -1)
sst=$(ls "$base/$ST/$sv" | grep -E '\.sst$' | sort | tail -1)
[ -n "$bo" ] && [ -n "$sv" ] && [ -n "$bl_cp" ] && [ -n "$sst" ] ||
  { echo "FAIL: the base lakehouse lacks a file to damage (offsets $bo, state $sv, cp $bl_cp, sst $sst)"; exit 1; }

scope=.  # the flow whose files a damaged run must leave alone (bronze damage stops both flows)
logs_of() {  # the Delta logs' and checkpoint logs' listings, to see that a failed run wrote nothing
  (cd "$1" && { find sales -path '*/_delta_log/*'; find _checkpoints -path '*/offsets/*' -o -path '*/commits/*'; } |
    grep -E "$scope" | sort)
}

xfails=0
# corrupt NAME FILE-NAMED SHELL-DAMAGE [XFAIL-REASON]: damages a copy; the run must fail cleanly.
corrupt() {
  local name=$1 file=$2 damage=$3 xfail=${4:-}
  local lake=$work/t
  rm -rf "$lake"
  cp -a "$base" "$lake"
  (cd "$lake" && eval "$damage") || { echo "FAIL: $name: could not damage the copy"; fail_count=$((fail_count + 1)); return; }
  logs_of "$lake" > "$work/before.listing"
  run "$lake"
  local rc=$? problems=()
  local err
  err=$(grep -E '^weir: [A-Za-z]+:' "$work/out.log" | tail -1)
  [ $rc -ne 0 ] || problems+=("exit status 0")
  echo "$err" | grep -q 'Corruption' || problems+=("not a Corruption error")
  echo "$err" | grep -qF "$file" || problems+=("does not name $file")
  echo "$err" | grep -qiE 'restore|new checkpoint|start the query|backup' || problems+=("does not say what to do")
  grep -q 'created Delta table' "$work/out.log" && problems+=("created a table (silent restart)")
  logs_of "$lake" | diff - "$work/before.listing" > "$work/listing.diff" ||
    problems+=("wrote a new version or batch: $(grep '^<' "$work/listing.diff" | head -3 | tr '\n' ' ')")
  if [ ${#problems[@]} -eq 0 ]; then
    pass_count=$((pass_count + 1))
    [ -n "$xfail" ] && echo "XPASS: $name (the known bug is fixed: remove the XFAIL mark)"
  elif [ -n "$xfail" ]; then
    xfails=$((xfails + 1))
    echo "XFAIL: $name: $(IFS=';'; echo "${problems[*]}") -- TODO: $xfail"
    echo "    got: $err"
  else
    fail_count=$((fail_count + 1))
    echo "FAIL: $name: $(IFS=';'; echo "${problems[*]}")"
    echo "    got (exit $rc): $err"
    grep -v '^sales\.' "$work/out.log" | head -5 | sed 's/^/    /'
  fi
}

# --- the streaming checkpoint (docs/checkpoint-format.md) ---
corrupt "offsets/N empty" "$BC/offsets/$bo" ": > $BC/offsets/$bo"
corrupt "offsets/N garbage" "$BC/offsets/$bo" "printf 'xx{' > $BC/offsets/$bo"
corrupt "offsets/N truncated mid-JSON" "$BC/offsets/$bo" "truncate -s 20 $BC/offsets/$bo"
corrupt "offsets/N source line garbage" "$BC/offsets/$bo" \
  "head -2 $BC/offsets/$bo > x && printf '{\"orders\":{\"0\":' >> x && mv x $BC/offsets/$bo"
corrupt "offsets/N newer log version" "$BC/offsets/$bo" "sed -i '1s/v1/v7/' $BC/offsets/$bo"
corrupt "commits/N empty" "$BC/commits/$bo" ": > $BC/commits/$bo"
corrupt "commits/N garbage" "$BC/commits/$bo" "printf 'v1\n{garb' > $BC/commits/$bo"
corrupt "metadata garbage" "$BC/metadata" "printf 'nope' > $BC/metadata"
corrupt "metadata empty" "$BC/metadata" ": > $BC/metadata"
corrupt "metadata deleted" "$BC/metadata" "rm $BC/metadata"
corrupt "an offsets file deleted in the middle" "$BC" "rm $BC/offsets/1"
scope=silver
corrupt "silver offsets/N garbage" "$SC/offsets" \
  "f=$SC/offsets/\$(ls $SC/offsets | sort -n | tail -1); printf 'v1\n{\"batchWatermarkMs\":' > \$f"
scope=.
# --- the Delta log ---
corrupt "latest bronze commit garbage" "$BL/$bl_last" "printf '{garbage\n' > $BL/$bl_last"
corrupt "latest bronze commit truncated mid-line" "$BL/$bl_last" "truncate -s 100 $BL/$bl_last"
corrupt "latest bronze commit empty" "$BL/$bl_last" ": > $BL/$bl_last"
corrupt "latest silver commit empty" "$SL/$sl_last" ": > $SL/$sl_last"
corrupt "bronze Delta checkpoint truncated" "$BL/$bl_cp" "truncate -s 1000 $BL/$bl_cp"
corrupt "bronze Delta checkpoint garbage" "$BL/$bl_cp" "head -c 4000 /dev/urandom > $BL/$bl_cp"
corrupt "bronze commit 0 deleted, no Delta checkpoint covers it" "00000000000000000000.json" \
  "rm $BL/00000000000000000000.json $BL/$bl_cp $BL/_last_checkpoint"
corrupt "bronze _delta_log deleted (checkpoint says batches were committed)" "$BL" "rm -r $BL"
# --- the silver state store (docs/state-format.md): bronze runs, silver must not commit (its
# write-ahead offsets/N comes before the state is opened, as in Spark: harmless, the batch is
# re-run over exactly that range once the state is restored) ---
scope='silver.*(_delta_log|/commits/)'
corrupt "state weir-state.json garbage" "$ST/$sv/weir-state.json" "printf 'garb' > $ST/$sv/weir-state.json"
corrupt "state weir-state.json missing" "$ST/$sv" "rm $ST/$sv/weir-state.json"
corrupt "state SST truncated" "$ST/$sv" "truncate -s 100 $ST/$sv/$sst"
corrupt "state CURRENT garbage" "$ST/$sv" "printf 'zzz\n' > $ST/$sv/CURRENT"
corrupt "state version folder deleted" "$ST/$sv" "rm -r $ST/$sv"

scope=.
# _last_checkpoint is a hint: damaged, the log listing still gives the table; same rows as a clean run.
count_rows() { "$WEIR" table scan "$1" --format jsonl 2>/dev/null | wc -l; }
rm -rf "$work/clean" && cp -a "$base" "$work/clean"
check "an undamaged copy runs" run "$work/clean"
for damage in "printf 'garb' > $BL/_last_checkpoint" ": > $BL/_last_checkpoint" \
              "printf '{\"version\":999,\"size\":3}' > $BL/_last_checkpoint"; do
  rm -rf "$work/t" && cp -a "$base" "$work/t"
  (cd "$work/t" && eval "$damage")
  hint_ok() {
    run "$work/t" || { tail -3 "$work/out.log"; return 1; }
    local a b
    a=$(count_rows "$work/t/sales/bronze/orders_raw")
    b=$(count_rows "$work/clean/sales/bronze/orders_raw")
    [ "$a" = "$b" ] && [ "$a" -gt 6000 ] || { echo "rows $a, clean run $b"; return 1; }
  }
  check "damaged _last_checkpoint ($damage) is only a missed hint" hint_ok
done
check "weir validate: the undamaged copy's bronze has no gap or duplicate" "$WEIR" validate "$work/clean/sales/bronze/orders_raw"
[ $xfails -gt 0 ] && echo "$xfails known failures (XFAIL) reported above"
finish
