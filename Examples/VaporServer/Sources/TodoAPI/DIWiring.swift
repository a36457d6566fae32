import Foundation
import Logging
import Synchronization
import TodoServices
import Vapor
import WeaveDI

/// `InjectedKey` for the repository, so handlers can write
/// `@Injected(\.todoStore)`. The container's registration wins over
/// `liveValue` (see InjectedValues' read precedence): without one, a store
/// with no database, whose every call fails with a clear error (a 503).
public enum TodoStoreKey: InjectedKey {
    public static var liveValue: TodoStore { TodoStore(pool: nil) }
}

extension InjectedValues {
    public var todoStore: TodoStore {
        get { self[TodoStoreKey.self] }
        set { self[TodoStoreKey.self] = newValue }
    }
}

/// The services come from WeaveDI: the database pool and the store are
/// singletons with async factories, built by `UnifiedDI.start(timeout:)`
/// before the server serves (`buildApplication`); the unit of work is
/// `.task`-scoped (one per `withTaskScope`, opened per request by
/// `TaskScopeMiddleware`), the presenter transient.
public enum DIWiring {
    /// Registers the four services in the live container. Nothing is built
    /// here: the start builds the pool (which connects to PostgreSQL and
    /// creates the table, and fails when it cannot) and then the store,
    /// which uses it. At shutdown the container closes the store, then the
    /// pool (newest first). Registering again replaces the previous entries
    /// (the tests use that to start afresh).
    public static func registerServices(
        settings: DatabaseSettings = DatabaseSettings(),
        logger: Logger = Logger(label: "todo-api")
    ) {
        UnifiedDI.register(DatabasePool.self, scope: .singleton) {
            try await DatabasePool.connect(settings: settings, logger: logger)
        }
        UnifiedDI.register(TodoStore.self, scope: .singleton) {
            // Joins the pool's build when the start runs both at once; a pool
            // that failed fails the store too.
            TodoStore(pool: try await UnifiedDI.resolveAsyncThrowing(DatabasePool.self), logger: logger)
        }
        UnifiedDI.register(UnitOfWork.self, scope: .task) { UnitOfWork() }
        UnifiedDI.register(TodoPresenter.self, scope: .transient) {
            // A second injection point for the unit of work: inside the
            // request's task scope, so it is the handler's instance.
            TodoPresenter(unitOfWork: UnifiedDI.requireResolve(UnitOfWork.self))
        }
    }

    static func addRoutes(to routes: some RoutesBuilder) {
        routes.get("health") { _ in HealthResponse(status: "ok") }
        routes.get("todos") { _ in
            let services = RequestServices()
            return try await TodoHandlers.list(
                store: services.store,
                unitOfWork: services.unitOfWork,
                presenter: try services.presenter()
            )
        }
        routes.get("todos", ":id") { request in
            let id = try TodoHandlers.todoID(request)
            let services = RequestServices()
            return try await TodoHandlers.get(
                id: id,
                store: services.store,
                unitOfWork: services.unitOfWork,
                presenter: try services.presenter()
            )
        }
        routes.post("todos") { request in
            let body = try request.content.decode(CreateTodoRequest.self, as: .json)
            let services = RequestServices()
            let todo = try await TodoHandlers.create(
                body,
                store: services.store,
                unitOfWork: services.unitOfWork,
                presenter: try services.presenter()
            )
            return WithStatus(status: .created, body: todo)
        }
        routes.post("todos", ":id", "done") { request in
            let id = try TodoHandlers.todoID(request)
            let services = RequestServices()
            return try await TodoHandlers.markDone(
                id: id,
                store: services.store,
                unitOfWork: services.unitOfWork,
                presenter: try services.presenter()
            )
        }
        routes.get("stats") { _ in
            try await TodoHandlers.stats(store: RequestServices().store)
        }
    }
}

/// What a handler injects, made once per request. `@Injected` keeps its last
/// read in the wrapper, so one made per request reads the current scope's
/// unit of work (see the Hummingbird example's README).
struct RequestServices {
    @Injected(\.todoStore) var store: TodoStore
    @Injected var unitOfWork: UnitOfWork

    /// Transient: resolved on each call, through the throwing API so a
    /// missing registration is a 500 and not a crash.
    func presenter() throws -> TodoPresenter {
        do {
            return try UnifiedDI.resolveThrowing(TodoPresenter.self)
        } catch {
            throw Abort(.internalServerError, reason: "\(error)")
        }
    }
}

