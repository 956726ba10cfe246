# The two commands of the README: `make bench` and `make test`.
# Both install missing Debian packages, configure and build first.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test bench check-static check-sanitizers check-fuzz clean

all: build

deps:
	@cmake/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSI_WERROR=ON $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# tests/run-tests.sh: ctest, then what did not run and why (SI_TEST_NO_SKIP=1 fails on it).
test: build
	tests/run-tests.sh --build $(BUILD) -j $(JOBS)

# The quick profile (harness/profiles/quick.toml): every configuration, one pair,
# a few minutes; results, figures and summary in results/quick/<host>-<UTC time>/.
bench: build
	$(BUILD)/bin/sibench run --profile quick --build $(BUILD) --out results --report

# AddressSanitizer + UBSan, then ThreadSanitizer: the unit and integration tests
# again in two more build trees (CI runs this after `make test`), without the
# benchmarks, the harness, the application and the MPICH twins, whose tests do not
# run there. Programs launched by Hydra run there in mode none only: the other
# modes run the same runtime code under sirun, and Hydra adds only its PMI-1
# dialect (which mode none covers); that keeps CI within its hour.
SANITIZER_SCOPE = -DSI_WITH_BENCHMARKS=OFF -DSI_WITH_MPICH=OFF
# Assertions on, but -O1 as AddressSanitizer recommends: at -O0 the same tests
# took 1.6-2.8x as long (193 integration tests, alternating runs: 401 and 505 s
# at -O0 against 144 and 313 s at -O1).
ASAN_OPTIMIZE = "-DCMAKE_C_FLAGS_DEBUG=-g -O1" "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1"
HYDRA_OTHER_MODES = '^hydra\..*\.(thread|smart_h1|smart_h2|interrupt|pef)$$'
check-sanitizers: deps
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug $(ASAN_OPTIMIZE) -DSI_WERROR=ON -DSI_SANITIZE=address,undefined $(SANITIZER_SCOPE)
	cmake --build build-asan -j $(JOBS)
	tests/run-tests.sh --build build-asan -j $(JOBS) -L 'unit|integration' --exclude-labels mpich \
	    -E $(HYDRA_OTHER_MODES)
	cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSI_WERROR=ON -DSI_SANITIZE=thread $(SANITIZER_SCOPE)
	cmake --build build-tsan -j $(JOBS)
	tests/run-tests.sh --build build-tsan -j $(JOBS) -L tsan -E '^hydra\.'

# cppcheck over runtime/src with the build's compile commands; any finding fails
# (cmake/cppcheck-suppressions.txt: what is kept, and why).
check-static: configure
	cmake/check-static.sh $(BUILD)

# libFuzzer (tests/fuzz): a clang tree with the fuzz targets only, each run
# FUZZ_SECONDS from its committed corpus under AddressSanitizer and UBSan; CI
# runs this after the sanitizer builds.
FUZZ_SECONDS ?= 15
check-fuzz: deps
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSI_FUZZ=ON -DSI_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build build-fuzz -j $(JOBS) --target si_fuzz_targets
	ctest --test-dir build-fuzz -L fuzz -j $(JOBS) --output-on-failure --no-tests=error

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz
