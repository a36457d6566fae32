#!/usr/bin/env bash
# The benchmark table: builds Benchmarks/ (release, with the peers), counts
# instructions per operation under callgrind, times every path (WeaveDI,
# Swinject, swift-dependencies, floor) on 1 and 2 threads, prints the table and
# writes Benchmarks/results/benchmark.{txt,json,csv} (not committed) and
# benchmark.png (the figure README shows; Benchmarks/plot.py, matplotlib).
#
# Usage: scripts/bench.sh [weavedi-bench options]
#   README's figures: scripts/bench.sh --sizes 10 --threads 1,2 --iterations 500000 --rounds 5
#   (defaults: --sizes 10,1000,100000 --threads 1,2 --iterations 1000000 --rounds 5;
#   options in Benchmarks/Sources/weavedi-bench/main.swift)
# Environment: WEAVEDI_BENCH_COUNT=0 skips the callgrind pass;
#   WEAVEDI_BENCH_COUNT_SIZES (default 10,1000); WEAVEDI_BENCH_SCRATCH (build dir).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SCRATCH="${WEAVEDI_BENCH_SCRATCH:-$ROOT/Benchmarks/.build}"
RESULTS="$ROOT/Benchmarks/results"
mkdir -p "$RESULTS"
scripts/ensure-deps.sh valgrind
# The python3 on PATH may not see Debian's packages (a pyenv build): PyPI first.
python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install -q matplotlib >&2 ||
    scripts/ensure-deps.sh python3-matplotlib

echo "bench: building Benchmarks (release; the first build compiles swift-syntax, swift-dependencies, Swinject)" >&2
swift build -c release --package-path Benchmarks --scratch-path "$SCRATCH" --product weavedi-bench 2>&1 |
    { grep -v "prohibited flag(s): -D__x86_64__" || true; } >&2
BIN="$(swift build -c release --package-path Benchmarks --scratch-path "$SCRATCH" --show-bin-path)/weavedi-bench"

CG="$(mktemp -d "${TMPDIR:-/tmp}/weavedi-bench-cg.XXXXXX")"
trap 'rm -rf "$CG"' EXIT
if [ "${WEAVEDI_BENCH_COUNT:-1}" != "0" ]; then
    echo "bench: instructions per operation under valgrind --tool=callgrind" >&2
    # valgrind 3.19 gives up on this binary's DWARF ("possibly corrupted
    # debuginfo"): count on a copy without debug info (symbols stay).
    cp "$BIN" "$CG/weavedi-bench" && strip --strip-debug "$CG/weavedi-bench"
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --collect-atstart=no \
        --toggle-collect=weavedi_bench_measured --dump-after=weavedi_bench_measured \
        --callgrind-out-file="$CG/cg.out" "$CG/weavedi-bench" --count --sizes "${WEAVEDI_BENCH_COUNT_SIZES:-10,1000}" \
        --iterations 20000 >"$CG/dumps.txt" 2>"$CG/valgrind.log" ||
        { tail -20 "$CG/valgrind.log" >&2; echo "bench: callgrind pass failed; no instr/op" >&2; }
fi

echo "bench: timing; uptime: $(uptime)" >&2
"$BIN" --json "$RESULTS/benchmark.json" --csv "$RESULTS/benchmark.csv" --callgrind "$CG" "$@" | tee "$RESULTS/benchmark.txt"
python3 Benchmarks/plot.py "$RESULTS/benchmark.json" "$RESULTS/benchmark.png"
echo "bench: done, $RESULTS/benchmark.{txt,json,csv,png}; uptime: $(uptime)" >&2
