import Foundation
import Logging
import PostgresNIO
import Synchronization

/// A todo as stored.
public struct Todo: Sendable, Equatable {
    public var id: Int
    public var title: String
    public var done: Bool
}

/// Where the database is and how long its parts may take.
public struct DatabaseSettings: Sendable {
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
    public var url: String
    /// How long a request may wait for the database, connection included;
    /// past it the request fails with ``DatabaseError/timedOut(_:)``.
    public var requestBudget: Duration
    /// How long the start waits for the first connection.
    public var connectTimeout: Duration
    /// The `application_name` of the pool's sessions, so
    /// `pg_stat_activity` tells them apart.
    public var applicationName: String

    /// The URL the servers use unless told otherwise: the cluster
    /// `scripts/postgres.sh start` makes.
    public static let defaultURL = "postgres://weavedi@127.0.0.1:54329/todos"

    public init(
        url: String = DatabaseSettings.defaultURL,
        requestBudget: Duration = .seconds(1),
        connectTimeout: Duration = .seconds(3),
        applicationName: String = "todo-api"
    ) {
        self.url = url
        self.requestBudget = requestBudget
        self.connectTimeout = connectTimeout
        self.applicationName = applicationName
    }
}

/// What went wrong with the database, as a request or the start sees it.
public enum DatabaseError: Error, Equatable, CustomStringConvertible {
    /// Not a `postgres://` URL with a host and a database.
    case invalidURL(String)
    /// The start could not reach the server within the connect timeout.
    case unreachable(url: String, reason: String)
    /// A request could not use the database (down, restarting, refused).
    case unavailable(String)
    /// A request's query did not finish within the request budget.
    case timedOut(Duration)
    /// Used after the store or the pool was closed (the server is stopping).
    case closed

    public var description: String {
        switch self {
        case .invalidURL(let url):
            return "'\(url)' is not a database URL (postgres://USER@HOST[:PORT]/DATABASE)"
        case .unreachable(let url, let reason):
            return "cannot connect to \(url): \(reason)"
        case .unavailable(let reason):
            return "the database is unavailable: \(reason)"
        case .timedOut(let budget):
            return "the database did not answer within \(budget)"
        case .closed:
            return "the database connection is closed: the server is stopping"
        }
    }
}

/// What a service did at start and shutdown, in order: the servers log it,
/// the tests read it.
public enum ServiceEvents {
    private static let events = Mutex<[String]>([])

    public static func record(_ event: String, logger: Logger) {
        events.withLock { $0.append(event) }
        logger.info("\(event)")
    }

    public static var all: [String] { events.withLock { $0 } }
}

/// Singleton: the connection pool, postgres-nio's `PostgresClient`, built by
/// an async factory. `connect` starts the client's `run()` in a task the
/// pool owns until `close()` (the start needs a running client to connect
/// and migrate before anything is served), waits for a first connection
/// within the connect timeout, and creates the table.
public final class DatabasePool: Sendable {
    public let settings: DatabaseSettings
    public let client: PostgresClient
    private let running: Task<Void, Never>
    private let logger: Logger
    private let open = Atomic<Bool>(true)

    private init(settings: DatabaseSettings, client: PostgresClient, running: Task<Void, Never>, logger: Logger) {
        self.settings = settings
        self.client = client
        self.running = running
        self.logger = logger
    }

    /// Connects to `settings.url` and migrates. Throws
    /// ``DatabaseError/unreachable(url:reason:)`` when no connection opens
    /// within the connect timeout, after stopping the client.
    public static func connect(settings: DatabaseSettings, logger: Logger) async throws -> DatabasePool {
        var configuration = try configuration(for: settings)
        configuration.options.connectTimeout = settings.connectTimeout
        configuration.options.additionalStartupParameters = [("application_name", settings.applicationName)]
        configuration.options.maximumConnections = 8
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let running = Task { await client.run() }
        let pool = DatabasePool(settings: settings, client: client, running: running, logger: logger)
        do {
            try await withinBudget(settings.connectTimeout) {
                _ = try await client.query("SELECT 1")
            }
            try await pool.migrate()
        } catch {
            await pool.stopClient()
            let reason: String
            switch error {
            case DatabaseError.timedOut:
                reason = "no connection within \(settings.connectTimeout) (is the server running?)"
            default:
                reason = DatabasePool.describe(error)
            }
            throw DatabaseError.unreachable(url: settings.url, reason: reason)
        }
        ServiceEvents.record("pool connected to \(settings.url)", logger: logger)
        return pool
    }

    public var isOpen: Bool { open.load(ordering: .acquiring) }

