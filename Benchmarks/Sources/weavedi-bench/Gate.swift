import WeaveDI
import WeaveDIBenchPaths

// The performance gate (scripts/perf-gate.sh): `weavedi-bench gate run` is
// the workload, run under
//   valgrind --tool=callgrind --compress-strings=no --collect-atstart=no \
//     --toggle-collect=weavedi_gate_measured --dump-after=weavedi_gate_measured
// so that every call of `gateMeasured` becomes one callgrind dump holding the
// instructions of exactly `n` operations of one path; it prints one line per
// dump, `GATE <dump-index> <path-id>@<table-size> <n>`. Then
// `weavedi-bench gate check DIR` (or `record DIR`) reads DIR/gate.txt and
// DIR/cg.out.<k> and compares instructions and allocations per operation, and
// same-run ratios, with the thresholds file.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@inline(never)
@_silgen_name("weavedi_gate_measured")
func gateMeasured(_ path: BenchPath, _ n: Int) {
    path.run(n)
}

/// The paths the gate checks (all single-threaded: callgrind serialises
/// threads, so two-thread counts would measure valgrind's scheduler).
let gatedPaths: Set<String> = [
    "unifieddi.resolve", "unifieddi.resolve.swift", "container.resolve", "container.resolve.swift",
    "inject", "inject.swift", "safeinject", "injected.keypath", "injected.keytype", "injected.type",
    "injected.optional", "injected.lazy", "injected.lazy.type", "factory",
    "unifieddi.resolve.named", "container.resolve.named", "injected.named", "withinjectedvalues.read", "withinjectedvalues.scope",
    "unifieddi.resolve.rotating", "unifieddi.resolve.rotating.swift",
    "register.replace", "register.lazy.new", "register.eager.new", "resolve.lazy.first",
    "handler.hand", "handler.inject", "handler.injected.keypath", "handler.injected.keytype",
    "handler.injected.type", "handler.injected.optional", "resolve.transient3", "taskscope.request",
    "handler.object.hand", "handler.object.inject", "handler.object.injected.keypath", "handler.object.injected.keytype",
    "handler.object.injected.type", "handler.object.injected.optional", "taskscope.object.request",
    "resolve.singleton.lazy", "resolve.weak", "resolve.transient", "injected.type.transient",
    "injected.optional.transient", "resolve.async.built", "resolve.transient.argument",
    "elsewhere.override.injected", "elsewhere.override.resolve",
    "elsewhere.overlay.injected", "elsewhere.overlay.resolve",
    "child.register.request", "resolve.miss", "resolve.async.transient",
]
/// Paths that depend on the table size; the others run at the first size only.
/// Not the locked baseline read of one type (`unifieddi.resolve.swift`) at
/// 1000: it probes the table on every read, and its probe length follows the
/// heap addresses of the generated types' metadata, which move with the
/// timing of other threads' allocations (4.9% between two runs of one
/// binary); the rotating rows probe every key and average that out.
let sizeDependentPaths: Set<String> = [
    "unifieddi.resolve", "unifieddi.resolve.rotating", "unifieddi.resolve.rotating.swift",
]

/// Ratios measured in the same run (same binary, same input): name, numerator, denominator.
let gateRatios: [(name: String, numerator: String, denominator: String)] = [
    ("C path / Swift baseline, UnifiedDI.resolve @10", "unifieddi.resolve@10", "unifieddi.resolve.swift@10"),
    (
        "C path / Swift baseline, rotating UnifiedDI.resolve @1000", "unifieddi.resolve.rotating@1000",
        "unifieddi.resolve.rotating.swift@1000"
    ),
    ("@Injected(\\.key) / @Inject", "injected.keypath@10", "inject@10"),
    ("@LazyInjected(\\.key) after first access / @Injected(\\.key)", "injected.lazy@10", "injected.keypath@10"),
    ("UnifiedDI.resolve(name:) / UnifiedDI.resolve", "unifieddi.resolve.named@10", "unifieddi.resolve@10"),
    ("@Injected(name:) / @Injected var s: S", "injected.named@10", "injected.type@10"),
    ("UnifiedDI.resolve(argument:) / transient UnifiedDI.resolve", "resolve.transient.argument@10", "resolve.transient@10"),
    ("UnifiedDI.resolve / floor", "unifieddi.resolve@10", "floor@0"),
    ("handler 3 @Injected(\\.key) / hand-built", "handler.injected.keypath@10", "handler.hand@10"),
    ("handler 3 @Injected(Key.self) / hand-built", "handler.injected.keytype@10", "handler.hand@10"),
    ("handler 3 @Injected var s: S / hand-built", "handler.injected.type@10", "handler.hand@10"),
    ("handler 3 @Injected var s: S? / hand-built", "handler.injected.optional@10", "handler.hand@10"),
    ("handler 3 @Inject / hand-built", "handler.inject@10", "handler.hand@10"),
    ("withTaskScope request / hand-built handler", "taskscope.request@10", "handler.hand@10"),
    ("class-bound: handler 3 @Injected(\\.key) / hand-built", "handler.object.injected.keypath@10", "handler.object.hand@10"),
    ("class-bound: handler 3 @Injected(Key.self) / hand-built", "handler.object.injected.keytype@10", "handler.object.hand@10"),
    ("class-bound: handler 3 @Injected var s: S / hand-built", "handler.object.injected.type@10", "handler.object.hand@10"),
    ("class-bound: handler 3 @Injected var s: S? / hand-built", "handler.object.injected.optional@10", "handler.object.hand@10"),
    ("class-bound: handler 3 @Inject / hand-built", "handler.object.inject@10", "handler.object.hand@10"),
    ("class-bound: withTaskScope request / hand-built handler", "taskscope.object.request@10", "handler.object.hand@10"),
    ("lazy singleton resolve / floor", "resolve.singleton.lazy@10", "floor@0"),
    ("resolveAsyncThrowing built / UnifiedDI.resolve built", "resolve.async.built@10", "resolve.singleton.lazy@10"),
]

/// The limit is the recorded count times this. callgrind's counts are exact:
/// repeated runs of one binary give the same count on every row (the record
/// checks it), so the headroom only has to absorb what an unrelated change
/// of the library moves a path by, and a 5% regression of a read must fail
/// (scripts/perf-gate-selftest.sh plants one and checks that it does).
let defaultHeadroom = 1.03

/// `weavedi-bench gate run|check DIR|record DIR... [--thresholds FILE] [--headroom X]`; returns the exit status.
@MainActor
func gateMain(_ arguments: [String]) -> Int32 {
    var thresholds = "Benchmarks/Thresholds/perf-gate.json"
    var headroom = defaultHeadroom
    var positional: [String] = []
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
        switch argument {
        case "--thresholds": thresholds = iterator.next() ?? thresholds
        case "--headroom": headroom = iterator.next().flatMap { Double($0) } ?? headroom
        default: positional.append(argument)
        }
    }
    switch (positional.first, positional.count) {
    case ("run", 1):
        gateWorkload()
        return 0
    case ("check", 2):
        return gateEvaluate(record: false, directories: [positional[1]], thresholds: thresholds, headroom: headroom)
    case ("record", 2...):
        return gateEvaluate(record: true, directories: Array(positional.dropFirst()), thresholds: thresholds, headroom: headroom)
    default:
        log("usage: weavedi-bench gate run | check DIR | record DIR... [--thresholds FILE] [--headroom \(defaultHeadroom)]")
        return 2
    }
}

/// The workload: every gated path at each table size
/// (WEAVEDI_GATE_SIZES, default 10,1000), WEAVEDI_GATE_ITERATIONS operations
/// (default 20000, scaled by the path's cost).
@MainActor
func gateWorkload() {
    let baseIterations = Int(getenv("WEAVEDI_GATE_ITERATIONS").map { String(cString: $0) } ?? "") ?? 20_000
    let sizes = (getenv("WEAVEDI_GATE_SIZES").map { String(cString: $0) } ?? "10,1000")
        .split(separator: ",").compactMap { Int($0) }
    var dump = 0
    func gate(_ path: BenchPath, size: Int) {
        let n = operations(for: path, base: baseIterations)
        warmUpAndPrepare(path, operations: n)
        gateMeasured(path, n)
        path.cleanup(n)
        dump += 1
        print("GATE \(dump) \(path.id)@\(size) \(n)")
    }
    gate(floorPath, size: 0)
    for (index, size) in sizes.enumerated() {
        prepareContainer(tableSize: size)
        for path in weaveDIPaths(tableSize: size) where gatedPaths.contains(path.id) {
            if index > 0 && !sizeDependentPaths.contains(path.id) { continue }
            gate(path, size: size)
        }
    }
    UnifiedRegistry.shared.enableOptimization()
}

struct GateLimit {
    let measured: Double
    let max: Double
}

