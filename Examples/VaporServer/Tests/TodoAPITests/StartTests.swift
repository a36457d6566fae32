import TodoAPI
import WeaveDI
import XCTVapor

/// The server starts its services before serving (`buildApplication`, through
/// `UnifiedDI.start(timeout:)`): the pool's async factory connects once, the
/// store loads through it, and a pool that cannot connect stops the start
/// with an error naming it, before any application is made.
final class StartTests: XCTestCase {
    override func setUp() {
        super.setUp()
        WeaveDI.Container.live = WeaveDI.Container()
    }

    /// Registering runs no factory: the pool is not connected, and a
    /// synchronous resolve finds nothing built yet.
    func testRegisteringBuildsNothing() {
        let connected = ConnectionPool.connectedCount
        DIWiring.registerServices()
        XCTAssertNil(UnifiedDI.resolve(ConnectionPool.self))
        XCTAssertNil(UnifiedDI.resolve(TodoStore.self))
        XCTAssertEqual(ConnectionPool.connectedCount, connected)
    }

    /// A start connects the pool once (the store's factory joins that
    /// build), the routes serve the rows the store loaded through it, and
    /// the application's shutdown closes it (ReleaseDependenciesOnShutdown
    /// awaits the container's shutdown, which awaits `AsyncShutdown`).
    func testAStartConnectsThePoolOnceAndTheRoutesServe() async throws {
        let connected = ConnectionPool.connectedCount
        let app = try await buildApplication(wiring: .di, port: 0, logger: testLogger)
        let pool: ConnectionPool
        do {
            XCTAssertEqual(ConnectionPool.connectedCount - connected, 1)
            pool = try XCTUnwrap(UnifiedDI.resolve(ConnectionPool.self), "built by the start, so a synchronous resolve has it")
            XCTAssertTrue(pool.isOpen)
            XCTAssertTrue(UnifiedDI.resolve(TodoStore.self)?.pool === pool, "the store did not load through the pool")
            let again = try await UnifiedDI.resolveAsyncThrowing(ConnectionPool.self)
            XCTAssertTrue(again === pool)
            XCTAssertEqual(ConnectionPool.connectedCount - connected, 1, "the pool connected again after the start")

            let client = try app.testable()
            try await client.test(.GET, "/todos") { response async throws in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try response.content.decode(TodoListResponse.self).todos.map(\.title), TodoStore.seedTitles)
            }
            try await client.test(.GET, "/stats") { response async throws in
                XCTAssertEqual(try response.content.decode(StatsResponse.self).todos, 3)
            }
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
        XCTAssertFalse(pool.isOpen, "the application's shutdown did not close the pool")
    }

    /// A pool that cannot connect fails the start: `buildApplication` throws
    /// `DIError.startFailed` naming the pool (and the store, which needs it)
    /// with the pool's error, and makes no application.
    func testAFailedStartNamesThePoolAndMakesNoApplication() async throws {
        let url = "postgres://db.invalid/todos"
        let connected = ConnectionPool.connectedCount
        do {
            let app = try await buildApplication(wiring: .di, port: 0, logger: testLogger, databaseURL: url)
            try await app.asyncShutdown()
            XCTFail("an application was made on a failed start")
        } catch DIError.startFailed(let failures) {
            XCTAssertEqual(failures.map(\.type), ["ConnectionPool", "TodoStore"])
            for failure in failures {
                XCTAssertFalse(failure.timedOut, "\(failure)")
                XCTAssertTrue(failure.chain.hasSuffix("ConnectionPool"), "\(failure)")
                guard case .factoryFailed(let type, _, let error) = failure.error else {
                    XCTFail("\(failure)")
                    continue
                }
                XCTAssertEqual(type, "ConnectionPool", "\(failure)")
                XCTAssertEqual(error.error as? ConnectionPool.PoolError, .unsupportedURL(url))
            }
        }
        XCTAssertEqual(ConnectionPool.connectedCount, connected)
        XCTAssertFalse(WeaveDI.Container.live.isRegistered(ConnectionPool.self), "the failed start was not shut down")
    }

    /// A service that does not finish within the timeout is named as hung,
    /// with what it was waiting on.
    func testAHungStartNamesWhatItWaitsOn() async throws {
        DIWiring.registerServices()
        UnifiedDI.register(ConnectionPool.self, scope: .singleton) {
            // Outlasts the test run: the build goes on in the background.
            try await ConnectionPool.connect(to: ConnectionPool.defaultURL, latency: .seconds(3600))
        }
        do {
            try await UnifiedDI.start(timeout: .milliseconds(100))
            XCTFail("the start waited for the pool")
        } catch DIError.startFailed(let failures) {
            XCTAssertEqual(failures.map(\.type), ["ConnectionPool", "TodoStore"])
            XCTAssertTrue(failures.allSatisfy(\.timedOut), "\(failures)")
            XCTAssertEqual(failures.last?.chain, "TodoStore -> ConnectionPool")
        }
    }
}
