// The benchmark harness: every WeaveDI path, the peers and the floor, at each
// table size, on 1 and 2 threads, timed with clock_gettime (best of N rounds:
// the least-disturbed round on a shared machine). scripts/bench.sh runs it.
//
//   weavedi-bench [--sizes 10,1000,100000] [--threads 1,2] [--iterations 1000000]
//                 [--rounds 5] [--json FILE] [--csv FILE] [--callgrind DIR]
//                 [--filter SUBSTRING]
//       --callgrind DIR: the instr/op column, from a --count run's
//       DIR/dumps.txt and DIR/cg.out.<k>
//   weavedi-bench --count [--sizes ...] [--iterations N]
//       one pass per path on one thread, for valgrind --tool=callgrind with
//       --collect-atstart=no --toggle-collect=weavedi_bench_measured
//       --dump-after=weavedi_bench_measured; prints "DUMP <k> <id>@<size> <n>"
//       per dump
//   weavedi-bench gate run | check DIR | record DIR...
//       the CI performance gate (Gate.swift, scripts/perf-gate.sh)
//   weavedi-bench startup [--sizes 100,1000,10000,100000]
//       register / first resolve / second resolve per type, against a locked
//       dictionary and Swinject (Startup.swift)
//
// Built without the package's `Peers` trait (as the gate builds it), the
// table has WeaveDI and the floor only.
import Dispatch
import WeaveDI
import WeaveDIBenchPaths

