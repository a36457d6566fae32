#!/usr/bin/env bash
# Performance regression gate: instructions and allocations per operation of
# each WeaveDI path, and same-run ratios, against Benchmarks/Thresholds/perf-gate.json.
# valgrind --tool=callgrind counts (deterministic for a given binary and
# input, whatever else the machine runs; this VM's `perf stat -e instructions`
# says <not supported>); `weavedi-bench gate` runs the workload and checks the
# counts (Benchmarks/Sources/weavedi-bench/Gate.swift).
#
# Builds Benchmarks/ with its SystemCK trait only (not `Peers`): WeaveDI with
# SystemConcurrencyKit alone, no Swinject, swift-dependencies or swift-syntax.
#
# Usage: scripts/perf-gate.sh            check; exits 1 on a regression
#        scripts/perf-gate.sh --record   rewrite the thresholds from 3 runs (highest count +3%,
#                                        refused if a row moves between runs; review the diff)
# Environment: WEAVEDI_GATE_SCRATCH (build dir, default .build-perf-gate),
#   WEAVEDI_GATE_ITERATIONS (default 20000), WEAVEDI_GATE_SIZES (default 10,1000),
#   WEAVEDI_GATE_PACKAGE (the WeaveDI checkout to measure, default this one; the
#   self-test points it at a copy with a regression planted)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PACKAGE="${WEAVEDI_GATE_PACKAGE:-$ROOT}"
case "${1:-}" in
--record) MODE=record ;;
"") MODE=check ;;
*) echo "perf-gate: unknown argument $1 (use --record or nothing)" >&2; exit 2 ;;
esac
SCRATCH="${WEAVEDI_GATE_SCRATCH:-$ROOT/.build-perf-gate}"
# The checkout's path is mapped away so that the binary, and so the address
# layout the counts depend on, is the same wherever the checkout lives (a
# CI clone in a temporary folder measures what was recorded here).
BUILD=(swift build -c release --package-path "$PACKAGE/Benchmarks" --scratch-path "$SCRATCH" --traits SystemCK
    -Xswiftc -file-prefix-map -Xswiftc "$PACKAGE=/weavedi" -Xswiftc -file-prefix-map -Xswiftc "$SCRATCH=/weavedi-build"
    -Xcc "-ffile-prefix-map=$PACKAGE=/weavedi" -Xcc "-ffile-prefix-map=$SCRATCH=/weavedi-build")

scripts/ensure-deps.sh valgrind
echo "perf-gate: building Benchmarks (release, without Peers)" >&2
"${BUILD[@]}" --product weavedi-bench 2>&1 | { grep -v "prohibited flag(s): -D__x86_64__" || true; } >&2
BIN="$("${BUILD[@]}" --show-bin-path)/weavedi-bench"

# /tmp, not $TMPDIR: the path's length must not vary (below).
OUT="$(mktemp -d /tmp/weavedi-perf-gate.XXXXXX)"
trap 'rm -rf "$OUT"' EXIT
# Run from a path of the same length wherever the checkout is: the process's
# heap layout (and with it some paths' hash probes) follows the length of
# the executable's path, which the runtime copies at start-up.
cp "$BIN" "$OUT/weavedi-bench"
BIN="$OUT/weavedi-bench"
# Without its DWARF: valgrind 3.19 cannot read the DWARF 5 clang gives C
# targets (swift-atomics' shims), and gives up on the whole binary. Callgrind
# counts by symbol, which the symbol table keeps.
strip --strip-debug "$BIN"
echo "perf-gate: counting under $(valgrind --version)" >&2
# One run of the workload into directory $1.
count_run() {
    mkdir -p "$1"
    # Deterministic hashing: the Swift baseline's Dictionary probes the same way every run.
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --compress-strings=no --compress-pos=no \
        --collect-atstart=no --toggle-collect=weavedi_gate_measured --dump-after=weavedi_gate_measured \
        --callgrind-out-file="$1/cg.out" "$BIN" gate run >"$1/gate.txt" 2>"$1/valgrind.log" ||
        { cat "$1/valgrind.log" >&2; echo "perf-gate: the workload failed under valgrind" >&2; exit 1; }
}
if [ "$MODE" = record ]; then
    RUNS=()
    for run in 1 2 3; do
        echo "perf-gate: recording, run $run of 3" >&2
        count_run "$OUT/run$run"
        RUNS+=("$OUT/run$run")
    done
    "$BIN" gate record "${RUNS[@]}" --thresholds "$ROOT/Benchmarks/Thresholds/perf-gate.json"
else
    count_run "$OUT"
    "$BIN" gate check "$OUT" --thresholds "$ROOT/Benchmarks/Thresholds/perf-gate.json"
fi
