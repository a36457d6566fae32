import Dispatch
import Synchronization
import WeaveDI

/// One measured operation. `run(n)` performs it `n` times (the loop lives
/// inside so that a scope such as `withInjectedValues` can wrap it);
/// `prepare(n)` and `cleanup()` run untimed around each round.
public struct BenchPath: Sendable {
    public let id: String
    public let label: String
    public let group: String
    /// Whether running `run` on several threads at once is meaningful and safe.
    public let multiThread: Bool
    /// Relative cost: rounds use `iterations / costScale` operations.
    public let costScale: Int
    public let optimization: Bool?
    /// Whether callgrind can count it (`--count`): a path whose work runs
    /// on the global executor's threads is not counted on the measuring one.
    public let countable: Bool
    public let prepare: @Sendable (Int) -> Void
    public let run: @Sendable (Int) -> Void
    public let cleanup: @Sendable (Int) -> Void

    public init(
        id: String, label: String, group: String, multiThread: Bool = true, costScale: Int = 1,
        optimization: Bool? = nil, countable: Bool = true,
        prepare: @escaping @Sendable (Int) -> Void = { _ in },
        run: @escaping @Sendable (Int) -> Void,
        cleanup: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.id = id
        self.label = label
        self.group = group
        self.multiThread = multiThread
        self.costScale = costScale
        self.optimization = optimization
        self.countable = countable
        self.prepare = prepare
        self.run = run
        self.cleanup = cleanup
    }

    /// Sets the backend this path asks for (nil: leaves it on, the default).
    public func applyMode() {
        if optimization == false {
            UnifiedRegistry.shared.disableOptimization()
        } else {
            UnifiedRegistry.shared.enableOptimization()
        }
    }
}

/// How many generated types `prepareContainer` registered last: the keys
/// the rotating reads go through.
private let registeredNestTypes = Mutex(0)

/// Resets the live container and registers the service shapes, the
/// request-path, class-bound request-path and async services, and
/// generated types up to `tableSize` registrations in all: the table the
/// hot lookups see.
public func prepareContainer(tableSize: Int) {
    UnifiedRegistry.shared.enableOptimization()
    UnifiedDI.releaseAll()
    UnifiedDI.register(BenchService.self) { BenchServiceImpl() }
    UnifiedDI.register(BenchServiceImpl.self) { BenchServiceImpl() }
    UnifiedDI.register(BenchService.self, name: "replica") { BenchServiceImpl() }
    registerRequestServices()
    registerObjectRequestServices()
    registerAsyncServices()
    let extra = max(0, tableSize - WeaveDI.Container.live.registrationCount)
    registeredNestTypes.withLock { $0 = extra }
    let keys = makeNestKeys(count: extra)
    for (index, key) in keys.enumerated() {
        key.register(id: index)
    }
}

/// Fresh types for the registration and first-resolve paths (a second
/// chain of Nest types, never part of the table).
private let freshKeyCount = 20_000

