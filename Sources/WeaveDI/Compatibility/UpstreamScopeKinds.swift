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
/// ``ProvideScope/task`` with `withTaskScope`, which is task-local.
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

/// One container per scope id, holding that scope's instances as singleton
/// registrations: the registry's build-once then gives one instance per
/// type and scope id however many threads resolve it.
enum ScopeIDContainers {
    private struct State {
        var containers: [ScopeID: DIContainer] = [:]
        var registered: [ScopeID: Set<ObjectIdentifier>] = [:]
    }

    private static let state = Locked(State())

    static func container<T: Sendable>(
        for scope: ScopeID,
        registering type: T.Type,
        _ register: (DIContainer) -> Void
    ) -> DIContainer {
        state.withLock { state in
            let container = state.containers[scope] ?? DIContainer()
            state.containers[scope] = container
            if state.registered[scope, default: []].insert(ObjectIdentifier(T.self)).inserted {
                register(container)
            }
            return container
        }
    }

    static func release(_ scope: ScopeID) -> Int {
        let container = state.withLock { state -> DIContainer? in
            state.registered[scope] = nil
            return state.containers.removeValue(forKey: scope)
        }
        return container?.registry.entries.count { $0.heldInstance != nil } ?? 0
    }

    static func release<T>(_ type: T.Type, in scope: ScopeID) -> Bool {
        let container = state.withLock { state -> DIContainer? in
            guard state.registered[scope]?.remove(ObjectIdentifier(T.self)) != nil else { return nil }
            return state.containers[scope]
        }
        guard let container else { return false }
        let held = container.registry.entries.contains { $0.type == T.self && $0.heldInstance != nil }
        container.release(type)
        return held
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
                live.register(type, scope: .transient) { () throws(DIError) -> T in
                    guard let id = ScopeContext.shared.currentID(for: scope) else { return factory() }
                    let container = ScopeIDContainers.container(for: ScopeID(kind: scope, id: id), registering: T.self) {
                        $0.register(type, scope: .singleton, factory: factory)
                    }
                    return try container.resolveThrowing(type)
                }
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
            live.register(type, scope: .transient) { () async throws -> T in
                guard let id = ScopeContext.shared.currentID(for: scope) else { return await factory() }
                let container = ScopeIDContainers.container(for: ScopeID(kind: scope, id: id), registering: T.self) {
                    $0.register(type, scope: .singleton) { () async throws -> T in await factory() }
                }
                return try await container.resolveAsyncThrowing(type)
            }
        }

        /// Drops every instance of the scope `id` of `kind`.
        ///
        /// - Returns: How many built instances it held.
        @discardableResult
        public static func releaseScope(_ kind: ScopeKind, id: String) async -> Int {
            ScopeIDContainers.release(ScopeID(kind: kind, id: id))
        }

        /// Drops the instance of `type` in the scope `id` of `kind`.
        ///
        /// - Returns: Whether one was built.
        @discardableResult
        public static func releaseScoped<T>(_ type: T.Type, kind: ScopeKind, id: String) async -> Bool {
            ScopeIDContainers.release(type, in: ScopeID(kind: kind, id: id))
        }
    }
}
