# weir: the two set-up commands are `make demo` and `make test` (README). Both install what they
# need on Debian 12 (as root), build, and run.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test unit-test asan-test integration-test fuzz bench clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: deps build
	$(BUILD)/weir demo

unit-test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer (no benchmarks, no CLI).
asan-test:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWEIR_SANITIZE=address,undefined \
	  -DCMAKE_CXX_FLAGS=-O1
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

integration-test: build
	tests/run_integration.sh $(BUILD)/weir

fuzz:
	scripts/run-fuzzers.sh

test: deps
	$(MAKE) unit-test
	$(MAKE) integration-test
	$(MAKE) asan-test
	$(MAKE) fuzz

bench: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEIR_BUILD_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS)
	bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
