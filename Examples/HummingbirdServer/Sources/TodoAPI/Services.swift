import Synchronization

/// A todo as stored.
public struct Todo: Sendable, Equatable {
    public var id: Int
    public var title: String
    public var done: Bool
}

/// Singleton built by an async factory that can fail: a stand-in for a
/// database's connection pool. `connect(to:)` awaits, as opening the first
/// connections does, and throws for a URL it cannot open; the DI wiring's
/// store loads its rows through it, and `close()` is awaited when the
/// container shuts down.
public final class ConnectionPool: Sendable {
    /// Why the pool could not do what was asked.
    public enum PoolError: Error, Equatable, CustomStringConvertible {
        /// Not a `memory://NAME` URL, the only kind the stand-in opens.
        case unsupportedURL(String)
        /// Used after `close()`.
        case closed

        public var description: String {
            switch self {
            case .unsupportedURL(let url):
                return "cannot connect to '\(url)': the stand-in pool opens memory://NAME URLs only"
            case .closed:
                return "the connection pool is closed"
            }
        }
    }

    /// The URL the servers connect to unless `--database-url` says otherwise.
    public static let defaultURL = "memory://todos"

    private static let connects = Atomic<Int>(0)

    /// Pools connected so far in this process: one per start.
    public static var connectedCount: Int { connects.load(ordering: .relaxed) }

    public let url: String
    private let open = Atomic<Bool>(true)

    private init(url: String) {
        self.url = url
    }

    /// Opens a pool to `url`, taking `latency` as a real pool's first
    /// connections would.
    public static func connect(to url: String, latency: Duration = .milliseconds(20)) async throws -> ConnectionPool {
        try await Task.sleep(for: latency)
        let scheme = "memory://"
        guard url.hasPrefix(scheme), url.count > scheme.count else {
            throw PoolError.unsupportedURL(url)
        }
        connects.add(1, ordering: .relaxed)
        return ConnectionPool(url: url)
    }

    public var isOpen: Bool { open.load(ordering: .acquiring) }

    /// The titles in the database's todo table (the stand-in's table holds
    /// the seed).
    public func fetchTitles() async throws -> [String] {
        guard isOpen else { throw PoolError.closed }
        await Task.yield()
        return TodoStore.seedTitles
    }

    /// Closes the connections. Later calls do nothing.
    public func close() async {
        open.store(false, ordering: .releasing)
    }
}

/// Singleton: the in-memory repository, one per process, behind a Mutex.
public final class TodoStore: Sendable {
    private struct State {
        var todos: [Int: Todo] = [:]
        var nextID = 1
    }

    private let state = Mutex(State())

    /// The pool the rows were loaded through (`loaded(from:)`, the DI
    /// wiring's store); nil for a store seeded in memory (`seeded()`, the
    /// manual wiring's).
    public let pool: ConnectionPool?

    public init(seed titles: [String] = [], pool: ConnectionPool? = nil) {
        self.pool = pool
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
    public static let seedTitles = ["Write the example", "Load-test it", "Compare the wirings"]

    /// A store holding the seed, made in memory.
    public static func seeded() -> TodoStore {
        TodoStore(seed: seedTitles)
    }

    /// A store holding the rows read through `pool`, as a repository loads
    /// from its database at startup; the same rows as `seeded()`.
    public static func loaded(from pool: ConnectionPool) async throws -> TodoStore {
        TodoStore(seed: try await pool.fetchTitles(), pool: pool)
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