    /// Runs `operation` with the request budget: a database that is down,
    /// restarting or slow fails the request with a ``DatabaseError`` in
    /// bounded time instead of holding it.
    public func run<T: Sendable>(_ operation: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        guard isOpen else { throw DatabaseError.closed }
        let client = client
        do {
            return try await withinBudget(settings.requestBudget) { try await operation(client) }
        } catch let error as DatabaseError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw DatabaseError.unavailable(DatabasePool.describe(error))
        }
    }

    /// Creates the table; seeds it when empty, or, with `reset`, empties it,
    /// restarts the ids and seeds it (the tests start from the seed).
    public func migrate(reset: Bool = false) async throws {
        try await client.query(
            "CREATE TABLE IF NOT EXISTS todos (id bigserial PRIMARY KEY, title text NOT NULL, done boolean NOT NULL DEFAULT false)"
        )
        if reset {
            try await client.query("TRUNCATE todos RESTART IDENTITY")
        }
        var count = 0
        for try await value in try await client.query("SELECT count(*) FROM todos").decode(Int.self) {
            count = value
        }
        if count == 0 {
            for title in TodoStore.seedTitles {
                try await client.query("INSERT INTO todos (title) VALUES (\(title))")
            }
        }
    }

    /// Stops taking queries and closes every connection (the client's
    /// `run()` ends when its task is cancelled). Later calls do nothing.
    public func close() async {
        guard open.exchange(false, ordering: .acquiringAndReleasing) else { return }
        await stopClient()
        ServiceEvents.record("pool closed", logger: logger)
    }

    private func stopClient() async {
        running.cancel()
        await running.value
    }

    static func configuration(for settings: DatabaseSettings) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: settings.url),
            components.scheme == "postgres" || components.scheme == "postgresql",
            let host = components.host, !host.isEmpty,
            let user = components.user, !user.isEmpty,
            components.path.count > 1
        else { throw DatabaseError.invalidURL(settings.url) }
        return PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: user,
            password: components.password,
            database: String(components.path.dropFirst()),
            tls: .disable
        )
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// Runs `operation`, or throws ``DatabaseError/timedOut(_:)`` once `budget`
/// has passed, whichever comes first. The operation is cancelled when the
/// budget runs out; a query already sent finishes in the background and
/// returns its connection to the pool (postgres-nio does not cancel a sent
/// query), which is why this does not wait for it.
func withinBudget<T: Sendable>(
    _ budget: Duration,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = FirstOutcome<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            outcome.install(continuation)
            let work = Task {
                do {
                    outcome.finish(.success(try await operation()))
                } catch {
                    outcome.finish(.failure(error))
                }
            }
            let timer = Task {
                try await Task.sleep(for: budget)
                if outcome.finish(.failure(DatabaseError.timedOut(budget))) { work.cancel() }
            }
            outcome.onFinish { timer.cancel() }
        }
    } onCancel: {
        outcome.finish(.failure(CancellationError()))
    }
}

/// The first of several racing results, delivered once.
private final class FirstOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let finished = state.withLock { state -> Bool in
            if state.result != nil { return true }
            state.cleanup = cleanup
            return false
        }
        if finished { cleanup() }
    }

    /// True when this was the first result.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let taken = state.withLock { state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?)? in
            guard state.result == nil else { return nil }
            state.result = result
            defer {
                state.continuation = nil
                state.cleanup = nil
            }
            return (state.continuation, state.cleanup)
        }
        guard let taken else { return false }
        taken.0?.resume(with: result)
        taken.1?()
        return true
    }
}

/// Singleton: the repository, reading and writing the `todos` table through
/// the pool, each call within the request budget. Closed at shutdown before
/// the pool it uses (the container shuts down newest first).
public final class TodoStore: Sendable {
    /// nil: a store with no database (``TodoStoreKey``'s default, when
    /// nothing is registered): every call fails with
    /// ``DatabaseError/unavailable(_:)``.
    public let pool: DatabasePool?
    private let open = Atomic<Bool>(true)
    private let logger: Logger

    public init(pool: DatabasePool?, logger: Logger = Logger(label: "TodoStore")) {
        self.pool = pool
        self.logger = logger
    }

    private func database() throws -> DatabasePool {
        guard open.load(ordering: .acquiring) else { throw DatabaseError.closed }
        guard let pool else { throw DatabaseError.unavailable("no database is registered for the store") }
        return pool
    }

    public func insert(title: String) async throws -> Todo {
        try await database().run { client in
            let rows = try await client.query(
                "INSERT INTO todos (title) VALUES (\(title)) RETURNING id, title, done"
            )
            return try await TodoStore.first(rows)!
        }
    }

    public func todo(id: Int) async throws -> Todo? {
        try await database().run { client in
            try await TodoStore.first(client.query("SELECT id, title, done FROM todos WHERE id = \(id)"))
        }
    }

    /// Marks a todo done; nil when there is no such todo.
    public func markDone(id: Int) async throws -> Todo? {
        try await database().run { client in
            try await TodoStore.first(
                client.query("UPDATE todos SET done = true WHERE id = \(id) RETURNING id, title, done")
            )
        }
    }

    public func all() async throws -> [Todo] {
        try await database().run { client in
            var todos: [Todo] = []
            for try await (id, title, done) in try await client.query("SELECT id, title, done FROM todos ORDER BY id")
                .decode((Int, String, Bool).self)
            {
                todos.append(Todo(id: id, title: title, done: done))
            }
            return todos
        }
    }

    public func count() async throws -> Int {
        try await database().run { client in
            var count = 0
            for try await value in try await client.query("SELECT count(*) FROM todos").decode(Int.self) {
                count = value
            }
            return count
        }
    }

    /// Refuses further calls; calls under way finish.
    public func close() {
        guard open.exchange(false, ordering: .acquiringAndReleasing) else { return }
        ServiceEvents.record("store closed", logger: logger)
    }

    private static func first(_ rows: PostgresRowSequence) async throws -> Todo? {
        var found: Todo?
        for try await (id, title, done) in rows.decode((Int, String, Bool).self) where found == nil {
            found = Todo(id: id, title: title, done: done)
        }
        return found
    }

    /// The rows the migration seeds an empty table with, so `GET /todos/1`
    /// answers at once.
    public static let seedTitles = ["Write the example", "Load-test it", "Compare the wirings"]
}

extension TodoStore {
    /// The hand wiring's store, over a pool of its own connected here (its
    /// sessions named `<applicationName>-manual`).
    public static func connectedByHand(settings: DatabaseSettings, logger: Logger) async throws -> TodoStore {
        var own = settings
        own.applicationName += "-manual"
        return TodoStore(pool: try await DatabasePool.connect(settings: own, logger: logger), logger: logger)
    }

    /// Closes the store, then its pool: what the container's shutdown does
    /// for the DI wiring's.
    public func closeWithPool() async {
        close()
        await pool?.close()
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
