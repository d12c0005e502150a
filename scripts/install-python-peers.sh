#!/usr/bin/env bash
# Installs the Python peers of tests/spark_peer_test.sh (Apache Spark with Delta Lake, and delta-rs)
# into ${WEIR_CACHE_DIR:-$HOME/.cache/weir}/python-peers-<versions>/:
#   venv/   a virtual environment of /usr/bin/python3 with the exact versions of
#           tests/peers/spark/requirements.txt (pyspark, delta-spark, deltalake, pyarrow) from PyPI
#           plus fastavro (with cramjam for its snappy codec, backports.zstd for zstandard), the
#           independent Avro writer and reader of tests/avro_test.sh, pinned below (added to an
#           existing venv without reinstalling the rest)
#   jars/   the jars Spark loads beside the pyspark wheel: Delta Lake for Spark and Spark's Kafka
#           source with their runtime dependencies, from Maven Central (tests/peers/spark/pom.xml),
#           and spark-avro (added like fastavro, for tests/avro_test.sh),
#           so a SparkSession starts offline with spark.jars (no Ivy resolution at run time)
# Installs the Debian packages it needs (a JDK 17, Maven, python3-venv) when missing; run as root
# on a fresh machine. Idempotent: once installed (a stamp of both files), it does nothing.
#   scripts/install-python-peers.sh          install if needed
#   scripts/install-python-peers.sh --dir    print the install folder (installs first if needed)
set -euo pipefail
cd "$(dirname "$0")/.."
peer=tests/peers/spark
pin() { sed -n "s/^$1==\(.*\)$/\1/p" "$peer/requirements.txt"; }
name=python-peers-pyspark$(pin pyspark)-delta$(pin delta-spark)-deltalake$(pin deltalake)
cache=${WEIR_CACHE_DIR:-$HOME/.cache/weir}
dest=$cache/$name
stamp=$(cat "$peer/requirements.txt" "$peer/pom.xml" | sha256sum | cut -c1-16)

