import Logging

// Upstream 3.3's concurrency-first spellings, `DIAsync` and `DIActor`.
// Upstream kept a registry of its own behind each (an actor-held dictionary
// of factories); here both are views of the live container, so a
// registration made through either is what `UnifiedDI.resolve` and
// `@Injected` see, and the other way round.

/// Upstream 3.3's async registration and resolution namespace, over the
/// live container.
///
/// Registration by type is lazy and transient: the async factory runs on
/// every ``resolve(_:)``. Registration by key path awaits the factory now
/// and keeps its instance.
///
/// ```swift
/// await DIAsync.register(Clock.self) { await SystemClock.make() }
/// let clock = await DIAsync.resolve(Clock.self)
/// ```
public enum DIAsync {
    /// Registers `factory` as a transient async registration of `type`: it
    /// runs on every async resolve. A synchronous resolve of `type` gives
    /// nil, as it did upstream, since nothing is built ahead.
    ///
    /// ```swift
    /// await DIAsync.register(Clock.self) { await SystemClock.make() }
    /// ```
    public static func register<T>(
        _ type: T.Type,
        factory: @Sendable @escaping () async -> T
    ) async where T: Sendable {
        DIContainer.live.register(type, scope: .transient, factory: factory as @Sendable () async throws -> T)
    }

    /// Awaits `factory` now, registers its instance under `T` and returns
    /// it; every resolve, synchronous or async, gets that instance.
    ///
    /// ```swift
    /// let clock = await DIAsync.register(\.clock) { await SystemClock.make() }
    /// ```
    @discardableResult
    public static func register<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        factory: @Sendable @escaping () async -> T
    ) async -> T where T: Sendable {
        let instance = await factory()
        DIContainer.live.register(T.self, instance: instance)
        return instance
    }

    /// The registered instance of `T` if there is one, else the instance
    /// `factory` builds, registered under `T`.
    ///
    /// Concurrent calls for one type run `factory` once and all return its
    /// instance (upstream checked and created without a gate, so two
    /// callers could each build and register one).
    ///
    /// ```swift
    /// let cache = await DIAsync.getOrCreate(\.cache) { await ImageCache.load() }
    /// ```
    @discardableResult
    public static func getOrCreate<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        factory: @Sendable @escaping () async -> T
    ) async -> T where T: Sendable {
        let container = DIContainer.live
        return await GetOrCreateGate.shared.value(of: T.self, in: container) {
            if container.isRegistered(T.self), let existing = await container.resolveAsync(T.self) {
                return existing
            }
            let instance = await factory()
            container.register(T.self, instance: instance)
            return instance
        }
    }

    /// The instance registered for `type`, building an async registration,
    /// or nil (a failure is logged).
    ///
    /// ```swift
    /// let clock = await DIAsync.resolve(Clock.self)
    /// ```
    public static func resolve<T>(_ type: T.Type) async -> T? where T: Sendable {
        guard DIContainer.live.isRegistered(type) else { return nil }
        return await UnifiedDI.resolveAsync(type)
    }

    /// The instance registered for `type`, or `defaultValue()` (not
    /// registered) when ``resolve(_:)`` gives nil.
    ///
    /// ```swift
    /// let clock = await DIAsync.resolve(Clock.self, default: FixedClock())
    /// ```
    public static func resolve<T>(
        _ type: T.Type,
        default defaultValue: @autoclosure () -> T
    ) async -> T where T: Sendable {
        if let value = await resolve(type) { return value }
        return defaultValue()
    }

    /// The instance registered for `type`; stops the program with the
    /// same report as `UnifiedDI.requireResolve(_:)` when there is none.
    ///
    /// ```swift
    /// let clock = await DIAsync.requireResolve(Clock.self)
    /// ```
    public static func requireResolve<T>(_ type: T.Type) async -> T where T: Sendable {
        do {
            return try await UnifiedDI.resolveAsyncThrowing(type)
        } catch let error as DIError {
            UnifiedDI.stopOnMissing(type, error)
        } catch {
            fatalError("WeaveDI: resolving '\(String(reflecting: type))' failed: \(error)")
        }
    }

    /// Registers `factory` when `condition` holds, else `fallback`, as
    /// `register(_:factory:)` by type does. Only the chosen closure is kept.
    ///
    /// ```swift
    /// await DIAsync.registerIf(Analytics.self, condition: isProduction,
    ///                          factory: { LiveAnalytics() }, fallback: { NoOpAnalytics() })
    /// ```
    public static func registerIf<T>(
        _ type: T.Type,
        condition: Bool,
        factory: @Sendable @escaping () async -> T,
        fallback: @Sendable @escaping () async -> T
    ) async where T: Sendable {
        await register(type, factory: condition ? factory : fallback)
    }

    /// Awaits `factory` when `condition` holds, else `fallback`, registers
    /// the instance under `T` and returns it. The other closure never runs.
    ///
    /// ```swift
    /// let analytics = await DIAsync.registerIf(\.analytics, condition: isProduction,
    ///                                          factory: { LiveAnalytics() }, fallback: { NoOpAnalytics() })
    /// ```
    @discardableResult
    public static func registerIf<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        condition: Bool,
        factory: @Sendable @escaping () async -> T,
        fallback: @Sendable @escaping () async -> T
    ) async -> T where T: Sendable {
        await register(keyPath, factory: condition ? factory : fallback)
    }

    /// Makes each registration, in the order written, so of two for one
    /// type the later one wins (upstream ran them concurrently, so which
    /// won varied from run to run). Each is lazy, so order costs nothing.
    ///
    /// ```swift
    /// await DIAsync.registerMany {
    ///     DIAsyncRegistration(Clock.self) { SystemClock() }
    ///     DIAsyncRegistration(\.cache) { await ImageCache.load() }
    /// }
    /// ```
    public static func registerMany(
        @DIAsyncRegistrationBuilder _ registrations: () -> [DIAsyncRegistration]
    ) async {
        for registration in registrations() {
            await registration.register()
        }
    }

    /// Whether `type` has a registration in the live container. Builds
    /// nothing (upstream resolved it to find out).
    public static func isRegistered<T>(_ type: T.Type) async -> Bool where T: Sendable {
        DIContainer.live.isRegistered(type)
    }

    /// Whether the type a container property names has a registration.
    public static func isRegistered<T>(_ keyPath: KeyPath<DIContainer, T?>) async -> Bool where T: Sendable {
        DIContainer.live.isRegistered(T.self)
    }

    /// Releases every registration of the live container, for tests.
    /// Upstream cleared only its own async store; here there is one store.
    public static func releaseAll() async {
        DIContainer.live.releaseAll()
    }
}

