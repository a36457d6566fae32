// Upstream WeaveDI's `async` spellings. Registration and resolution here
// are synchronous and never wait for each other, so each of these does its
// work before it returns; the ones that only waited for upstream's
// background registration (`waitForRegistration`,
// `flushPendingRegistrations`) return at once.
extension UnifiedDI {
    /// Awaits `factory` once, now, and registers its instance under `type`.
    ///
    /// An async factory cannot be re-run by a synchronous `resolve`, so the
    /// instance is kept for every resolve whatever `scope` says; a scope
    /// other than `.singleton` is logged as a warning, never silently
    /// honoured halfway. Register a synchronous factory for `.transient`,
    /// `.weak` or `.task`.
    ///
    /// ```swift
    /// let config = await UnifiedDI.registerAsync(Config.self) {
    ///     await Config.load()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - scope: Only `.singleton` is honoured; the default.
    ///   - factory: Awaited once, before this returns.
    /// - Returns: The instance registered.
    @discardableResult
    public static func registerAsync<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope = .singleton,
        factory: @escaping @Sendable () async -> T
    ) async -> T {
        if scope != .singleton {
            DILog.logger.warning(
                "registerAsync(\(qualifiedTypeName(type))): an async factory runs once; scope .\(scope) is kept as .singleton"
            )
        }
        let instance = await factory()
        DIContainer.live.register(type, instance: instance)
        return instance
    }

    /// Awaits `factory` once and keeps its instance for every resolve: as
    /// `registerAsync(_:scope:factory:)` with `.singleton`.
    ///
    /// ```swift
    /// await UnifiedDI.registerSingletonAsync(Database.self) {
    ///     await PostgresDatabase.connect()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Awaited once, before this returns.
    /// - Returns: The instance registered.
    @discardableResult
    public static func registerSingletonAsync<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () async -> T
    ) async -> T {
        await registerAsync(type, scope: .singleton, factory: factory)
    }

    /// Registers `instance` under `type` in the live container, as
    /// `WeaveDI.Container.live.register(_:instance:)` does.
    ///
    /// ```swift
    /// await UnifiedDI.registerInstanceAsync(Config.self, instance: config)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - instance: The value every resolve returns.
    public static func registerInstanceAsync<T: Sendable>(_ type: T.Type, instance: T) async {
        DIContainer.live.register(type, instance: instance)
    }

    /// The instance registered for `type`, as `resolveAsync(_:)` gives it
    /// (a lazy async registration is built), or `defaultValue` (awaited only
    /// when that gives nil, and not registered).
    ///
    /// ```swift
    /// let flags = await UnifiedDI.resolveAsync(FeatureFlags.self, default: await RemoteFlags.fetch())
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - defaultValue: The value to use on a miss.
    /// - Returns: The instance or the default.
    public static func resolveAsync<T: Sendable>(
        _ type: T.Type,
        default defaultValue: @autoclosure @Sendable () async -> T
    ) async -> T {
        if let found = await resolveAsync(type) {
            return found
        }
        return await defaultValue()
    }

    /// As `requireResolve(_:)`, awaiting as `resolveAsyncThrowing(_:)`
    /// does (a lazy async registration is built): the instance, or the
    /// program stops with a message naming the type when there is none.
    ///
    /// ```swift
    /// let database = await UnifiedDI.requireResolveAsync(Database.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance.
    public static func requireResolveAsync<T: Sendable>(_ type: T.Type) async -> T {
        do {
            return try await resolveAsyncThrowing(type)
        } catch let error as DIError {
            stopOnMissing(type, error)
        } catch {
            fatalError("requireResolveAsync(\(qualifiedTypeName(type))): \(error)")
        }
    }

    /// Resolves two types at once, each as `resolveAsync(_:)` does (a
    /// lazy async registration is built; the two build concurrently).
    ///
    /// ```swift
    /// let (users, orders) = await UnifiedDI.resolvePairAsync(UserService.self, OrderService.self)
    /// ```
    ///
    /// - Parameters:
    ///   - first: The first registered type.
    ///   - second: The second registered type.
    /// - Returns: Each instance, or nil for a miss.
    public static func resolvePairAsync<A: Sendable, B: Sendable>(
        _ first: A.Type, _ second: B.Type
    ) async -> (A?, B?) {
        async let a = resolveAsync(first)
        async let b = resolveAsync(second)
        return await (a, b)
    }

    /// Resolves three types at once, each as `resolveAsync(_:)` does (a
    /// lazy async registration is built; the three build concurrently).
    ///
    /// ```swift
    /// let (a, b, c) = await UnifiedDI.resolveTripleAsync(A.self, B.self, C.self)
    /// ```
    ///
    /// - Parameters:
    ///   - first: The first registered type.
    ///   - second: The second registered type.
    ///   - third: The third registered type.
    /// - Returns: Each instance, or nil for a miss.
    public static func resolveTripleAsync<A: Sendable, B: Sendable, C: Sendable>(
        _ first: A.Type, _ second: B.Type, _ third: C.Type
    ) async -> (A?, B?, C?) {
        async let a = resolveAsync(first)
        async let b = resolveAsync(second)
        async let c = resolveAsync(third)
        return await (a, b, c)
    }

    /// As `release(_:)`: removes the live container's registration of
    /// `type`.
    ///
    /// ```swift
    /// await UnifiedDI.releaseAsync(UserService.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    public static func releaseAsync<T>(_ type: T.Type) async {
        release(type)
    }

    /// As `releaseAll()`: drops every registration of the live container.
    ///
    /// ```swift
    /// await UnifiedDI.releaseAllAsync()
    /// ```
    public static func releaseAllAsync() async {
        releaseAll()
    }

    /// The names of the types registered in the live container and its
    /// parents, sorted. (Upstream returns an empty list here.)
    ///
    /// ```swift
    /// print(await UnifiedDI.getRegisteredTypesAsync())
    /// ```
    ///
    /// - Returns: The type names, as `String(describing:)` spells them.
    public static func getRegisteredTypesAsync() async -> [String] {
        DIContainer.live.registeredTypeNames
    }

    /// Runs `registrations` against the live container. Each registration
    /// is visible as soon as it is made; the batch is not a transaction.
    ///
    /// ```swift
    /// await UnifiedDI.performBatchRegistration { container in
    ///     container.register(UserService.self) { UserServiceImpl() }
    ///     container.register(OrderService.self) { OrderServiceImpl() }
    /// }
    /// ```
    ///
    /// - Parameter registrations: The registrations to make.
    public static func performBatchRegistration(_ registrations: @Sendable (DIContainer) -> Void) async {
        registrations(DIContainer.live)
    }

    /// The `async` closure form of the batch: `registrations` may await
    /// (load a configuration, open a connection) between registrations.
    /// Not a transaction either.
    ///
    /// ```swift
    /// await UnifiedDI.performBatchRegistration { container in
    ///     let config = await Config.load()
    ///     container.register(Config.self, instance: config)
    /// }
    /// ```
    ///
    /// - Parameter registrations: The registrations to make.
    public static func performBatchRegistration(_ registrations: @Sendable (DIContainer) async -> Void) async {
        await registrations(DIContainer.live)
    }

    /// Registration here is complete when `register` returns: nothing is
    /// pending, so this returns at once.
    ///
    /// ```swift
    /// await UnifiedDI.waitForRegistration()
    /// ```
    public static func waitForRegistration() async {}

    /// Registration here is complete when `register` returns: nothing is
    /// pending, so this returns at once.
    ///
    /// ```swift
    /// await UnifiedDI.flushPendingRegistrations()
    /// ```
    public static func flushPendingRegistrations() async {}
}

