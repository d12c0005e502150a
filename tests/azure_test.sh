#!/usr/bin/env bash
# Azure Blob Storage as a weir FileSystem (issue 12): starts Azurite (npm `azurite`, tests/js) on
# loopback with a fresh folder, creates a container with an independent Shared Key client
# (python3's hmac, not weir's signer), and runs weir_azure_test with AZURITE_BLOB_URL set so its
# Azurite-backed tests run: every FileSystem operation, 20 concurrent PutIfAbsent with one winner,
# ranged reads, paged listings, multi-block uploads. The test binary is
# $WEIR_AZURE_TEST, else src/weir_azure_test beside the weir binary.
set -uo pipefail
source "$(dirname "$0")/tools/common.sh"
work=$(mktemp -d)
AZURITE_PID=
stop_azurite() {
  [ -n "$AZURITE_PID" ] || return 0
  kill "$AZURITE_PID" 2>/dev/null
  wait "$AZURITE_PID" 2>/dev/null  # it must stop writing its folder before the folder goes
}
trap 'stop_azurite; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

skip_or_fail() {  # under CI a missing piece fails the test; elsewhere it is skipped loudly
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: $1"
    exit 1
  fi
  echo "SKIPPED (LOUDLY): $1"
  exit 0
}

test_binary=${WEIR_AZURE_TEST:-$(dirname "$WEIR")/src/weir_azure_test}
azurite=$WEIR_SOURCE_DIR/tests/js/node_modules/.bin/azurite-blob
[ -x "$test_binary" ] || skip_or_fail "$test_binary not built (cmake --build <dir> --target weir_azure_test)"
[ -e "$azurite" ] || skip_or_fail "Azurite not installed (npm install in tests/js)"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
node "$azurite" --blobHost 127.0.0.1 --blobPort "$port" --location "$work/azurite" \
  --disableTelemetry --skipApiVersionCheck --loose > "$work/azurite.log" 2>&1 &
AZURITE_PID=$!
for _ in $(seq 1 300); do  # up to 30 s: node starts slowly on a busy machine
  grep -q "successfully listens" "$work/azurite.log" 2>/dev/null && break
  sleep 0.1
done
grep -q "successfully listens" "$work/azurite.log" || { echo "FAIL: Azurite did not start"; cat "$work/azurite.log"; exit 1; }

account=devstoreaccount1
# Azurite's published development key (not a secret).
key='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
container=weir-test

# An independent Shared Key client: PUT (create container) or GET a blob; prints the body.
azure_request() {  # azure_request METHOD PATH-BELOW-ACCOUNT QUERY(decoded k=v,...)
  python3 - "$port" "$account" "$key" "$@" <<'EOF'
import base64, hashlib, hmac, sys, urllib.request, email.utils
port, account, key, method, path, query = sys.argv[1:7]
params = dict(kv.split("=", 1) for kv in query.split(",") if kv)
date = email.utils.formatdate(usegmt=True)
headers = {"x-ms-date": date, "x-ms-version": "2023-11-03"}
canon_headers = "".join(f"{k}:{v}\n" for k, v in sorted(headers.items()))
canon_resource = f"/{account}/{account}/{path}" + "".join(
    f"\n{k}:{v}" for k, v in sorted(params.items()))
# urllib sends a form Content-Type with any body: name one and sign it.
content_type = "application/octet-stream" if method == "PUT" else ""
to_sign = "\n".join([method, "", "", "", "", content_type, "", "", "", "", "", ""]) + "\n" + canon_headers + canon_resource
signature = base64.b64encode(hmac.new(base64.b64decode(key), to_sign.encode(), hashlib.sha256).digest()).decode()
headers["Authorization"] = f"SharedKey {account}:{signature}"
if content_type:
    headers["Content-Type"] = content_type
url = f"http://127.0.0.1:{port}/{account}/{path}" + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")
request = urllib.request.Request(url, method=method, headers=headers, data=b"" if method == "PUT" else None)
with urllib.request.urlopen(request) as response:
    sys.stdout.buffer.write(response.read())
EOF
}

check "create container with an independent Shared Key client" azure_request PUT "$container" "restype=container"

gtest_run() {
  AZURITE_BLOB_URL="http://127.0.0.1:$port/$account/$container" \
    "$test_binary" --gtest_filter='AzuriteTest.*' --gtest_brief=1 > "$work/gtest.log" 2>&1
  local rc=$?
  # Every Azurite test must have run: a skip means AZURITE_BLOB_URL did not reach them.
  if grep -q "SKIPPED" "$work/gtest.log"; then echo "Azurite tests were skipped"; rc=1; fi
  [ $rc -eq 0 ] || { tail -60 "$work/gtest.log"; return 1; }
}
check "weir_azure_test AzuriteTest.* against Azurite" gtest_run
grep -E "^\[  (PASSED|FAILED)" "$work/gtest.log" | sed 's/^/    /'

# A blob weir wrote is read back byte for byte by the independent client: the tests leave the
# 20-writer Delta commit files behind.
read_back() {
  local name
  name=$(azure_request GET "$container" "restype=container,comp=list,prefix=TwentyConcurrent" |
    python3 -c 'import re, sys; names = re.findall(r"<Name>([^<]*00000000000000000000.json)</Name>", sys.stdin.read()); print(names[0] if names else "")')
  [ -n "$name" ] || { echo "no commit blob left by the concurrency test"; return 1; }
  local body
  body=$(azure_request GET "$container/$name" "") || return 1
  [[ "$body" =~ ^writer\ [0-9]+$ ]] || { echo "unexpected content: $body"; return 1; }
}
check "independent client reads a blob weir wrote" read_back
finish
