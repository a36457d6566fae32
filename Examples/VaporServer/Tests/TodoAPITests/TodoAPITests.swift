import Foundation
import TodoAPI
import TodoServices
import WeaveDI
import XCTVapor

final class TodoAPITests: XCTestCase {
    override func setUp() async throws {
        try await super.setUp()
        // A fresh container, a fresh pool and a fresh store for each test.
        WeaveDI.Container.live = WeaveDI.Container()
        try await registerAndStartServices()
    }

    override func tearDown() async throws {
        await UnifiedDI.shutdown()
        try await super.tearDown()
    }

    /// The load test's one-process application serves each wiring under its
    /// prefix, with the same bodies.
    func testComparisonAppServesBothWiringsUnderTheirPrefixes() async throws {
        try await withApp(wiring: nil) { app in
            let client = try app.testable()
            var bodies: [String: TodoDTO] = [:]
            for prefix in ["/di", "/manual"] {
                try await client.test(.GET, "\(prefix)/todos/2") { response async throws in
                    XCTAssertEqual(response.status, .ok, prefix)
                    let todo = try response.content.decode(TodoResponse.self)
                    XCTAssertEqual(todo.meta.unitOfWork, todo.meta.presenterUnitOfWork, prefix)
                    bodies[prefix] = todo.todo
                }
            }
            XCTAssertEqual(bodies["/di"], TodoDTO(id: 2, title: "Load-test it", done: false))
            XCTAssertEqual(bodies["/di"], bodies["/manual"])
            try await client.test(.GET, "/todos/2") { response async throws in
                XCTAssertEqual(response.status, .notFound, "a route outside both prefixes")
            }
        }
    }

