#!/usr/bin/env bash
# The storage credential chain (cli/file_systems.h, azure/credentials.h) end to end up to the
# storage request: weir opens an Azurite container with each source of the chain — hadoop-azure
# settings (ClientCredsTokenProvider, WorkloadIdentityTokenProvider, MsiTokenProvider), the
# Azure SDKs' environment variables (client secret, workload identity, and managed identity with
# AZURE_TOKEN_CREDENTIALS: IMDS and App Service) — against the local Entra ID-shaped token
# service of the Kafka tests (tests/peers/kafka/token_endpoint.py), whose counters show which
# identity was asked for a token, and for which resource. Each source must win over the later
# ones, nothing configured must ask for no token, a refused secret must fail naming the token
# endpoint and Entra ID's code, and no secret may appear in any output.
#
# Azurite accepts bearer tokens only with --oauth basic over HTTPS, and only from issuers under
# https://sts.windows.net/ (the token service signs as its own loopback URL), so the storage
# request itself is refused (HTTP 403, the bearer token is not accepted over HTTP): the test checks
# that a bearer token reached the storage request and that the refusal is the storage's, not a
# token failure. The Shared Key control case opens the container for real.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
AZURITE_PID=
TOKEN_PID=
stop_all() {
  [ -n "$TOKEN_PID" ] && kill "$TOKEN_PID" 2>/dev/null
  if [ -n "$AZURITE_PID" ]; then
    kill "$AZURITE_PID" 2>/dev/null
    wait "$AZURITE_PID" 2>/dev/null  # it must stop writing its folder before the folder goes
  fi
}
trap 'stop_all; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

PY=/usr/bin/python3  # Debian's, with python3-jwt and python3-cryptography (scripts/install-deps.sh)
if ! "$PY" -c 'import jwt, cryptography' 2> /dev/null; then
  [ "${CI:-}" = "true" ] && { echo "FAIL: python3-jwt / python3-cryptography missing"; exit 1; }
  echo "SKIPPED (LOUDLY): python3-jwt / python3-cryptography missing"
  exit 0
fi

start_azurite lake
url=http://127.0.0.1:$AZURITE_PORT/$AZURE_ACCOUNT/lake/t

TENANT=72f988bf-0000-4000-8000-00000000cafe
SP_CLIENT=11111111-2222-4333-8444-000000000001
SP_SECRET="weir~storage.secret-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
WI_CLIENT=66666666-7777-4888-9999-000000000002
WI_SUBJECT=system:serviceaccount:weir:lake
MI_SYSTEM=aaaaaaaa-0000-4000-8000-00000000000a
MI_USER=bbbbbbbb-0000-4000-8000-00000000000b
IDENTITY_HEADER="weir-identity-header-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
cat > "$work/tokens.json" <<EOF
{"tenant": "$TENANT", "lifetime": 3600,
 "clients": {"$SP_CLIENT": "$SP_SECRET"},
 "federated": {"$WI_CLIENT": "$WI_SUBJECT"},
 "system_identity": {"client_id": "$MI_SYSTEM", "object_id": "aaaaaaaa-1111-4000-8000-00000000000a", "resource_id": "system"},
 "user_identities": [{"client_id": "$MI_USER", "object_id": "bbbbbbbb-1111-4000-8000-00000000000b", "resource_id": "/subscriptions/0/rg/uami"}],
 "identity_header": "$IDENTITY_HEADER"}
EOF
"$PY" "$WEIR_SOURCE_DIR/tests/peers/kafka/token_endpoint.py" --config "$work/tokens.json" \
  --port-file "$work/tokens.port" --log "$work/tokens.log" > "$work/tokens.out" 2>&1 &
TOKEN_PID=$!
for _ in $(seq 1 100); do
  [ -s "$work/tokens.port" ] && break
  kill -0 "$TOKEN_PID" 2>/dev/null || break
  sleep 0.1