/// The thresholds file, read as `gate record` writes it (JSON, one member
/// per line: a section at two spaces of indent, a path at four, its
/// "measured" and "max" at six): section -> path -> limit.
func readThresholds(_ path: String) -> [String: [String: GateLimit]]? {
    guard let lines = readLines(path) else { return nil }
    var sections: [String: [String: GateLimit]] = [:]
    var section = ""
    var key = ""
    var measured = 0.0
    for line in lines {
        let indent = line.prefix { $0 == " " }.count
        guard let (name, rest) = jsonMember(line.dropFirst(indent)) else { continue }
        switch (indent, name) {
        case (2, _): section = name
        case (4, _): key = name
        case (6, "measured"): measured = Double(rest.filter { $0 != "," && $0 != " " }) ?? 0
        case (6, "max"):
            guard let max = Double(rest.filter { $0 != "," && $0 != " " }) else { return nil }
            sections[section, default: [:]][key] = GateLimit(measured: measured, max: max)
        default: break
        }
    }
    return sections
}

/// `"name": rest` -> (name unescaped, rest).
func jsonMember(_ text: Substring) -> (String, Substring)? {
    guard text.first == "\"" else { return nil }
    var name = ""
    var escaped = false
    var index = text.index(after: text.startIndex)
    while index < text.endIndex {
        let character = text[index]
        if escaped {
            name.append(character)
            escaped = false
        } else if character == "\\" {
            escaped = true
        } else if character == "\"" {
            break
        } else {
            name.append(character)
        }
        index = text.index(after: index)
    }
    guard index < text.endIndex else { return nil }
    let rest = text[text.index(after: index)...].drop { $0 == ":" || $0 == " " }
    return (name, rest)
}

func fixed(_ value: Double, _ decimals: Int) -> String { cFormat("%.*f", Int32(decimals), value) }
func leftPad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
func rightPad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
func rounded(_ value: Double, _ decimals: Int) -> Double {
    let scale = pow(10, Double(decimals))
    return (value * scale).rounded() / scale
}
func jsonQuoted(_ text: String) -> String {
    "\""
        + text.split(separator: "\\", omittingEmptySubsequences: false).joined(separator: "\\\\")
        .split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\\\"") + "\""
}

/// Instructions and allocations per operation of one run's dumps, by path key.
func gateCounts(_ directory: String) -> (counts: [String: Double], allocations: [String: Double])? {
    var counts: [String: Double] = [:]
    var allocations: [String: Double] = [:]
    for dump in dumps(listedIn: directory + "/gate.txt", tag: "GATE") {
        guard let totals = callgrindTotals(directory + "/cg.out.\(dump.index)") else {
            log("perf-gate: no totals in \(directory)/cg.out.\(dump.index)")
            return nil
        }
        counts[dump.key] = Double(totals.instructions) / Double(dump.operations)
        allocations[dump.key] = Double(totals.allocations) / Double(dump.operations)
    }
    guard !counts.isEmpty else {
        log("perf-gate: no GATE lines in \(directory)/gate.txt")
        return nil
    }
    return (counts, allocations)
}

func gateRatioValues(_ counts: [String: Double]) -> [(String, Double)] {
    gateRatios.compactMap { ratio in
        guard let a = counts[ratio.numerator], let b = counts[ratio.denominator] else { return nil }
        return (ratio.name, a / b)
    }
}

