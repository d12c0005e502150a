# weir: the two set-up commands are `make demo` and `make test` (README). Both install what they
# need on Debian 12 (as root), build, and run.
BUILD ?= build
# One clang build with ASan + UBSan serves both the sanitized unit tests and the libFuzzer targets.
SANITIZE_BUILD ?= build-fuzz
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# The conformance corpora (real Parquet files, Delta tables and Spark checkpoints written by other
# engines) the tests read; under CI=true a missing corpus fails the suites that need it.
export WEIR_CONFORMANCE_DIR ?= $(abspath $(CURDIR)/../shared/conformance)
# ccache keys on paths relative to the checkout, so a fresh clone elsewhere reuses the cache.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: all deps test-peers build demo test unit-test sanitize-build asan-test integration-test fuzz bench bench-e2e soak clean

all: build

deps:
	@scripts/install-deps.sh

# The real components the integration tests run beside weir, pinned and cached under
# $${WEIR_CACHE_DIR:-~/.cache/weir}: Apache Kafka from Maven Central; Apache Spark with Delta Lake and
# delta-rs from PyPI, with Spark's Delta and Kafka jars from Maven Central.
test-peers:
	@scripts/install-kafka.sh
	@scripts/install-python-peers.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: deps build
	$(BUILD)/weir demo

unit-test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer, built with clang in the
# same tree as the fuzz targets (scripts/run-fuzzers.sh configures it the same way).
sanitize-build:
	CC=clang CXX=clang++ cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DWEIR_BUILD_FUZZ=ON -DWEIR_BUILD_TESTS=ON -DWEIR_SANITIZE=address,undefined
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)

asan-test: sanitize-build
	cd $(SANITIZE_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

integration-test: build
	tests/run_integration.sh $(BUILD)/weir

fuzz: sanitize-build
	scripts/run-fuzzers.sh

test: deps test-peers
	$(MAKE) unit-test
	$(MAKE) integration-test
	$(MAKE) asan-test
	$(MAKE) fuzz

bench: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEIR_BUILD_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS)
	bench/run.sh $(BUILD)
	$(BUILD)/bench/from_json_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
	bench/kafka_source.sh $(BUILD)/weir
	bench/bronze.sh $(BUILD)/weir
	bench/silver.sh $(BUILD)/weir

# The end-to-end benchmark (README "Performance"): ~15 minutes on an idle 2-core machine.
bench-e2e: deps build
	bench/e2e --weir $(BUILD)/weir --out $(BUILD)/bench-results/e2e

# 30 minutes of steady bronze + silver ingestion with SIGKILLs and broker faults (tests/soak.sh;
# SOAK_MINUTES, SOAK_KILL_EVERY, SOAK_FAULT_EVERY to change): no gap, no duplicate, flat RSS.
soak: deps build
	tests/soak.sh $(BUILD)/weir

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
