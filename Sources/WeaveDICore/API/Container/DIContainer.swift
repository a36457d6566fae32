import CWeaveRegistry

#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// A set of registrations, each keyed by the type it provides.
///
/// ``live`` is the container that ``UnifiedDI``, `@Inject`, ``Injected``
/// and ``Factory`` read; other containers are read only through their own
/// methods. A child container resolves its own entries first, then its
/// parent's.
///
/// ```swift
/// let container = WeaveDI.Container()
/// container.register(UserRepository.self, scope: .singleton) { SQLUserRepository() }
/// container.register(UserService.self) {
///     UserServiceImpl(repository: container.resolve(UserRepository.self)!)
/// }
/// let service = container.resolve(UserService.self)
/// ```
///
/// Thread-safe: registration, release and resolution may run concurrently
/// from any thread or task. Resolution takes no lock; a write (register,
/// release) replaces the entry atomically and releases the old one once no
/// reader can still see it.
public final class DIContainer: @unchecked Sendable {
    @usableFromInline package let registry: Registry
    /// The container this one falls back to on a miss, if any.
    public let parent: DIContainer?

    /// An empty container with no parent.
    ///
    /// ```swift
    /// let container = WeaveDI.Container()
    /// ```
    public init() {
        self.parent = nil
        self.registry = Registry(parent: nil)
        NearMiss.installOnce()
    }

    /// An empty container that falls back to `parent` for anything it does
    /// not register itself. The parent is kept alive by the child.
    ///
    /// ```swift
    /// let request = WeaveDI.Container(parent: .live)
    /// request.register(RequestID.self, instance: RequestID())
    /// ```
    ///
    /// - Parameter parent: The container to read on a miss.
    public init(parent: DIContainer) {
        self.parent = parent
        self.registry = Registry(parent: parent.registry)
    }

    /// A new, empty child of this container: as `DIContainer(parent: self)`.
    ///
    /// ```swift
    /// let feature = WeaveDI.Container.live.createChild()
    /// feature.register(FeatureFlags.self) { TestFlags() }
    /// ```
    ///
    /// - Returns: The child container.
    public func createChild() -> DIContainer {
        DIContainer(parent: self)
    }

