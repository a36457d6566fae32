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
    /// when they were registered, and an instance held by several
    /// registrations from its first build. Registrations never built are
    /// released last, without cleanup. The container is empty afterwards;
    /// its parents are not touched. A call made while another is running
    /// waits for that one and does nothing more; one made by a cleanup of
    /// that run returns at once. The run goes on if the caller is cancelled.
    ///
    /// ```swift
    /// try await app.runService()
    /// await WeaveDI.Container.live.shutdown()
    /// ```
    ///
    /// With swift-service-lifecycle, `WeaveDIServiceLifecycle`'s
    /// `DependencyShutdownService` calls this when the service group shuts down.
    public func shutdown() async {
        // Overlapping calls (a signal handler and the lifecycle service, say)
        // share one run: the later ones wait for it and do nothing more, so
        // no instance's cleanup runs twice.
        let id = ObjectIdentifier(self)
        // A cleanup that shuts its own container down again would wait for
        // the run it is part of: it returns, and that run goes on.
        if ShutdownRuns.inside.contains(id) { return }
        let run = ShutdownRuns.running.withLock { runs -> Task<Void, Never> in
            if let running = runs[id] { return running }
            let run = Task {
                await ShutdownRuns.$inside.withValue(ShutdownRuns.inside.union([id])) {
                    await self.shutdownOnce()
                }
                // Removed by the run itself, so no call can find a finished run.
                ShutdownRuns.running.withLock { _ = $0.removeValue(forKey: id) }
            }
            runs[id] = run
            return run
        }
        await run.value
    }

    private func shutdownOnce() async {
        // One item per instance: an instance held by several registrations
        // (a type and a protocol whose factory returns it, say) takes its
        // place from its first build, when its dependencies had just
        // finished building, not from whichever registration finished last.
        struct Held {
            var order: UInt64
            var instance: Any
            var registrations: [(key: TypeKey, entry: AnyRegistryEntry)]
        }
        var held: [Held] = []
        var indexOfObject: [ObjectIdentifier: Int] = [:]
        for (key, entry) in registry.keyedEntries {
            guard let instance = entry.heldInstance else { continue }
            if type(of: instance.value) is AnyClass {
                let object = ObjectIdentifier(instance.value as AnyObject)
                if let index = indexOfObject[object] {
                    held[index].order = min(held[index].order, instance.order)
                    held[index].registrations.append((key, entry))
                    continue
                }
                indexOfObject[object] = held.count
            }
            held.append(Held(order: instance.order, instance: instance.value, registrations: [(key, entry)]))
        }
        held.sort { $0.order < $1.order }
        // What registrations own beside their instance (the per-id instances
        // of upstream's named scopes) goes first: built on demand from the
        // singletons, it may use them until it has shut down.
        for (key, entry) in registry.keyedEntries {
            if let companion = entry.companion as? any AsyncShutdown {
                held.append(Held(order: .max, instance: companion, registrations: [(key, entry)]))
            }
        }
        // The newest first; each instance is dropped before the next one's turn.
        while let item = held.popLast() {
            if let service = item.instance as? any AsyncShutdown {
                await service.shutdown()
            }
            for registration in item.registrations {
                registry.remove(registration.key, ifStill: registration.entry)
            }
        }
        registry.removeAll()
    }
}

/// The shutdown in progress per container, and the containers whose run
/// the current task is part of.
private enum ShutdownRuns {
    static let running = Locked<[ObjectIdentifier: Task<Void, Never>]>([:])
    @TaskLocal static var inside: Set<ObjectIdentifier> = []
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
