/// The static front door to the live container (``DIContainer/live``, or the
/// current task's overlay inside `withContainerOverlay`).
///
/// ```swift
/// UnifiedDI.register(UserService.self) { UserServiceImpl() }
/// UnifiedDI.register(Database.self, scope: .singleton) { PostgresDatabase() }
///
/// let service = UnifiedDI.resolve(UserService.self)          // optional
/// let database = try UnifiedDI.resolveThrowing(Database.self) // throws DIError
/// ```
///
/// Every member is thread-safe and may be called from any task or thread.
public enum UnifiedDI {
    /// Eager registration: runs `factory` now, keeps the instance as the one
    /// every resolve of `type` returns, and returns it. Re-registering
    /// replaces the previous entry. The factory is kept for ``Factory``.
    ///
    /// ```swift
    /// let service = UnifiedDI.register(UserService.self) { UserServiceImpl() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under, usually a protocol.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult @inlinable
    public static func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
        DIContainer.live.register(type, factory: factory)
    }

    /// Lazy registration with an explicit lifetime: `factory` runs when the
    /// scope needs an instance (see ``ProvideScope``). Re-registering
    /// replaces the previous entry.
    ///
    /// ```swift
    /// UnifiedDI.register(Database.self, scope: .singleton) { PostgresDatabase() }
    /// UnifiedDI.register(RequestLog.self, scope: .task) { RequestLog() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed.
    @inlinable
    public static func register<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope,
        factory: @escaping @Sendable () -> T
    ) {
        DIContainer.live.register(type, scope: scope, factory: factory)
    }

    /// Lazy registration of a factory that can fail: when it throws,
    /// ``resolveThrowing(_:)`` throws ``DIError/factoryFailed(type:chain:error:)``
    /// and ``resolve(_:)-(T.Type)`` returns nil (logged). Not kept: the next resolve
    /// runs the factory again.
    ///
    /// ```swift
    /// UnifiedDI.register(Credentials.self, scope: .singleton) {
    ///     try Credentials(contentsOf: credentialsFile)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed, or throws.
    @inlinable
    public static func register<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope,
        factory: @escaping @Sendable () throws -> T
    ) {
        DIContainer.live.register(type, scope: scope, factory: factory)
    }

    /// Lazy registration of an async factory that can fail; nothing runs
    /// now. ``resolveAsyncThrowing(_:)`` or ``start(timeout:)`` builds it,
    /// once however many tasks ask; a synchronous resolve returns it once
    /// built. See <doc:AsyncServices>.
    ///
    /// ```swift
    /// UnifiedDI.register(ConnectionPool.self, scope: .singleton) {
    ///     try await ConnectionPool.connect(to: databaseURL)
    /// }
    /// try await UnifiedDI.start(timeout: .seconds(10))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed, or throws.
    @inlinable
    public static func register<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope,
        factory: @escaping @Sendable () async throws -> T
    ) {
        DIContainer.live.register(type, scope: scope, factory: factory)
    }

    /// The instance registered for `type`, or nil. Never crashes: a miss, a
    /// dependency cycle, and a `.task` registration resolved outside
    /// `withTaskScope` all give nil (``resolveThrowing(_:)`` says which); a
    /// cycle is also logged at error level with its chain.
    ///
    /// ```swift
    /// guard let service = UnifiedDI.resolve(UserService.self) else { return }
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance, or nil.
    @inlinable
    public static func resolve<T: Sendable>(_ type: T.Type) -> T? {
        // Not `try? resolveThrowing(type)`: unwrapping the optional and
        // wrapping it again costs an existential two more copies.
        do throws(DIError) {
            return try Resolver.resolveLive(type, notingMiss: true)
        } catch {
            DILog.failure(error)  // a cycle at error level: nil alone would hide it
            return nil
        }
    }

    /// The instance registered for `type`, or `defaultValue` when
    /// `resolve(_:)` would give nil. The default is evaluated only then,
    /// and is not registered.
    ///
    /// ```swift
    /// let analytics = UnifiedDI.resolve(Analytics.self, default: NoOpAnalytics())
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - defaultValue: The value to use on a miss.
    /// - Returns: The instance or the default.
    @inlinable
    public static func resolve<T: Sendable>(_ type: T.Type, default defaultValue: @autoclosure () -> T) -> T {
        resolve(type) ?? defaultValue()
    }

    /// The instance registered for `type`; stops the program when there is
    /// none, with a message naming the type, registered types whose names
    /// look close, and how to register it.
    ///
    /// For wiring that is a programming error when absent. `validate()`
    /// cannot report a miss reached this way, since it traps; servers should
    /// prefer ``resolveThrowing(_:)``.
    ///
    /// ```swift
    /// let database = UnifiedDI.requireResolve(Database.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance.
    @inlinable
    public static func requireResolve<T: Sendable>(_ type: T.Type) -> T {
        do throws(DIError) {
            return try resolveThrowing(type)
        } catch {
            stopOnMissing(type, error)
        }
    }

    /// Out of line, so that `requireResolve` can be inlined (and specialised)
    /// where it is called, as `resolve` is.
    @usableFromInline
    package static func stopOnMissing(_ type: Any.Type, _ error: DIError) -> Never {
        fatalError(MissingDependencyReport(type: type, error: error, container: .live).message)
    }

    /// The instance registered for `type`, or the reason there is none: the
    /// non-crashing form for servers.
    ///
    /// ```swift
    /// do {
    ///     let database = try UnifiedDI.resolveThrowing(Database.self)
    ///     try await database.migrate()
    /// } catch let error as DIError {
    ///     logger.error("\(error.description)")
    /// }
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance.
    /// - Throws: ``DIError/dependencyNotFound(type:)`` when nothing is
    ///   registered, ``DIError/circularDependency(chain:)`` with the chain of
    ///   types when building met a cycle, ``DIError/noActiveScope(type:)``
    ///   for a `.task` registration outside `withTaskScope`.
    @inlinable
    public static func resolveThrowing<T: Sendable>(_ type: T.Type) throws(DIError) -> T {
        guard let resolved = try Resolver.resolveLive(type) else {
            throw DIError.missing(type)
        }
        return resolved
    }

    /// As ``resolveAsyncThrowing(_:)``, with nil for any failure (logged):
    /// builds an async registration on first use, and returns any other
    /// registration's instance as ``resolve(_:)-(T.Type)`` does.
    ///
    /// ```swift
    /// let service = await UnifiedDI.resolveAsync(UserService.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance, or nil.
    public static func resolveAsync<T: Sendable>(_ type: T.Type) async -> T? {
        do {
            return try await resolveAsyncThrowing(type)
        } catch {
            DILog.asyncFailure(error)
            return nil
        }
    }

    /// The instance registered for `type`, building an async registration
    /// on first use: its factory runs once however many tasks await it at
    /// the same moment, and every one of them gets that instance. A
    /// synchronous registration is resolved as ``resolveThrowing(_:)`` does.
    ///
    /// Cancelling the awaiting task ends its wait only (it throws
    /// `CancellationError`); the build goes on for the others. No thread
    /// blocks while a build is in flight.
    ///
    /// ```swift
    /// let pool = try await UnifiedDI.resolveAsyncThrowing(ConnectionPool.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance.
    /// - Throws: ``DIError/factoryFailed(type:chain:error:)`` when the
    ///   factory (or one it depends on) threw, ``DIError/circularDependency(chain:)``
    ///   for a cycle (across awaits too), ``DIError/dependencyNotFound(type:)``,
    ///   ``DIError/noActiveScope(type:)``, or `CancellationError` when this
    ///   task was cancelled while waiting.
    @inlinable @inline(__always)
    public static func resolveAsyncThrowing<T: Sendable>(_ type: T.Type) async throws -> T {
        try await Resolver.resolveAsync(type, in: nil)
    }

    /// Removes the live container's registration of `type`; the instance
    /// it held is released once no reader can still see it. Nothing happens
    /// when `type` is not registered.
    ///
    /// ```swift
    /// UnifiedDI.release(UserService.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    public static func release<T>(_ type: T.Type) {
        DIContainer.live.release(type)
    }

    /// Drops every registration and cached instance of the live container
    /// (their deinit runs; no ``AsyncShutdown`` cleanup: use `shutdown()`
    /// for that). `withInjectedValues` overrides and ``InjectedKey``
    /// defaults are not touched.
    ///
    /// ```swift
    /// override func setUp() {
    ///     UnifiedDI.releaseAll()
    /// }
    /// ```
    public static func releaseAll() {
        DIContainer.live.releaseAll()
    }
}

