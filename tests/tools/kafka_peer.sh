# Apache Kafka with Event Hubs-style security for integration tests (sourced, after common.sh).
# kafka_peer_start brings up, on loopback ports chosen at run time:
#   - a local Entra ID-shaped token service (tests/peers/kafka/token_endpoint.py): client
#     credentials, federated assertions (AKS workload identity), IMDS and App Service shapes, and
#     the JWKS the broker checks tokens with;
#   - one KRaft Kafka node (installed by scripts/install-kafka.sh) with three client listeners:
#       KAFKA_PLAINTEXT   PLAINTEXT
#       KAFKA_PLAIN       SASL_SSL + PLAIN: username "$ConnectionString", password a connection
#                         string of namespace $EH_NAMESPACE (weir.peer.ConnectionStringCallbackHandler)
#       KAFKA_OAUTH       SASL_SSL + OAUTHBEARER: RS256 tokens of the token service, audience
#                         https://$EH_NAMESPACE.servicebus.windows.net, expiry enforced
#     and TLS certificates from a test CA ($KAFKA_CA; $KAFKA_WRONG_CA is another CA) made here.
# Once per suite: the caller stops both with kafka_peer_stop (e.g. from its EXIT trap).
# REQUIRES: $work is a temporary folder the caller removes; $WEIR_SOURCE_DIR.
# If Kafka cannot be installed or does not start, the suite prints one SKIP line and exits 0,
# or fails under CI=true.

PY=/usr/bin/python3
EH_NAMESPACE=weirtest
EH_TENANT=72f988bf-0000-4000-8000-00000000feed
EH_CLIENT_ID=11111111-2222-4333-8444-555555555555
EH_CLIENT_SECRET="weir~test.secret-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
EH_KEY_NAME=listen-policy
EH_KEY="$(head -c 32 /dev/urandom | base64)"
EH_CONNECTION_STRING="Endpoint=sb://$EH_NAMESPACE.servicebus.windows.net/;SharedAccessKeyName=$EH_KEY_NAME;SharedAccessKey=$EH_KEY"
# Workload identity: the app whose federated credential trusts this service account.
EH_WORKLOAD_CLIENT_ID=66666666-7777-4888-9999-000000000001
EH_WORKLOAD_SUBJECT=system:serviceaccount:weir:bronze
# Managed identities of the "VM": a system-assigned one and two user-assigned ones.
EH_MI_SYSTEM_CLIENT_ID=aaaaaaaa-0000-4000-8000-000000000001
EH_MI_USER1_CLIENT_ID=bbbbbbbb-0000-4000-8000-000000000002
EH_MI_USER1_OBJECT_ID=bbbbbbbb-1111-4000-8000-000000000002
EH_MI_USER1_RESOURCE_ID=/subscriptions/0000/resourceGroups/weir/providers/Microsoft.ManagedIdentity/userAssignedIdentities/bronze
EH_MI_USER2_CLIENT_ID=cccccccc-0000-4000-8000-000000000003
EH_IDENTITY_HEADER="weir-identity-header-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"

kafka_peer_skip() {  # kafka_peer_skip REASON: one SKIP line (a failure under CI=true)
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: Apache Kafka cannot run here: $1"
    exit 1
  fi
  echo "SKIP: $(basename "$0"): Apache Kafka cannot run here: $1"
  exit 0
}

free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The test CA, the broker's certificate (127.0.0.1, localhost) in a PKCS#12 key store, and an
# unrelated CA for wrong-CA tests.
kafka_peer_certs() {
  local d=$KAFKA_RUN/tls
  mkdir -p "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=weir test CA" \
    -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null &&
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=some other CA" \
    -keyout "$d/other.key" -out "$d/other.pem" 2>/dev/null &&
  openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
    -keyout "$d/broker.key" -out "$d/broker.csr" 2>/dev/null &&
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > "$d/ext.cnf" &&
  openssl x509 -req -in "$d/broker.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
    -days 2 -extfile "$d/ext.cnf" -out "$d/broker.pem" 2>/dev/null &&
  openssl pkcs12 -export -in "$d/broker.pem" -inkey "$d/broker.key" -name broker \
    -passout pass:weirtest -out "$d/broker.p12" 2>/dev/null || return 1
  KAFKA_CA=$d/ca.pem
  KAFKA_WRONG_CA=$d/other.pem
}

