#!/usr/bin/env bash
# weir against Apache Kafka 4.4 (KRaft, one node) with Event Hubs-style security, brought up once
# for the whole suite by tests/tools/kafka_peer.sh (installed by scripts/install-kafka.sh):
#   auth         the bronze flow over a connection string and over Entra ID tokens (client secret,
#                managed identity from IMDS and App Service, AKS workload identity); a wrong key,
#                a wrong CA, an expired token and a refused secret fail at once, permanently, naming
#                the namespace and never a secret
#   refresh      a streaming run across several token expiries (the broker ends expired sessions)
#   timestamps   startingTimestamp / startingOffsetsByTimestamp (+ strategy) on CreateTime and
#                LogAppendTime topics, as Spark resolves them
#   retention    segments deleted under a running flow: failOnDataLoss true fails, false skips
#   txn          committed and aborted transactions, read_committed and read_uncommitted
#   compacted    a compacted topic with tombstones
#   workers      --workers-group: three processes, one killed, one added, real rebalances
#   restart      the broker restarted under a streaming flow
#   partitions   64 partitions
#   headers      keys and headers byte-exact (python3-confluent-kafka's records, and kcat's view)
# KAFKA_REAL_CASES="auth txn" runs only those cases. Each table is checked with `weir validate`
# and against the topic as kcat sees it (DuckDB reading the table's files).
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
source "$(dirname "$0")/tools/kafka_peer.sh"
work=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  kafka_peer_stop
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
suite_start=$(date +%s)
kafka_peer_start
echo "kafka_real: broker and token service up in $(( $(date +%s) - suite_start )) s"
BOOTSTRAP=$KAFKA_PLAINTEXT  # table_matches_topic reads the topic with kcat here

wanted() { [ -z "${KAFKA_REAL_CASES:-}" ] || [[ " $KAFKA_REAL_CASES " == *" $1 "* ]]; }
case_start() { CASE=$1; CASE_T0=$(date +%s); mkdir -p "$work/$1"; }
case_end() { echo "kafka_real: case $CASE took $(( $(date +%s) - CASE_T0 )) s"; }

# bronze_sql FILE TOPIC READ_KAFKA_ARGS: the bronze flow of examples/orders.sql over TOPIC with
# extra read_kafka arguments (SQL text).
bronze_sql() {
  cat > "$1" <<SQL
CREATE OR REFRESH STREAMING TABLE sales.bronze.orders_raw AS
SELECT CAST(key AS STRING) AS partition_key, CAST(value AS STRING) AS raw_value,
       partition AS eh_partition, offset AS eh_offset, timestamp AS enqueued_time,
       current_timestamp() AS ingested_at
FROM STREAM read_kafka(subscribe => '$2', startingOffsets => 'earliest', $3);
SQL
}
# no_secret FILE...: none of the suite's secrets appears in the files.
no_secret() {
  local s f
  for f in "$@"; do
    for s in "$EH_KEY" "$EH_CLIENT_SECRET" "$EH_CONNECTION_STRING" "$EH_IDENTITY_HEADER" \
             "SharedAccessKey=WRONG" "eyJ"; do
      if grep -qF -- "$s" "$f"; then echo "secret found in $f"; return 1; fi
    done
  done
}
# fails_with FILE PATTERN...: the command's stderr (FILE) has every PATTERN.
has_all() {
  local f=$1 p
  shift
  for p in "$@"; do grep -qF -- "$p" "$f" || { echo "no '$p' in:"; cat "$f"; return 1; }; done
}
stats_count() {  # stats_count KEY: tokens the token service issued to KEY
  kafka_token_stats | "$PY" -c "import json,sys; print(json.load(sys.stdin)['issued'].get(sys.argv[1], 0))" "$1"
}
ns_host=$EH_NAMESPACE.servicebus.windows.net

