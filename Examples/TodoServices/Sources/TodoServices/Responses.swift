/// The response and request bodies of both examples, plain `Codable`: each
/// example conforms the top-level ones to its framework's response protocol
/// (its Models.swift), so the two servers answer with the same types.
public struct TodoDTO: Codable, Equatable, Sendable {
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
public struct ResponseMeta: Codable, Equatable, Sendable {
    public var unitOfWork: UInt64
    public var presenterUnitOfWork: UInt64
    public var reads: Int
    public var writes: Int

    public init(unitOfWork: UInt64, presenterUnitOfWork: UInt64, reads: Int, writes: Int) {
        self.unitOfWork = unitOfWork
        self.presenterUnitOfWork = presenterUnitOfWork
        self.reads = reads
        self.writes = writes
    }
}

public struct TodoResponse: Codable, Equatable, Sendable {
    public var todo: TodoDTO
    public var meta: ResponseMeta

    public init(todo: TodoDTO, meta: ResponseMeta) {
        self.todo = todo
        self.meta = meta
    }
}

public struct TodoListResponse: Codable, Equatable, Sendable {
    public var todos: [TodoDTO]
    public var meta: ResponseMeta

    public init(todos: [TodoDTO], meta: ResponseMeta) {
        self.todos = todos
        self.meta = meta
    }
}

public struct CreateTodoRequest: Codable, Equatable, Sendable {
    public var title: String
    public init(title: String) { self.title = title }
}

public struct HealthResponse: Codable, Equatable, Sendable {
    public var status: String
    public init(status: String) { self.status = status }
}

public struct StatsResponse: Codable, Equatable, Sendable {
    public var todos: Int
    public var unitsOfWorkAlive: Int
    public init(todos: Int, unitsOfWorkAlive: Int) {
        self.todos = todos
        self.unitsOfWorkAlive = unitsOfWorkAlive
    }
}

/// Transient: a new one per resolve. Turns stored todos into response
/// bodies; it holds the request's unit of work (resolved in its factory under
/// DI, passed by hand under manual wiring) and echoes its id, so a response
/// shows whether the handler and the presenter saw the same unit of work.
public struct TodoPresenter: Sendable {
    public let unitOfWork: UnitOfWork

    public init(unitOfWork: UnitOfWork) {
        self.unitOfWork = unitOfWork
    }

    public func present(_ todo: Todo) -> TodoDTO {
        TodoDTO(id: todo.id, title: todo.title, done: todo.done)
    }

    /// `handlerUnitOfWork` is the one the handler itself got.
    public func meta(handlerUnitOfWork: UnitOfWork) -> ResponseMeta {
        ResponseMeta(
            unitOfWork: handlerUnitOfWork.id,
            presenterUnitOfWork: unitOfWork.id,
            reads: handlerUnitOfWork.reads,
            writes: handlerUnitOfWork.writes
        )
    }
}
