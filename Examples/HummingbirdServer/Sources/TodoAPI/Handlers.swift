import Hummingbird

/// The handlers' logic, identical for both wirings: it is handed its
/// services and never looks them up. Only where the services come from differs
/// (DIWiring.swift, ManualWiring.swift).
enum TodoHandlers {
    static func get(id: Int, store: TodoStore, unitOfWork: UnitOfWork, presenter: TodoPresenter) throws -> TodoResponse {
        unitOfWork.recordRead()
        guard let todo = store.todo(id: id) else {
            throw HTTPError(.notFound, message: "no todo \(id)")
        }
        return TodoResponse(todo: presenter.present(todo), meta: presenter.meta(handlerUnitOfWork: unitOfWork))
    }

    static func list(store: TodoStore, unitOfWork: UnitOfWork, presenter: TodoPresenter) -> TodoListResponse {
        unitOfWork.recordRead()
        let todos = store.all().map(presenter.present)
        return TodoListResponse(todos: todos, meta: presenter.meta(handlerUnitOfWork: unitOfWork))
    }

    static func create(
        _ body: CreateTodoRequest,
        store: TodoStore,
        unitOfWork: UnitOfWork,
        presenter: TodoPresenter
    ) throws -> EditedResponse<TodoResponse> {
        let title = body.title.trimmingWhitespace()
        guard !title.isEmpty else {
            throw HTTPError(.badRequest, message: "title is empty")
        }
        unitOfWork.recordWrite()
        let todo = store.insert(title: title)
        return EditedResponse(
            status: .created,
            response: TodoResponse(todo: presenter.present(todo), meta: presenter.meta(handlerUnitOfWork: unitOfWork))
        )
    }

    static func stats(store: TodoStore) -> StatsResponse {
        StatsResponse(todos: store.count, unitsOfWorkAlive: UnitOfWork.alive)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
