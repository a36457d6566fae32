/// Upstream's registry health report, computed from the live container's
/// last `validate()`: this package keeps one store of registrations, so the
/// inconsistencies it can have are the problems validation finds (a
/// missing dependency, a failing factory, a cycle). Before any `validate()`
/// the report says "not validated" and scores 0.
public struct RegistrySyncReport: Sendable, CustomStringConvertible {
    /// Whether reads take the lock-free path, and how many types that covers.
    public var optimizationStats: OptimizationSyncStats
    /// The problems the last `validate()` of the live container found, as
    /// they print; empty when it found none or never ran.
    public var factoryInconsistencies: [String]
    /// Registrations in the live container (or the task's overlay) and its parents.
    public var totalRegistrations: Int
    /// The distinct types among them.
    public var totalTypes: Int
    /// Whether the live container was validated (`UnifiedDI.validate()`).
    public var isValidated: Bool = false
    /// Registrations the last `validate()` built; 0 when it never ran.
    public var validatedRegistrations: Int = 0
    /// 100 × (1 − problems ÷ registrations validated), at least 0, from the
    /// last `validate()`; 0 when the live container was never validated.
    public var healthScore: Double

    /// A few lines for a log.
    public var summary: String {
        let score = isValidated ? "\(healthScore)/100" : "not validated (call UnifiedDI.validate())"
        return "Registry health score: \(score)\nRegistrations: \(totalRegistrations)\nTypes: \(totalTypes)\n"
            + "Inconsistencies: \(factoryInconsistencies.count)\n\(optimizationStats.summary)"
    }

    public var description: String { summary }
}

/// Whether reads take the lock-free path (`UnifiedRegistry/enableOptimization()`).
public struct OptimizationSyncStats: Sendable {
    /// Whether the lock-free read is on.
    public var isEnabled: Bool
    /// Registered types read lock-free: all of them while it is on.
    public var optimizedTypes: Int
    /// Registered types read under the lock: all of them while it is off.
    public var nonOptimizedTypes: Int

    /// One line for a log.
    public var summary: String {
        "Optimization: \(isEnabled ? "on" : "off"), optimized: \(optimizedTypes), not optimized: \(nonOptimizedTypes)"
    }
}

/// Upstream's registry repair report. Nothing needs repair here (see
/// ``RegistrySyncReport``): the scores are 100 before and after.
public struct RegistryFixReport: Sendable, CustomStringConvertible {
    public var originalHealthScore: Double
    public var finalHealthScore: Double
    /// Always 0 here.
    public var fixedDuplicates: Int
    /// Whether the lock-free read is off, so that turning it on would help.
    public var suggestedOptimizationEnabled: Bool

    public var improvement: Double { finalHealthScore - originalHealthScore }

    public var summary: String {
        "Registry auto-fix: \(originalHealthScore) -> \(finalHealthScore), fixed duplicates: \(fixedDuplicates)"
            + (suggestedOptimizationEnabled ? ", enable optimization for lock-free reads" : "")
    }

    public var description: String { summary }
}

/// A problem `validate()` found for a type, as upstream's type-safety issue.
public struct TypeSafetyIssue: Sendable {
    public let issue: String
    public init(issue: String) { self.issue = issue }
}

/// Upstream's actor suggestion; this package makes none.
public struct ActorOptimization: Sendable {
    public let suggestion: String
    public init(suggestion: String) { self.suggestion = suggestion }
}

extension UnifiedDI {
    /// Upstream turned its auto-optimizer on or off. Here every read already
    /// takes the lock-free path; this turns on and off the counting of
    /// ``stats()`` (resolves per type), off until called. While it is on,
    /// reads skip the shared cache (one table read each, as inside a
    /// `withInjectedValues` scope, asking the task-locals of scopes and
    /// overlays): turn it off in production.
    ///
    /// ```swift
    /// UnifiedDI.setAutoOptimization(true)
    /// ```
    ///
    /// - Parameter enabled: Whether to count resolves.
    public static func setAutoOptimization(_ enabled: Bool = true) {
        ResolveStatistics.setCounting(enabled)
        OptimizationHooks.setOptimizationEnabled?(enabled)
    }

