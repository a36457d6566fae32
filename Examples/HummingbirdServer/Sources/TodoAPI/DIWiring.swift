import Hummingbird
import Logging
import TodoServices
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

    static func addRoutes(to router: some RouterMethods<TodoRequestContext>) {
        _ = router.add(middleware: TaskScopeMiddleware())
        router.get("/health") { _, _ in HealthResponse(status: "ok") }
        router.get("/todos") { _, _ in
            let services = RequestServices()
            return try await TodoHandlers.list(
                store: services.store,
                unitOfWork: services.unitOfWork,
                presenter: try services.presenter()
            )
        }
        router.get("/todos/:id") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            let services = RequestServices()
            return try await TodoHandlers.get(
                id: id,
                store: services.store,
                unitOfWork: services.unitOfWork,
                presenter: try services.presenter()
            )
        }
        router.post("/todos") { request, context in
            let body = try await request.decode(as: CreateTodoRequest.self, context: context)
            let services = RequestServices()
            let todo = try await TodoHandlers.create(
                body,
                store: services.store,
                unitOfWork: services.unitOfWork,
                presenter: try services.presenter()
            )
            return EditedResponse(status: .created, response: todo)
        }
        router.post("/todos/:id/done") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            let services = RequestServices()
            return try await TodoHandlers.markDone(
                id: id,
                store: services.store,
                unitOfWork: services.unitOfWork,
                presenter: try services.presenter()
            )
        }
        router.get("/stats") { _, _ in
            try await TodoHandlers.stats(store: RequestServices().store)
        }
    }
}

/// What a handler injects, made once per request. `@Injected` keeps its last
/// read in the wrapper, so a wrapper that outlives a request would hand the
/// next request the previous request's unit of work (see the README); one
/// made per request reads the current scope's.
struct RequestServices {
    @Injected(\.todoStore) var store: TodoStore
    @Injected var unitOfWork: UnitOfWork

    /// Transient: resolved on each call, through the throwing API so a
    /// missing registration is a 500 and not a crash.
    func presenter() throws -> TodoPresenter {
        do {
            return try UnifiedDI.resolveThrowing(TodoPresenter.self)
        } catch {
            throw HTTPError(.internalServerError, message: "\(error)")
        }
    }
}

/// The container's shutdown (`UnifiedDI.shutdown()`) awaits these newest
/// first: the store refuses further calls, then the pool closes its
/// connections. TodoServices does not import WeaveDI; the wiring adds the
/// conformances, as an app does for services of a module of their own.
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

/// Runs every request inside `withTaskScope`, so each gets its own
/// `.task`-scoped instances, released when the response is produced.
public struct TaskScopeMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try await withTaskScope {
            try await next(request, context)
        }
    }
}
