#!/usr/bin/env bash
# The whole test suite: the format check, the layer check
# (scripts/check-layers.sh), the C warning check, the C
# registry's cross builds (scripts/cross-check.sh, and its self-test), the model
# checks (spin, scripts/model-check.sh), unit, model-based and stress tests,
# the documentation build, the tests of the configuration Apple platforms
# get (no system ck, swift-atomics), README's quick start, the
# IntegrationTests package's build, the sanitizer runs (C stress test and Swift stress tests under ASan
# and TSan, scripts/sanitize.sh), the performance gate, and the server
# examples' builds and tests
# (scripts/test-examples.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh graphviz # graphviz: the DOT export test parses its output with dot
step() { printf '\n== %s (%s)\n' "$1" "$(date +%H:%M:%S)" >&2; }

step "format (swift-format, .swift-format)"
scripts/format.sh --check

step "layers (downward: WeaveDICore's Registry, Resolution, API; then WeaveDI's Compatibility)"
scripts/check-layers.sh

step "reader's map (docs/architecture.md names only files and functions that exist)"
scripts/check-readers-map.py

step "upstream manifest (an app naming the products WeaveDI, WeaveDIMacros and WeaveDICore resolves)"
scripts/check-upstream-manifest.sh

step "C warnings"
scripts/check-c-warnings.sh

step "C registry cross-built: i386 (run natively), armhf, aarch64 under qemu-user (stress test included), watchOS arm64_32 and iOS arm64 with Swift's clang"
scripts/cross-check.sh

step "cross-check self-test (an emulator that hangs is skipped by the thread probe; a stress run that times out or crashes is named, and every target still runs)"
scripts/cross-check-selftest.sh

step "model checks (spin: the build protocol, the slot cache and the async build protocol, each with mutants spin must reject)"
scripts/model-check.sh

step "swift test"
swift test 2>&1 | { grep -v "prohibited flag(s): -D__x86_64__" || true; }

step "parallel test isolation: 200 parallel tests, 20 runs in a row"
for run in $(seq 20); do
    if ! swift test --skip-build --filter ParallelIsolationTests > /tmp/weavedi-isolation.log 2>&1; then
        cat /tmp/weavedi-isolation.log
        echo "parallel isolation run $run of 20 failed" >&2
        exit 1
    fi
done
echo "parallel isolation: 20 of 20 runs passed (200 parallel tests each)"

step "async services with the cooperative pool one thread wide (no build may block a thread)"
# taskset: libdispatch sizes the cooperative pool by the CPUs the process
# may use; one CPU gives a pool of one thread. Not always: in 2 of 8 fresh
# processes on this VM the pool ran two threads at once from the start
# (measured 2026-11-26), and the pool may widen later in a run when a
# thread blocks. AsyncAPoolWidthTests runs before the async suites and fails
# the attempt when the pool is wider than one thread then; such an attempt
# is run again (at most 5), so the async suites ran with a pool that was
# one thread wide when they began.
width_one_passed=0
for attempt in 1 2 3 4 5; do
    WEAVEDI_EXPECT_ONE_POOL_THREAD=1 LIBDISPATCH_COOPERATIVE_POOL_STRICT=1 taskset -c 0 \
        swift test --skip-build --filter "AsyncAPoolWidthTests|AsyncServiceTests|AsyncStartHungFactoryTests|AsyncBuildWindowTests|WeaveDIServiceLifecycleTests" \
        > /tmp/weavedi-width-one.log 2>&1 && { width_one_passed=1; break; }
    if grep -q "testTheCooperativePoolIsOneThreadWideInTheWidthOneRun' passed" /tmp/weavedi-width-one.log; then
        cat /tmp/weavedi-width-one.log
        echo "width-one run: a test failed with a pool one thread wide" >&2
        exit 1
    fi
    echo "width-one run: attempt $attempt started with a pool wider than one thread; again" >&2
done
if [ "$width_one_passed" != 1 ]; then
    cat /tmp/weavedi-width-one.log
    echo "width-one run: the pool was wider than one thread in 5 attempts" >&2
    exit 1
fi
grep -E "Executed [0-9]+ tests" /tmp/weavedi-width-one.log | tail -1
grep -q "testTheCooperativePoolIsOneThreadWideInTheWidthOneRun' passed" /tmp/weavedi-width-one.log ||
    { echo "width-one run: the pool-width check did not pass" >&2; exit 1; }

step "documentation (DocC, warnings are errors)"
scripts/docs.sh

step "the configuration Apple platforms get, on Linux: default traits off plus PortableAtomics (the registry without a system Concurrency Kit, portable_ck.c; swift-atomics instead of Synchronization; no swift-dependencies bridge, no macros)"
swift build --build-tests --traits PortableAtomics --scratch-path .build-notraits 2>&1 |
    { grep -v "prohibited flag(s): -D__x86_64__" || true; }
# The test binary and the demo of this build link no libck; the default
# build's (the "swift test" step's, .build) test binary does.
links_ck() { ldd "$1" | grep -E 'libck\.so'; }
for binary in .build-notraits/debug/WeaveDIPackageTests.xctest .build-notraits/debug/weavedi-demo; do
    if links_ck "$binary"; then
        echo "$binary, built without SystemConcurrencyKit, links libck" >&2
        exit 1
    fi
    echo "without SystemConcurrencyKit: $binary links no libck"
done
if ! links_ck .build/debug/WeaveDIPackageTests.xctest; then
    echo "the default build (SystemConcurrencyKit) does not link libck" >&2
    exit 1
fi
# PlatformAtomic is a struct over ManagedAtomic only in the portable build
# (on Linux by default it is a typealias of Synchronization.Atomic).
# (grep without -q reads all of nm's output: under pipefail an early exit
# would fail the pipeline with nm's SIGPIPE.)
if ! nm .build-notraits/debug/WeaveDIPackageTests.xctest | swift demangle | grep 'WeaveDICore\.PlatformAtomic' >/dev/null; then
    echo "the PortableAtomics build does not use PlatformAtomic's swift-atomics branch" >&2
    exit 1
fi
echo "PortableAtomics: the test binary uses swift-atomics' ManagedAtomic (WeaveDICore.PlatformAtomic)"
swift test --skip-build --traits PortableAtomics --scratch-path .build-notraits 2>&1 |
    { grep -v "prohibited flag(s): -D__x86_64__" || true; }

step "quick start (README's code, Examples/QuickStart)"
scripts/quick-start.sh

step "IntegrationTests: build (the C stress test runs under the sanitizers next)"
swift build --package-path IntegrationTests --scratch-path .build-integration 2>&1 |
    { grep -v "prohibited flag(s): -D__x86_64__" || true; }

if [ "${WEAVEDI_SKIP_SANITIZERS:-0}" != "1" ]; then
    step "sanitizers"
    scripts/sanitize.sh
fi

if [ "${WEAVEDI_SKIP_PERF_GATE:-0}" != "1" ]; then
    step "performance gate (instructions per operation, callgrind)"
    scripts/perf-gate.sh
    step "performance gate self-test (a copy with +5% planted in the cached read must fail the gate)"
    scripts/perf-gate-selftest.sh
fi

# Last: the slowest step (a clean Vapor build); a fault in the library itself
# shows in the steps above first. WEAVEDI_SKIP_EXAMPLES=1 skips it.
step "server examples (Hummingbird, Vapor): debug build and tests"
scripts/test-examples.sh
