import TodoServices
import Vapor

/// The same services wired by hand: the store (over a pool connected by
/// hand, `DatabasePool.connect`) made once and captured by the routes, the
/// unit of work and the presenter made per request and passed on.
enum ManualWiring {
    static func addRoutes(to routes: some RoutesBuilder, store: TodoStore) {
        routes.get("health") { _ in HealthResponse(status: "ok") }
        routes.get("todos") { _ in
            let unitOfWork = UnitOfWork()
            return try await TodoHandlers.list(
                store: store,
                unitOfWork: unitOfWork,
                presenter: TodoPresenter(unitOfWork: unitOfWork)
            )
        }
        routes.get("todos", ":id") { request in
            let id = try TodoHandlers.todoID(request)
            let unitOfWork = UnitOfWork()
            return try await TodoHandlers.get(
                id: id,
                store: store,
                unitOfWork: unitOfWork,
                presenter: TodoPresenter(unitOfWork: unitOfWork)
            )
        }
        routes.post("todos") { request in
            let body = try request.content.decode(CreateTodoRequest.self, as: .json)
            let unitOfWork = UnitOfWork()
            let todo = try await TodoHandlers.create(
                body,
                store: store,
                unitOfWork: unitOfWork,
                presenter: TodoPresenter(unitOfWork: unitOfWork)
            )
            return WithStatus(status: .created, body: todo)
        }
        routes.post("todos", ":id", "done") { request in
            let id = try TodoHandlers.todoID(request)
            let unitOfWork = UnitOfWork()
            return try await TodoHandlers.markDone(
                id: id,
                store: store,
                unitOfWork: unitOfWork,
                presenter: TodoPresenter(unitOfWork: unitOfWork)
            )
        }
        routes.get("stats") { _ in
            try await TodoHandlers.stats(store: store)
        }
    }
}
