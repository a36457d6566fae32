import Synchronization

/// A todo as stored.
public struct Todo: Sendable, Equatable {
    public var id: Int
    public var title: String
    public var done: Bool
}

/// Singleton: the in-memory repository, one per process, behind a Mutex.
public final class TodoStore: Sendable {
    private struct State {
        var todos: [Int: Todo] = [:]
        var nextID = 1
    }

    private let state = Mutex(State())

    public init(seed titles: [String] = []) {
        for title in titles { _ = insert(title: title) }
    }

    public func insert(title: String) -> Todo {
        state.withLock { state in
            let todo = Todo(id: state.nextID, title: title, done: false)
            state.nextID += 1
            state.todos[todo.id] = todo
            return todo
        }
    }

    public func todo(id: Int) -> Todo? {
        state.withLock { $0.todos[id] }
    }

    public func all() -> [Todo] {
        state.withLock { $0.todos.values.sorted { $0.id < $1.id } }
    }

    public var count: Int { state.withLock { $0.todos.count } }

    /// The seed the server starts with, so `GET /todos/1` answers at once.
    public static func seeded() -> TodoStore {
        TodoStore(seed: ["Write the example", "Load-test it", "Compare the wirings"])
    }
}

/// Request-scoped: one per request (a `.task` registration under DI, built by
/// the handler under manual wiring). It numbers the request and counts what
/// the request did to the store; the response echoes it.
public final class UnitOfWork: Sendable {
    private static let serials = Atomic<UInt64>(0)
    private static let aliveCount = Atomic<Int>(0)

    /// Units of work not yet deinitialised: back to zero once every request
    /// has ended, whichever wiring built them.
    public static var alive: Int { aliveCount.load(ordering: .relaxed) }

    public let id: UInt64
    private let counts = Mutex<(reads: Int, writes: Int)>((0, 0))

    public init() {
        id = Self.serials.add(1, ordering: .relaxed).newValue
        Self.aliveCount.add(1, ordering: .relaxed)
    }

    deinit { Self.aliveCount.subtract(1, ordering: .relaxed) }

    public func recordRead() { counts.withLock { $0.reads += 1 } }
    public func recordWrite() { counts.withLock { $0.writes += 1 } }
    public var reads: Int { counts.withLock { $0.reads } }
    public var writes: Int { counts.withLock { $0.writes } }
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
