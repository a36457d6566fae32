/// Upstream WeaveDI's `async` spellings. Registration and resolution here
/// are synchronous and never wait for each other, so each of these does its
/// work before it returns; the ones that only waited for upstream's
/// background registration (`waitForRegistration`,
/// `flushPendingRegistrations`) return at once.
extension UnifiedDI {
    /// Awaits `factory` once, now, and registers its instance under `type`.
    ///
    /// An async factory cannot be re-run by a synchronous `resolve`, so the
    /// instance is kept for every resolve whatever `scope` says; a scope
    /// other than `.singleton` is logged as a warning, never silently
    /// honoured halfway. Register a synchronous factory for `.transient`,
    /// `.weak` or `.task`.
    @discardableResult
    public static func registerAsync<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope = .singleton,
        factory: @escaping @Sendable () async -> T
    ) async -> T {
        if scope != .singleton {
            DILog.logger.warning(
                "registerAsync(\(typeName(type))): an async factory runs once; scope .\(scope) is kept as .singleton"
            )
        }
        let instance = await factory()
        DIContainer.live.register(type, instance: instance)
        return instance
    }

    /// Awaits `factory` once and keeps its instance for every resolve.
    @discardableResult
    public static func registerSingletonAsync<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () async -> T
    ) async -> T {
        await registerAsync(type, scope: .singleton, factory: factory)
    }

    public static func registerInstanceAsync<T: Sendable>(_ type: T.Type, instance: T) async {
        DIContainer.live.register(type, instance: instance)
    }

    public static func resolveAsync<T: Sendable>(
        _ type: T.Type,
        default defaultValue: @autoclosure @Sendable () async -> T
    ) async -> T {
        if let found = resolve(type) {
            return found
        }
        return await defaultValue()
    }

    /// As `requireResolve`: stops naming the type when it is missing.
    public static func requireResolveAsync<T: Sendable>(_ type: T.Type) async -> T {
        requireResolve(type)
    }

    public static func resolvePairAsync<A: Sendable, B: Sendable>(
        _ first: A.Type, _ second: B.Type
    ) async -> (A?, B?) {
        (resolve(first), resolve(second))
    }

    public static func resolveTripleAsync<A: Sendable, B: Sendable, C: Sendable>(
        _ first: A.Type, _ second: B.Type, _ third: C.Type
    ) async -> (A?, B?, C?) {
        (resolve(first), resolve(second), resolve(third))
    }

    public static func releaseAsync<T>(_ type: T.Type) async {
        release(type)
    }

    public static func releaseAllAsync() async {
        releaseAll()
    }

    /// The names of the types registered in the live container, sorted.
    /// (Upstream returns an empty list here.)
    public static func getRegisteredTypesAsync() async -> [String] {
        DIContainer.live.registeredTypeNames
    }

    /// Runs `registrations` against the live container. Each registration
    /// is visible as soon as it is made; the batch is not a transaction.
    public static func performBatchRegistration(_ registrations: @Sendable (DIContainer) -> Void) async {
        registrations(DIContainer.live)
    }

    public static func performBatchRegistration(_ registrations: @Sendable (DIContainer) async -> Void) async {
        await registrations(DIContainer.live)
    }

    /// Resolves each type once now, so lazy singletons are built at startup
    /// instead of on the first request. Missing types are skipped.
    public static func prewarm<T: Sendable>(_ types: [T.Type]) {
        for type in types {
            _ = resolve(type)
        }
    }

    /// Registration here is complete when `register` returns: nothing is
    /// pending, so this returns at once.
    public static func waitForRegistration() async {}

    /// Registration here is complete when `register` returns: nothing is
    /// pending, so this returns at once.
    public static func flushPendingRegistrations() async {}
}

extension DIContainer {
    /// The names of the types registered in this container and its parents,
    /// sorted.
    public var registeredTypeNames: [String] {
        registry.registeredTypes.map { typeName($0) }.sorted()
    }
}

/// Upstream's name for the registry object. Its methods are synchronous
/// here; upstream code that calls them with `await` still compiles.
public let GlobalUnifiedRegistry = UnifiedRegistry.shared

extension UnifiedRegistry {
    public nonisolated func resolveAsync<T: Sendable>(_ type: T.Type) async -> T? {
        UnifiedDI.resolve(type)
    }

    public nonisolated func isRegistered<T>(_ type: T.Type) -> Bool {
        DIContainer.live.isRegistered(type)
    }

    public nonisolated func registeredTypeCount() -> Int {
        DIContainer.live.registrationCount
    }

    public nonisolated func getAllRegisteredTypeNames() -> [String] {
        DIContainer.live.registeredTypeNames
    }

    public nonisolated func release<T>(_ type: T.Type) {
        UnifiedDI.release(type)
    }

    public nonisolated func releaseAll() {
        UnifiedDI.releaseAll()
    }
}
