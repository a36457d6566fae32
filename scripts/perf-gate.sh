#!/usr/bin/env bash
# Performance regression gate: instructions and allocations per operation, counted by
# valgrind --tool=callgrind (deterministic for a given binary and input,
# whatever else the machine is doing), for each WeaveDI path, compared with
# committed limits in Benchmarks/perf-thresholds.json, plus ratios measured in
# the same run (C path vs Swift baseline, @Injected vs @Inject, x floor).
#
# Builds only Benchmarks/PerfGate (WeaveDI without its swift-dependencies
# trait, plus a small executable): no peers, no package-benchmark.
#
# Usage: scripts/perf-gate.sh            check; exits 1 on a regression
#        scripts/perf-gate.sh --record   rewrite the thresholds file from this
#                                         run's counts (+25% headroom; review the diff)
# Environment: WEAVEDI_GATE_THRESHOLDS (file), WEAVEDI_GATE_SCRATCH (build dir),
#              WEAVEDI_GATE_ITERATIONS (ops per path, default 20000),
#              WEAVEDI_GATE_SIZES (table sizes, default 10,1000),
#              WEAVEDI_GATE_HEADROOM (for --record, default 1.25)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MODE=check
case "${1:-}" in
--record) MODE=record ;;
"") ;;
*) echo "perf-gate: unknown argument $1 (use --record or nothing)" >&2; exit 2 ;;
esac
THRESHOLDS="${WEAVEDI_GATE_THRESHOLDS:-$ROOT/Benchmarks/perf-thresholds.json}"
SCRATCH="${WEAVEDI_GATE_SCRATCH:-$ROOT/Benchmarks/PerfGate/.build}"
START=$SECONDS
say() { printf '[perf-gate %3ds] %s\n' "$((SECONDS - START))" "$*" >&2; }

scripts/ensure-deps.sh valgrind
command -v python3 >/dev/null 2>&1 || scripts/ensure-deps.sh python3

say "building Benchmarks/PerfGate (release, WeaveDI without its optional traits)"
swift build -c release --package-path Benchmarks/PerfGate --scratch-path "$SCRATCH" \
    --product weavedi-perf-gate 2>&1 | { grep -v "prohibited flag(s): -D__x86_64__" || true; } >&2
BIN="$(swift build -c release --package-path Benchmarks/PerfGate --scratch-path "$SCRATCH" --show-bin-path)/weavedi-perf-gate"
[ -x "$BIN" ] || { echo "perf-gate: $BIN was not built" >&2; exit 1; }
say "built in $((SECONDS - START)) s: $BIN"

OUT="$(mktemp -d "${TMPDIR:-/tmp}/weavedi-perf-gate.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT
say "counting instructions under callgrind (valgrind $(valgrind --version | sed 's/valgrind-//'))"
# Deterministic hashing: the Swift baseline's Dictionary probes the same way every run.
SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --compress-strings=no --compress-pos=no --collect-atstart=no \
    --toggle-collect=weavedi_gate_measured --dump-after=weavedi_gate_measured \
    --callgrind-out-file="$OUT/cg.out" "$BIN" >"$OUT/gate.txt" 2>"$OUT/valgrind.log" || {
    cat "$OUT/valgrind.log" >&2
    echo "perf-gate: the gate program failed under valgrind" >&2
    exit 1
}
say "counted $(grep -c '^GATE ' "$OUT/gate.txt") paths"

python3 - "$MODE" "$THRESHOLDS" "$OUT" "${WEAVEDI_GATE_HEADROOM:-1.25}" <<'PY'
import json, os, sys
mode, thresholds_path, out, headroom = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])

ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"}

def totals(path):
    """Instructions, and calls into the allocator, in one callgrind dump."""
    instructions, allocations, callee = None, 0, None
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                instructions = int(line.split()[1])
            elif line.startswith("cfn="):
                callee = line[4:].strip()
            elif line.startswith("calls=") and callee in ALLOCATORS:
                allocations += int(line[6:].split()[0])
    if instructions is None:
        raise SystemExit(f"perf-gate: no totals in {path}")
    return instructions, allocations

counts, allocations = {}, {}
for line in open(os.path.join(out, "gate.txt")):
    parts = line.split()
    if len(parts) == 4 and parts[0] == "GATE":
        index, key, n = int(parts[1]), parts[2], int(parts[3])
        instructions, allocated = totals(os.path.join(out, f"cg.out.{index}"))
        counts[key] = instructions / n
        allocations[key] = allocated / n