    func testEndpointsAnswerUnderBothWirings() async throws {
        for wiring in Wiring.allCases {
            try await withApp(wiring: wiring) { app in
                let client = try app.testable()
                try await client.test(.GET, "/health") { response async throws in
                    XCTAssertEqual(response.status, .ok, "\(wiring)")
                    XCTAssertEqual(try response.content.decode(HealthResponse.self), HealthResponse(status: "ok"))
                }
                try await client.test(.GET, "/todos") { response async throws in
                    XCTAssertEqual(response.status, .ok, "\(wiring)")
                    let list = try response.content.decode(TodoListResponse.self)
                    XCTAssertEqual(list.todos.map(\.id), [1, 2, 3], "\(wiring)")
                }
                try await client.test(.GET, "/todos/2") { response async throws in
                    XCTAssertEqual(response.status, .ok, "\(wiring)")
                    let todo = try response.content.decode(TodoResponse.self)
                    XCTAssertEqual(todo.todo, TodoDTO(id: 2, title: "Load-test it", done: false), "\(wiring)")
                    XCTAssertEqual(todo.meta.reads, 1)
                }
                try await client.test(.POST, "/todos", body: ByteBuffer(string: #"{"title":"  from the test  "}"#)) {
                    response async throws in
                    XCTAssertEqual(response.status, .created, "\(wiring)")
                    let created = try response.content.decode(TodoResponse.self)
                    XCTAssertEqual(created.todo, TodoDTO(id: 4, title: "from the test", done: false), "\(wiring)")
                    XCTAssertEqual(created.meta.writes, 1)
                }
                // The shared handlers' refusals, in Vapor's Abort body.
                try await client.test(.GET, "/todos/99") { response async throws in
                    XCTAssertEqual(response.status, .notFound, "\(wiring)")
                    XCTAssertEqual(try abortBody(response), AbortBody(error: true, reason: "no todo 99"), "\(wiring)")
                }
                try await client.test(.GET, "/todos/first") { response async throws in
                    XCTAssertEqual(response.status, .badRequest, "\(wiring)")
                }
                try await client.test(.POST, "/todos", body: ByteBuffer(string: #"{"title":" "}"#)) { response async throws in
                    XCTAssertEqual(response.status, .badRequest, "\(wiring)")
                    XCTAssertEqual(try abortBody(response), AbortBody(error: true, reason: "title is empty"), "\(wiring)")
                }
                await waitUntilNoUnitOfWorkIsAlive()
                try await client.test(.GET, "/stats") { response async throws in
                    XCTAssertEqual(
                        try response.content.decode(StatsResponse.self),
                        StatsResponse(todos: 4, unitsOfWorkAlive: 0),
                        "\(wiring): a unit of work outlived its request"
                    )
                }
            }
            // Both wirings share the table: start the next wiring from the seed.
            try await registerAndStartServices()
        }
    }

    /// The handler's `@Injected` unit of work and the one the presenter's
    /// factory resolved are the same instance within a request, and another
    /// request gets another one; none outlives its request.
    func testUnitOfWorkIsOnePerRequest() async throws {
        try await withApp(wiring: .di) { app in
            let client = try app.testable()
            var seen: [UInt64] = []
            for path in ["/todos/1", "/todos/1", "/todos"] {
                try await client.test(.GET, path) { response async throws in
                    XCTAssertEqual(response.status, .ok)
                    let meta = try decodeMeta(response)
                    XCTAssertEqual(meta.unitOfWork, meta.presenterUnitOfWork, "two injection points, two instances")
                    XCTAssertEqual(meta.reads, 1, "the unit of work counted another request's reads")
                    seen.append(meta.unitOfWork)
                }
            }
            XCTAssertEqual(Set(seen).count, seen.count, "requests shared a unit of work: \(seen)")
            await waitUntilNoUnitOfWorkIsAlive()
            try await client.test(.GET, "/stats") { response async throws in
                XCTAssertEqual(try response.content.decode(StatsResponse.self).unitsOfWorkAlive, 0)
            }
        }
    }

    /// Many requests in flight at once: each one its own unit of work.
    func testConcurrentRequestsNeverShareAUnitOfWork() async throws {
        try await withApp(wiring: .di) { app in
            let client = try app.testable()
            let metas = try await withThrowingTaskGroup(of: ResponseMeta.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        let response = try await client.performTest(
                            request: XCTHTTPRequest(method: .GET, url: "/todos/3", headers: [:], body: ByteBuffer())
                        )
                        return try decodeMeta(response)
                    }
                }
                var metas: [ResponseMeta] = []
                for try await meta in group { metas.append(meta) }
                return metas
            }
            XCTAssertEqual(metas.count, 64)
            XCTAssertTrue(metas.allSatisfy { $0.unitOfWork == $0.presenterUnitOfWork && $0.reads == 1 })
            XCTAssertEqual(Set(metas.map(\.unitOfWork)).count, 64, "concurrent requests shared a unit of work")
            await waitUntilNoUnitOfWorkIsAlive()
            XCTAssertEqual(UnitOfWork.alive, 0, "a unit of work outlived its request")
        }
    }

