import Hummingbird
import HummingbirdTesting
import Logging
import TodoAPI
import WeaveDI
import XCTest

/// The server starts its services before serving (`buildApplication`, through
/// `UnifiedDI.start(timeout:)`): the pool's async factory connects once, the
/// store loads through it, and a pool that cannot connect stops the start
/// with an error naming it, before any application exists.
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
    /// the container's shutdown closes it (AsyncShutdown).
    func testAStartConnectsThePoolOnceAndTheRoutesServe() async throws {
        let connected = ConnectionPool.connectedCount
        let app = try await buildApplication(wiring: .di, port: 0, logger: quietLogger)
        XCTAssertEqual(ConnectionPool.connectedCount - connected, 1)
        let pool = try XCTUnwrap(UnifiedDI.resolve(ConnectionPool.self), "built by the start, so a synchronous resolve has it")
        XCTAssertTrue(pool.isOpen)
        XCTAssertTrue(UnifiedDI.resolve(TodoStore.self)?.pool === pool, "the store did not load through the pool")
        let again = try await UnifiedDI.resolveAsyncThrowing(ConnectionPool.self)
        XCTAssertTrue(again === pool)
        XCTAssertEqual(ConnectionPool.connectedCount - connected, 1, "the pool connected again after the start")

        try await app.test(.router) { client in
            try await client.execute(uri: "/todos", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(try decode(TodoListResponse.self, response.body).todos.map(\.title), TodoStore.seedTitles)
            }
            try await client.execute(uri: "/stats", method: .get) { response in
                XCTAssertEqual(try decode(StatsResponse.self, response.body), StatsResponse(todos: 3, unitsOfWorkAlive: 0))
            }
        }

        await UnifiedDI.shutdown()
        XCTAssertFalse(pool.isOpen, "the container's shutdown did not close the pool")
    }

    /// A pool that cannot connect fails the start: `buildApplication` throws
    /// `DIError.startFailed` naming the pool (and the store, which needs it)
    /// with the pool's error, and builds no application.
    func testAFailedStartNamesThePoolAndBuildsNoApplication() async throws {
        let url = "postgres://db.invalid/todos"
        let connected = ConnectionPool.connectedCount
        do {
            _ = try await buildApplication(wiring: .di, port: 0, logger: quietLogger, databaseURL: url)
            XCTFail("an application was built on a failed start")
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

/// The application's own logger: Hummingbird logs its start at info.
let quietLogger: Logger = {
    var logger = Logger(label: "hummingbird-server-tests")
    logger.logLevel = .error
    return logger
}()
