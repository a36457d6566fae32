/// Upstream 3.3's `DIAdvanced` namespace and the `UnifiedDI` tuning calls
/// that came with its background optimizer. Reads here are lock-free from
/// the start, so the tuning calls have nothing to tune; each says so.
public enum DIAdvanced {
    /// Tracked reads and optimizer switches.
    public enum Performance {
        /// Resolves `type` from the live container; counted in
        /// `UnifiedDI/stats()` while `UnifiedDI/setAutoOptimization(_:)` is on,
        /// like every resolve.
        public static func resolveWithTracking<T: Sendable>(_ type: T.Type) -> T? {
            UnifiedDI.resolve(type)
        }

        /// Does nothing: every registered type is already read lock-free.
        @MainActor
        public static func markAsFrequentlyUsed<T>(_ type: T.Type) {}

        /// Turns on lock-free reads (`UnifiedRegistry/enableOptimization()`).
        @MainActor
        public static func enableOptimization() {
            UnifiedRegistry.shared.enableOptimization()
        }

        /// Resolve counts per type (`UnifiedDI/stats()`).
        @MainActor
        public static func getStats() async -> [String: Int] {
            UnifiedDI.stats()
        }
    }

    /// Several registrations in one declaration.
    public enum Batch {
        /// Makes each registration, in order, in the live container.
        ///
        /// ```swift
        /// DIAdvanced.Batch.registerMany {
        ///     BatchRegistration(Clock.self) { SystemClock() }
        ///     BatchRegistration(Config.self, default: Config())
        /// }
        /// ```
        public static func registerMany(@BatchRegistrationBuilder _ registrations: () -> [BatchRegistration]) {
            for registration in registrations() {
                registration.register()
            }
        }
    }
}

/// Collects ``BatchRegistration``s for ``DIAdvanced/Batch/registerMany(_:)``.
@resultBuilder
public struct BatchRegistrationBuilder {
    /// The registrations, in order.
    public static func buildBlock(_ components: BatchRegistration...) -> [BatchRegistration] {
        components
    }

    /// A loop's registrations.
    public static func buildArray(_ components: [BatchRegistration]) -> [BatchRegistration] {
        components
    }

    /// An `if` without `else`.
    public static func buildOptional(_ component: BatchRegistration?) -> [BatchRegistration] {
        component.map { [$0] } ?? []
    }

    /// The `if` branch.
    public static func buildEither(first component: BatchRegistration) -> [BatchRegistration] {
        [component]
    }

    /// The `else` branch.
    public static func buildEither(second component: BatchRegistration) -> [BatchRegistration] {
        [component]
    }
}

/// One registration for ``DIAdvanced/Batch/registerMany(_:)``.
public struct BatchRegistration {
    private let action: () -> Void

    /// Registers `factory`'s instance, built when the batch runs.
    public init<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) {
        action = { UnifiedDI.register(type, factory: factory) }
    }

    /// Registers `defaultValue`.
    public init<T: Sendable>(_ type: T.Type, default defaultValue: T) {
        action = { DIContainer.live.register(type, instance: defaultValue) }
    }

    /// Registers `factory`'s instance when `condition`, else `fallback`'s;
    /// only the chosen closure runs.
    public init<T: Sendable>(
        _ type: T.Type,
        condition: Bool,
        factory: @escaping @Sendable () -> T,
        fallback: @escaping @Sendable () -> T
    ) {
        action = { UnifiedDI.register(type, factory: condition ? factory : fallback) }
    }

    func register() { action() }
}

extension UnifiedDI {
    /// Does nothing: upstream tuned a background optimizer, and reads here
    /// are lock-free without one.
    public static func configureOptimization(debounceMs: Int = 100, threshold: Int = 10, realTimeUpdate: Bool = true) {}

    /// Does nothing: there is no background optimizer to log. WeaveDI's own
    /// level is ``setLogLevel(_:)``'s.
    public static func setAutoOptimizerLogLevel(_ level: LogLevel) {}

    /// The same as `UnifiedDI.resolve(type)`.
    public static func staticResolve<T: Sendable>(_ type: T.Type) -> T? {
        resolve(type)
    }

    /// Awaits each factory, concurrently, then registers each instance in
    /// the live container in the order given, so that of two registrations
    /// of one type the later one wins, however long each factory took.
    ///
    /// ```swift
    /// await UnifiedDI.registerBulkAsync([
    ///     (Config.self, { @Sendable () async in await Config.load(.primary) }),
    ///     (Config.self, { @Sendable () async in await Config.load(.override) }),
    /// ])
    /// ```
    public static func registerBulkAsync<T: Sendable>(_ registrations: [(T.Type, @Sendable () async -> T)]) async {
        let container = DIContainer.live
        let instances = await withTaskGroup(of: (Int, T).self) { group in
            for (index, registration) in registrations.enumerated() {
                let factory = registration.1
                group.addTask { (index, await factory()) }
            }
            var instances = [T?](repeating: nil, count: registrations.count)
            for await (index, instance) in group {
                instances[index] = instance
            }
            return instances
        }
        for (index, registration) in registrations.enumerated() {
            if let instance = instances[index] {
                container.register(registration.0, instance: instance)
            }
        }
    }

    /// The live container's registration count, and how many of its
    /// singletons hold a built instance now.
    public static func getMemoryUsageAsync() async -> (registeredCount: Int, singletonCount: Int) {
        let entries = DIContainer.live.registry.entries
        let singletons = entries.filter { $0.scope == .singleton && $0.heldInstance != nil }.count
        return (registeredCount: entries.count, singletonCount: singletons)
    }

    /// Releases every registration of the live container (`releaseAll()`).
    public static func clearAsync() async {
        releaseAll()
    }

    /// Logs the registry's health report (``verifyRegistryHealth()``) at
    /// `.info` level.
    public static func printRegistryStatus() async {
        let report = await verifyRegistryHealth()
        DILog.logger.info("registry status: \(report)")
    }

    /// Logs the live container's registered types at `.info` level.
    public static func printAsyncContainerStatus() async {
        let names = DIContainer.live.registeredTypeNames
        DILog.logger.info("live container: \(names.count) registrations: \(names.joined(separator: ", "))")
    }
}
