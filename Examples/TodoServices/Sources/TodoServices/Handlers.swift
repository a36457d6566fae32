/// The handlers' logic, the same for both examples and both wirings: it is
/// handed its services and never looks them up, so the wirings differ only
/// in where the services come from (each example's DIWiring.swift and
/// ManualWiring.swift). It throws ``TodoRequestError``, which each example
/// turns into its framework's error response.
public enum TodoHandlers {
    public static func get(id: Int, store: TodoStore, unitOfWork: UnitOfWork, presenter: TodoPresenter)
        async throws -> TodoResponse
    {
        unitOfWork.recordRead()
        guard let todo = try await database({ try await store.todo(id: id) }) else {
            throw TodoRequestError.noTodo(id)
        }
        return TodoResponse(todo: presenter.present(todo), meta: presenter.meta(handlerUnitOfWork: unitOfWork))
    }

    public static func list(store: TodoStore, unitOfWork: UnitOfWork, presenter: TodoPresenter) async throws
        -> TodoListResponse
    {
        unitOfWork.recordRead()
        let todos = try await database { try await store.all() }.map(presenter.present)
        return TodoListResponse(todos: todos, meta: presenter.meta(handlerUnitOfWork: unitOfWork))
    }

    /// The new todo; the route answers it with 201.
    public static func create(
        _ body: CreateTodoRequest,
        store: TodoStore,
        unitOfWork: UnitOfWork,
        presenter: TodoPresenter
    ) async throws -> TodoResponse {
        let title = body.title.trimmingWhitespace()
        guard !title.isEmpty else {
            throw TodoRequestError(code: 400, reason: "title is empty")
        }
        unitOfWork.recordWrite()
        let todo = try await database { try await store.insert(title: title) }
        return TodoResponse(todo: presenter.present(todo), meta: presenter.meta(handlerUnitOfWork: unitOfWork))
    }

    public static func markDone(id: Int, store: TodoStore, unitOfWork: UnitOfWork, presenter: TodoPresenter)
        async throws -> TodoResponse
    {
        unitOfWork.recordWrite()
        guard let todo = try await database({ try await store.markDone(id: id) }) else {
            throw TodoRequestError.noTodo(id)
        }
        return TodoResponse(todo: presenter.present(todo), meta: presenter.meta(handlerUnitOfWork: unitOfWork))
    }

    public static func stats(store: TodoStore) async throws -> StatsResponse {
        StatsResponse(todos: try await database { try await store.count() }, unitsOfWorkAlive: UnitOfWork.alive)
    }

    /// A database that is down, restarting, slow past the request budget or
    /// closing is a 503 naming the cause; the client may retry.
    private static func database<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as DatabaseError {
            throw TodoRequestError(code: 503, reason: error.description)
        }
    }
}

/// A request the handlers refuse: the HTTP status code and the reason the
/// body carries. Hummingbird's example answers it as an `HTTPError` would,
/// Vapor's as an `Abort` would (each example's Models.swift).
public struct TodoRequestError: Error, Equatable, Sendable {
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    static func noTodo(_ id: Int) -> TodoRequestError {
        TodoRequestError(code: 404, reason: "no todo \(id)")
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