/// Collects ``DIAsyncRegistration``s for ``DIAsync/registerMany(_:)``.
@resultBuilder
public struct DIAsyncRegistrationBuilder {
    /// The registrations, in order.
    public static func buildBlock(_ components: DIAsyncRegistration...) -> [DIAsyncRegistration] {
        components
    }
}

/// One lazy, transient async registration for ``DIAsync/registerMany(_:)``.
public struct DIAsyncRegistration: Sendable {
    private let action: @Sendable () async -> Void

    /// Registers `factory` for `type`, as `DIAsync.register(_:factory:)` by type.
    public init<T>(_ type: T.Type, factory: @Sendable @escaping () async -> T) where T: Sendable {
        action = { await DIAsync.register(type, factory: factory) }
    }

    /// Registers `factory` for the type a container property names. Lazy
    /// and transient like the type form, as upstream's was; the key path
    /// itself is not kept, since key paths are not `Sendable`.
    public init<T>(_ keyPath: KeyPath<DIContainer, T?>, factory: @Sendable @escaping () async -> T) where T: Sendable {
        action = { await DIAsync.register(T.self, factory: factory) }
    }

    func register() async { await action() }
}

/// Runs one `getOrCreate` build per type at a time: a caller arriving while
/// a build of its type is in flight awaits that build instead of starting
/// another. Builds of different types run concurrently.
/// The `getOrCreate` builds in flight, one per container and type: a task
/// in an overlay never waits for, nor receives, the root's or another
/// overlay's instance. Holds only builds in flight; what they make is
/// registered in the container.
private actor GetOrCreateGate {
    static let shared = GetOrCreateGate()

    private struct Key: Hashable {
        let container: ObjectIdentifier
        let type: ObjectIdentifier
    }

    private var inFlight: [Key: Task<any Sendable, Never>] = [:]

    func value<T: Sendable>(
        of type: T.Type, in container: DIContainer, make: @escaping @Sendable () async -> T
    ) async -> T {
        let key = Key(container: ObjectIdentifier(container), type: ObjectIdentifier(type))
        // Keyed by T, so the task's value is a T; the cast cannot fail.
        if let running = inFlight[key], let value = await running.value as? T {
            return value
        }
        let task = Task<any Sendable, Never> { await make() }
        inFlight[key] = task
        let value = await task.value
        inFlight[key] = nil
        return value as! T
    }
}