    /// How many times each type (by name) was resolved from the live
    /// container, or the task's overlay, through `UnifiedDI` (`resolve`,
    /// `@Inject`, `@Injected var x: T`, factories that read `UnifiedDI`)
    /// while ``setAutoOptimization(_:)`` was on. Reads through a container
    /// object (`WeaveDI.Container.live.resolve`, `container.resolve`) are
    /// not counted; misses are.
    ///
    /// ```swift
    /// UnifiedDI.setAutoOptimization(true)
    /// let resolves = UnifiedDI.stats()["Database"] ?? 0
    /// ```
    ///
    /// - Returns: Resolves per type name.
    public static func stats() -> [String: Int] {
        ResolveStatistics.snapshot
    }

    /// Clears ``stats()``.
    ///
    /// ```swift
    /// UnifiedDI.resetStats()
    /// ```
    public static func resetStats() {
        ResolveStatistics.reset()
        OptimizationHooks.resetStats?()
    }

    /// Whether reads of `type` take the lock-free path: it is registered
    /// (live container or the task's overlay, and parents) and optimization
    /// is on (`UnifiedRegistry/enableOptimization()`, the default).
    ///
    /// ```swift
    /// XCTAssertTrue(UnifiedDI.isOptimized(Database.self))
    /// ```
    ///
    /// - Parameter type: The type.
    /// - Returns: Whether its reads are lock-free.
    public static func isOptimized<T>(_ type: T.Type) -> Bool {
        UnifiedRegistry.shared.isOptimizationEnabled && DIContainer.live.isRegistered(type)
    }

    /// The names of the types whose reads take the lock-free path: every
    /// registered type while optimization is on, none while it is off.
    ///
    /// ```swift
    /// let fast = UnifiedDI.optimizedTypes()
    /// ```
    ///
    /// - Returns: Type names.
    public static func optimizedTypes() -> Set<String> {
        guard UnifiedRegistry.shared.isOptimizationEnabled else { return [] }
        return Set(DIContainer.live.registry.registeredTypes.map(typeName))
    }

    /// The dependency graph as Graphviz DOT: every registered type, with
    /// the edges the last `validate()` of the live container saw (none
    /// before one ran). Upstream built its graph from resolves as they
    /// happened; here recording edges on every resolve would cost the hot path.
    ///
    /// ```swift
    /// _ = UnifiedDI.validate()
    /// print(UnifiedDI.autoGraph())
    /// ```
    ///
    /// - Returns: A `digraph`.
    public static func autoGraph() -> String {
        let container = DIContainer.live
        let recorded = LastValidation.graph(for: container)
        var nodes = Set(recorded?.nodes ?? [])
        for (_, entry) in container.reachableEntries where !nodes.contains(where: { $0.name == typeName(entry.type) }) {
            nodes.insert(DependencyGraph.Node(name: typeName(entry.type), scope: entry.scope))
        }
        let graph = DependencyGraph(
            nodes: nodes.sorted { $0.name < $1.name }, edges: recorded?.edges ?? [])
        return graph.dot()
    }

    /// The dependency cycles the last `validate()` of the live container
    /// found, each as "A -> B -> A"; empty before one ran.
    ///
    /// ```swift
    /// _ = UnifiedDI.validate()
    /// XCTAssertTrue(UnifiedDI.circularDependencies().isEmpty)
    /// ```
    ///
    /// - Returns: The cycles.
    public static func circularDependencies() -> Set<String> {
        Set(
            LastValidation.problems(for: DIContainer.live).compactMap {
                if case .cycle(let chain) = $0 { return chain.joined(separator: " -> ") }
                return nil
            })
    }

    /// The problems the last `validate()` of the live container found,
    /// by the type each concerns (a missing type, the first type of a
    /// cycle, the singleton holding a captive); empty before one ran.
    public static var typeSafetyIssues: [String: TypeSafetyIssue] {
        get async {
            var issues: [String: TypeSafetyIssue] = [:]
            for problem in LastValidation.problems(for: DIContainer.live) {
                let type: String?
                switch problem {
                case .missing(let missing, _): type = missing
                case .cycle(let chain): type = chain.first
                case .captive(let path, _, _): type = path.last
                case .taskScopeOutsideScope(let scoped, _): type = scoped
                case .failed(let failed, _, _): type = failed
                }
                if let type { issues[type] = TypeSafetyIssue(issue: problem.description) }
            }
            return issues
        }
    }