kafka_peer_token_service() {
  cat > "$KAFKA_RUN/tokens.json" <<EOF
{"tenant": "$EH_TENANT", "lifetime": 3600,
 "clients": {"$EH_CLIENT_ID": "$EH_CLIENT_SECRET"},
 "federated": {"$EH_WORKLOAD_CLIENT_ID": "$EH_WORKLOAD_SUBJECT"},
 "system_identity": {"client_id": "$EH_MI_SYSTEM_CLIENT_ID", "object_id": "aaaaaaaa-1111-4000-8000-000000000001", "resource_id": "system"},
 "user_identities": [
   {"client_id": "$EH_MI_USER1_CLIENT_ID", "object_id": "$EH_MI_USER1_OBJECT_ID", "resource_id": "$EH_MI_USER1_RESOURCE_ID"},
   {"client_id": "$EH_MI_USER2_CLIENT_ID", "object_id": "cccccccc-1111-4000-8000-000000000003", "resource_id": "/subscriptions/0000/resourceGroups/weir/providers/Microsoft.ManagedIdentity/userAssignedIdentities/other"}],
 "identity_header": "$EH_IDENTITY_HEADER"}
EOF
  rm -f "$KAFKA_RUN/tokens.port"
  "$PY" "$WEIR_SOURCE_DIR/tests/peers/kafka/token_endpoint.py" --config "$KAFKA_RUN/tokens.json" \
    --port-file "$KAFKA_RUN/tokens.port" --log "$KAFKA_RUN/tokens.log" \
    > "$KAFKA_RUN/tokens.out" 2>&1 &
  TOKEN_PID=$!
  for _ in $(seq 1 100); do
    [ -s "$KAFKA_RUN/tokens.port" ] && break
    kill -0 "$TOKEN_PID" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$KAFKA_RUN/tokens.port" ] || { cat "$KAFKA_RUN/tokens.out"; return 1; }
  AUTHORITY_HOST=http://127.0.0.1:$(cat "$KAFKA_RUN/tokens.port")
  EH_TOKEN_URL=$AUTHORITY_HOST/$EH_TENANT/oauth2/v2.0/token
}

# kafka_token_config JSON: changes what the token service issues (lifetime, expired, fail).
kafka_token_config() {
  curl -sf -X POST --data "$1" "$AUTHORITY_HOST/_test/config" > /dev/null
}
# kafka_token_stats: the token service's counters as JSON.
kafka_token_stats() { curl -sf "$AUTHORITY_HOST/_stats"; }
# kafka_federated_token FILE [LIFETIME_S]: writes a fresh service-account token (atomically).
kafka_federated_token() {
  curl -sf -X POST --data "sub=$EH_WORKLOAD_SUBJECT&lifetime=${2:-3600}" \
    "$AUTHORITY_HOST/_test/federated-token" > "$1.tmp" && mv "$1.tmp" "$1"
}

kafka_peer_config() {
  local p=$KAFKA_RUN
  printf '%s=%s\n' "$EH_KEY_NAME" "$EH_KEY" > "$p/policies.properties"
  cat > "$p/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$PORT_CONTROLLER
controller.listener.names=CONTROLLER
listeners=PLAINTEXT://127.0.0.1:$PORT_PLAINTEXT,EHPLAIN://127.0.0.1:$PORT_PLAIN,EHOAUTH://127.0.0.1:$PORT_OAUTH,CONTROLLER://127.0.0.1:$PORT_CONTROLLER
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT_PLAINTEXT,EHPLAIN://127.0.0.1:$PORT_PLAIN,EHOAUTH://127.0.0.1:$PORT_OAUTH
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,EHPLAIN:SASL_SSL,EHOAUTH:SASL_SSL,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$p/data
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=1
group.initial.rebalance.delay.ms=0
log.retention.check.interval.ms=1000
log.initial.task.delay.ms=0
log.segment.delete.delay.ms=0
log.cleaner.backoff.ms=500
ssl.keystore.type=PKCS12
ssl.keystore.location=$p/tls/broker.p12
ssl.keystore.password=weirtest
ssl.key.password=weirtest
ssl.client.auth=none
listener.name.ehplain.sasl.enabled.mechanisms=PLAIN
listener.name.ehplain.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required namespace="$EH_NAMESPACE" policies="$p/policies.properties";
listener.name.ehplain.plain.sasl.server.callback.handler.class=weir.peer.ConnectionStringCallbackHandler
listener.name.ehoauth.sasl.enabled.mechanisms=OAUTHBEARER
listener.name.ehoauth.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;
listener.name.ehoauth.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler
listener.name.ehoauth.oauthbearer.connections.max.reauth.ms=3600000
sasl.oauthbearer.jwks.endpoint.url=$AUTHORITY_HOST/$EH_TENANT/discovery/v2.0/keys
sasl.oauthbearer.jwks.endpoint.refresh.ms=3600000
sasl.oauthbearer.expected.audience=https://$EH_NAMESPACE.servicebus.windows.net
sasl.oauthbearer.expected.issuer=$AUTHORITY_HOST/$EH_TENANT/v2.0
sasl.oauthbearer.clock.skew.seconds=1
EOF
  cat > "$p/log4j2.yaml" <<'EOF'
Configuration:
  Appenders:
    Console:
      name: STDOUT
      PatternLayout:
        pattern: "[%d] %p %m (%c)%n"
  Loggers:
    Root:
      level: WARN
      AppenderRef:
        - ref: STDOUT
    Logger:
      - name: kafka.server.KafkaRaftServer
        level: INFO
EOF
}

