import Hummingbird

public struct TodoDTO: ResponseCodable, Equatable {
    public var id: Int
    public var title: String
    public var done: Bool
}

/// What every todo response carries besides its data: the id of the
/// request's unit of work as the handler saw it and as the presenter saw it.
public struct ResponseMeta: ResponseCodable, Equatable {
    public var unitOfWork: UInt64
    public var presenterUnitOfWork: UInt64
    public var reads: Int
    public var writes: Int
}

public struct TodoResponse: ResponseCodable, Equatable {
    public var todo: TodoDTO
    public var meta: ResponseMeta
}

public struct TodoListResponse: ResponseCodable, Equatable {
    public var todos: [TodoDTO]
    public var meta: ResponseMeta
}

public struct CreateTodoRequest: Codable, Sendable {
    public var title: String
    public init(title: String) { self.title = title }
}

public struct HealthResponse: ResponseCodable, Equatable {
    public var status: String
}

public struct StatsResponse: ResponseCodable, Equatable {
    public var todos: Int
    public var unitsOfWorkAlive: Int
}