done
[ -s "$work/tokens.port" ] || { echo "FAIL: the token service did not start"; cat "$work/tokens.out"; exit 1; }
AUTHORITY=http://127.0.0.1:$(cat "$work/tokens.port")
curl -sf -X POST --data "sub=$WI_SUBJECT&lifetime=3600" "$AUTHORITY/_test/federated-token" \
  > "$work/federated-token" || { echo "FAIL: no federated token"; exit 1; }

issued() {  # issued KEY: tokens the service issued to KEY (secret:ID, federated:ID, imds:ID, appservice:ID)
  curl -sf "$AUTHORITY/_stats" | "$PY" -c "import json,sys; print(json.load(sys.stdin)['issued'].get(sys.argv[1], 0))" "$1"
}
total_issued() {
  curl -sf "$AUTHORITY/_stats" | "$PY" -c "import json,sys; print(sum(json.load(sys.stdin)['issued'].values()))"
}
# open NAME [--set k=v...] [-- VAR=value...]: `weir table describe` of the Azurite URL with a clean
# environment plus the given variables; output in $work/NAME.{out,err,rc}.
open_lake() {
  local name=$1 args=() envs=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
  [ "${1:-}" = -- ] && { shift; envs=("$@"); }
  env -i PATH="$PATH" HOME="$HOME" TMPDIR="$work" "${envs[@]}" \
    "$WEIR" table describe "$url" "${args[@]}" > "$work/$name.out" 2> "$work/$name.err"
  echo $? > "$work/$name.rc"
}
no_secret() {  # none of the suite's secrets (nor any JWT) in the files
  local f s
  for f in "$@"; do
    for s in "$SP_SECRET" "$IDENTITY_HEADER" "$AZURE_KEY" "eyJ"; do
      if grep -qF -- "$s" "$f"; then echo "secret found in $f"; return 1; fi
    done
  done
}
# token_then_refused NAME KEY: NAME asked KEY for one token (compared with $before) and the storage
# then refused the bearer request (HTTP 403 from Azurite, not a token failure).
token_then_refused() {
  local name=$1 key=$2 now
  now=$(issued "$key")
  [ "$(cat "$work/$name.rc")" != 0 ] || { echo "$name succeeded"; return 1; }
  [ "$now" -eq $((before + 1)) ] || { echo "$key: $before -> $now tokens"; cat "$work/$name.err"; return 1; }
  grep -q "HTTP 403" "$work/$name.err" || { echo "not the storage's refusal:"; cat "$work/$name.err"; return 1; }
  if grep -q "token endpoint" "$work/$name.err"; then echo "a token failure:"; cat "$work/$name.err"; return 1; fi
  no_secret "$work/$name.err" "$work/$name.out"
}

# --- the control: Shared Key opens the container; nothing configured asks for no token ----------
open_lake key --set "fs.azure.account.key.$AZURE_ACCOUNT.blob.core.windows.net=$AZURE_KEY"
check "Shared Key from a setting: the container opens (the table is missing, not the access)" \
  bash -c '! grep -q "HTTP 403\|no credentials" "$0" && grep -qi "delta\|not found\|no table\|_delta_log" "$0"' "$work/key.err"
before=$(total_issued)
open_lake nothing -- IDENTITY_ENDPOINT="$AUTHORITY/msi/token" IDENTITY_HEADER="$IDENTITY_HEADER" \
  AZURE_POD_IDENTITY_AUTHORITY_HOST="$AUTHORITY"
check "nothing configured (a managed identity endpoint in sight): anonymous, no token requested" \
  bash -c '[ "$(cat "$0/nothing.rc")" != 0 ] && [ "$1" -eq "$2" ]' "$work" "$before" "$(total_issued)"

# --- 1. settings ---------------------------------------------------------------------------------
sfx=.$AZURE_ACCOUNT.blob.core.windows.net
before=$(issued "secret:$SP_CLIENT")
open_lake settings-secret --set "fs.azure.account.auth.type$sfx=OAuth" \
  --set "fs.azure.account.oauth.provider.type$sfx=org.apache.hadoop.fs.azurebfs.oauth2.ClientCredsTokenProvider" \
  --set "fs.azure.account.oauth2.client.id$sfx=$SP_CLIENT" \
  --set "fs.azure.account.oauth2.client.secret$sfx=$SP_SECRET" \
  --set "fs.azure.account.oauth2.client.endpoint$sfx=$AUTHORITY/$TENANT/oauth2/token"