installed() { [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$stamp" ]; }

if ! installed; then
  packages=(openjdk-17-jdk-headless maven python3-venv)
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "install-python-peers: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
      exit 1
    fi
    echo "install-python-peers: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  mkdir -p "$cache"
  exec 9>"$dest.lock"
  flock 9  # another suite may be installing the same versions
  if ! installed; then
    start=$(date +%s)
    rm -rf "$dest.tmp"
    mkdir -p "$dest.tmp"
    echo "install-python-peers: $(grep -v '^#' "$peer/requirements.txt" | tr '\n' ' ')from PyPI into $dest" >&2
    /usr/bin/python3 -m venv "$dest.tmp/venv"
    # Download first (into the folder, removed once installed) to say how much came from PyPI.
    if ! "$dest.tmp/venv/bin/python" -m pip download -q --disable-pip-version-check --no-input \
          -r "$peer/requirements.txt" -d "$dest.tmp/downloads" >"$dest.tmp/pip.log" 2>&1 ||
       ! "$dest.tmp/venv/bin/python" -m pip install -q --disable-pip-version-check --no-input \
          --no-index --find-links "$dest.tmp/downloads" -r "$peer/requirements.txt" \
          >>"$dest.tmp/pip.log" 2>&1; then
      tail -30 "$dest.tmp/pip.log" >&2
      echo "install-python-peers: pip install failed (log above)" >&2
      exit 1
    fi
    pypi_mb=$(du -sm "$dest.tmp/downloads" | cut -f1)
    rm -rf "$dest.tmp/downloads"
    "$dest.tmp/venv/bin/python" -m pip freeze --disable-pip-version-check > "$dest.tmp/freeze.txt"
    echo "install-python-peers: Delta Lake and Spark's Kafka source jars from Maven Central" >&2
    repo=$cache/maven-repository
    before=$(du -sk "$repo" 2>/dev/null | cut -f1 || echo 0)
    if ! mvn -q -B -f "$peer/pom.xml" -Dmaven.repo.local="$repo" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$dest.tmp/jars" >"$dest.tmp/mvn.log" 2>&1; then
      tail -30 "$dest.tmp/mvn.log" >&2
      echo "install-python-peers: mvn dependency:copy-dependencies failed (log above)" >&2
      exit 1
    fi
    # Drop the jars the pyspark wheel ships (any version: two copies of a class on the classpath
    # is worse than the wheel's slightly different version).
    shipped=$(ls "$dest.tmp"/venv/lib/python3*/site-packages/pyspark/jars/ |
              sed -E 's/-[0-9][^-]*(-[A-Za-z0-9.]+)?\.jar$//' | sort -u)
    for j in "$dest.tmp"/jars/*.jar; do
      base=$(basename "$j" | sed -E 's/-[0-9][^-]*(-[A-Za-z0-9.]+)?\.jar$//')
      if grep -qxF "$base" <<<"$shipped"; then rm -f "$j"; fi
    done
    maven_mb=$(( ($(du -sk "$repo" | cut -f1) - before) / 1024 ))
    rm -f "$dest.tmp/mvn.log" "$dest.tmp/pip.log"
    echo "$stamp" > "$dest.tmp/.stamp"
    rm -rf "$dest"
    mv "$dest.tmp" "$dest"
    # venv's bin/ scripts and pyvenv.cfg name the folder they were made in.
    grep -rlF "$dest.tmp" "$dest/venv/bin" "$dest/venv/pyvenv.cfg" 2>/dev/null |
      xargs -r sed -i "s|$dest.tmp|$dest|g"
    echo "install-python-peers: ready in $(( $(date +%s) - start )) s: fetched ${pypi_mb} MB from PyPI" \
         "(pip's cache may have served some) and ${maven_mb} MB from Maven Central into $repo;" \
         "venv $(du -sm "$dest/venv" | cut -f1) MB, jars $(du -sm "$dest/jars" | cut -f1) MB" \
         "($(ls "$dest/jars" | tr '\n' ' '))" >&2
  fi
fi
# tests/avro_test.sh's Avro peer, pinned: installed into the venv when missing or of another version.
avro_pins=(fastavro==1.13.1 cramjam==2.14.0 backports.zstd==1.8.0)
avro_installed() {
  "$dest/venv/bin/python" - "${avro_pins[@]}" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(0 if all(version(p.split("==")[0]) == p.split("==")[1] for p in sys.argv[1:]) else 1)
PY
}
if ! avro_installed; then
  exec 9>"$dest.lock"
  flock 9
  if ! avro_installed; then
    echo "install-python-peers: ${avro_pins[*]} from PyPI into $dest/venv" >&2
    if ! "$dest/venv/bin/python" -m pip install -q --disable-pip-version-check --no-input "${avro_pins[@]}" \
        >"$dest/avro-pip.log" 2>&1; then
      tail -30 "$dest/avro-pip.log" >&2
      echo "install-python-peers: pip install ${avro_pins[*]} failed (log above)" >&2
      exit 1
    fi
    rm -f "$dest/avro-pip.log"
  fi
fi
# ... and Spark's own Avro data source (spark-avro, of the pinned pyspark), beside the Delta jars:
# tests/avro_test.sh's reference for how Avro types map to Spark's.
spark_version=$(pin pyspark)
spark_avro=$dest/jars/spark-avro_2.13-$spark_version.jar
if [ ! -f "$spark_avro" ]; then
  exec 9>"$dest.lock"
  flock 9
  if [ ! -f "$spark_avro" ]; then
    echo "install-python-peers: spark-avro_2.13 $spark_version from Maven Central into $dest/jars" >&2
    if ! (cd "$dest" && mvn -q -B dependency:copy -Dartifact="org.apache.spark:spark-avro_2.13:$spark_version" \
          -DoutputDirectory="$dest/jars" -Dmaven.repo.local="$cache/maven-repository") >"$dest/avro-mvn.log" 2>&1; then
      tail -30 "$dest/avro-mvn.log" >&2
      echo "install-python-peers: mvn dependency:copy of spark-avro failed (log above)" >&2
      exit 1
    fi
    rm -f "$dest/avro-mvn.log"
  fi
fi
if [ "${1:-}" = "--dir" ]; then echo "$dest"; fi
