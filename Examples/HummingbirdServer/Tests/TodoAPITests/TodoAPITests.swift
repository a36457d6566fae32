import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import TodoAPI
import TodoServices
import WeaveDI
import XCTest

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

    func testEndpointsAnswerUnderBothWirings() async throws {
        for wiring in Wiring.allCases {
            let store = try await makeManualStore()
            let app = Application(router: buildRouter(wiring: wiring, store: store))
            try await app.test(.router) { client in
                try await client.execute(uri: "/health", method: .get) { response in
                    XCTAssertEqual(response.status, .ok, "\(wiring)")
                    XCTAssertEqual(try decode(HealthResponse.self, response.body), HealthResponse(status: "ok"))
                }
                try await client.execute(uri: "/todos", method: .get) { response in
                    XCTAssertEqual(response.status, .ok, "\(wiring)")
                    let list = try decode(TodoListResponse.self, response.body)
                    XCTAssertEqual(list.todos.map(\.id), [1, 2, 3], "\(wiring)")
                }
                try await client.execute(uri: "/todos/2", method: .get) { response in
                    XCTAssertEqual(response.status, .ok, "\(wiring)")
                    let todo = try decode(TodoResponse.self, response.body)
                    XCTAssertEqual(todo.todo, TodoDTO(id: 2, title: "Load-test it", done: false), "\(wiring)")
                    XCTAssertEqual(todo.meta.reads, 1)
                }
                try await client.execute(
                    uri: "/todos",
                    method: .post,
                    body: ByteBuffer(string: #"{"title":"  from the test  "}"#)
                ) { response in
                    XCTAssertEqual(response.status, .created, "\(wiring)")
                    let created = try decode(TodoResponse.self, response.body)
                    XCTAssertEqual(created.todo, TodoDTO(id: 4, title: "from the test", done: false), "\(wiring)")
                    XCTAssertEqual(created.meta.writes, 1)
                }
                // The shared handlers' refusals, in Hummingbird's HTTPError body.
                try await client.execute(uri: "/todos/99", method: .get) { response in
                    XCTAssertEqual(response.status, .notFound, "\(wiring)")
                    XCTAssertEqual(String(buffer: response.body), #"{"error":{"message":"no todo 99"}}"#, "\(wiring)")
                }
                try await client.execute(uri: "/todos", method: .post, body: ByteBuffer(string: #"{"title":" "}"#)) {
                    response in
                    XCTAssertEqual(response.status, .badRequest, "\(wiring)")
                    XCTAssertEqual(String(buffer: response.body), #"{"error":{"message":"title is empty"}}"#, "\(wiring)")
                }
                try await client.execute(uri: "/stats", method: .get) { response in
                    XCTAssertEqual(
                        try decode(StatsResponse.self, response.body),
                        StatsResponse(todos: 4, unitsOfWorkAlive: 0),
                        "\(wiring): a unit of work outlived its request"
                    )
                }
            }
            await closeManualStore(store)
            // Both wirings share the table: start the next wiring from the seed.
            try await registerAndStartServices()
        }
    }

    /// The load test's one-process router serves each wiring under its
    /// prefix, with the same bodies; only the DI routes open a task scope.
    func testComparisonRouterServesBothWiringsUnderTheirPrefixes() async throws {
        let store = try await makeManualStore()
        let app = Application(router: buildComparisonRouter(store: store))
        try await app.test(.router) { client in
            var bodies: [String: TodoDTO] = [:]
            for prefix in ["/di", "/manual"] {
                try await client.execute(uri: "\(prefix)/todos/2", method: .get) { response in
                    XCTAssertEqual(response.status, .ok, prefix)
                    let todo = try decode(TodoResponse.self, response.body)
                    let meta = try decodeMeta(response.body)
                    XCTAssertEqual(meta.unitOfWork, meta.presenterUnitOfWork, prefix)
                    bodies[prefix] = todo.todo
                }
            }
            XCTAssertEqual(bodies["/di"], TodoDTO(id: 2, title: "Load-test it", done: false))
            XCTAssertEqual(bodies["/di"], bodies["/manual"])
            try await client.execute(uri: "/todos/2", method: .get) { response in
                XCTAssertEqual(response.status, .notFound, "a route outside both prefixes")
            }
        }
        await closeManualStore(store)
    }

    /// The handler's `@Injected` unit of work and the one the presenter's
    /// factory resolved are the same instance within a request, and another
    /// request gets another one; none outlives its request.
    func testUnitOfWorkIsOnePerRequest() async throws {
        let app = Application(router: buildRouter(wiring: .di))
        try await app.test(.router) { client in
            var seen: [UInt64] = []
            for path in ["/todos/1", "/todos/1", "/todos"] {
                try await client.execute(uri: path, method: .get) { response in
                    XCTAssertEqual(response.status, .ok)
                    let meta = try decodeMeta(response.body)
                    XCTAssertEqual(meta.unitOfWork, meta.presenterUnitOfWork, "two injection points, two instances")
                    XCTAssertEqual(meta.reads, 1, "the unit of work counted another request's reads")
                    seen.append(meta.unitOfWork)
                }
            }
            XCTAssertEqual(Set(seen).count, seen.count, "requests shared a unit of work: \(seen)")
            try await client.execute(uri: "/stats", method: .get) { response in
                XCTAssertEqual(try decode(StatsResponse.self, response.body).unitsOfWorkAlive, 0)
            }
        }
    }

    /// Many requests in flight at once: each one its own unit of work.
    func testConcurrentRequestsNeverShareAUnitOfWork() async throws {
        let app = Application(router: buildRouter(wiring: .di))
        try await app.test(.router) { client in
            let ids = try await withThrowingTaskGroup(of: ResponseMeta.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        try await client.execute(uri: "/todos/3", method: .get) { response in
                            try decodeMeta(response.body)
                        }
                    }
                }
                var metas: [ResponseMeta] = []
                for try await meta in group { metas.append(meta) }
                return metas
            }
            XCTAssertEqual(ids.count, 64)
            XCTAssertTrue(ids.allSatisfy { $0.unitOfWork == $0.presenterUnitOfWork && $0.reads == 1 })
            XCTAssertEqual(Set(ids.map(\.unitOfWork)).count, 64, "concurrent requests shared a unit of work")
        }
    }

    /// The two wirings answer the same bodies, apart from the unit-of-work
    /// serials, which count every request of the process.
    func testBothWiringsAnswerTheSameJSON() async throws {
        var bodies: [Wiring: [String]] = [:]
        for wiring in Wiring.allCases {
            try await registerAndStartServices()
            let store = try await makeManualStore()
            let app = Application(router: buildRouter(wiring: wiring, store: store))
            bodies[wiring] = try await app.test(.router) { client in
                var collected: [String] = []
                let requests: [(String, HTTPRequest.Method, String?)] = [
                    ("/health", .get, nil), ("/todos", .get, nil), ("/todos/1", .get, nil),
                    ("/todos", .post, #"{"title":"same"}"#), ("/todos", .get, nil), ("/todos/7", .get, nil),
                    ("/stats", .get, nil),
                ]
                for (uri, method, body) in requests {
                    try await client.execute(uri: uri, method: method, body: body.map { ByteBuffer(string: $0) }) {
                        response in
                        collected.append("\(response.status.code) " + maskSerials(String(buffer: response.body)))
                    }
                }
                return collected
            }
            await closeManualStore(store)
        }
        XCTAssertEqual(bodies[.di], bodies[.manual])
        XCTAssertEqual(bodies[.di]?.count, 7)
    }
}

func decode<T: Decodable>(_ type: T.Type, _ body: ByteBuffer) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(String(buffer: body).utf8))
}

func decodeMeta(_ body: ByteBuffer) throws -> ResponseMeta {
    struct WithMeta: Decodable { var meta: ResponseMeta }
    return try decode(WithMeta.self, body).meta
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
