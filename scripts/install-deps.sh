#!/usr/bin/env bash
# Installs what weir needs to build and test on Debian 12 (run as root). Idempotent and quick when
# everything is present: it installs only the missing Debian packages, runs `npm ci` for the
# test-only JavaScript readers (DuckDB, parquet-wasm) when their lock file changed. The real peers
# the tests also run (Apache Kafka, Spark, delta-rs) are installed by `make test` only
# (scripts/install-kafka.sh and scripts/install-python-peers.sh, into caches).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build ccache pkg-config clang libclang-rt-14-dev
  libzstd-dev liblz4-dev zlib1g-dev libsnappy-dev nlohmann-json3-dev
  librdkafka-dev libsimdjson-dev librocksdb-dev libcurl4-openssl-dev libssl-dev libpcre2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  kcat python3-confluent-kafka python3-cryptography python3-jwt zstd time
  chromium  # tests/ops_test.sh loads the dashboard headless
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm (test-only readers): any installation on PATH will do; else Debian's.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${WEIR_SKIP_NPM:-0}" != 1 ] && [ -f tests/js/package-lock.json ]; then
  stamp=tests/js/node_modules/.weir-lock-stamp
  if [ ! -f "$stamp" ] || ! cmp -s tests/js/package-lock.json "$stamp"; then
    echo "install-deps: npm ci in tests/js"
    (cd tests/js && npm ci --no-audit --no-fund --loglevel=error)
    cp tests/js/package-lock.json "$stamp"
  fi
fi
