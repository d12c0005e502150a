#!/usr/bin/env bash
# Secrets never appear (issue "Reliability and security", part 5; DESIGN.md invariant): a pipeline
# configured through secret(...) with an Event Hubs connection string (from the environment,
# WEIR_SECRET_<SCOPE>_<KEY>) and an Entra ID client secret (from --secrets FILE) ingests from the
# embedded broker: the connection string with PLAINTEXT overriding the SASL_SSL it implies, so the
# run ingests with the secret loaded into librdkafka's configuration; the client secret through
# OAUTHBEARER with a local token endpoint (which records that it received the secret), whose SASL
# exchange the embedded broker then refuses. Then every
# log line, progress record, error message (a failing SASL_SSL connection, a malformed connection
# string, an unknown option, a bad Kafka setting next to the secrets), checkpoint file, Delta
# commit (commitInfo included), `weir table describe|history`, `weir checkpoint inspect` and
# `--help` output is searched for the secrets (whole, the SAS key alone, and the client secret):
# none may appear.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
trap 'kill $BROKER_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
start_broker orders:2
lake=$work/lake
logs=$work/logs  # every output captured, one file per command
mkdir -p "$logs"

SAS_KEY='Zm9vYmFyU2VjcmV0U0FTS2V5K3dlaXI0MjQy9q8x7rT='
CONNECTION_STRING="Endpoint=sb://weirtest-ns.servicebus.windows.net/;SharedAccessKeyName=listen;SharedAccessKey=$SAS_KEY;EntityPath=orders"
CLIENT_SECRET='Qx8~weirClientSecret.7Hk-91LmZpTq_secret'
export WEIR_SECRET_EH_ORDERS_LISTEN="$CONNECTION_STRING"
printf '{"aad": {"client-secret": "%s"}}' "$CLIENT_SECRET" > "$work/secrets.json"

"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 2000 --seed 5 > /dev/null 2>&1 ||
  { echo "FAIL: produce"; exit 1; }

# A local OAuth token endpoint (Entra ID's client-credentials flow) that records each request.
cat > "$work/token_server.py" <<'PY'
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        open(sys.argv[2], 'ab').write(body + b'\n')
        token = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ3ZWlyIn0.'
        out = json.dumps({'access_token': token, 'token_type': 'Bearer', 'expires_in': 3600}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *args):
        pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
open(sys.argv[1] + '.tmp', 'w').write(str(s.server_address[1]))
import os; os.rename(sys.argv[1] + '.tmp', sys.argv[1])
s.serve_forever()
PY
python3 "$work/token_server.py" "$work/token_port" "$work/token_requests" &
TOKEN_PID=$!
trap 'kill $BROKER_PID $TOKEN_PID 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
for _ in $(seq 1 50); do [ -s "$work/token_port" ] && break; sleep 0.1; done
TOKEN_URL="http://127.0.0.1:$(cat "$work/token_port")/oauth2/v2.0/token"

