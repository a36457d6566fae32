/// Upstream 3.3's named scopes: an instance per screen, session or request
/// id, chosen by the id set in ``ScopeContext`` when the type is resolved.
///
/// ```swift
/// DIAdvanced.Scope.registerScoped(Cart.self, scope: .session) { Cart() }
/// ScopeContext.shared.setCurrent(.session, id: user.id)
/// let cart = UnifiedDI.resolve(Cart.self)        // one Cart per session id
/// await DIAdvanced.Scope.releaseScope(.session, id: user.id)
/// ```
///
/// The current ids are process-wide, as upstream's were: two requests
/// served at once share them. For a server's per-request instances use
/// `ProvideScope/task` with `withTaskScope`, which is task-local.
public enum ScopeKind: String, Hashable, Sendable {
    /// One instance for the process.
    case singleton
    /// One instance per screen id.
    case screen
    /// One instance per session id.
    case session
    /// One instance per request id.
    case request
}

/// A scope kind and one of its ids.
public struct ScopeID: Hashable, Sendable {
    /// The kind.
    public let kind: ScopeKind
    /// The id within the kind.
    public let id: String

    /// The scope `id` of `kind`.
    public init(kind: ScopeKind, id: String) {
        self.kind = kind
        self.id = id
    }
}

/// The current id of each ``ScopeKind``, read when a scoped type is
/// resolved.
public final class ScopeContext: Sendable {
    /// The process-wide context.
    public static let shared = ScopeContext()

    private let current = Locked<[ScopeKind: String]>([:])

    private init() {}

    /// Makes `id` the current id of `kind`.
    public func setCurrent(_ kind: ScopeKind, id: String) {
        current.withLock { $0[kind] = id }
    }

    /// Leaves `kind` without a current id: its types then build a new
    /// instance per resolve.
    public func clear(_ kind: ScopeKind) {
        current.withLock { $0[kind] = nil }
    }

    /// The current id of `kind`, if any.
    public func currentID(for kind: ScopeKind) -> String? {
        current.withLock { $0[kind] }
    }
}

extension DIAdvanced {
    /// Registrations with a ``ScopeKind``.
    public enum Scope {
        /// Registers `type` in the live container with one instance per id
        /// of `scope` (the id current in ``ScopeContext`` at resolve time),
        /// a new one per resolve while the kind has no current id, and one
        /// for the process for ``ScopeKind/singleton``.
        ///
        /// - Returns: A closure that releases the registration.
        @discardableResult
        public static func registerScoped<T: Sendable>(
            _ type: T.Type,
            scope: ScopeKind,
            factory: @escaping @Sendable () -> T
        ) -> @Sendable () -> Void {
            let live = DIContainer.live
            if scope == .singleton {
                live.register(type, scope: .singleton, factory: factory)
            } else {
                let instances = ScopeIDInstances(kind: scope) { $0.register(type, scope: .singleton, factory: factory) }
                let entry = LazyEntry(transientOwning: instances) { () throws -> T in
                    guard let id = ScopeContext.shared.currentID(for: scope) else { return factory() }
                    return try instances.container(for: id).resolveThrowing(type)
                }
                live.storeRegistration(entry, key: typeKey(T.self), scope: .transient)
            }
            return { [weak live] in live?.release(type) }
        }

        /// ``registerScoped(_:scope:factory:)`` for an async factory;
        /// resolve it with `resolveAsync`.
        public static func registerAsyncScoped<T: Sendable>(
            _ type: T.Type,
            scope: ScopeKind,
            factory: @escaping @Sendable () async -> T
        ) {
            let live = DIContainer.live
            if scope == .singleton {
                live.register(type, scope: .singleton) { () async throws -> T in await factory() }
                return
            }
            let instances = ScopeIDInstances(kind: scope) {
                $0.register(type, scope: .singleton) { () async throws -> T in await factory() }
            }
            let entry = LazyEntry(transientOwning: instances) { () async throws -> T in
                guard let id = ScopeContext.shared.currentID(for: scope) else { return await factory() }
                return try await instances.container(for: id).resolveAsyncThrowing(type)
            }
            live.storeRegistration(entry, key: typeKey(T.self), scope: .transient)
        }

        /// Drops every instance of the scope `id` of `kind`.
        ///
        /// - Returns: How many built instances it held.
        @discardableResult
        public static func releaseScope(_ kind: ScopeKind, id: String) async -> Int {
            DIContainer.live.reachableEntries.reduce(0) { released, item in
                guard let instances = item.entry.companion as? ScopeIDInstances, instances.kind == kind else {
                    return released
                }
                return released + instances.release(id)
            }
        }

        /// Drops the instance of `type` in the scope `id` of `kind`.
        ///
        /// - Returns: Whether one was built.
        @discardableResult
        public static func releaseScoped<T>(_ type: T.Type, kind: ScopeKind, id: String) async -> Bool {
            guard let instances = Resolver.entry(T.self, in: nil)?.companion as? ScopeIDInstances, instances.kind == kind
            else { return false }
            return instances.release(id) > 0
        }
    }
}
