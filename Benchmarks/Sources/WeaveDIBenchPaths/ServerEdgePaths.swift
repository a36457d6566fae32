import WeaveDI

// Server edges (issue 41, item 4): a per-request child container that
// registers a request-scoped value, resolves it and is dropped; a resolve
// that misses; a transient async build. Each runs on one thread in the gate
// and on two in the timed table, where a process-wide lock on the path
// shows as the two-thread row's time per operation rising.

/// The value a request registers in its own child container.
public final class RequestScoped: Sendable {
    public let id: Int
    public init(id: Int) { self.id = id }
}

/// Never registered: every resolve of it misses.
public final class NeverRegistered: Sendable {
    public init() {}
}

/// Registered `.transient` with an async factory: every resolve builds one.
public final class AsyncTransientThing: Sendable {
    public init() {}
}

/// Registers the async transient (each round replaces it, as the table is
/// rebuilt between sizes).
func registerAsyncTransient() {
    UnifiedDI.register(AsyncTransientThing.self, scope: .transient) { () async throws -> AsyncTransientThing in
        AsyncTransientThing()
    }
}

public func serverEdgePaths() -> [BenchPath] {
    let live = WeaveDI.Container.live
    return [
        BenchPath(
            id: "child.register.request",
            label: "child container per request: register 1 value, resolve it, drop", group: "request",
            costScale: 4,
            run: { n in
                for index in 0..<n {
                    let child = live.createChild()
                    child.register(RequestScoped.self, instance: RequestScoped(id: index))
                    consume(child.resolve(RequestScoped.self))
                }
            }),
        BenchPath(
            id: "resolve.miss", label: "UnifiedDI.resolve, unregistered type (nil; default logging)",
            group: "resolve",
            run: { n in for _ in 0..<n { consume(UnifiedDI.resolve(NeverRegistered.self)) } }),
        BenchPath(
            id: "resolve.async.transient", label: "try await resolveAsyncThrowing, async transient (a build)",
            group: "resolve",
            prepare: { _ in registerAsyncTransient() },
            run: { n in
                runAsync {
                    for _ in 0..<n { consume(try? await UnifiedDI.resolveAsyncThrowing(AsyncTransientThing.self)) }
                }
            }),
    ]
}