#if Peers
import PeerPaths
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "gate" {
    exit(gateMain(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "startup" {
    exit(startupMain(Array(CommandLine.arguments.dropFirst(2))))
}

// MARK: options

var sizes = [10, 1_000, 100_000]
var threadCounts = [1, 2]
var baseIterations = 1_000_000
var rounds = 5
var jsonPath: String?
var csvPath: String?
var callgrindDirectory: String?
var filter: String?
var countMode = false

var argumentIterator = CommandLine.arguments.dropFirst().makeIterator()
@MainActor
func nextValue(_ flag: String) -> String {
    guard let value = argumentIterator.next() else {
        log("weavedi-bench: \(flag) needs a value")
        exit(2)
    }
    return value
}
while let argument = argumentIterator.next() {
    switch argument {
    case "--sizes": sizes = nextValue(argument).split(separator: ",").compactMap { Int($0) }
    case "--threads": threadCounts = nextValue(argument).split(separator: ",").compactMap { Int($0) }
    case "--iterations": baseIterations = Int(nextValue(argument)) ?? baseIterations
    case "--rounds": rounds = Int(nextValue(argument)) ?? rounds
    case "--json": jsonPath = nextValue(argument)
    case "--csv": csvPath = nextValue(argument)
    case "--callgrind": callgrindDirectory = nextValue(argument)
    case "--filter": filter = nextValue(argument)
    case "--count": countMode = true
    default:
        log("weavedi-bench: unknown argument \(argument)")
        exit(2)
    }
}

// MARK: measuring

func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

@inline(never)
@_silgen_name("weavedi_bench_measured")
func measured(_ path: BenchPath, _ n: Int) {
    path.run(n)
}

/// Warms `path` up (thread records, caches, lazy metadata) before its first round.
@MainActor
func warmUp(_ path: BenchPath) {
    let n = operations(for: path, base: baseIterations)
    warmUp(path, operations: max(1, min(n / 10, 10_000)))
    UnifiedRegistry.shared.enableOptimization()
}

/// One round of `path` on `threads` threads: nanoseconds per operation per thread.
@MainActor
func nanosecondsPerOperation(_ path: BenchPath, threads: Int) -> Double {
    let n = operations(for: path, base: baseIterations)
    path.applyMode()
    path.prepare(n)
    let start = monotonicNanoseconds()
    if threads == 1 {
        path.run(n)
    } else {
        DispatchQueue.concurrentPerform(iterations: threads) { _ in path.run(n) }
    }
    let elapsed = Double(monotonicNanoseconds() - start)
    path.cleanup(n)
    UnifiedRegistry.shared.enableOptimization()
    return elapsed / Double(n)
}

@MainActor
func allPaths(size: Int) -> [BenchPath] {
    prepareContainer(tableSize: size)
    #if Peers
    let paths = [floorPath] + weaveDIPaths(tableSize: size) + peerPaths(tableSize: size)
    #else
    let paths = [floorPath] + weaveDIPaths(tableSize: size)
    #endif
    guard let filter else { return paths }
    return paths.filter {
        $0.id == "floor" || $0.id.contains(filter) || $0.id.hasPrefix("swinject.container.sync") || $0.id == "dependencies.read"
    }
}

func log(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
}

// MARK: count mode (under callgrind)

if countMode {
    var dump = 0
    for size in sizes {
        log("count: table size \(size)")
        for path in allPaths(size: size) where path.countable {
            let n = operations(for: path, base: baseIterations)
            warmUpAndPrepare(path, operations: n)
            measured(path, n)
            path.cleanup(n)
            dump += 1
            print("DUMP \(dump) \(path.id)@\(size) \(n)")
        }
        UnifiedRegistry.shared.enableOptimization()
    }
    exit(0)
}

// MARK: timing mode

struct Row {
    var id: String
    var label: String
    var group: String
    var size: Int
    var threads: Int
    var nanoseconds: Double
    /// How far the median round was from the best, as a fraction of the
    /// best: the run-to-run spread of this row.
    var spread: Double
    var instructions: Double?
}

/// The median round's distance from the best, relative to the best.
func spread(of samples: [Double]) -> Double {
    let sorted = samples.sorted()
    guard let best = sorted.first, best > 0 else { return 0 }
    let middle = sorted.count / 2
    let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    return (median - best) / best
}

/// A ratio of two rows, or nil when the rows' spreads are as large as the
/// ratio's distance from 1: the comparison is then noise, not a result.
func ratioBeyondNoise(_ row: Row, _ reference: Row?) -> (ratio: Double, isNoise: Bool)? {
    guard let reference, reference.nanoseconds > 0 else { return nil }
    let ratio = row.nanoseconds / reference.nanoseconds
    let gap = abs(ratio - 1)
    return (ratio, max(row.spread, reference.spread) >= gap)
}

/// "id@size" -> instructions per operation (from a --count run under callgrind), if given.
var instructionCounts: [String: Double] = [:]
if let callgrindDirectory {
    for dump in dumps(listedIn: callgrindDirectory + "/dumps.txt", tag: "DUMP") {
        if let totals = callgrindTotals(callgrindDirectory + "/cg.out.\(dump.index)") {
            instructionCounts[dump.key] = Double(totals.instructions) / Double(dump.operations)
        }
    }
    log("instr/op for \(instructionCounts.count) paths from \(callgrindDirectory)")
}

// Rounds go round-robin over every (path, threads) pair: round r of every
// pair runs before round r + 1 of any. This VM shares its host, and a burst
// of the host's load used to land on all the rounds of whichever path was
// running, which best-of-rounds cannot filter; spread over the pairs, it
// costs each pair at most one round.
var rows: [Row] = []
let started = monotonicNanoseconds()
for size in sizes {
    log("== table size \(size): registering \(size) types (WeaveDI, Swinject)")
    let paths = allPaths(size: size)
    let pairs = paths.flatMap { path in
        threadCounts.filter { $0 == 1 || path.multiThread }.map { (path: path, threads: $0) }
    }
    var best = [Double](repeating: .infinity, count: pairs.count)
    var samples = [[Double]](repeating: [], count: pairs.count)
    for round in 1...max(1, rounds) {
        for (index, pair) in pairs.enumerated() {
            if round == 1 { warmUp(pair.path) }
            let sample = nanosecondsPerOperation(pair.path, threads: pair.threads)
            samples[index].append(sample)
            best[index] = min(best[index], sample)
            if round == max(1, rounds) {
                let elapsed = Double(monotonicNanoseconds() - started) / 1e9
                log(
                    cFormat("  [%3d/%3d %5.0fs] ", index + 1, pairs.count, elapsed) + pad(pair.path.label, 58, left: true)
                        + cFormat(" %d thr %10.1f ns/op, spread %4.1f%%", pair.threads, best[index], spread(of: samples[index]) * 100))
            }
        }
        if round < max(1, rounds) {
            let elapsed = Double(monotonicNanoseconds() - started) / 1e9
            log(cFormat("  round %d of %d done, %.0fs", round, rounds, elapsed))
        }
    }
    for (index, pair) in pairs.enumerated() {
        rows.append(
            Row(
                id: pair.path.id, label: pair.path.label, group: pair.path.group, size: size, threads: pair.threads,
                nanoseconds: best[index], spread: spread(of: samples[index]),
                instructions: instructionCounts["\(pair.path.id)@\(size)"]))
    }
}

// MARK: output

@MainActor
func lookupRow(_ id: String, _ size: Int, _ threads: Int) -> Row? {
    rows.first { $0.id == id && $0.size == size && $0.threads == threads }
}

@MainActor
func lookup(_ id: String, _ size: Int, _ threads: Int) -> Double? {
    lookupRow(id, size, threads)?.nanoseconds
}

/// A ratio for the table: "~" before it when it is within the rows' spread.
@MainActor
func ratioText(_ row: Row, _ referenceID: String, _ decimals: Int) -> String {
    if row.id == referenceID { return fmt(1, decimals) }
    guard let (ratio, isNoise) = ratioBeyondNoise(row, lookupRow(referenceID, row.size, row.threads)) else { return "-" }
    return (isNoise ? "~" : "") + fmt(ratio, decimals)
}

@MainActor
func fmt(_ value: Double?, _ decimals: Int = 1) -> String {
    guard let value, value.isFinite else { return "-" }
    return cFormat("%.\(decimals)f", value)
}

@MainActor
func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + fill : fill + text
}

let floorReference = "floor"
let swinjectReference = "swinject.container.sync"
let dependenciesReference = "dependencies.read"

print("")
print("WeaveDI benchmark: ns per operation per thread, best of \(rounds) rounds; ops/s is the total over threads.")
print("x floor, x Swinject (container scope, .synchronize()) and x swift-dependencies (@Dependency read) compare with")
print("that peer at the same table size and thread count (<1 = faster than it). instr/op: callgrind, 1 thread.")
print("spread: the median round's distance from the best. A ratio marked ~ is within the spread of one of its two")
print("rows (the larger spread is at least the ratio's distance from 1): noise, not a result; rerun before quoting it.")
for size in sizes {
    print("")
    print("table size \(size)")
    print(
        pad("path", 56, left: true) + pad("thr", 4) + pad("ns/op", 10) + pad("spread", 8) + pad("Mops/s", 9)
            + pad("instr/op", 10) + pad("x floor", 9) + pad("x Swinj", 9) + pad("x s-dep", 9))
    for row in rows where row.size == size {
        let mops = 1e3 / row.nanoseconds * Double(row.threads)
        print(
            pad(String(row.label.prefix(55)), 56, left: true) + pad("\(row.threads)", 4)
                + pad(fmt(row.nanoseconds), 10) + pad(fmt(row.spread * 100) + "%", 8) + pad(fmt(mops, 2), 9)
                + pad(fmt(row.instructions, 0), 10)
                + pad(ratioText(row, floorReference, 1), 9)
                + pad(ratioText(row, swinjectReference, 2), 9)
                + pad(ratioText(row, dependenciesReference, 2), 9))
    }
}

// The @Inject vs @Injected verdict (documented: ~0.001 ms vs ~0.0001 ms, 10x).
print("")
print("@Inject vs @Injected (upstream docs: ~0.001 ms vs ~0.0001 ms per access, i.e. 10x):")
for size in sizes {
    for threads in threadCounts {
        guard let injectRow = lookupRow("inject", size, threads), let injectedRow = lookupRow("injected.keypath", size, threads),
            let (_, isNoise) = ratioBeyondNoise(injectRow, injectedRow)
        else { continue }
        let inject = injectRow.nanoseconds
        let injected = injectedRow.nanoseconds
        let injectSwift = lookup("inject.swift", size, threads)
        print(
            cFormat(
                "  size %6d, %d thr: @Inject %.1f ns (%.6f ms), @Injected(\\.key) %.1f ns (%.6f ms): ratio %.2fx",
                size, threads, inject, inject / 1e6, injected, injected / 1e6, inject / injected)
                + " (vs Swift-baseline @Inject \(injectSwift.map { cFormat("%.2f", $0 / injected) } ?? "-")x)"
                + (isNoise ? " [within the rounds' spread: noise]" : ""))
    }
}

@MainActor
func jsonString(_ text: String) -> String {
    "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
}

@MainActor
func write(_ text: String, to path: String) {
    guard let file = fopen(path, "w") else {
        log("weavedi-bench: cannot write \(path)")
        return
    }
    fputs(text, file)
    fclose(file)
}

if let jsonPath {
    var lines: [String] = []
    for row in rows {
        let floor = lookup(floorReference, row.size, row.threads)
        let swinject = lookup(swinjectReference, row.size, row.threads)
        let dependencies = lookup(dependenciesReference, row.size, row.threads)
        var fields = [
            "\"id\": \(jsonString(row.id))", "\"label\": \(jsonString(row.label))", "\"group\": \(jsonString(row.group))",
            "\"table_size\": \(row.size)", "\"threads\": \(row.threads)",
            "\"ns_per_op\": \(fmt(row.nanoseconds, 3))", "\"spread\": \(fmt(row.spread, 4))",
            "\"ops_per_s\": \(fmt(1e9 / row.nanoseconds * Double(row.threads), 0))",
        ]
        fields.append("\"instructions_per_op\": \(row.instructions.map { fmt($0, 1) } ?? "null")")
        fields.append("\"x_floor\": \(floor.map { fmt(row.nanoseconds / $0, 3) } ?? "null")")
        let floorNoise = ratioBeyondNoise(row, lookupRow(floorReference, row.size, row.threads))?.isNoise
        fields.append("\"x_floor_is_noise\": \(floorNoise.map { $0 ? "true" : "false" } ?? "null")")
        fields.append("\"x_swinject_container_sync\": \(swinject.map { fmt(row.nanoseconds / $0, 3) } ?? "null")")
        fields.append("\"x_dependencies_read\": \(dependencies.map { fmt(row.nanoseconds / $0, 3) } ?? "null")")
        lines.append("    {" + fields.joined(separator: ", ") + "}")
    }
    write(
        "{\n  \"rounds\": \(rounds),\n  \"base_iterations\": \(baseIterations),\n  \"results\": [\n"
            + lines.joined(separator: ",\n") + "\n  ]\n}\n", to: jsonPath)
    log("wrote \(jsonPath)")
}

if let csvPath {
    var text =
        "id,label,group,table_size,threads,ns_per_op,ops_per_s,instructions_per_op,x_floor,x_swinject_container_sync,x_dependencies_read\n"
    for row in rows {
        let floor = lookup(floorReference, row.size, row.threads)
        let swinject = lookup(swinjectReference, row.size, row.threads)
        let dependencies = lookup(dependenciesReference, row.size, row.threads)
        text +=
            [
                row.id, "\"\(row.label.replacing("\"", with: "\"\""))\"", row.group, "\(row.size)", "\(row.threads)",
                fmt(row.nanoseconds, 3), fmt(1e9 / row.nanoseconds * Double(row.threads), 0),
                row.instructions.map { fmt($0, 1) } ?? "", floor.map { fmt(row.nanoseconds / $0, 3) } ?? "",
                swinject.map { fmt(row.nanoseconds / $0, 3) } ?? "", dependencies.map { fmt(row.nanoseconds / $0, 3) } ?? "",
            ]
            .joined(separator: ",") + "\n"
    }
    write(text, to: csvPath)
    log("wrote \(csvPath)")
}
