// The performance gate's workload. Run it under
//   valgrind --tool=callgrind --collect-atstart=no \
//     --toggle-collect=weavedi_gate_measured --dump-after=weavedi_gate_measured
// (scripts/perf-gate.sh does): every call of `measured` below becomes one
// callgrind dump holding the instructions of exactly `n` operations of one
// path. This program prints, in order, one line per dump:
//   GATE <dump-index> <path-id>@<table-size> <n>
// Without valgrind it still runs (quickly) and prints the same lines.
import WeaveDI
import WeaveDIBenchPaths

#if canImport(Glibc)
import Glibc
#endif

@inline(never)
@_silgen_name("weavedi_gate_measured")
func measured(_ path: BenchPath, _ n: Int) {
    path.run(n)
}

let baseIterations = Int(getenv("WEAVEDI_GATE_ITERATIONS").map { String(cString: $0) } ?? "") ?? 20_000
let sizes = (getenv("WEAVEDI_GATE_SIZES").map { String(cString: $0) } ?? "10,1000")
    .split(separator: ",").compactMap { Int($0) }

/// The paths the gate checks (all single-threaded: callgrind serialises
/// threads, so two-thread counts would measure valgrind's scheduler).
let gated: Set<String> = [
    "unifieddi.resolve", "unifieddi.resolve.swift", "container.resolve", "container.resolve.swift",
    "inject", "inject.swift", "safeinject", "injected.keypath", "injected.keytype", "injected.type",
    "injected.optional", "factory", "withinjectedvalues.read", "withinjectedvalues.scope",
    "unifieddi.resolve.rotating", "unifieddi.resolve.rotating.swift",
    "register.replace", "register.lazy.new", "resolve.lazy.first",
    "handler.hand", "handler.inject", "handler.injected.keypath", "handler.injected.keytype",
    "handler.injected.type", "handler.injected.optional", "resolve.transient3", "taskscope.request",
    "resolve.singleton.lazy", "resolve.weak", "resolve.transient",
    "elsewhere.override.injected", "elsewhere.override.resolve",
    "elsewhere.overlay.injected", "elsewhere.overlay.resolve",
]
/// Paths that depend on the table size; the others run at the first size only.
let sizeDependent: Set<String> = [
    "unifieddi.resolve", "unifieddi.resolve.swift", "unifieddi.resolve.rotating",
    "unifieddi.resolve.rotating.swift",
]

var dump = 0
@MainActor
func gate(_ path: BenchPath, size: Int) {
    let n = operations(for: path, base: baseIterations)
    warmUpAndPrepare(path, operations: n)
    measured(path, n)
    path.cleanup(n)
    dump += 1
    print("GATE \(dump) \(path.id)@\(size) \(n)")
}

gate(floorPath, size: 0)
for (index, size) in sizes.enumerated() {
    prepareContainer(tableSize: size)
    for path in weaveDIPaths(tableSize: size) where gated.contains(path.id) {
        if index > 0 && !sizeDependent.contains(path.id) { continue }
        gate(path, size: size)
    }
}
UnifiedRegistry.shared.enableOptimization()
