#!/usr/bin/env bash
# The benchmark suite in one command: installs what it needs, builds
# Benchmarks/ (release), counts instructions per operation under callgrind,
# times every path (WeaveDI, Swinject, swift-dependencies, floor) on 1 and 2
# threads at 10 / 1,000 / 100,000 registered types, prints the table, and
# writes Benchmarks/results/benchmark.{json,csv} and benchmark.png.
#
# Usage: scripts/bench.sh [harness options]   e.g. --sizes 10,1000 --rounds 3
#   (see Benchmarks/Sources/weavedi-bench/main.swift; defaults: --sizes
#   10,1000,100000 --threads 1,2 --iterations 1000000 --rounds 5)
# Environment: WEAVEDI_BENCH_COUNT=0 skips the callgrind pass (no instr/op);
#   WEAVEDI_BENCH_COUNT_SIZES (default 10,1000); WEAVEDI_BENCH_SCRATCH (build dir).
# package-benchmark's own runner over the same paths:
#   swift package --package-path Benchmarks --scratch-path Benchmarks/.build \
#     --allow-writing-to-package-directory benchmark
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SCRATCH="${WEAVEDI_BENCH_SCRATCH:-$ROOT/Benchmarks/.build}"
RESULTS="$ROOT/Benchmarks/results"
START=$SECONDS
say() { printf '\n[bench %4ds] %s\n' "$((SECONDS - START))" "$*" >&2; }
mkdir -p "$RESULTS"

say "dependencies: libck-dev, valgrind, python3 + matplotlib"
scripts/ensure-deps.sh valgrind
command -v python3 >/dev/null 2>&1 || scripts/ensure-deps.sh python3
if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
    echo "installing matplotlib (PyPI, falling back to Debian's python3-matplotlib)" >&2
    python3 -m pip install -q matplotlib >&2 || scripts/ensure-deps.sh python3-matplotlib
fi

say "building Benchmarks (release; first build compiles swift-syntax, swift-dependencies, Swinject: several minutes)"
swift build -c release --package-path Benchmarks --scratch-path "$SCRATCH" --product weavedi-bench 2>&1 |
    { grep -v "prohibited flag(s): -D__x86_64__" || true; } >&2
BIN="$(swift build -c release --package-path Benchmarks --scratch-path "$SCRATCH" --show-bin-path)/weavedi-bench"
say "built: $BIN"

COUNTS="$RESULTS/instructions.txt"
: >"$COUNTS"
if [ "${WEAVEDI_BENCH_COUNT:-1}" != "0" ] && command -v valgrind >/dev/null 2>&1; then
    say "instructions per operation: one pass per path under valgrind --tool=callgrind (sizes ${WEAVEDI_BENCH_COUNT_SIZES:-10,1000})"
    CG="$(mktemp -d "${TMPDIR:-/tmp}/weavedi-bench-cg.XXXXXX")"
    # valgrind 3.19 gives up on this binary's DWARF ("possibly corrupted
    # debuginfo"): count on a copy without debug info (symbols stay).
    cp "$BIN" "$CG/weavedi-bench" && strip --strip-debug "$CG/weavedi-bench"
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --collect-atstart=no \
        --toggle-collect=weavedi_bench_measured --dump-after=weavedi_bench_measured \
        --callgrind-out-file="$CG/cg.out" "$CG/weavedi-bench" --count --sizes "${WEAVEDI_BENCH_COUNT_SIZES:-10,1000}" \
        --iterations 20000 >"$CG/dumps.txt" 2>"$CG/valgrind.log" || {
        tail -20 "$CG/valgrind.log" >&2
        echo "callgrind pass failed; continuing without instr/op" >&2
    }
    python3 - "$CG" >"$COUNTS" <<'PY'
import os, sys
cg = sys.argv[1]
for line in open(os.path.join(cg, "dumps.txt")):
    p = line.split()
    if len(p) == 4 and p[0] == "DUMP":
        path = os.path.join(cg, f"cg.out.{p[1]}")
        if not os.path.exists(path):
            continue
        for l in open(path):
            if l.startswith(("totals:", "summary:")):
                print(p[2], round(int(l.split()[1]) / int(p[3]), 1))
                break
PY
    rm -rf "$CG"
    say "counted $(wc -l <"$COUNTS") paths -> $COUNTS"
fi

say "timing (progress below; table at the end). uptime: $(uptime | sed 's/.*load/load/')"
"$BIN" --json "$RESULTS/benchmark.json" --csv "$RESULTS/benchmark.csv" --instructions "$COUNTS" "$@" |
    tee "$RESULTS/benchmark.txt"

say "plot"
python3 "$ROOT/Benchmarks/plot.py" "$RESULTS/benchmark.json" "$RESULTS/benchmark.png"
say "done: $RESULTS/benchmark.{txt,json,csv,png} (uptime: $(uptime | sed 's/.*load/load/'))"