/// Upstream 3.3's actor front door to the container, usable as a global
/// actor (`@DIActor`).
///
/// It holds no registrations of its own: each call registers in, resolves
/// from, or releases from the live container, so counts and names cover
/// every registration there.
///
/// ```swift
/// let release = await DIActor.shared.register(Clock.self) { SystemClock() }
/// let clock = await DIActor.shared.resolve(Clock.self)
/// await release()
/// ```
@globalActor
public actor DIActor {
    /// The actor behind `@DIActor` and the static APIs.
    public static let shared = DIActor()

    private init() {}

    /// Registers `factory` as a transient registration (a new instance per
    /// resolve) and returns a closure that releases `type`'s registration.
    ///
    /// Upstream accepted a non-`Sendable` `T`, which its `resolve` (needing
    /// `Sendable`) could never return; here `T` must be `Sendable`.
    @discardableResult
    public func register<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) -> @Sendable () async -> Void {
        DIContainer.live.register(type, scope: .transient, factory: factory)
        return { DIContainer.live.release(type) }
    }

    /// Registers `instance`: every resolve of `type` returns it.
    public func register<T>(_ type: T.Type, instance: T) where T: Sendable {
        DIContainer.live.register(type, instance: instance)
    }

    /// Registers `factory` as a singleton: it runs on the first resolve,
    /// once however many tasks ask, and returns a closure that releases
    /// `type`'s registration (and so the instance).
    @discardableResult
    public func registerSharedActor<T>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) -> @Sendable () async -> Void where T: Sendable {
        DIContainer.live.register(type, scope: .singleton, factory: factory)
        return { DIContainer.live.release(type) }
    }

    /// The instance registered for `type`, building an async registration,
    /// or nil (a failure is logged; a cycle gives nil as upstream's did).
    ///
    /// Calls ``OptimizationHooks/beginResolution`` first (an error it throws
    /// is logged and gives nil, as upstream's actor did) and
    /// ``OptimizationHooks/endResolution`` after.
    public func resolve<T>(_ type: T.Type) async -> T? where T: Sendable {
        do {
            try await Self.beginResolution(type)
        } catch {
            DILog.logger.error("WeaveDI: resolving '\(qualifiedTypeName(type))' stopped by beginResolution: \(error)")
            return nil
        }
        let value = await DIAsync.resolve(type)
        await Self.endResolution(type)
        return value
    }

    private static func beginResolution(_ type: Any.Type) async throws {
        if let begin = OptimizationHooks.beginResolution {
            try await begin(type)
        }
    }

    private static func endResolution(_ type: Any.Type) async {
        if let end = OptimizationHooks.endResolution {
            await end(type)
        }
    }

    /// The instance, or the `DIError` saying why there is none (a miss,
    /// a cycle, a factory's failure). If this task is cancelled while an
    /// async build is awaited, the result is what a synchronous resolve
    /// gives.
    ///
    /// Calls the resolution hooks as ``resolve(_:)`` does; an error
    /// ``OptimizationHooks/beginResolution`` throws is the failure when it is
    /// a `DIError`, else `DIError/circularDependency(chain:)` naming the
    /// type (the hook's purpose upstream: a cycle detector).
    public func resolveResult<T>(_ type: T.Type) async -> Result<T, DIError> where T: Sendable {
        do {
            try await Self.beginResolution(type)
        } catch {
            return .failure(error as? DIError ?? .circularDependency(chain: typeName(type)))
        }
        let result = await resolvedResult(type)
        await Self.endResolution(type)
        return result
    }

    private func resolvedResult<T>(_ type: T.Type) async -> Result<T, DIError> where T: Sendable {
        do {
            return .success(try await UnifiedDI.resolveAsyncThrowing(type))
        } catch let error as DIError {
            return .failure(error)
        } catch {
            return Result { () throws(DIError) -> T in try UnifiedDI.resolveThrowing(type) }
        }
    }

    /// The instance, or throws: a `DIError` (a miss is
    /// `DIError/dependencyNotFound(type:)`), or `CancellationError` when
    /// this task was cancelled while waiting for an async build.
    /// Calls the resolution hooks as ``resolve(_:)`` does; an error
    /// ``OptimizationHooks/beginResolution`` throws is thrown.
    public func resolveThrows<T>(_ type: T.Type) async throws -> T where T: Sendable {
        try await Self.beginResolution(type)
        do {
            let value = try await UnifiedDI.resolveAsyncThrowing(type)
            await Self.endResolution(type)
            return value
        } catch {
            await Self.endResolution(type)
            throw error
        }
    }

    /// Releases the live container's registration of `type`.
    public func release<T>(_ type: T.Type) {
        DIContainer.live.release(type)
    }

    /// Releases every registration of the live container (upstream cleared
    /// only what `DIActor` registered; here there is one store).
    public func releaseAll() {
        DIContainer.live.releaseAll()
    }

    /// The number of types registered in the live container.
    public var registeredCount: Int {
        DIContainer.live.registrationCount
    }

    /// The registered type names, sorted.
    public var registeredTypeNames: [String] {
        DIContainer.live.registeredTypeNames
    }

    /// Logs the registration count and each registered type at `.info`.
    public func printRegistrationStatus() {
        let names = registeredTypeNames
        DILog.logger.info("DIActor: \(names.count) registrations")
        for (index, name) in names.enumerated() {
            DILog.logger.info("  [\(index + 1)] \(name)")
        }
    }
}

