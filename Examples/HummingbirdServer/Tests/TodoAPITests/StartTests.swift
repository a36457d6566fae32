import Hummingbird
import HummingbirdTesting
import Logging
import TodoAPI
import TodoServices
import WeaveDI
import XCTest

/// The server starts its services before serving (`buildServer`, through
/// `UnifiedDI.start(timeout:)`): the pool's async factory connects to
/// PostgreSQL once and creates the table, the store uses it, and a database
/// the pool cannot reach stops the start with an error naming it, before
/// any application exists. Shutdown closes the store, then the pool, whose
/// sessions leave the server.
final class StartTests: XCTestCase {
    override func setUp() async throws {
        try await super.setUp()
        await UnifiedDI.shutdown()
        WeaveDI.Container.live = WeaveDI.Container()
    }

    override func tearDown() async throws {
        await UnifiedDI.shutdown()
        try await super.tearDown()
    }

    private func connections() -> Int {
        ServiceEvents.all.filter { $0.hasPrefix("pool connected") }.count
    }

    /// Registering runs no factory: no pool connects, and a synchronous
    /// resolve finds nothing built yet.
    func testRegisteringBuildsNothing() {
        let connected = connections()
        DIWiring.registerServices(settings: testSettings, logger: quietServiceLogger)
        XCTAssertNil(UnifiedDI.resolve(DatabasePool.self))
        XCTAssertNil(UnifiedDI.resolve(TodoStore.self))
        XCTAssertEqual(connections(), connected)
    }

    /// A start connects the pool once (the store's factory joins that
    /// build), the routes serve the seeded rows from PostgreSQL, and the
    /// server's stop closes the store, then the pool, whose sessions leave
    /// pg_stat_activity.
    func testAStartConnectsThePoolOnceAndStopClosesStoreThenPool() async throws {
        let connected = connections()
        var settings = testSettings
        settings.applicationName = "todo-api-tests-start"
        let server = try await buildServer(wiring: .di, port: 0, logger: quietLogger, settings: settings)
        XCTAssertEqual(connections() - connected, 1)
        let pool = try XCTUnwrap(UnifiedDI.resolve(DatabasePool.self), "built by the start, so a synchronous resolve has it")
        XCTAssertTrue(pool.isOpen)
        XCTAssertTrue(UnifiedDI.resolve(TodoStore.self)?.pool === pool, "the store does not use the pool")
        let again = try await UnifiedDI.resolveAsyncThrowing(DatabasePool.self)
        XCTAssertTrue(again === pool)
        XCTAssertEqual(connections() - connected, 1, "the pool connected again after the start")
        try await pool.migrate(reset: true)

        try await server.application.test(.router) { client in
            try await client.execute(uri: "/todos", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try decode(TodoListResponse.self, response.body).todos.map(\.title), TodoStore.seedTitles)
            }
            try await client.execute(uri: "/stats", method: .get) { response in
                XCTAssertEqual(try decode(StatsResponse.self, response.body), StatsResponse(todos: 3, unitsOfWorkAlive: 0))
            }
        }
        let sessionsWhileServing = try await sessionCount(applicationName: "todo-api-tests-start")
        XCTAssertGreaterThan(sessionsWhileServing, 0)

        let before = ServiceEvents.all.count
        await server.stop()
        XCTAssertFalse(pool.isOpen, "the container's shutdown did not close the pool")
        XCTAssertEqual(Array(ServiceEvents.all.dropFirst(before)), ["store closed", "pool closed"])
        let sessionsAfterStop = try await sessionCount(applicationName: "todo-api-tests-start")
        XCTAssertEqual(sessionsAfterStop, 0, "the pool's sessions outlived its close")
    }

    /// A database that does not answer fails the start: `buildServer`
    /// throws `DIError.startFailed` naming the pool (and the store, which
    /// waits on it) with the pool's error, and builds no application.
    func testAStartWithoutADatabaseNamesThePoolAndBuildsNoApplication() async throws {
        // Nothing listens on port 1: every connection is refused.
        let settings = DatabaseSettings(url: "postgres://weavedi@127.0.0.1:1/todos", connectTimeout: .milliseconds(500))
        let connected = connections()
        do {
            _ = try await buildServer(wiring: .di, port: 0, logger: quietLogger, settings: settings)
            XCTFail("a server was built on a failed start")
        } catch DIError.startFailed(let failures) {
            XCTAssertEqual(failures.map(\.type), ["DatabasePool", "TodoStore"])
            for failure in failures {
                XCTAssertFalse(failure.timedOut, "\(failure)")
                XCTAssertTrue(failure.chain.hasSuffix("DatabasePool"), "\(failure)")
                guard case .factoryFailed(let type, _, let error) = failure.error else {
                    XCTFail("\(failure)")
                    continue
                }
                XCTAssertEqual(type, "DatabasePool", "\(failure)")
                guard case .unreachable(let url, _) = error.error as? DatabaseError else {
                    XCTFail("\(error)")
                    continue
                }
                XCTAssertEqual(url, settings.url)
            }
        }
        XCTAssertEqual(connections(), connected)
        XCTAssertFalse(WeaveDI.Container.live.isRegistered(DatabasePool.self), "the failed start was not shut down")
    }

    /// A service that does not finish within the timeout is named as hung,
    /// with what it was waiting on.
    func testAHungStartNamesWhatItWaitsOn() async throws {
        DIWiring.registerServices(settings: testSettings, logger: quietServiceLogger)
        UnifiedDI.register(DatabasePool.self, scope: .singleton) {
            // Outlasts the test run: the build goes on in the background.
            try await Task.sleep(for: .seconds(3600))
            return try await DatabasePool.connect(settings: testSettings, logger: quietServiceLogger)
        }
        do {
            try await UnifiedDI.start(timeout: .milliseconds(100))
            XCTFail("the start waited for the pool")
        } catch DIError.startFailed(let failures) {
            XCTAssertEqual(failures.map(\.type), ["DatabasePool", "TodoStore"])
            XCTAssertTrue(failures.allSatisfy(\.timedOut), "\(failures)")
            XCTAssertEqual(failures.last?.chain, "TodoStore -> DatabasePool")
        }
    }
}

/// The application's own logger: Hummingbird logs its start at info.
let quietLogger: Logger = {
    var logger = Logger(label: "hummingbird-server-tests")
    logger.logLevel = .error
    return logger
}()