check "ClientCredsTokenProvider settings: a token for the service principal, sent to storage" \
  token_then_refused settings-secret "secret:$SP_CLIENT"

before=$(issued "federated:$WI_CLIENT")
open_lake settings-workload --set "fs.azure.account.auth.type=OAuth" \
  --set "fs.azure.account.oauth.provider.type=org.apache.hadoop.fs.azurebfs.oauth2.WorkloadIdentityTokenProvider" \
  --set "fs.azure.account.oauth2.msi.tenant=$TENANT" --set "fs.azure.account.oauth2.client.id=$WI_CLIENT" \
  --set "fs.azure.account.oauth2.token.file=$work/federated-token" \
  --set "fs.azure.account.oauth2.msi.authority=$AUTHORITY"
check "WorkloadIdentityTokenProvider settings: the federated token exchanged for a storage token" \
  token_then_refused settings-workload "federated:$WI_CLIENT"

before=$(issued "imds:$MI_USER")
open_lake settings-msi --set "fs.azure.account.auth.type=OAuth" \
  --set "fs.azure.account.oauth.provider.type=org.apache.hadoop.fs.azurebfs.oauth2.MsiTokenProvider" \
  --set "fs.azure.account.oauth2.client.id=$MI_USER" \
  --set "fs.azure.account.oauth2.msi.endpoint=$AUTHORITY/metadata/identity/oauth2/token"
check "MsiTokenProvider settings: IMDS asked for the user-assigned identity's storage token" \
  token_then_refused settings-msi "imds:$MI_USER"
check "... for the resource https://storage.azure.com/" \
  grep -q "GET /metadata/identity/oauth2/token?api-version=2018-02-01&resource=https%3A%2F%2Fstorage.azure.com%2F&client_id=$MI_USER" "$work/tokens.log"

# Settings win over the environment.
before=$(total_issued)
open_lake settings-win --set "fs.azure.account.key$sfx=$AZURE_KEY" -- AZURE_TENANT_ID="$TENANT" \
  AZURE_CLIENT_ID="$SP_CLIENT" AZURE_CLIENT_SECRET="$SP_SECRET" AZURE_AUTHORITY_HOST="$AUTHORITY"
check "a key setting wins over AZURE_CLIENT_SECRET: no token requested, no refusal" \
  bash -c '[ "$1" -eq "$2" ] && ! grep -q "HTTP 403" "$0"' "$work/settings-win.err" "$before" "$(total_issued)"

# --- 2. the environment --------------------------------------------------------------------------
before=$(total_issued)
open_lake env-key -- AZURE_STORAGE_KEY="$AZURE_KEY" AZURE_TENANT_ID="$TENANT" \
  AZURE_CLIENT_ID="$SP_CLIENT" AZURE_CLIENT_SECRET="$SP_SECRET" AZURE_AUTHORITY_HOST="$AUTHORITY"
check "AZURE_STORAGE_KEY wins over AZURE_CLIENT_SECRET: no token requested, no refusal" \
  bash -c '[ "$1" -eq "$2" ] && ! grep -q "HTTP 403" "$0"' "$work/env-key.err" "$before" "$(total_issued)"

before=$(issued "secret:$SP_CLIENT")
open_lake env-secret -- AZURE_TENANT_ID="$TENANT" AZURE_CLIENT_ID="$SP_CLIENT" \
  AZURE_CLIENT_SECRET="$SP_SECRET" AZURE_FEDERATED_TOKEN_FILE="$work/federated-token" \
  AZURE_AUTHORITY_HOST="$AUTHORITY/" AZURE_TOKEN_CREDENTIALS=prod
check "AZURE_CLIENT_SECRET (over workload identity and managed identity): the service principal" \
  token_then_refused env-secret "secret:$SP_CLIENT"