/// The WeaveDI paths for a container prepared with `prepareContainer(tableSize:)`.
public func weaveDIPaths(tableSize: Int) -> [BenchPath] {
    let consumers = Consumers()
    let live = WeaveDI.Container.live
    let tableKeys = makeNestKeys(count: registeredNestTypes.withLock { $0 })
    var paths: [BenchPath] = requestPaths() + objectRequestPaths() + asyncPaths()

    for optimized in [true, false] {
        let suffix = optimized ? "" : ".swift"
        let backend = optimized ? "C path" : "Swift baseline"
        paths.append(
            BenchPath(
                id: "unifieddi.resolve\(suffix)", label: "UnifiedDI.resolve (\(backend))", group: "resolve",
                optimization: optimized,
                run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(BenchService.self)) } }))
        paths.append(
            BenchPath(
                id: "container.resolve\(suffix)", label: "Container.live.resolve (\(backend))", group: "resolve",
                optimization: optimized,
                run: { n in for _ in 0..<n { consume(live.resolve(BenchService.self)) } }))
        paths.append(
            BenchPath(
                id: "inject\(suffix)", label: "@Inject var s: S? (\(backend))", group: "wrappers",
                optimization: optimized,
                run: { n in for _ in 0..<n { consume(deprecatedReads.inject(consumers)) } }))
        if !tableKeys.isEmpty {
            let count = tableKeys.count
            paths.append(
                BenchPath(
                    id: "unifieddi.resolve.rotating\(suffix)",
                    label: "UnifiedDI.resolve, all \(count) Nest types in turn (\(backend))", group: "resolve",
                    optimization: optimized,
                    run: { n in
                        var index = 0
                        for _ in 0..<n {
                            consume(tableKeys[index].resolve())
                            index += 1
                            if index == count { index = 0 }
                        }
                    }))
        }
    }
    paths.append(
        BenchPath(
            id: "unifieddi.resolve.named", label: "UnifiedDI.resolve(S.self, name:)", group: "resolve",
            run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(BenchService.self, name: "replica")) } }))
    paths.append(
        BenchPath(
            id: "container.resolve.named", label: "Container.live.resolve(S.self, name:)", group: "resolve",
            run: { n in for _ in 0..<n { consume(live.resolve(BenchService.self, name: "replica")) } }))
    paths.append(
        BenchPath(
            id: "injected.named", label: "@Injected(name:) var s: S", group: "wrappers",
            run: { n in for _ in 0..<n { consume(consumers.byName) } }))
    paths.append(
        BenchPath(
            id: "safeinject", label: "@SafeInject var s: S?", group: "wrappers",
            run: { n in for _ in 0..<n { consume(deprecatedReads.safeInject(consumers)) } }))
    paths.append(
        BenchPath(
            id: "injected.keypath", label: "@Injected(\\.key)", group: "wrappers",
            run: { n in for _ in 0..<n { consume(consumers.byKeyPath) } }))
    paths.append(
        BenchPath(
            id: "injected.keytype", label: "@Injected(Key.self)", group: "wrappers",
            run: { n in for _ in 0..<n { consume(consumers.byKeyType) } }))
    paths.append(
        BenchPath(
            id: "injected.type", label: "@Injected var s: S", group: "wrappers",
            run: { n in for _ in 0..<n { consume(consumers.byType) } }))
    paths.append(
        BenchPath(
            id: "injected.optional", label: "@Injected var s: S?", group: "wrappers",
            run: { n in for _ in 0..<n { consume(consumers.byOptionalType) } }))
    // Read once before the measured loop (gate and timing runs warm every
    // path first), so these rows are the kept value's read.
    paths.append(
        BenchPath(
            id: "injected.lazy", label: "@LazyInjected(\\.key), after its first access", group: "wrappers",
            run: { n in for _ in 0..<n { consume(consumers.lazyByKeyPath) } }))
    paths.append(
        BenchPath(
            id: "injected.lazy.type", label: "@LazyInjected var s: S, after its first access", group: "wrappers",
            run: { n in for _ in 0..<n { consume(consumers.lazyByType) } }))
    paths.append(
        BenchPath(
            id: "factory", label: "@Factory (new instance per read)", group: "wrappers",
            run: { n in for _ in 0..<n { consume(consumers.factory) } }))
    paths.append(
        BenchPath(
            id: "withinjectedvalues.read", label: "@Injected(\\.key) read inside withInjectedValues", group: "overrides",
            run: { n in
                withInjectedValues {
                    $0.benchService = Floor.service
                } operation: {
                    for _ in 0..<n { consume(consumers.byKeyPath) }
                }
            }))
    paths.append(
        BenchPath(
            id: "withinjectedvalues.scope", label: "withInjectedValues { override } + 1 read", group: "overrides",
            costScale: 10,
            run: { n in
                for _ in 0..<n {
                    withInjectedValues {
                        $0.benchService = Floor.service
                    } operation: {
                        consume(consumers.byKeyPath)
                    }
                }
            }))
    // A server that overrides per request, or a test run with overlays,
    // keeps a scope open somewhere at all times: reads on threads outside
    // any scope must stay cheap then too.
    for (kind, label) in [("override", "a withInjectedValues scope"), ("overlay", "a container overlay")] {
        let elsewhere = ScopeHeldElsewhere(overlay: kind == "overlay")
        paths.append(
            BenchPath(
                id: "elsewhere.\(kind).injected", label: "@Injected(\\.key), \(label) open on another thread",
                group: "overrides",
                prepare: { _ in elsewhere.open() },
                run: { n in for _ in 0..<n { consume(consumers.byKeyPath) } },
                cleanup: { _ in elsewhere.close() }))
        paths.append(
            BenchPath(
                id: "elsewhere.\(kind).resolve", label: "UnifiedDI.resolve, \(label) open on another thread",
                group: "overrides",
                prepare: { _ in elsewhere.open() },
                run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(BenchService.self)) } },
                cleanup: { _ in elsewhere.close() }))
    }
    let fresh = makeNestKeys(count: freshKeyCount, chain: 1)
    paths.append(
        BenchPath(
            id: "register.replace", label: "UnifiedDI.register (eager, replaces)", group: "registration",
            multiThread: false, costScale: 100,
            run: { n in for _ in 0..<n { UnifiedDI.register(LazyServiceImpl.self) { LazyServiceImpl() } } },
            cleanup: { _ in UnifiedDI.release(LazyServiceImpl.self) }))
    paths.append(
        BenchPath(
            id: "register.lazy.new", label: "UnifiedDI.register(scope: .singleton), new type", group: "registration",
            multiThread: false, costScale: 100,
            run: { n in for index in 0..<min(n, fresh.count) { fresh[index].registerLazy() } },
            cleanup: { n in for index in 0..<min(n, fresh.count) { fresh[index].release() } }))
    // Types of their own (the second half of the pool): a first
    // registration of each, eager this time.
    let eagerFresh = Array(fresh[(fresh.count / 2)...])
    paths.append(
        BenchPath(
            id: "register.eager.new", label: "UnifiedDI.register (eager), new type", group: "registration",
            multiThread: false, costScale: 100,
            run: { n in for index in 0..<min(n, eagerFresh.count) { eagerFresh[index].register(id: index) } },
            cleanup: { n in for index in 0..<min(n, eagerFresh.count) { eagerFresh[index].release() } }))
    paths.append(
        BenchPath(
            id: "resolve.lazy.first", label: "first resolve of a lazy singleton", group: "registration",
            multiThread: false, costScale: 100,
            prepare: { n in for index in 0..<min(n, fresh.count) { fresh[index].registerLazy() } },
            run: { n in for index in 0..<min(n, fresh.count) { consume(fresh[index].resolve()) } },
            cleanup: { n in for index in 0..<min(n, fresh.count) { fresh[index].release() } }))
    // Last, so that adding them moved no other row's heap layout.
    paths += serverEdgePaths()
    return paths
}

