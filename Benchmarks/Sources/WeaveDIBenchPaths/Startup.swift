import Synchronization
import WeaveDI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a server pays before its first request: N distinct lazy-singleton
/// types registered, each resolved once (built and cached), then again.
/// Each contender gets types no one has touched (slots and metadata are made
/// on first use and never freed, so reusing types would flatter whoever
/// runs second); the types' own metadata is made before anything is timed.
public struct StartupContender: Sendable {
    public let name: String
    public let register: @Sendable ([any NestKey]) -> Void
    public let resolve: @Sendable ([any NestKey]) -> Void
    public let releaseAll: @Sendable () -> Void

    public init(
        name: String, register: @escaping @Sendable ([any NestKey]) -> Void,
        resolve: @escaping @Sendable ([any NestKey]) -> Void, releaseAll: @escaping @Sendable () -> Void
    ) {
        self.name = name
        self.register = register
        self.resolve = resolve
        self.releaseAll = releaseAll
    }
}

public struct StartupRow: Sendable {
    public let contender: String
    public let count: Int
    /// Nanoseconds per type.
    public let register: Double
    public let firstResolve: Double
    public let secondResolve: Double
    /// Resident memory the registrations and first resolves added, per type,
    /// and what is left of it after `releaseAll` (bytes per type).
    public let bytesPerType: Double
    public let bytesLeftAfterRelease: Double
    /// The process's resident memory before the registrations and after
    /// `releaseAll` (bytes), in the memory round.
    public var residentBefore: Double = 0
    public var residentAfter: Double = 0
}

public let weaveDIStartup = StartupContender(
    name: "WeaveDI",
    register: { keys in for key in keys { key.registerLazy() } },
    resolve: { keys in for key in keys { consume(key.resolve()) } },
    releaseAll: { UnifiedDI.releaseAll() })

/// The hand-written floor: factory closures in a `Dictionary` behind a
/// `Mutex`; the first resolve builds under the lock and caches the instance.
final class LockedFactories: Sendable {
    struct Entry {
        let factory: @Sendable () -> any Sendable
        var instance: (any Sendable)?
    }
    let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    func register<T: Sendable>(_ type: T.Type, _ factory: @escaping @Sendable () -> T) {
        entries.withLock { $0[ObjectIdentifier(type)] = Entry(factory: factory) }
    }

    func resolve<T: Sendable>(_ type: T.Type) -> T? {
        entries.withLock { entries -> T? in
            let key = ObjectIdentifier(type)
            guard var entry = entries[key] else { return nil }
            if let instance = entry.instance { return instance as? T }
            let instance = entry.factory()
            entry.instance = instance
            entries[key] = entry
            return instance as? T
        }
    }

    func removeAll() { entries.withLock { $0 = [:] } }
}

private struct LockedRegister: NestAction {
    let table: LockedFactories
    func callAsFunction<T>(_ type: Nest<T>.Type) { table.register(type) { Nest<T>(id: 1) } }
}

private struct LockedResolve: NestAction {
    let table: LockedFactories
    func callAsFunction<T>(_ type: Nest<T>.Type) { consume(table.resolve(type)?.id) }
}

private let lockedFactories = LockedFactories()

public let lockedDictionaryStartup = StartupContender(
    name: "Dictionary + Mutex (hand-written)",
    register: { keys in for key in keys { key.apply(LockedRegister(table: lockedFactories)) } },
    resolve: { keys in for key in keys { key.apply(LockedResolve(table: lockedFactories)) } },
    releaseAll: { lockedFactories.removeAll() })