    /// Always empty: nothing is fixed automatically here. Upstream listed its
    /// three most used types.
    @available(*, deprecated, message: "nothing is fixed automatically: always empty")
    public static var autoFixedTypes: Set<String> {
        get async { [] }
    }

    /// Always empty: resolution here is synchronous and never hops actors.
    @available(*, deprecated, message: "resolution never hops actors here: always empty")
    public static var actorHopStats: [String: Int] {
        get async { [:] }
    }

    /// Always empty: upstream derived it from type names containing "async";
    /// see ``stats()`` for what is counted here.
    @available(*, deprecated, message: "not measured: always empty; see stats()")
    public static var asyncPerformanceStats: [String: Double] {
        get async { [:] }
    }

    /// Always empty: no actor suggestions are made here.
    @available(*, deprecated, message: "no actor suggestions are made: always empty")
    public static var actorOptimizations: [String: ActorOptimization] {
        get async { [:] }
    }

    /// The registry's health: registrations and types counted, and the
    /// problems and score of the live container's last `validate()` (see
    /// ``RegistrySyncReport/healthScore``).
    ///
    /// ```swift
    /// _ = UnifiedDI.validate()
    /// let report = await UnifiedDI.verifyRegistryHealth()
    /// ```
    ///
    /// - Returns: The report.
    public static func verifyRegistryHealth() async -> RegistrySyncReport {
        registryHealth()
    }

    static func registryHealth() -> RegistrySyncReport {
        let container = DIContainer.live
        let types = container.registry.registeredTypes
        let distinct = Set(types.map { ObjectIdentifier($0) }).count
        let optimized = UnifiedRegistry.shared.isOptimizationEnabled
        var report = RegistrySyncReport(
            optimizationStats: OptimizationSyncStats(
                isEnabled: optimized, optimizedTypes: optimized ? distinct : 0, nonOptimizedTypes: optimized ? 0 : distinct),
            factoryInconsistencies: [], totalRegistrations: types.count, totalTypes: distinct, healthScore: 0)
        guard let graph = LastValidation.graph(for: container) else { return report }
        let problems = LastValidation.problems(for: container)
        let validated = graph.nodes.filter { $0.scope != nil }.count
        report.isValidated = true
        report.validatedRegistrations = validated
        report.factoryInconsistencies = problems.map(\.description)
        let healthy = 1 - Double(problems.count) / Double(max(validated, 1))
        report.healthScore = (max(0, healthy) * 1000).rounded() / 10
        return report
    }

    /// Nothing is repaired automatically: both scores are
    /// ``verifyRegistryHealth()``'s, with a suggestion to turn optimization
    /// on when it is off.
    ///
    /// - Returns: The report.
    public static func autoFixRegistry() async -> RegistryFixReport {
        let score = registryHealth().healthScore
        return RegistryFixReport(
            originalHealthScore: score, finalHealthScore: score, fixedDuplicates: 0,
            suggestedOptimizationEnabled: !UnifiedRegistry.shared.isOptimizationEnabled)
    }

    /// ``verifyRegistryHealth()``'s score: 0 before any `validate()`.
    ///
    /// - Returns: The score.
    public static func getRegistryHealthScore() async -> Double {
        registryHealth().healthScore
    }
}

extension UnifiedDI {
    /// Drops every cached read (upstream's `clearCache()`): the next read of
    /// each type or key goes to the registry and is cached again. Answers do
    /// not change (the cache never answers differently from the registry);
    /// no registration, built instance or key default is dropped.
    /// Upstream's `cacheStats` is not provided: counting hits and misses
    /// would cost every read; `setAutoOptimization(true)` and `stats()`
    /// count resolves per type.
    ///
    /// ```swift
    /// UnifiedDI.clearCache()
    /// ```
    public static func clearCache() {
        SlotCache.dropAll()
    }
}