/// Runs every request inside `withTaskScope`, so each gets its own
/// `.task`-scoped instances. Vapor runs an async route handler in a task it
/// starts from here (`completeWithTask`); an unstructured task inherits the
/// task-locals of the task that starts it, so the handler sees this scope.
/// That task keeps the scope alive until it ends, a moment after the response
/// is produced, and the scope's instances are released then.
public struct TaskScopeMiddleware: AsyncMiddleware {
    let inFlight: InFlightRequests

    public init(inFlight: InFlightRequests) {
        self.inFlight = inFlight
    }

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        try await inFlight.admit {
            try await withTaskScope {
                try await next.respond(to: request)
            }
        }
    }
}

/// The requests between TaskScopeMiddleware's entry and its return, which is
/// after the handler's code has finished. Vapor's server stops without
/// waiting for a handler whose client has already closed the connection (the
/// handler runs in a task of its own, not in the connection's), so at
/// shutdown a handler may still be resolving services; the load test's
/// SIGTERM right after wrk closed its connections crashed a handler whose
/// `@Injected` unit of work had just been released. ReleaseDependenciesOnShutdown
/// waits for this count to reach zero first.
///
/// Vapor may also hand a request accepted just before it stopped to the
/// middleware after the drain: once the shutdown has begun (`beginStopping`),
/// `admit` refuses it with a 503 saying so, instead of running it against
/// released services.
public final class InFlightRequests: Sendable {
    private let count = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)

    public init() {}

    // Sequentially consistent, as in admit and beginStopping: of a request
    // counted in and a shutdown begun at the same time, at least one sees
    // the other (the request its refusal, or the drain its count).
    public var current: Int { count.load(ordering: .sequentiallyConsistent) }

    public func track<R>(_ operation: () async throws -> R) async rethrows -> R {
        count.add(1, ordering: .sequentiallyConsistent)
        defer { count.subtract(1, ordering: .releasing) }
        return try await operation()
    }

    /// `track`, unless the shutdown has begun: then a 503.
    public func admit<R>(_ operation: () async throws -> R) async throws -> R {
        try await track {
            if stopping.load(ordering: .sequentiallyConsistent) {
                throw Abort(.serviceUnavailable, reason: "the server is stopping")
            }
            return try await operation()
        }
    }

    /// From now on `admit` refuses requests; call before draining.
    public func beginStopping() {
        stopping.store(true, ordering: .sequentiallyConsistent)
    }

    /// Waits until no request is in flight; false if `timeout` passed first.
    public func drain(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while current != 0 {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// The same for Vapor's synchronous shutdown path, where there is no
    /// task to suspend.
    public func drainBlocking(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while current != 0 {
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }
}

/// The container's shutdown (`UnifiedDI.shutdown()`, which
/// ReleaseDependenciesOnShutdown awaits) awaits these newest first: the
/// store refuses further calls, then the pool closes its connections.
/// TodoServices does not import WeaveDI; the wiring adds the conformances,
/// as an app does for services of a module of their own.
extension TodoStore: @retroactive AsyncShutdown {
    public func shutdown() async {
        close()
    }
}

extension DatabasePool: @retroactive AsyncShutdown {
    public func shutdown() async {
        await close()
    }
}

/// Shuts the live container down when the application shuts down, so the
/// singletons it built are released with the application rather than at
/// process exit: `asyncShutdown()` awaits `UnifiedDI.shutdown()`, which
/// closes the store, then the pool (`AsyncShutdown`, newest first);
/// Vapor's synchronous `shutdown()` can only drop the registrations
/// (`UnifiedDI.releaseAll()`, no async cleanup).
///
/// Runs after the server has stopped accepting, and first waits for the
/// handlers still running (see InFlightRequests). If they do not finish
/// within `drainTimeout`, it releases nothing: a handler resolving after the
/// release would fail, and the process is about to exit anyway.
public struct ReleaseDependenciesOnShutdown: LifecycleHandler {
    let inFlight: InFlightRequests
    let drainTimeout: Duration

    public init(inFlight: InFlightRequests, drainTimeout: Duration = .seconds(10)) {
        self.inFlight = inFlight
        self.drainTimeout = drainTimeout
    }

    public func shutdown(_ application: Application) {
        inFlight.beginStopping()
        if mayRelease(drained: inFlight.drainBlocking(timeout: drainTimeout), application) {
            UnifiedDI.releaseAll()
        }
    }

    public func shutdownAsync(_ application: Application) async {
        inFlight.beginStopping()
        if mayRelease(drained: await inFlight.drain(timeout: drainTimeout), application) {
            await UnifiedDI.shutdown()
        }
    }

    private func mayRelease(drained: Bool, _ application: Application) -> Bool {
        if !drained {
            application.logger.warning(
                "WeaveDI registrations kept: \(inFlight.current) request(s) still running after \(drainTimeout)"
            )
        }
        return drained
    }
}