# The JVM command of the broker and its tools, on the broker's classpath (an array, so that a
# background start's $! is the JVM's own pid).
kafka_peer_java_command() {
  KAFKA_JAVA=(java -Xms128m -Xmx768m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
    -Dlog4j2.configurationFile="$KAFKA_RUN/log4j2.yaml"
    -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls="$AUTHORITY_HOST/$EH_TENANT/discovery/v2.0/keys"
    -cp "$KAFKA_HOME/libs/*:$KAFKA_HOME/weir-peer.jar")
}

# Starts the broker (again, on the same ports and data, after kafka_peer_stop_broker) and waits
# until its PLAINTEXT listener answers metadata requests.
kafka_peer_start_broker() {
  "${KAFKA_JAVA[@]}" kafka.Kafka "$KAFKA_RUN/server.properties" >> "$KAFKA_RUN/broker.log" 2>&1 &
  KAFKA_PID=$!
  for _ in $(seq 1 300); do
    if kcat -b "$KAFKA_PLAINTEXT" -L -m 2 2>/dev/null | grep -q "1 brokers"; then return 0; fi
    kill -0 "$KAFKA_PID" 2>/dev/null || break
    sleep 0.1
  done
  tail -30 "$KAFKA_RUN/broker.log"
  return 1
}

kafka_peer_stop_broker() {  # a clean shutdown (SIGTERM), waited for
  [ -n "${KAFKA_PID:-}" ] || return 0
  kill -TERM "$KAFKA_PID" 2>/dev/null
  local _
  for _ in $(seq 1 300); do kill -0 "$KAFKA_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$KAFKA_PID" 2>/dev/null  # a shutdown stuck for 30 s
  wait "$KAFKA_PID" 2>/dev/null
  KAFKA_PID=
}

kafka_peer_start() {
  KAFKA_HOME=$("$WEIR_SOURCE_DIR/scripts/install-kafka.sh" --dir) ||
    kafka_peer_skip "scripts/install-kafka.sh failed"
  "$PY" -c 'import jwt, cryptography, confluent_kafka' 2>/dev/null ||
    kafka_peer_skip "$PY lacks jwt, cryptography or confluent_kafka (scripts/install-deps.sh)"
  KAFKA_RUN=$work/kafka
  mkdir -p "$KAFKA_RUN"
  kafka_peer_certs || kafka_peer_skip "openssl could not make the test certificates"
  kafka_peer_token_service || kafka_peer_skip "the token service did not start"
  PORT_PLAINTEXT=$(free_port); PORT_PLAIN=$(free_port); PORT_OAUTH=$(free_port)
  PORT_CONTROLLER=$(free_port)
  KAFKA_PLAINTEXT=127.0.0.1:$PORT_PLAINTEXT
  KAFKA_PLAIN=127.0.0.1:$PORT_PLAIN
  KAFKA_OAUTH=127.0.0.1:$PORT_OAUTH
  kafka_peer_config
  kafka_peer_java_command
  "${KAFKA_JAVA[@]}" kafka.tools.StorageTool format -t "$("$PY" -c 'import base64,os; print(base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("="))')" \
    -c "$KAFKA_RUN/server.properties" > "$KAFKA_RUN/format.log" 2>&1 ||
    { cat "$KAFKA_RUN/format.log"; kafka_peer_skip "kafka-storage format failed"; }
  kafka_peer_start_broker || kafka_peer_skip "the broker did not start (log above)"
}

kafka_peer_stop() {
  kafka_peer_stop_broker
  [ -n "${TOKEN_PID:-}" ] && kill "$TOKEN_PID" 2>/dev/null && wait "$TOKEN_PID" 2>/dev/null
  TOKEN_PID=
}

# kafka_admin ARGS...: tests/peers/kafka/admin.py against the PLAINTEXT listener.
kafka_admin() { "$PY" "$WEIR_SOURCE_DIR/tests/peers/kafka/admin.py" "$KAFKA_PLAINTEXT" "$@"; }