/// Upstream's static spelling of ``DIActor``'s calls.
public enum DIActorGlobalAPI {
    /// As ``DIActor/register(_:factory:)``.
    @discardableResult
    public static func register<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) async -> @Sendable () async -> Void {
        await DIActor.shared.register(type, factory: factory)
    }

    /// As ``DIActor/resolve(_:)``.
    public static func resolve<T>(_ type: T.Type) async -> T? where T: Sendable {
        await DIActor.shared.resolve(type)
    }

    /// As ``DIActor/resolveResult(_:)``.
    public static func resolveResult<T>(_ type: T.Type) async -> Result<T, DIError> where T: Sendable {
        await DIActor.shared.resolveResult(type)
    }

    /// As ``DIActor/resolveThrows(_:)``.
    public static func resolveThrows<T>(_ type: T.Type) async throws -> T where T: Sendable {
        try await DIActor.shared.resolveThrows(type)
    }

    /// As ``DIActor/release(_:)``.
    public static func release<T>(_ type: T.Type) async {
        await DIActor.shared.release(type)
    }

    /// As `DIActor/releaseAll()`.
    public static func releaseAll() async {
        await DIActor.shared.releaseAll()
    }
}

/// Upstream's bridge from synchronous `DI` calls to ``DIActor``. The
/// container is thread-safe, so the synchronous forms work directly.
public enum DIActorBridge {
    /// Nothing to migrate: ``DIActor`` and `DI` share the live container.
    public static func migrateToActor() async {}

    /// Registers `factory` as a transient registration, visible when this
    /// returns (upstream registered from a detached task, so an immediate
    /// resolve could miss it).
    @MainActor
    public static func registerSync<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) {
        DIContainer.live.register(type, scope: .transient, factory: factory)
    }

    /// The instance registered for `type`, or nil (upstream stopped the
    /// program here; a synchronous resolve is safe on any thread).
    @MainActor
    public static func resolveSync<T>(_ type: T.Type) -> T? where T: Sendable {
        UnifiedDI.resolve(type)
    }
}
