#!/usr/bin/env bash
# Performance regression gate: instructions and allocations per operation of
# each WeaveDI path, and same-run ratios, against Benchmarks/Thresholds/perf-gate.json.
# valgrind --tool=callgrind counts (deterministic for a given binary and
# input, whatever else the machine runs; this VM's `perf stat -e instructions`
# says <not supported>); `weavedi-bench gate` runs the workload and checks the
# counts (Benchmarks/Sources/weavedi-bench/Gate.swift).
#
# Builds Benchmarks/ without its `Peers` trait: WeaveDI with `traits: []`, no
# Swinject, swift-dependencies or swift-syntax.
#
# Usage: scripts/perf-gate.sh            check; exits 1 on a regression
#        scripts/perf-gate.sh --record   rewrite the thresholds from this run (+25%; review the diff)
# Environment: WEAVEDI_GATE_SCRATCH (build dir, default .build-perf-gate),
#   WEAVEDI_GATE_ITERATIONS (default 20000), WEAVEDI_GATE_SIZES (default 10,1000)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
case "${1:-}" in
--record) MODE=record ;;
"") MODE=check ;;
*) echo "perf-gate: unknown argument $1 (use --record or nothing)" >&2; exit 2 ;;
esac
SCRATCH="${WEAVEDI_GATE_SCRATCH:-$ROOT/.build-perf-gate}"
BUILD=(swift build -c release --package-path Benchmarks --scratch-path "$SCRATCH" --disable-default-traits)

scripts/ensure-deps.sh valgrind
echo "perf-gate: building Benchmarks (release, without Peers)" >&2
"${BUILD[@]}" --product weavedi-bench 2>&1 | { grep -v "prohibited flag(s): -D__x86_64__" || true; } >&2
BIN="$("${BUILD[@]}" --show-bin-path)/weavedi-bench"

OUT="$(mktemp -d "${TMPDIR:-/tmp}/weavedi-perf-gate.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT
echo "perf-gate: counting under $(valgrind --version)" >&2
# Deterministic hashing: the Swift baseline's Dictionary probes the same way every run.
SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --compress-strings=no --compress-pos=no \
    --collect-atstart=no --toggle-collect=weavedi_gate_measured --dump-after=weavedi_gate_measured \
    --callgrind-out-file="$OUT/cg.out" "$BIN" gate run >"$OUT/gate.txt" 2>"$OUT/valgrind.log" ||
    { cat "$OUT/valgrind.log" >&2; echo "perf-gate: the workload failed under valgrind" >&2; exit 1; }
"$BIN" gate "$MODE" "$OUT" --thresholds "$ROOT/Benchmarks/Thresholds/perf-gate.json"
