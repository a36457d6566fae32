import Hummingbird
import TodoServices

/// The same services wired by hand: the store (over a pool connected by
/// hand, `DatabasePool.connect`) made once and captured by the routes, the
/// unit of work and the presenter made per request and passed on.
enum ManualWiring {
    static func addRoutes(to router: some RouterMethods<TodoRequestContext>, store: TodoStore) {
        router.get("/health") { _, _ in HealthResponse(status: "ok") }
        router.get("/todos") { _, _ in
            let unitOfWork = UnitOfWork()
            return try await TodoHandlers.list(
                store: store,
                unitOfWork: unitOfWork,
                presenter: TodoPresenter(unitOfWork: unitOfWork)
            )
        }
        router.get("/todos/:id") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            let unitOfWork = UnitOfWork()
            return try await TodoHandlers.get(
                id: id,
                store: store,
                unitOfWork: unitOfWork,
                presenter: TodoPresenter(unitOfWork: unitOfWork)
            )
        }
        router.post("/todos") { request, context in
            let body = try await request.decode(as: CreateTodoRequest.self, context: context)
            let unitOfWork = UnitOfWork()
            let todo = try await TodoHandlers.create(
                body,
                store: store,
                unitOfWork: unitOfWork,
                presenter: TodoPresenter(unitOfWork: unitOfWork)
            )
            return EditedResponse(status: .created, response: todo)
        }
        router.post("/todos/:id/done") { _, context in
            let id = try context.parameters.require("id", as: Int.self)
            let unitOfWork = UnitOfWork()
            return try await TodoHandlers.markDone(
                id: id,
                store: store,
                unitOfWork: unitOfWork,
                presenter: TodoPresenter(unitOfWork: unitOfWork)
            )
        }
        router.get("/stats") { _, _ in
            try await TodoHandlers.stats(store: store)
        }
    }
}
