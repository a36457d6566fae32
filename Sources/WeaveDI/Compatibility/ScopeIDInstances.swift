/// The instances of one named-scope registration (upstream 3.3's
/// `DIAdvanced.Scope.registerScoped`), one per id of its ``ScopeKind``.
///
/// Owned by the registration itself (`LazyEntry.owned`), never kept
/// beside the registry: releasing or replacing the registration,
/// `releaseAll`, `resetForTesting` and an overlay's end drop them with it;
/// `shutdown()` reaches them through it; a registration made in an overlay
/// has its own. Each id's instance is a singleton registration in a
/// container of that id, so the registry's build-once gives one instance
/// per id however many threads resolve it.
final class ScopeIDInstances: AsyncShutdown {
    let kind: ScopeKind
    private let registerOne: @Sendable (DIContainer) -> Void
    private let containers = Locked<[String: DIContainer]>([:])

    init(kind: ScopeKind, register: @escaping @Sendable (DIContainer) -> Void) {
        self.kind = kind
        self.registerOne = register
    }

    /// The container holding the instance of `id`, made on first use.
    func container(for id: String) -> DIContainer {
        containers.withLock { containers in
            if let existing = containers[id] {
                return existing
            }
            let container = DIContainer()
            registerOne(container)
            containers[id] = container
            return container
        }
    }

    /// Drops the instance of `id`; returns how many were built (0 or 1).
    func release(_ id: String) -> Int {
        let container = containers.withLock { $0.removeValue(forKey: id) }
        return container?.registry.entries.count { $0.heldInstance != nil } ?? 0
    }

    /// Shuts down every id's instance (an ``AsyncShutdown`` one runs its
    /// `shutdown()`), then drops them.
    func shutdown() async {
        let all = containers.withLock { containers in
            defer { containers = [:] }
            return Array(containers.values)
        }
        for container in all {
            await container.shutdown()
        }
    }
}
