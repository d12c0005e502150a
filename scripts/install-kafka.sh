#!/usr/bin/env bash
# Installs the Apache Kafka broker that the real-Kafka tests run (tests/kafka_real_test.sh) into
# ${WEIR_CACHE_DIR:-$HOME/.cache/weir}/kafka-<version>/: the broker's classpath, resolved from
# Maven Central by `mvn dependency:copy-dependencies` from the pinned tests/peers/kafka/pom.xml
# (Maven Central has jars, not the binary tarball), and the test harness's SASL/PLAIN callback
# handler compiled with javac against those jars. Installs the Debian packages it needs (a JDK
# 17, Maven, openssl, python3-cryptography, python3-jwt) when missing; run as root on a fresh
# machine. Idempotent and quick once the cache is warm (a stamp of the pom and the Java sources).
#   scripts/install-kafka.sh          install if needed
#   scripts/install-kafka.sh --dir    print the install folder (installs first if needed)
set -euo pipefail
cd "$(dirname "$0")/.."
peer=tests/peers/kafka
version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$peer/pom.xml")
cache=${WEIR_CACHE_DIR:-$HOME/.cache/weir}
dest=$cache/kafka-$version
stamp=$(cat "$peer/pom.xml" "$peer"/java/weir/peer/*.java | sha256sum | cut -c1-16)

installed() { [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$stamp" ]; }

if ! installed; then
  packages=(openjdk-17-jdk-headless maven openssl python3-cryptography python3-jwt)
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "install-kafka: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
      exit 1
    fi
    echo "install-kafka: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  mkdir -p "$cache"
  exec 9>"$cache/kafka-$version.lock"
  flock 9  # another suite may be installing the same version
  if ! installed; then
    start=$(date +%s)
    repo=$cache/maven-repository
    before=$(du -sk "$repo" 2>/dev/null | cut -f1 || echo 0)
    rm -rf "$dest.tmp"
    mkdir -p "$dest.tmp/classes"
    echo "install-kafka: resolving Apache Kafka $version from Maven Central into $dest" >&2
    if ! mvn -q -B -f "$peer/pom.xml" -Dmaven.repo.local="$repo" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$dest.tmp/libs" >"$dest.tmp/mvn.log" 2>&1; then
      tail -30 "$dest.tmp/mvn.log" >&2
      echo "install-kafka: mvn dependency:copy-dependencies failed (log above)" >&2
      exit 1
    fi
    javac -nowarn -d "$dest.tmp/classes" -cp "$dest.tmp/libs/*" "$peer"/java/weir/peer/*.java
    (cd "$dest.tmp/classes" && jar cf ../weir-peer.jar .)
    rm -rf "$dest.tmp/classes" "$dest.tmp/mvn.log"
    echo "$stamp" > "$dest.tmp/.stamp"
    rm -rf "$dest"
    mv "$dest.tmp" "$dest"
    after=$(du -sk "$repo" | cut -f1)
    echo "install-kafka: Apache Kafka $version ready in $(( $(date +%s) - start )) s" \
         "($(( (after - before) / 1024 )) MB fetched into $repo)" >&2
  fi
fi
if [ "${1:-}" = "--dir" ]; then echo "$dest"; fi