/// Upstream's short name for ``UnifiedDI``.
///
/// ```swift
/// DI.register(Clock.self) { SystemClock() }
/// ```
public typealias DI = UnifiedDI

extension UnifiedDI {
    /// Resolves each type once now, so lazy singletons are built at startup
    /// instead of on the first request. Missing types are skipped.
    ///
    /// ```swift
    /// UnifiedDI.prewarm([Database.self])
    /// ```
    ///
    /// - Parameter types: The registered types to build.
    public static func prewarm<T: Sendable>(_ types: [T.Type]) {
        // Each element's own type: `[Dog.self, Cat.self]` may be inferred as
        // `[Animal.Type]`, and Animal is not what was registered.
        prewarm(types.map { $0 as any Sendable.Type })
    }

    /// Resolves each of several different types once now, so lazy
    /// singletons are built at startup instead of on the first request.
    /// Missing types are skipped.
    ///
    /// ```swift
    /// UnifiedDI.prewarm([Database.self, Cache.self, Mailer.self])
    /// ```
    ///
    /// - Parameter types: The registered types to build.
    public static func prewarm(_ types: [any Sendable.Type]) {
        for type in types {
            prewarmOne(type)
        }
    }

    private static func prewarmOne<T: Sendable>(_ type: T.Type) {
        _ = resolve(type)
    }
}