before=$(issued "federated:$WI_CLIENT")
open_lake env-workload -- AZURE_TENANT_ID="$TENANT" AZURE_CLIENT_ID="$WI_CLIENT" \
  AZURE_FEDERATED_TOKEN_FILE="$work/federated-token" AZURE_AUTHORITY_HOST="$AUTHORITY" \
  AZURE_TOKEN_CREDENTIALS=prod AZURE_POD_IDENTITY_AUTHORITY_HOST="$AUTHORITY"
check "the AKS workload identity variables (over managed identity): the federated token" \
  token_then_refused env-workload "federated:$WI_CLIENT"

# --- 3. managed identity, when AZURE_TOKEN_CREDENTIALS asks for it --------------------------------
before=$(issued "imds:$MI_SYSTEM")
open_lake env-imds -- AZURE_TOKEN_CREDENTIALS=ManagedIdentityCredential \
  AZURE_POD_IDENTITY_AUTHORITY_HOST="$AUTHORITY"
check "AZURE_TOKEN_CREDENTIALS=ManagedIdentityCredential: the system-assigned identity from IMDS" \
  token_then_refused env-imds "imds:$MI_SYSTEM"

before=$(issued "appservice:$MI_USER")
open_lake env-appservice -- AZURE_TOKEN_CREDENTIALS=prod AZURE_CLIENT_ID="$MI_USER" \
  IDENTITY_ENDPOINT="$AUTHORITY/msi/token" IDENTITY_HEADER="$IDENTITY_HEADER"
check "AZURE_TOKEN_CREDENTIALS=prod on App Service: IDENTITY_ENDPOINT, user-assigned by AZURE_CLIENT_ID" \
  token_then_refused env-appservice "appservice:$MI_USER"

open_lake env-dev -- AZURE_TOKEN_CREDENTIALS=dev
check "AZURE_TOKEN_CREDENTIALS=dev: InvalidArgument naming it" \
  bash -c '[ "$(cat "$0/env-dev.rc")" != 0 ] && grep -q "InvalidArgument.*AZURE_TOKEN_CREDENTIALS" "$0/env-dev.err"' "$work"

# --- failures ------------------------------------------------------------------------------------
open_lake wrong-secret -- AZURE_TENANT_ID="$TENANT" AZURE_CLIENT_ID="$SP_CLIENT" \
  AZURE_CLIENT_SECRET="not-the-$SP_SECRET" AZURE_AUTHORITY_HOST="$AUTHORITY"
check "a refused client secret: IOError naming the token endpoint, the application and AADSTS7000215" \
  bash -c '[ "$(cat "$0/wrong-secret.rc")" != 0 ] && grep -q "IOError" "$0/wrong-secret.err" &&
           grep -qF "token endpoint $1/$2/oauth2/v2.0/token" "$0/wrong-secret.err" &&
           grep -q "AADSTS7000215" "$0/wrong-secret.err" && grep -q "$3" "$0/wrong-secret.err"' \
  "$work" "$AUTHORITY" "$TENANT" "$SP_CLIENT"
check "... without the secret" no_secret "$work/wrong-secret.err" "$work/wrong-secret.out"
open_lake insecure-authority -- AZURE_TENANT_ID="$TENANT" AZURE_CLIENT_ID="$SP_CLIENT" \
  AZURE_CLIENT_SECRET="$SP_SECRET" AZURE_AUTHORITY_HOST="http://login.example.com"
check "AZURE_AUTHORITY_HOST over http to a remote host: refused before any request" \
  bash -c 'grep -q "InvalidArgument.*AZURE_AUTHORITY_HOST must use https" "$0"' "$work/insecure-authority.err"
open_lake unassigned -- AZURE_TOKEN_CREDENTIALS=ManagedIdentityCredential AZURE_CLIENT_ID=no-such-identity \
  AZURE_POD_IDENTITY_AUTHORITY_HOST="$AUTHORITY"
check "a managed identity not assigned to the machine: 'Identity not found', naming it" \
  bash -c 'grep -q "Identity not found" "$0" && grep -q "no-such-identity" "$0"' "$work/unassigned.err"
check "no secret in any output" no_secret "$work"/*.err "$work"/*.out

finish
