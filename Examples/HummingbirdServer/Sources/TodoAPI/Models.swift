import Hummingbird

public struct TodoDTO: ResponseCodable, Equatable, Sendable {
    public var id: Int
    public var title: String
    public var done: Bool

    public init(id: Int, title: String, done: Bool) {
        self.id = id
        self.title = title
        self.done = done
    }
}

/// What every todo response carries besides its data: the id of the
/// request's unit of work as the handler saw it and as the presenter saw it.
public struct ResponseMeta: ResponseCodable, Equatable, Sendable {
    public var unitOfWork: UInt64
    public var presenterUnitOfWork: UInt64
    public var reads: Int
    public var writes: Int
}

public struct TodoResponse: ResponseCodable, Equatable, Sendable {
    public var todo: TodoDTO
    public var meta: ResponseMeta
}

public struct TodoListResponse: ResponseCodable, Equatable, Sendable {
    public var todos: [TodoDTO]
    public var meta: ResponseMeta
}

public struct CreateTodoRequest: Codable, Sendable {
    public var title: String
    public init(title: String) { self.title = title }
}

public struct HealthResponse: ResponseCodable, Equatable, Sendable {
    public var status: String
    public init(status: String) { self.status = status }
}

public struct StatsResponse: ResponseCodable, Equatable, Sendable {
    public var todos: Int
    public var unitsOfWorkAlive: Int
    public init(todos: Int, unitsOfWorkAlive: Int) {
        self.todos = todos
        self.unitsOfWorkAlive = unitsOfWorkAlive
    }
}