/// Upstream's name for the registry object: `UnifiedRegistry/shared`.
/// Its methods are synchronous here; upstream code that calls them with
/// `await` still compiles.
///
/// ```swift
/// let count = GlobalUnifiedRegistry.registeredTypeCount()
/// ```
public let GlobalUnifiedRegistry = UnifiedRegistry.shared

extension UnifiedRegistry {
    /// As `UnifiedDI.resolveAsync(_:)`: the live container's instance for
    /// `type` (a lazy async registration is built), or nil.
    ///
    /// ```swift
    /// let service = await GlobalUnifiedRegistry.resolveAsync(UserService.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance, or nil.
    public nonisolated func resolveAsync<T: Sendable>(_ type: T.Type) async -> T? {
        await UnifiedDI.resolveAsync(type)
    }

    /// Whether the live container (or a parent) registers `type`.
    ///
    /// - Parameter type: The type to look for.
    /// - Returns: `true` when a resolve would find a registration.
    public nonisolated func isRegistered<T>(_ type: T.Type) -> Bool {
        DIContainer.live.isRegistered(type)
    }

    /// The number of types the live container registers itself (not its
    /// parents).
    ///
    /// - Returns: `DIContainer/registrationCount` of the live container.
    public nonisolated func registeredTypeCount() -> Int {
        DIContainer.live.registrationCount
    }

    /// The live container's `DIContainer/registeredTypeNames`.
    ///
    /// - Returns: The registered type names, sorted.
    public nonisolated func getAllRegisteredTypeNames() -> [String] {
        DIContainer.live.registeredTypeNames
    }

    /// As `UnifiedDI.release(_:)`.
    ///
    /// - Parameter type: The registered type.
    public nonisolated func release<T>(_ type: T.Type) {
        UnifiedDI.release(type)
    }

    /// As `UnifiedDI.releaseAll()`.
    public nonisolated func releaseAll() {
        UnifiedDI.releaseAll()
    }
}
