import Hummingbird
import TodoServices

/// The handlers' logic, identical for both wirings: it is handed its
/// services and never looks them up. Only where the services come from differs
/// (DIWiring.swift, ManualWiring.swift).
enum TodoHandlers {
    static func get(id: Int, store: TodoStore, unitOfWork: UnitOfWork, presenter: TodoPresenter) async throws
        -> TodoResponse
    {
        unitOfWork.recordRead()
        guard let todo = try await database({ try await store.todo(id: id) }) else {
            throw HTTPError(.notFound, message: "no todo \(id)")
        }
        return TodoResponse(todo: presenter.present(todo), meta: presenter.meta(handlerUnitOfWork: unitOfWork))
    }

    static func list(store: TodoStore, unitOfWork: UnitOfWork, presenter: TodoPresenter) async throws
        -> TodoListResponse
    {
        unitOfWork.recordRead()
        let todos = try await database { try await store.all() }.map(presenter.present)
        return TodoListResponse(todos: todos, meta: presenter.meta(handlerUnitOfWork: unitOfWork))
    }

    static func create(
        _ body: CreateTodoRequest,
        store: TodoStore,
        unitOfWork: UnitOfWork,
        presenter: TodoPresenter
    ) async throws -> EditedResponse<TodoResponse> {
        let title = body.title.trimmingWhitespace()
        guard !title.isEmpty else {
            throw HTTPError(.badRequest, message: "title is empty")
        }
        unitOfWork.recordWrite()
        let todo = try await database { try await store.insert(title: title) }
        return EditedResponse(
            status: .created,
            response: TodoResponse(todo: presenter.present(todo), meta: presenter.meta(handlerUnitOfWork: unitOfWork))
        )
    }

    static func markDone(id: Int, store: TodoStore, unitOfWork: UnitOfWork, presenter: TodoPresenter) async throws
        -> TodoResponse
    {
        unitOfWork.recordWrite()
        guard let todo = try await database({ try await store.markDone(id: id) }) else {
            throw HTTPError(.notFound, message: "no todo \(id)")
        }
        return TodoResponse(todo: presenter.present(todo), meta: presenter.meta(handlerUnitOfWork: unitOfWork))
    }

    static func stats(store: TodoStore) async throws -> StatsResponse {
        StatsResponse(todos: try await database { try await store.count() }, unitsOfWorkAlive: UnitOfWork.alive)
    }

    /// A database that is down, restarting, slow past the request budget or
    /// closing is a 503 naming the cause; the client may retry.
    private static func database<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as DatabaseError {
            throw HTTPError(.serviceUnavailable, message: error.description)
        }
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