/// Resident set size in bytes (Linux: /proc/self/statm), or 0.
public func residentBytes() -> Double {
    #if os(Linux)
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    guard fscanf_two(file, &size, &resident) else { return 0 }
    return Double(resident) * Double(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return 0
    #endif
}

#if os(Linux)
private func fscanf_two(_ file: UnsafeMutablePointer<FILE>, _ a: inout Int, _ b: inout Int) -> Bool {
    var buffer = [CChar](repeating: 0, count: 128)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return false }
    let line = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    let fields = String(decoding: line, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard fields.count >= 2, let first = Int(fields[0]), let second = Int(fields[1]) else { return false }
    a = first
    b = second
    return true
}
#endif

private func nowNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Runs every contender at every size, each on its own fresh types.
/// `progress` gets one line per measured row.
/// Runs every contender at every size `rounds` times, each time on types no
/// one has touched, and keeps each time's best round; then once more for
/// memory, with the C heap trimmed before and after (a trim makes the next
/// allocations fault pages in, so that round is not timed). A warm-up round
/// at the smallest size comes first and is dropped: whoever ran first
/// otherwise paid the process's one-time costs (heap growth, first
/// allocations of every table).
public func runStartup(
    sizes: [Int], contenders: [StartupContender], rounds: Int = 1, progress: (String) -> Void
) -> [StartupRow] {
    let warmUp = max(1, min(100, sizes.min() ?? 100))
    let total = (sizes.reduce(0, +) * (rounds + 1) + warmUp) * contenders.count
    progress("startup: making \(total) distinct types")
    let keys = makeNestKeys(count: total, chain: 2)
    var offset = 0
    func measure(_ contender: StartupContender, _ size: Int, trimming: Bool = false) -> StartupRow {
        let slice = Array(keys[offset..<offset + size])
        offset += size
        if trimming { trimHeap() }
        let before = residentBytes()
        let t0 = nowNanoseconds()
        contender.register(slice)
        let t1 = nowNanoseconds()
        contender.resolve(slice)
        let t2 = nowNanoseconds()
        contender.resolve(slice)
        let t3 = nowNanoseconds()
        let built = residentBytes()
        contender.releaseAll()
        if trimming { trimHeap() }
        let after = residentBytes()
        let n = Double(size)
        var row = StartupRow(
            contender: contender.name, count: size, register: Double(t1 - t0) / n,
            firstResolve: Double(t2 - t1) / n, secondResolve: Double(t3 - t2) / n,
            bytesPerType: (built - before) / n, bytesLeftAfterRelease: (after - before) / n)
        row.residentBefore = before
        row.residentAfter = after
        return row
    }
    for contender in contenders {
        _ = measure(contender, warmUp)
    }
    // Round-robin, so drift in the machine's speed reaches every contender.
    var rows: [StartupRow] = []
    for round in 1...max(1, rounds) {
        var index = 0
        for size in sizes {
            for contender in contenders {
                let row = measure(contender, size)
                progress(
                    "startup: \(contender.name) N=\(size) round \(round): register \(Int(row.register)) ns, "
                        + "first \(Int(row.firstResolve)) ns, second \(Int(row.secondResolve)) ns per type")
                if round == 1 {
                    rows.append(row)
                } else {
                    let best = rows[index]
                    rows[index] = StartupRow(
                        contender: row.contender, count: size, register: min(best.register, row.register),
                        firstResolve: min(best.firstResolve, row.firstResolve),
                        secondResolve: min(best.secondResolve, row.secondResolve), bytesPerType: 0,
                        bytesLeftAfterRelease: 0)
                }
                index += 1
            }
        }
    }
    // Memory last: trimming makes every later allocation fault pages in.
    for (index, row) in rows.enumerated() {
        let contender = contenders.first { $0.name == row.contender }!
        let memory = measure(contender, row.count, trimming: true)
        rows[index] = StartupRow(
            contender: row.contender, count: row.count, register: row.register, firstResolve: row.firstResolve,
            secondResolve: row.secondResolve, bytesPerType: memory.bytesPerType,
            bytesLeftAfterRelease: memory.bytesLeftAfterRelease, residentBefore: memory.residentBefore,
            residentAfter: memory.residentAfter)
    }
    return rows
}

/// Gives the C heap's free memory back to the system (glibc keeps freed
/// chunks in the process otherwise), so resident memory after a release
/// shows what is still allocated rather than what malloc kept.
private func trimHeap() {
    #if os(Linux) && canImport(Glibc)
    // malloc.h is not part of the Glibc module: glibc's entry point, by name.
    typealias MallocTrim = @convention(c) (Int) -> Int32
    if let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_trim") {
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }
    #endif
}