/// The floor path: a `static let` read with retain/release.
public let floorPath = BenchPath(
    id: "floor", label: "floor: static let + retain/release", group: "floor",
    run: { n in for _ in 0..<n { consume(Floor.owned()) } })

/// Operations per round: `base / costScale`, never above the fresh-key pool
/// for paths that consume a new type per operation.
public func operations(for path: BenchPath, base: Int) -> Int {
    let n = max(1, base / path.costScale)
    return path.costScale >= 100 ? min(n, freshKeyCount) : n
}

/// Sets the path's mode, warms it up (thread records, caches, lazy metadata)
/// and prepares `n` operations, so the counted call that follows measures
/// only steady-state work. Shared by the gate and the benchmark harness.
public func warmUpAndPrepare(_ path: BenchPath, operations n: Int) {
    warmUp(path, operations: min(n, 64))
    path.prepare(n)
}

/// Sets the path's mode and runs `warm` operations, prepared and cleaned up.
public func warmUp(_ path: BenchPath, operations warm: Int) {
    path.applyMode()
    path.prepare(warm)
    path.run(warm)
    path.cleanup(warm)
}

/// Holds a `withInjectedValues` scope or a container overlay open on a
/// thread of its own between `open` and `close`.
final class ScopeHeldElsewhere: @unchecked Sendable {
    private let overlay: Bool
    private let entered = DispatchSemaphore(value: 0)
    private let leave = DispatchSemaphore(value: 0)
    private let left = DispatchSemaphore(value: 0)

    init(overlay: Bool) { self.overlay = overlay }

    func open() {
        DispatchQueue(label: "scope held elsewhere").async { [self] in
            if overlay {
                withContainerOverlay { _ in
                } operation: {
                    entered.signal()
                    leave.wait()
                }
            } else {
                withInjectedValues {
                    $0.benchService = Floor.service
                } operation: {
                    entered.signal()
                    leave.wait()
                }
            }
            left.signal()
        }
        entered.wait()
    }

    func close() {
        leave.signal()
        left.wait()
    }
}
