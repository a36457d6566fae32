/// A service with async work to do before it is released: closing
/// connections, flushing buffers. ``DIContainer/shutdown()`` on its
/// container awaits it.
///
/// ```swift
/// final class Database: AsyncShutdown {
///     let pool: ConnectionPool
///     init(pool: ConnectionPool) { self.pool = pool }
///     func shutdown() async { await pool.close() }
/// }
/// ```
public protocol AsyncShutdown: Sendable {
    /// Releases what the service holds. Called at most once per instance by
    /// a container's shutdown, after the services built from it have shut
    /// down.
    func shutdown() async
}

extension DIContainer {
    /// Releases this container's registrations, built singletons in reverse
    /// dependency order (a service before the services it was built from),
    /// awaiting `AsyncShutdown.shutdown()` for each instance that declares
    /// it (once per instance, even when registered under several types).
    /// A singleton's dependencies finish building before it does, so the
    /// order is the reverse of build order; eager registrations count from
    /// when they were registered. Registrations never built are released
    /// last, without cleanup. The container is empty afterwards; its
    /// parents are not touched.
    ///
    /// ```swift
    /// try await app.runService()
    /// await WeaveDI.Container.live.shutdown()
    /// ```
    ///
    /// With swift-service-lifecycle, `WeaveDIServiceLifecycle`'s
    /// `DependencyShutdownService` calls this when the service group shuts down.
    public func shutdown() async {
        var held: [(order: UInt64, key: TypeKey, entry: AnyRegistryEntry, instance: Any)] = []
        for (key, entry) in registry.keyedEntries {
            if let instance = entry.heldInstance {
                held.append((instance.order, key, entry, instance.value))
            }
        }
        held.sort { $0.order < $1.order }
        var cleaned = Set<ObjectIdentifier>()
        // The newest first; each instance is dropped before the next one's turn.
        while let item = held.popLast() {
            if let service = item.instance as? any AsyncShutdown {
                let isNew =
                    type(of: item.instance) is AnyClass
                    ? cleaned.insert(ObjectIdentifier(item.instance as AnyObject)).inserted : true
                if isNew {
                    await service.shutdown()
                }
            }
            registry.remove(item.key, ifStill: item.entry)
        }
        registry.removeAll()
    }
}

extension UnifiedDI {
    /// ``DIContainer/shutdown()`` of the live container (or of the task's
    /// overlay): awaits every built instance's ``AsyncShutdown`` cleanup,
    /// newest first, and empties the container.
    ///
    /// ```swift
    /// try await app.runService()
    /// await UnifiedDI.shutdown()
    /// ```
    public static func shutdown() async {
        await DIContainer.live.shutdown()
    }
}