    /// Eager registration: runs `factory` now and keeps its result as the
    /// instance every resolve of `type` returns (a singleton in effect).
    ///
    /// The factory is kept too, so ``Factory`` can build fresh instances
    /// from it. Replaces any earlier registration of `type` in this
    /// container; the replaced entry's instance is released once no reader
    /// can still see it.
    ///
    /// ```swift
    /// let clock = container.register(Clock.self) { SystemClock() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under, usually a protocol.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult @inlinable
    public func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
        let instance = factory()
        storeRegistration(PrebuiltEntry(instance, factory: factory), key: typeKey(type), scope: nil)
        return instance
    }

    /// Registers an instance built elsewhere: every resolve of `type`
    /// returns it. Replaces any earlier registration of `type` here.
    /// ``Factory`` returns this same instance, having no factory to run.
    ///
    /// ```swift
    /// container.register(Config.self, instance: Config(environment: .staging))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - instance: The value to return.
    @inlinable
    public func register<T: Sendable>(_ type: T.Type, instance: T) {
        storeRegistration(PrebuiltEntry(instance, factory: nil), key: typeKey(type), scope: nil)
    }

    /// Lazy registration with a lifetime: `factory` runs on the first resolve
    /// (``ProvideScope/singleton``, ``ProvideScope/weak``, and once per
    /// `withTaskScope` for ``ProvideScope/task``) or on every resolve
    /// (``ProvideScope/transient``).
    ///
    /// Concurrent first resolves of a singleton build it once; the others
    /// wait for that one. The factory runs with no lock held and may resolve
    /// other dependencies; a factory that needs itself, directly or through
    /// others, is a cycle, which resolution reports instead of recursing.
    /// Replaces any earlier registration of `type` here.
    ///
    /// ```swift
    /// container.register(Database.self, scope: .singleton) { PostgresDatabase() }
    /// container.register(RequestLog.self, scope: .task) { RequestLog() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed.
    @inlinable
    public func register<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope,
        factory: @escaping @Sendable () -> T
    ) {
        storeRegistration(LazyEntry(scope: scope, factory: factory), key: typeKey(type), scope: scope)
    }

    /// Lazy registration of a factory that can fail: as the
    /// synchronous form, and when `factory` throws, ``resolveThrowing(_:)``
    /// throws ``DIError/factoryFailed(type:chain:error:)`` (carrying the
    /// error and the resolution chain) while ``resolve(_:)`` returns nil and
    /// the failure is logged. A failure is not kept: the next resolve runs
    /// the factory again.
    ///
    /// ```swift
    /// container.register(Credentials.self, scope: .singleton) {
    ///     try Credentials(contentsOf: credentialsFile)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed, or throws.
    @inlinable
    public func register<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope,
        factory: @escaping @Sendable () throws -> T
    ) {
        storeRegistration(LazyEntry(scope: scope, factory: factory), key: typeKey(type), scope: scope)
    }

    /// Lazy registration of an async factory that can fail. Nothing runs
    /// now: the first ``resolveAsyncThrowing(_:)`` (or ``start(timeout:)``)
    /// builds the instance, once however many tasks ask at the same time
    /// (`.singleton`, `.weak`, and once per `withTaskScope` for `.task`), or
    /// on every async resolve (`.transient`).
    ///
    /// A synchronous resolve returns the instance once it is built and nil
    /// before (``resolveThrowing(_:)`` then throws
    /// ``DIError/asyncRegistration(type:)``). A failed build is thrown to
    /// every task awaiting it, wrapped in
    /// ``DIError/factoryFailed(type:chain:error:)``, and not kept: the next
    /// resolve tries again. See <doc:AsyncServices>.
    ///
    /// ```swift
    /// container.register(ConnectionPool.self, scope: .singleton) {
    ///     try await ConnectionPool.connect(to: databaseURL)
    /// }
    /// let pool = try await container.resolveAsyncThrowing(ConnectionPool.self)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed, or throws.
    @inlinable
    public func register<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope,
        factory: @escaping @Sendable () async throws -> T
    ) {
        storeRegistration(LazyEntry(scope: scope, asyncFactory: factory), key: typeKey(type), scope: scope)
    }

    /// The instance registered for `type` here or in a parent, built
    /// according to its scope.
    ///
    /// Never crashes and never throws: a miss, a dependency cycle met while
    /// building, and a ``ProvideScope/task`` registration resolved outside
    /// `withTaskScope` all return nil; a cycle is also logged at error level
    /// with its chain. Use ``resolveThrowing(_:)`` to learn which.
    ///
    /// ```swift
    /// if let service = container.resolve(UserService.self) {
    ///     service.refresh()
    /// }
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance, or nil.
    @inlinable
    public func resolve<T: Sendable>(_ type: T.Type) -> T? {
        do throws(DIError) {
            if let resolved = try Resolver.resolve(type, in: registry) {
                return resolved
            }
        } catch {
            DILog.failure(error)  // a cycle at error level: nil alone would hide it
            return nil
        }
        BuildRecording.noteMissing(type)
        return nil
    }

    /// The instance registered for `type` here or in a parent, or the reason
    /// there is none. Errors are logged (cycles at `.error`, the rest at
    /// `.debug`).
    ///
    /// ```swift
    /// do {
    ///     let service = try container.resolveThrowing(UserService.self)
    ///     service.refresh()
    /// } catch {
    ///     print(error.description)
    /// }
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance.
    /// - Throws: ``DIError/dependencyNotFound(type:)`` when nothing is
    ///   registered, ``DIError/circularDependency(chain:)`` when building it
    ///   met a cycle, ``DIError/noActiveScope(type:)`` for a `.task`
    ///   registration outside `withTaskScope`.
    public func resolveThrowing<T: Sendable>(_ type: T.Type) throws(DIError) -> T {
        do throws(DIError) {
            guard let resolved = try Resolver.resolve(type, in: registry) else {
                throw DIError.missing(type)
            }
            return resolved
        } catch {
            DILog.failure(error)
            throw error
        }
    }

    /// The instance registered for `type` here or in a parent, building an
    /// async registration on first use (once, however many tasks await it).
    /// As `UnifiedDI.resolveAsyncThrowing(_:)`, for this container.
    ///
    /// ```swift
    /// let pool = try await container.resolveAsyncThrowing(ConnectionPool.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance.
    /// - Throws: A ``DIError`` (the factory's failure with its chain, a
    ///   cycle, a miss), or `CancellationError` when this task was cancelled
    ///   while waiting; the build goes on for other waiters.
    @inlinable @inline(__always)
    public func resolveAsyncThrowing<T: Sendable>(_ type: T.Type) async throws -> T {
        try await Resolver.resolveAsync(type, in: registry)
    }

    /// As ``resolveAsyncThrowing(_:)``, with nil for any failure (logged).
    ///
    /// ```swift
    /// let pool = await container.resolveAsync(ConnectionPool.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The instance, or nil.
    public func resolveAsync<T: Sendable>(_ type: T.Type) async -> T? {
        do {
            return try await resolveAsyncThrowing(type)
        } catch {
            DILog.asyncFailure(error)
            return nil
        }
    }

    /// Removes this container's registration of `type` (a parent's stays
    /// visible). The instance it held is released once no reader can still
    /// see it; cached `@Injected` reads of it are dropped too. Nothing
    /// happens when `type` is not registered here.
    ///
    /// ```swift
    /// container.release(UserService.self)
    /// ```
    ///
    /// - Parameter type: The registered type.
    public func release<T>(_ type: T.Type) {
        registry.remove(typeKey(type))
    }

    /// Removes every registration of this container (not its parents'),
    /// releasing the instances they held. No ``AsyncShutdown`` cleanup runs:
    /// use ``shutdown()`` for that.
    ///
    /// ```swift
    /// container.releaseAll()
    /// ```
    public func releaseAll() {
        registry.removeAll()
    }

    /// A registration made in the caller's module (the `register`
    /// overloads are inlinable, so an entry's factory is specialised for
    /// the registered type), logged with its scope (nil: eager).
    @usableFromInline
    package func storeRegistration(_ entry: AnyRegistryEntry, key: TypeKey, scope: ProvideScope?) {
        store(entry, key: key)
        DILog.registered(entry.type, scope: scope)
    }

    /// Every registration goes through here. The first one makes the
    /// container known to the near-miss search, which names registrations a
    /// resolve cannot reach (in a child or a sibling of the container
    /// asked): its registry joins `NotedRegistries`, one shard's lock and no
    /// weak reference; the others pay one load.
    private func store(_ entry: AnyRegistryEntry, key: TypeKey) {
        registry.set(entry, forKey: key)
        registry.noteOnce()
    }

    /// Drops this container's registrations and takes `other`'s own
    /// (sharing their entries, so a singleton built in one is the other's).
    func replaceContents(with other: DIContainer) {
        guard other !== self else { return }
        registry.removeAll()
        for (key, entry) in other.registry.keyedEntries {
            registry.set(entry, forKey: key)
        }
    }

    /// Whether `type` has a registration here or in a parent. Builds nothing.
    ///
    /// ```swift
    /// if !container.isRegistered(Analytics.self) {
    ///     container.register(Analytics.self) { NoOpAnalytics() }
    /// }
    /// ```
    ///
    /// - Parameter type: The type to look for.
    /// - Returns: `true` when a resolve of `type` would find a registration.
    public func isRegistered<T>(_ type: T.Type) -> Bool {
        Resolver.entry(type, in: registry) != nil
    }

    /// The number of types registered in this container (not its parents).
    public var registrationCount: Int { registry.count }
}

extension DIContainer {
    /// The names of the types registered in this container and its parents,
    /// sorted, as `String(describing:)` spells them; for diagnostics.
    ///
    /// ```swift
    /// print(WeaveDI.Container.live.registeredTypeNames)
    /// ```
    public var registeredTypeNames: [String] {
        registry.registeredTypes.map { typeName($0) }.sorted()
    }
}

extension DIContainer {
    /// The registrations a resolve from this container can reach: its own,
    /// then each parent's, a key once (the nearest registration wins, as in
    /// a resolve). For validation, start and diagnostics.
    package var reachableEntries: [(key: TypeKey, entry: AnyRegistryEntry)] {
        var seen = Set<TypeKey>()
        var entries: [(key: TypeKey, entry: AnyRegistryEntry)] = []
        var container: DIContainer? = self
        while let current = container {
            for item in current.registry.keyedEntries where seen.insert(item.key).inserted {
                entries.append(item)
            }
            container = current.parent
        }
        return entries
    }
}