cs_flow() {  # cs_flow EXTRA-ARGS: bronze from the topic named by the connection string
  cat <<SQL
CREATE OR REFRESH STREAMING TABLE sales.bronze.cs_raw AS
SELECT CAST(value AS STRING) AS raw_value, partition AS eh_partition, offset AS eh_offset
FROM STREAM read_kafka(bootstrapServers => '\${bootstrap}',
                       \`eventhubs.connectionString\` => secret('eh', 'orders-listen'),
                       startingOffsets => 'earliest' $1);
SQL
}
sp_flow() {  # sp_flow EXTRA-ARGS: the client secret, OAUTHBEARER with the local token endpoint
  cat <<SQL
CREATE OR REFRESH STREAMING TABLE sales.bronze.sp_raw AS
SELECT CAST(value AS STRING) AS raw_value, partition AS eh_partition, offset AS eh_offset
FROM STREAM read_kafka(bootstrapServers => '\${bootstrap}', subscribe => 'orders',
                       \`kafka.sasl.oauthbearer.client.id\` => 'weir-test-client',
                       \`kafka.sasl.oauthbearer.client.secret\` => secret('aad', 'client-secret'),
                       \`kafka.sasl.oauthbearer.token.endpoint.url\` => '$TOKEN_URL',
                       \`kafka.sasl.oauthbearer.scope\` => 'https://weirtest-ns.servicebus.windows.net/.default',
                       \`kafka.security.protocol\` => 'SASL_PLAINTEXT', \`kafka.sasl.mechanism\` => 'OAUTHBEARER',
                       \`kafka.debug\` => 'security,broker,conf',
                       \`kafkaConsumer.pollTimeoutMs\` => '5000', \`fetchOffset.numRetries\` => '1',
                       startingOffsets => 'earliest' $1);
SQL
}
run() {  # run NAME PIPELINE [args...]: output to $logs/NAME.log
  local name=$1 file=$2
  shift 2
  timeout 120 "$WEIR" run "$file" --lakehouse "$lake" --trigger availableNow --set bootstrap="$BOOTSTRAP" \
    --secrets "$work/secrets.json" --progress-log "$work/progress.jsonl" "$@" > "$logs/$name.log" 2>&1
}
failing() { ! "$@"; }

# The connection string, PLAINTEXT: a real ingestion with the secret in librdkafka's settings.
cs_flow ", \`kafka.security.protocol\` => 'PLAINTEXT', \`kafka.debug\` => 'conf,security,broker'" > "$work/ok.sql"
check "the pipeline with a connection string secret runs against the embedded broker" run ok "$work/ok.sql"
rows() { "$WEIR" table scan "$lake/sales/bronze/$1" --format jsonl 2>/dev/null | wc -l; }
check "the connection-string flow ingested every event (subscribe from its EntityPath)" test "$(rows cs_raw)" -eq 2000
"$WEIR" produce --bootstrap "$BOOTSTRAP" --topic orders --count 500 --seed 6 > /dev/null 2>&1
check "a second run with the secret resumes from the checkpoint" run ok2 "$work/ok.sql"
check "the second run ingested the new events" test "$(rows cs_raw)" -eq 2500

# The client secret: weir fetches a token (the endpoint sees the secret), then the SASL exchange
# with the embedded broker (which has no SASL) fails or succeeds; either way nothing may leak.
sp_flow "" > "$work/sp.sql"
run sp "$work/sp.sql" --lakehouse "$work/lake-sp"
check "the client secret was sent to the token endpoint (so it was in use)" \
  grep -qF "$(python3 -c 'import urllib.parse,sys; print(urllib.parse.quote_plus(sys.argv[1]))' "$CLIENT_SECRET")" "$work/token_requests"

# Failing runs: the error messages must not carry the secrets either.
# 1. The connection string's own SASL_SSL against a plaintext broker: the connection fails.
cs_flow ", \`kafka.socket.timeout.ms\` => '3000', \`kafka.debug\` => 'security,broker', \`kafkaConsumer.pollTimeoutMs\` => '4000', \`fetchOffset.numRetries\` => '1'" > "$work/ssl.sql"
check "SASL_SSL against a plaintext broker fails" failing run ssl "$work/ssl.sql" --lakehouse "$work/lake-ssl"
# 2. A malformed connection string holding the key.
export WEIR_SECRET_EH_ORDERS_LISTEN="Endpoint=weirtest-ns;SharedAccessKey=$SAS_KEY;Broken"
check "a malformed connection string fails" failing run malformed "$work/ok.sql" --lakehouse "$work/lake-bad"
export WEIR_SECRET_EH_ORDERS_LISTEN="$CONNECTION_STRING"
# 3. An invalid librdkafka setting, and an unknown option, next to the secrets.
cs_flow ", \`kafka.security.protocol\` => 'PLAINTEXT', \`kafka.fetch.max.bytes\` => 'lots'" > "$work/badopt.sql"
check "an invalid Kafka setting fails" failing run badopt "$work/badopt.sql" --lakehouse "$work/lake-badopt"
sp_flow ", \`noSuchOption\` => 'x'" > "$work/unknown.sql"
check "an unknown option fails" failing run unknown "$work/unknown.sql" --lakehouse "$work/lake-unknown"
# 4. The token endpoint refusing: its error must not quote the request (which holds the secret).
sed "s|$TOKEN_URL|http://127.0.0.1:9/token|" "$work/sp.sql" > "$work/notoken.sql"
check "an unreachable token endpoint fails" failing run notoken "$work/notoken.sql" --lakehouse "$work/lake-notoken"
# 5. The client secret with a PLAINTEXT connection that cannot use it: a configuration error.
sed "s/'SASL_PLAINTEXT'/'PLAINTEXT'/" "$work/sp.sql" > "$work/plainsp.sql"
check "OAUTHBEARER credentials on a PLAINTEXT connection fail" failing run plainsp "$work/plainsp.sql" --lakehouse "$work/lake-plainsp"
check "... with InvalidArgument saying what to set" grep -q "InvalidArgument: .*kafka.security.protocol" "$logs/plainsp.log"
# 6. A secret that is not set: the error names the variable, not a value.
unset WEIR_SECRET_EH_ORDERS_LISTEN
check "a missing secret fails" failing run missing "$work/ok.sql" --lakehouse "$work/lake-missing"
check "the missing-secret error names WEIR_SECRET_EH_ORDERS_LISTEN" grep -q 'WEIR_SECRET_EH_ORDERS_LISTEN' "$logs/missing.log"
export WEIR_SECRET_EH_ORDERS_LISTEN="$CONNECTION_STRING"

# Read-side commands over everything the runs wrote.
for t in cs_raw; do
  "$WEIR" table describe "$lake/sales/bronze/$t" > "$logs/describe-$t.log" 2>&1
  "$WEIR" table history "$lake/sales/bronze/$t" > "$logs/history-$t.log" 2>&1
  "$WEIR" checkpoint inspect "$lake/_checkpoints/sales.bronze.$t" > "$logs/inspect-$t.log" 2>&1
done
"$WEIR" --help > "$logs/help.log" 2>&1
"$WEIR" run --help > "$logs/run-help.log" 2>&1
"$WEIR" kafka --help > "$logs/kafka-help.log" 2>&1
check "table describe shows the table" grep -q 'raw_value' "$logs/describe-cs_raw.log"
check "table history lists streaming commits" grep -qi 'STREAMING UPDATE' "$logs/history-cs_raw.log"
check "the Delta log holds commitInfo" grep -rq commitInfo "$lake/sales/bronze/cs_raw/_delta_log"

no_secret_in() {  # no_secret_in PATH...: grep -r (binary files included) for each secret form
  local found=0
  for s in "$CONNECTION_STRING" "$SAS_KEY" "$CLIENT_SECRET" "SharedAccessKey=Zm9v"; do
    if grep -rlaF -- "$s" "$@" 2>/dev/null; then found=1; fi
  done
  [ $found -eq 0 ]
}
check "no secret in any command output or log line" no_secret_in "$logs"
check "no secret in the progress log" no_secret_in "$work/progress.jsonl"
check "no secret in checkpoints or Delta tables (commitInfo, data files)" no_secret_in "$lake" "$work"/lake-*
check "no secret in any file the runs left" no_secret_in "$work" --exclude=secrets.json --exclude=token_requests
finish