# --- auth ---------------------------------------------------------------------------------------------
if wanted auth; then
  case_start auth
  d=$work/auth
  kafka_admin create orders 4
  "$WEIR" produce --bootstrap "$KAFKA_PLAINTEXT" --topic orders --count 5000 > "$d/produce.log" 2>&1
  export WEIR_SECRET_EH_CONN=$EH_CONNECTION_STRING WEIR_SECRET_EH_SP=$EH_CLIENT_SECRET
  tls="\`kafka.ssl.ca.location\` => '$KAFKA_CA'"
  run_bronze() {  # run_bronze NAME READ_KAFKA_ARGS [env...]: availableNow into $d/NAME
    local name=$1 args=$2
    shift 2
    bronze_sql "$d/$name.sql" orders "$args"
    env "$@" "$WEIR" run "$d/$name.sql" --lakehouse "$d/$name" --trigger availableNow \
      > "$d/$name.out" 2> "$d/$name.err"
    echo $? > "$d/$name.rc"
  }
  bronze_ok() {  # bronze_ok NAME: the run exited 0, the table holds the topic exactly once
    local t=$d/$1/sales/bronze/orders_raw
    [ "$(cat "$d/$1.rc")" = 0 ] || { cat "$d/$1.err"; return 1; }
    "$WEIR" validate "$t" > /dev/null && table_matches_topic "$t" orders && no_secret "$d/$1.out" "$d/$1.err"
  }

  run_bronze connstr "bootstrapServers => '$KAFKA_PLAIN', \`eventhubs.connectionString\` => secret('eh', 'conn'), $tls"
  check "connection string over SASL_SSL PLAIN (\$ConnectionString): the bronze flow" bronze_ok connstr
  run_bronze secret "bootstrapServers => '$KAFKA_OAUTH', \`eventhubs.namespace\` => '$EH_NAMESPACE',
      \`eventhubs.tenantId\` => '$EH_TENANT', \`eventhubs.clientId\` => '$EH_CLIENT_ID',
      \`eventhubs.clientSecret\` => secret('eh', 'sp'), \`eventhubs.authorityHost\` => '$AUTHORITY_HOST', $tls"
  check "Entra ID client secret over OAUTHBEARER: the bronze flow" bronze_ok secret
  mi="bootstrapServers => '$KAFKA_OAUTH', \`eventhubs.namespace\` => '$EH_NAMESPACE', \`eventhubs.credential\` => 'managedIdentity', $tls"
  before=$(stats_count "imds:$EH_MI_SYSTEM_CLIENT_ID")
  run_bronze mi-system "$mi" AZURE_POD_IDENTITY_AUTHORITY_HOST="$AUTHORITY_HOST"
  check "system-assigned managed identity (IMDS): the bronze flow" bronze_ok mi-system
  check "... with a token of the system-assigned identity" test "$(stats_count "imds:$EH_MI_SYSTEM_CLIENT_ID")" -gt "$before"
  for sel in "clientId:$EH_MI_USER1_CLIENT_ID" "managedIdentityObjectId:$EH_MI_USER1_OBJECT_ID" \
             "managedIdentityResourceId:$EH_MI_USER1_RESOURCE_ID"; do
    before=$(stats_count "imds:$EH_MI_USER1_CLIENT_ID")
    run_bronze "mi-${sel%%:*}" "$mi, \`eventhubs.${sel%%:*}\` => '${sel#*:}'" \
      AZURE_POD_IDENTITY_AUTHORITY_HOST="$AUTHORITY_HOST"
    check "user-assigned managed identity by eventhubs.${sel%%:*} (IMDS): the bronze flow" bronze_ok "mi-${sel%%:*}"
    check "... with a token of that identity" test "$(stats_count "imds:$EH_MI_USER1_CLIENT_ID")" -gt "$before"
  done
  run_bronze mi-appservice "$mi, \`eventhubs.clientId\` => '$EH_MI_USER1_CLIENT_ID'" \
    IDENTITY_ENDPOINT="$AUTHORITY_HOST/msi/token" IDENTITY_HEADER="$EH_IDENTITY_HEADER"
  check "managed identity through App Service's IDENTITY_ENDPOINT: the bronze flow" bronze_ok mi-appservice
  kafka_federated_token "$d/federated-token"
  run_bronze workload "bootstrapServers => '$KAFKA_OAUTH', \`eventhubs.namespace\` => '$EH_NAMESPACE', \`eventhubs.credential\` => 'workloadIdentity', $tls" \
    AZURE_CLIENT_ID="$EH_WORKLOAD_CLIENT_ID" AZURE_TENANT_ID="$EH_TENANT" \
    AZURE_FEDERATED_TOKEN_FILE="$d/federated-token" AZURE_AUTHORITY_HOST="$AUTHORITY_HOST"
  check "AKS workload identity (federated token file, client assertion): the bronze flow" bronze_ok workload

  # Failures: at once (not after a timeout), permanent, naming the namespace, no secret.
  fails() {  # fails NAME CODE PATTERN...: `weir kafka read` of NAME failed with CODE and PATTERNs
    local name=$1 code=$2
    shift 2
    [ "$(cat "$d/$name.rc")" != 0 ] && has_all "$d/$name.err" "weir: $code" "$ns_host" "$@" &&
      no_secret "$d/$name.err"
  }
  read_kafka() {  # read_kafka NAME OPTION... [-- env...]
    local name=$1 opts=() envs=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=(--option "$1"); shift; done
    [ "${1:-}" = -- ] && { shift; envs=("$@"); }
    local t0=$(date +%s%N)
    env "${envs[@]}" "$WEIR" kafka read --option subscribe=orders "${opts[@]}" --format jsonl \
      > "$d/$name.out" 2> "$d/$name.err"
    echo $? > "$d/$name.rc"
    echo $(( ($(date +%s%N) - t0) / 1000000 )) > "$d/$name.ms"
  }
  wrong_key="Endpoint=sb://$ns_host/;SharedAccessKeyName=$EH_KEY_NAME;SharedAccessKey=WRONG$(head -c 8 /dev/urandom | base64)"
  read_kafka wrong-key "eventhubs.connectionString=$wrong_key" "kafka.bootstrap.servers=$KAFKA_PLAIN" "kafka.ssl.ca.location=$KAFKA_CA"
  check "a wrong SharedAccessKey: InvalidArgument naming the namespace and the connection string" \
    fails wrong-key InvalidArgument "SASL authentication" "SharedAccessKey"
  check "... within 5 s (not after the metadata timeout)" test "$(cat "$d/wrong-key.ms")" -lt 5000
  read_kafka wrong-ca "eventhubs.connectionString=$EH_CONNECTION_STRING" "kafka.bootstrap.servers=$KAFKA_PLAIN" "kafka.ssl.ca.location=$KAFKA_WRONG_CA"
  check "a broker certificate from another CA: InvalidArgument, certificate verify failed" \
    fails wrong-ca InvalidArgument "certificate verify failed" "kafka.ssl.ca.location"
  read_kafka default-ca "eventhubs.connectionString=$EH_CONNECTION_STRING" "kafka.bootstrap.servers=$KAFKA_PLAIN"
  check "TLS verification is on by default (the test CA is not in the system store)" \
    fails default-ca InvalidArgument "certificate verify failed"
  entra=("kafka.bootstrap.servers=$KAFKA_OAUTH" "kafka.ssl.ca.location=$KAFKA_CA" "eventhubs.namespace=$EH_NAMESPACE"
         "eventhubs.tenantId=$EH_TENANT" "eventhubs.clientId=$EH_CLIENT_ID")
  read_kafka wrong-secret "${entra[@]}" "eventhubs.clientSecret=not-the-secret" -- AZURE_AUTHORITY_HOST="$AUTHORITY_HOST"
  check "a refused client secret: InvalidArgument with Entra ID's AADSTS7000215, naming the app" \
    fails wrong-secret InvalidArgument "AADSTS7000215" "$EH_CLIENT_ID"
  kafka_token_config '{"expired": true}'
  read_kafka expired "${entra[@]}" "eventhubs.clientSecret=$EH_CLIENT_SECRET" -- AZURE_AUTHORITY_HOST="$AUTHORITY_HOST"
  kafka_token_config '{"expired": false}'
  check "an expired token: the broker refuses it, InvalidArgument naming the namespace" \
    fails expired InvalidArgument "SASL authentication" "expired token"
  read_kafka unknown-mi "kafka.bootstrap.servers=$KAFKA_OAUTH" "kafka.ssl.ca.location=$KAFKA_CA" "eventhubs.namespace=$EH_NAMESPACE" \
    eventhubs.credential=managedIdentity eventhubs.clientId=no-such-identity -- AZURE_POD_IDENTITY_AUTHORITY_HOST="$AUTHORITY_HOST"
  check "a managed identity not assigned to the machine: InvalidArgument, 'Identity not found'" \
    fails unknown-mi InvalidArgument "Identity not found" "no-such-identity"
  kafka_token_config '{"fail": 1}'
  read_kafka busy-imds "kafka.bootstrap.servers=$KAFKA_OAUTH" "kafka.ssl.ca.location=$KAFKA_CA" "eventhubs.namespace=$EH_NAMESPACE" \
    eventhubs.credential=managedIdentity -- AZURE_POD_IDENTITY_AUTHORITY_HOST="$AUTHORITY_HOST"
  check "IMDS answering 503 once: retried, the read succeeds" \
    bash -c '[ "$(cat "$1/busy-imds.rc")" = 0 ] && [ "$(wc -l < "$1/busy-imds.out")" -eq 5000 ]' _ "$d"
  read_kafka unreachable "eventhubs.connectionString=$EH_CONNECTION_STRING" "kafka.bootstrap.servers=127.0.0.1:1" \
    "kafka.ssl.ca.location=$KAFKA_CA" kafka.request.timeout.ms=2000
  check "an unreachable broker: Unavailable (retryable), naming the namespace" \
    fails unreachable Unavailable "Connection refused"
  unset WEIR_SECRET_EH_CONN WEIR_SECRET_EH_SP
  case_end
fi

# --- refresh ------------------------------------------------------------------------------------------
if wanted refresh; then
  case_start refresh
  d=$work/refresh
  kafka_admin create refresh 2
  kafka_token_config '{"lifetime": 6}'
  kafka_federated_token "$d/federated-token" 30
  bronze_sql "$d/flow.sql" refresh "bootstrapServers => '$KAFKA_OAUTH', \`eventhubs.namespace\` => '$EH_NAMESPACE',
      \`eventhubs.credential\` => 'workloadIdentity', \`kafka.ssl.ca.location\` => '$KAFKA_CA'"
  before=$(stats_count "federated:$EH_WORKLOAD_CLIENT_ID")
  AZURE_CLIENT_ID="$EH_WORKLOAD_CLIENT_ID" AZURE_TENANT_ID="$EH_TENANT" \
    AZURE_FEDERATED_TOKEN_FILE="$d/federated-token" AZURE_AUTHORITY_HOST="$AUTHORITY_HOST" \
    "$WEIR" run "$d/flow.sql" --lakehouse "$d/lake" --trigger processingTime=500ms \
    --progress-log "$d/progress.jsonl" > "$d/run.out" 2> "$d/run.err" &
  flow=$!
  PIDS+=($flow)
  # 24 s of producing (four token lifetimes); the service-account token is rotated every 8 s.
  for i in 1 2 3 4 5 6; do
    kafka_admin produce refresh 2 300 --first $(( (i - 1) * 300 )) > /dev/null
    sleep 4
    [ $((i % 2)) = 0 ] && kafka_federated_token "$d/federated-token" 30
  done
  sleep 3
  kill -TERM $flow
  wait $flow
  rc=$?
  kafka_token_config '{"lifetime": 3600}'
  check "the streaming run stops cleanly after 27 s of 6-second tokens" test "$rc" -eq 0
  check "it took a new token at least four times" \
    test "$(( $(stats_count "federated:$EH_WORKLOAD_CLIENT_ID") - before ))" -ge 4
  assertions=$(kafka_token_stats | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["assertions"])')
  check "... presenting the rotated federated tokens (the file is read again): $assertions" test "$assertions" -ge 3
  check "every record is in the table exactly once" table_matches_topic "$d/lake/sales/bronze/orders_raw" refresh
  check "weir validate finds no gap or duplicate" "$WEIR" validate "$d/lake/sales/bronze/orders_raw"
  check "no secret in the run's output" no_secret "$d/run.out" "$d/run.err" "$d/progress.jsonl"
  case_end
fi

source "$(dirname "$0")/peers/kafka/semantics_cases.sh"

echo "kafka_real: suite took $(( $(date +%s) - suite_start )) s"
finish
