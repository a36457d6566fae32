import TodoAPI
import TodoServices
import WeaveDI
import XCTVapor

/// The server starts its services before serving (`buildApplication`, through
/// `UnifiedDI.start(timeout:)`): the pool's async factory connects to
/// PostgreSQL once and creates the table, the store uses it, and a database
/// the pool cannot reach stops the start with an error naming it, before
/// any application is made. The application's shutdown closes the store,
/// then the pool, whose sessions leave the server.
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
    /// application's shutdown (ReleaseDependenciesOnShutdown awaits the
    /// container's shutdown) closes the store, then the pool, whose sessions
    /// leave pg_stat_activity.
    func testAStartConnectsThePoolOnceAndShutdownClosesStoreThenPool() async throws {
        let connected = connections()
        var settings = testSettings
        settings.applicationName = "todo-api-tests-start"
        let app = try await buildApplication(wiring: .di, port: 0, logger: testLogger, settings: settings)
        let pool: DatabasePool
        do {
            XCTAssertEqual(connections() - connected, 1)
            pool = try XCTUnwrap(UnifiedDI.resolve(DatabasePool.self), "built by the start, so a synchronous resolve has it")
            XCTAssertTrue(pool.isOpen)
            XCTAssertTrue(UnifiedDI.resolve(TodoStore.self)?.pool === pool, "the store does not use the pool")
            let again = try await UnifiedDI.resolveAsyncThrowing(DatabasePool.self)
            XCTAssertTrue(again === pool)
            XCTAssertEqual(connections() - connected, 1, "the pool connected again after the start")
            try await pool.migrate(reset: true)

            let client = try app.testable()
            try await client.test(.GET, "/todos") { response async throws in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try response.content.decode(TodoListResponse.self).todos.map(\.title), TodoStore.seedTitles)
            }
            try await client.test(.GET, "/stats") { response async throws in
                XCTAssertEqual(try response.content.decode(StatsResponse.self).todos, 3)
            }
            let sessionsWhileServing = try await sessionCount(applicationName: "todo-api-tests-start")
            XCTAssertGreaterThan(sessionsWhileServing, 0)
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        let before = ServiceEvents.all.count
        try await app.asyncShutdown()
        XCTAssertFalse(pool.isOpen, "the application's shutdown did not close the pool")
        XCTAssertEqual(Array(ServiceEvents.all.dropFirst(before)), ["store closed", "pool closed"])
        let sessionsAfterShutdown = try await sessionCount(applicationName: "todo-api-tests-start")
        XCTAssertEqual(sessionsAfterShutdown, 0, "the pool's sessions outlived its close")
    }

    /// A database that does not answer fails the start: `buildApplication`
    /// throws `DIError.startFailed` naming the pool (and the store, which
    /// waits on it) with the pool's error, and makes no application.
    func testAStartWithoutADatabaseNamesThePoolAndMakesNoApplication() async throws {
        // Nothing listens on port 1: every connection is refused.
        let settings = DatabaseSettings(url: "postgres://weavedi@127.0.0.1:1/todos", connectTimeout: .milliseconds(500))
        let connected = connections()
        do {
            let app = try await buildApplication(wiring: .di, port: 0, logger: testLogger, settings: settings)
            try await app.asyncShutdown()
            XCTFail("an application was made on a failed start")
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