/// Checks one run against the thresholds, or (record) writes thresholds
/// from several runs: each path's highest value, and its spread across the
/// runs, which must stay well inside the headroom.
@MainActor
func gateEvaluate(record: Bool, directories: [String], thresholds path: String, headroom: Double) -> Int32 {
    var runs: [(counts: [String: Double], allocations: [String: Double])] = []
    for directory in directories {
        guard let run = gateCounts(directory) else { return 1 }
        runs.append(run)
    }
    /// Highest value per key across the runs, and (highest - lowest) / lowest.
    func combine(_ values: [[String: Double]]) -> [(key: String, value: Double, spread: Double)] {
        var all: [String: [Double]] = [:]
        for run in values {
            for (key, value) in run { all[key, default: []].append(value) }
        }
        return all.sorted { $0.key < $1.key }.map { key, list in
            let high = list.max()!
            let low = list.min()!
            return (key, high, low > 0 ? (high - low) / low : 0)
        }
    }
    let counts = runs[0].counts
    let allocations = runs[0].allocations
    let ratios = gateRatioValues(counts)

    if record {
        let combinedCounts = combine(runs.map(\.counts))
        let combinedRatios = combine(runs.map { Dictionary(uniqueKeysWithValues: gateRatioValues($0.counts)) })
        let order = Dictionary(uniqueKeysWithValues: gateRatios.enumerated().map { ($1.name, $0) })
        let ratioRows = combinedRatios.sorted { order[$0.key, default: 0] < order[$1.key, default: 0] }
        let unstable = (combinedCounts + combinedRatios).filter { $0.spread > (headroom - 1) / 2 }
        if !unstable.isEmpty {
            log(
                "perf-gate: these rows moved by more than half the headroom across \(runs.count) runs; a limit \(headroom)x the count would fail at random:"
            )
            for row in unstable { log("  \(row.key): spread \(fixed(row.spread * 100, 2))%") }
            return 1
        }
        let widest = (combinedCounts + combinedRatios).map(\.spread).max() ?? 0
        func section(
            _ name: String, _ entries: [(key: String, value: Double, spread: Double)], _ limit: (Double) -> Double, _ decimals: Int
        ) -> String {
            let body = entries.map { key, value, _ in
                "    \(jsonQuoted(key)): {\n      \"measured\": \(rounded(value, decimals)),\n      \"max\": \(rounded(limit(value), decimals))\n    }"
            }
            return "  \(jsonQuoted(name)): {\n" + body.joined(separator: ",\n") + "\n  }"
        }
        let comment =
            "Instructions per operation (valgrind --tool=callgrind, 1 thread) and same-run ratios. "
            + "'max' is the limit scripts/perf-gate.sh enforces; 'measured' is the highest of \(runs.count) recorded runs "
            + "(max = measured x \(headroom)). Calibration: the widest spread of any row across those runs was "
            + "\(fixed(widest * 100, 2))% (callgrind counts are exact for a given binary), so the headroom is there for "
            + "unrelated changes of the library, and a planted 5% regression of a read fails "
            + "(scripts/perf-gate-selftest.sh). Re-record with scripts/perf-gate.sh --record after an intended change, "
            + "and review the diff."
        let text =
            "{\n  \"_comment\": \(jsonQuoted(comment)),\n"
            + section("instructions_per_op", combinedCounts, { $0 * headroom }, 1) + ",\n"
            + section("ratios", ratioRows, { $0 * headroom }, 3) + ",\n"
            // Allocations are exact counts: a path may not gain one (a little
            // slack for amortised growth of shared buffers).
            + section("allocations_per_op", combine(runs.map(\.allocations)), { $0 + 0.1 }, 3) + "\n}\n"
        guard writeFile(path, text) else {
            log("perf-gate: cannot write \(path)")
            return 1
        }
        print(
            "perf-gate: recorded \(combinedCounts.count) counts and \(ratioRows.count) ratios from \(runs.count) runs in \(path) (widest spread \(fixed(widest * 100, 2))%)"
        )
        return 0
    }

    guard let limits = readThresholds(path), let instructionLimits = limits["instructions_per_op"] else {
        log("perf-gate: cannot read \(path)")
        return 1
    }
    var failed: [String] = []
    var checked = 0
    /// One table of values against their limits.
    func check(
        _ title: String, _ entries: [(String, Double)], _ section: [String: GateLimit], _ what: String,
        width: Int, decimals: Int, showRecorded: Bool
    ) {
        print(
            rightPad(title, width) + " " + leftPad(showRecorded ? "instr/op" : "value", 10) + " " + leftPad("max", 10)
                + (showRecorded ? " " + leftPad("recorded", 10) : "") + "  result")
        for (key, value) in entries {
            let shown = rightPad(key, width) + " " + leftPad(fixed(value, decimals), 10)
            guard let limit = section[key] else {
                print(shown + " " + leftPad("-", 10) + (showRecorded ? " " + leftPad("-", 10) : "") + "  (no threshold)")
                continue
            }
            checked += 1
            let ok = value <= limit.max
            if !ok {
                failed.append("\(what)\(key): \(fixed(value, decimals)) > max \(limit.max)")
            }
            print(
                shown + " " + leftPad(fixed(limit.max, decimals), 10)
                    + (showRecorded ? " " + leftPad(fixed(limit.measured, decimals), 10) : "") + "  " + (ok ? "ok" : "REGRESSION"))
        }
    }
    check(
        "path@table-size", counts.sorted { $0.key < $1.key }, instructionLimits, "instructions/op ",
        width: 42, decimals: 1, showRecorded: true)
    for key in instructionLimits.keys.sorted() where counts[key] == nil {
        failed.append("\(key): has a threshold but was not measured")
    }
    print()
    check(
        "path@table-size (allocations/op)", allocations.sorted { $0.key < $1.key }, limits["allocations_per_op"] ?? [:],
        "allocations/op ", width: 42, decimals: 3, showRecorded: false)
    print()
    check("same-run ratio", ratios, limits["ratios"] ?? [:], "ratio ", width: 50, decimals: 3, showRecorded: false)
    print()
    if !failed.isEmpty {
        print("perf-gate: FAILED, \(failed.count) of \(checked) checks:")
        for line in failed { print("  " + line) }
        print("\(checked - failed.count) passed, \(failed.count) failed")
        return 1
    }
    print("perf-gate: \(checked) checks within thresholds (\(path))")
    print("\(checked) passed, 0 failed")
    return 0
}