    /// The two wirings answer the same bodies, apart from the unit-of-work
    /// serials, which count every request of the process. Vapor's error
    /// bodies come out with their keys in no fixed order, hence canonicalJSON.
    func testBothWiringsAnswerTheSameJSON() async throws {
        var bodies: [Wiring: [String]] = [:]
        for wiring in Wiring.allCases {
            try await registerAndStartServices()
            var collected: [String] = []
            try await withApp(wiring: wiring) { app in
                let client = try app.testable()
                let requests: [(String, HTTPMethod, String?)] = [
                    ("/health", .GET, nil), ("/todos", .GET, nil), ("/todos/1", .GET, nil),
                    ("/todos", .POST, #"{"title":"same"}"#), ("/todos", .GET, nil), ("/todos/7", .GET, nil),
                ]
                for (uri, method, body) in requests {
                    try await client.test(method, uri, body: body.map { ByteBuffer(string: $0) }) { response async throws in
                        collected.append("\(response.status.code) " + maskSerials(try canonicalJSON(response.body.string)))
                    }
                }
                await waitUntilNoUnitOfWorkIsAlive()
                try await client.test(.GET, "/stats") { response async throws in
                    collected.append("\(response.status.code) " + response.body.string)
                }
            }
            bodies[wiring] = collected
        }
        XCTAssertEqual(bodies[.di], bodies[.manual])
        XCTAssertEqual(bodies[.di]?.count, 7)
        XCTAssertEqual(bodies[.di]?.last, #"200 {"todos":4,"unitsOfWorkAlive":0}"#)
    }

    /// The same through a real server on loopback and Vapor's HTTP client,
    /// where requests come in on NIO's event loops, not from the test's task.
    func testRequestScopeOverRealHTTP() async throws {
        try await withApp(wiring: .di) { app in
            let client = try app.testable(method: .running(hostname: "127.0.0.1", port: 0))
            var seen: [UInt64] = []
            for _ in 0..<3 {
                try await client.test(.GET, "/todos/1") { response async throws in
                    XCTAssertEqual(response.status, .ok)
                    let meta = try decodeMeta(response)
                    XCTAssertEqual(meta.unitOfWork, meta.presenterUnitOfWork)
                    seen.append(meta.unitOfWork)
                }
            }
            XCTAssertEqual(Set(seen).count, 3, "requests shared a unit of work: \(seen)")
            await waitUntilNoUnitOfWorkIsAlive()
            XCTAssertEqual(UnitOfWork.alive, 0, "a unit of work outlived its request")
        }
    }

    /// Shutting the application down shuts the container down
    /// (ReleaseDependenciesOnShutdown), so the singleton store is deinitialised
    /// with the application and the pool it was loaded through is closed.
    func testShutdownReleasesTheSingletons() async throws {
        weak var store: TodoStore?
        let pool = try XCTUnwrap(UnifiedDI.resolve(DatabasePool.self))
        let app = try await Application.make(.testing, logger: testLogger)
        do {
            configure(app, wiring: .di)
            try await app.testable().test(.GET, "/stats") { response async throws in
                XCTAssertEqual(try response.content.decode(StatsResponse.self).todos, 3)
            }
            store = UnifiedDI.resolve(TodoStore.self)
            XCTAssertNotNil(store, "the singleton went before the application")
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
        XCTAssertNil(store, "the singleton outlived the application")
        XCTAssertFalse(WeaveDI.Container.live.isRegistered(TodoStore.self))
        XCTAssertFalse(pool.isOpen, "the shutdown did not close the pool (AsyncShutdown)")
    }

    /// A handler still running when the application shuts down (its client
    /// gone, so Vapor's server did not wait for it) keeps its services: the
    /// release waits for it, then happens.
    func testShutdownWaitsForRequestsStillRunning() async throws {
        let inFlight = InFlightRequests()
        let app = try await Application.make(.testing, logger: testLogger)
        configure(app, wiring: .di, inFlight: inFlight)
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (finish, finishContinuation) = AsyncStream.makeStream(of: Void.self)
        let handler = Task {
            await inFlight.track {
                enteredContinuation.yield()
                for await _ in finish { break }
                return UnifiedDI.resolve(TodoStore.self) != nil
            }
        }
        for await _ in entered { break }
        let shutdown = Task { try await app.asyncShutdown() }
        try await Task.sleep(for: .milliseconds(100))
        XCTAssertTrue(
            WeaveDI.Container.live.isRegistered(TodoStore.self),
            "the registrations were released under a running handler"
        )
        finishContinuation.yield()
        finishContinuation.finish()
        let handlerStillResolved = await handler.value
        XCTAssertTrue(handlerStillResolved, "the running handler lost its singleton")
        try await shutdown.value
        XCTAssertFalse(WeaveDI.Container.live.isRegistered(TodoStore.self), "not released once the handler ended")
    }

    /// A request that reaches the middleware once the shutdown has begun
    /// (Vapor accepted it just before it stopped) is refused with a 503
    /// saying so; it does not run against services being released.
    func testARequestAfterTheShutdownBeganIsRefused() async throws {
        let inFlight = InFlightRequests()
        let app = try await Application.make(.testing, logger: testLogger)
        do {
            configure(app, wiring: .di, inFlight: inFlight)
            let client = try app.testable()
            try await client.test(.GET, "/todos/1") { response async throws in
                XCTAssertEqual(response.status, .ok)
            }
            inFlight.beginStopping()
            try await client.test(.GET, "/todos/1") { response async throws in
                XCTAssertEqual(response.status, .serviceUnavailable)
                XCTAssertTrue(response.body.string.contains("the server is stopping"), response.body.string)
            }
            XCTAssertEqual(inFlight.current, 0)
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    /// A handler that never ends does not hold the shutdown forever, and is
    /// not pulled out from under: nothing is released.
    func testShutdownGivesUpOnAHandlerThatNeverEnds() async throws {
        let inFlight = InFlightRequests()
        let app = try await Application.make(.testing, logger: testLogger)
        app.lifecycle.use(ReleaseDependenciesOnShutdown(inFlight: inFlight, drainTimeout: .milliseconds(50)))
        let (finish, finishContinuation) = AsyncStream.makeStream(of: Void.self)
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let handler = Task {
            await inFlight.track {
                enteredContinuation.yield()
                for await _ in finish { break }
            }
        }
        for await _ in entered { break }
        try await app.asyncShutdown()
        XCTAssertTrue(WeaveDI.Container.live.isRegistered(TodoStore.self), "released under a running handler")
        finishContinuation.finish()
        await handler.value
    }
}

/// Runs `body` with an application configured for `wiring`, and shuts it
/// down whatever `body` does. The hand-wired routes get a store on a pool
/// of their own (`makeManualStore`), closed afterwards.
/// With `wiring` nil, both wirings under their prefixes (`configureComparison`).
func withApp(wiring: Wiring?, _ body: (Application) async throws -> Void) async throws {
    let manualStore = wiring == .di ? nil : try await makeManualStore()
    let app = try await Application.make(.testing, logger: testLogger)
    do {
        if let wiring {
            configure(app, wiring: wiring, store: manualStore ?? TodoStore(pool: nil))
        } else {
            configureComparison(app, store: manualStore!)
        }
        try await body(app)
    } catch {
        try await app.asyncShutdown()
        if let manualStore { await closeManualStore(manualStore) }
        throw error
    }
    try await app.asyncShutdown()
    if let manualStore { await closeManualStore(manualStore) }
}

/// Vapor logs every 4xx at warning and every server start at notice; the
/// tests cause both on purpose.
let testLogger: Logger = {
    var logger = Logger(label: "vapor-server-tests")
    logger.logLevel = .error
    return logger
}()

/// Vapor runs a route handler in a task of its own that inherits the
/// request's scope and keeps it until that task ends, which may be a moment
/// after the response has reached the client. A scope's instances go when its
/// last task does, so a check that none outlived its request waits (at most
/// two seconds) for those tasks to finish first.
func waitUntilNoUnitOfWorkIsAlive() async {
    for _ in 0..<200 where UnitOfWork.alive != 0 {
        try? await Task.sleep(for: .milliseconds(10))
    }
}

func decodeMeta(_ response: XCTHTTPResponse) throws -> ResponseMeta {
    struct WithMeta: Decodable { var meta: ResponseMeta }
    return try response.content.decode(WithMeta.self).meta
}

/// The same JSON with its object keys sorted.
func canonicalJSON(_ json: String) throws -> String {
    let object = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    return String(decoding: data, as: UTF8.self)
}

/// Replaces the values of "unitOfWork" and "presenterUnitOfWork" with "#".
func maskSerials(_ json: String) -> String {
    var result = json
    for key in ["\"unitOfWork\":", "\"presenterUnitOfWork\":"] {
        var searchStart = result.startIndex
        while let keyRange = result.range(of: key, range: searchStart..<result.endIndex) {
            var end = keyRange.upperBound
            while end < result.endIndex, result[end].isNumber { end = result.index(after: end) }
            result.replaceSubrange(keyRange.upperBound..<end, with: "#")
            searchStart = keyRange.upperBound
        }
    }
    return result
}

/// The body Vapor's error middleware writes for an `Abort` (its key order is
/// not fixed, so it is compared decoded).
struct AbortBody: Decodable, Equatable {
    var error: Bool
    var reason: String
}

func abortBody(_ response: XCTHTTPResponse) throws -> AbortBody {
    try JSONDecoder().decode(AbortBody.self, from: Data(response.body.readableBytesView))
}