# Ratios measured in this run (same binary, same input): name -> (numerator, denominator).
RATIOS = {
    "C path / Swift baseline, UnifiedDI.resolve @10": ("unifieddi.resolve@10", "unifieddi.resolve.swift@10"),
    "C path / Swift baseline, UnifiedDI.resolve @1000": ("unifieddi.resolve@1000", "unifieddi.resolve.swift@1000"),
    "@Injected(\\.key) / @Inject": ("injected.keypath@10", "inject@10"),
    "UnifiedDI.resolve / floor": ("unifieddi.resolve@10", "floor@0"),
    "handler 3 @Injected(\\.key) / hand-built": ("handler.injected.keypath@10", "handler.hand@10"),
    "handler 3 @Injected(Key.self) / hand-built": ("handler.injected.keytype@10", "handler.hand@10"),
    "handler 3 @Injected var s: S / hand-built": ("handler.injected.type@10", "handler.hand@10"),
    "handler 3 @Injected var s: S? / hand-built": ("handler.injected.optional@10", "handler.hand@10"),
    "handler 3 @Inject / hand-built": ("handler.inject@10", "handler.hand@10"),
    "withTaskScope request / hand-built handler": ("taskscope.request@10", "handler.hand@10"),
    "lazy singleton resolve / floor": ("resolve.singleton.lazy@10", "floor@0"),
}
ratios = {name: counts[a] / counts[b] for name, (a, b) in RATIOS.items() if a in counts and b in counts}

if mode == "record":
    data = {
        "_comment": "Instructions per operation (valgrind --tool=callgrind, 1 thread) and same-run ratios. "
                    "'max' is the limit scripts/perf-gate.sh enforces; 'measured' is what --record saw "
                    f"(max = measured x {headroom}). Re-record with scripts/perf-gate.sh --record after an "
                    "intended change, and review the diff.",
        "instructions_per_op": {k: {"measured": round(v, 1), "max": round(v * headroom, 1)} for k, v in sorted(counts.items())},
        "ratios": {k: {"measured": round(v, 3), "max": round(v * headroom, 3)} for k, v in ratios.items()},
        # Allocations are exact counts: a path may not gain one (a little
        # slack for amortised growth of shared buffers).
        "allocations_per_op": {k: {"measured": round(v, 3), "max": round(v + 0.1, 3)} for k, v in sorted(allocations.items())},
    }
    with open(thresholds_path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    print(f"perf-gate: recorded {len(counts)} counts and {len(ratios)} ratios in {thresholds_path}")
    sys.exit(0)

with open(thresholds_path) as f:
    limits = json.load(f)
failed, checked = [], 0
print(f"{'path@table-size':42} {'instr/op':>10} {'max':>10} {'recorded':>10}  result")
for key, value in sorted(counts.items()):
    limit = limits["instructions_per_op"].get(key)
    if limit is None:
        print(f"{key:42} {value:10.1f} {'-':>10} {'-':>10}  (no threshold)")
        continue
    checked += 1
    ok = value <= limit["max"]
    if not ok:
        failed.append(f"{key}: {value:.1f} instructions/op > max {limit['max']}")
    print(f"{key:42} {value:10.1f} {limit['max']:10.1f} {limit['measured']:10.1f}  {'ok' if ok else 'REGRESSION'}")
for key in limits["instructions_per_op"]:
    if key not in counts:
        failed.append(f"{key}: has a threshold but was not measured")

def check_section(title, values, section, what, width, decimals):
    """Prints one table of values against their limits; returns how many it checked."""
    print()
    print(f"{title:{width}} {'value':>10} {'max':>10}  result")
    checked_here = 0
    for key, value in values.items():
        limit = limits.get(section, {}).get(key)
        if limit is None:
            print(f"{key:{width}} {value:10.{decimals}f} {'-':>10}  (no threshold)")
            continue
        checked_here += 1
        ok = value <= limit["max"]
        if not ok:
            failed.append(f"{what} {key}: {value:.{decimals}f} > max {limit['max']}")
        print(f"{key:{width}} {value:10.{decimals}f} {limit['max']:10.{decimals}f}  {'ok' if ok else 'REGRESSION'}")
    return checked_here

checked += check_section("path@table-size (allocations/op)", dict(sorted(allocations.items())),
                         "allocations_per_op", "allocations/op", 42, 3)
checked += check_section("same-run ratio", ratios, "ratios", "ratio", 50, 3)
print()
if failed:
    print(f"perf-gate: FAILED, {len(failed)} of {checked} checks:")
    for line in failed:
        print("  " + line)
    print(f"{checked - len(failed)} passed, {len(failed)} failed")
    sys.exit(1)
print(f"perf-gate: {checked} checks within thresholds ({thresholds_path})")
print(f"{checked} passed, 0 failed")
PY
say "done in $((SECONDS - START)) s"
