import TodoAPI
import TodoServices
import WeaveDI
import XCTest

final class WiringValidationTests: XCTestCase {
    override func setUp() async throws {
        try await super.setUp()
        WeaveDI.Container.live = WeaveDI.Container()
        try await registerAndStartServices()
    }

    override func tearDown() async throws {
        await UnifiedDI.shutdown()
        try await super.tearDown()
    }

    /// The wiring has no missing dependency, cycle or captive dependency,
    /// and the presenter depends on the request's unit of work. `validate()`
    /// runs synchronous factories only: the pool and the store (async
    /// factories) are nodes, without the edge between them.
    func testTheWiringValidates() {
        let report = UnifiedDI.validate()
        XCTAssertTrue(report.isValid, "\(report)")
        XCTAssertEqual(report.registrationCount, 4)
        XCTAssertEqual(report.graph.edges, [DependencyGraph.Edge(from: "TodoPresenter", to: "UnitOfWork")])
        XCTAssertEqual(
            report.graph.nodes,
            [
                .init(name: "DatabasePool", scope: .singleton),
                .init(name: "TodoPresenter", scope: .transient),
                .init(name: "TodoStore", scope: .singleton),
                .init(name: "UnitOfWork", scope: .task),
            ])
    }

    /// `explain` for what the handler resolves: which container answers,
    /// the scope, whether built (the start built the pool and the store),
    /// and the dependencies the last `validate()` saw. Printed for the log.
    func testExplainNamesWhatAnswersTheHandlersServices() {
        _ = UnifiedDI.validate()
        let presenter = UnifiedDI.explain(TodoPresenter.self)
        let store = UnifiedDI.explain(TodoStore.self)
        print(presenter)
        print(store)
        XCTAssertEqual(presenter.answeredBy, "the live container")
        XCTAssertEqual(presenter.scope, .transient)
        XCTAssertEqual(presenter.dependencyPaths, [["TodoPresenter", "UnitOfWork"]])
        XCTAssertTrue(presenter.description.contains("dependencies (last validate()): TodoPresenter -> UnitOfWork"), "\(presenter)")
        XCTAssertEqual(store.scope, .singleton)
        XCTAssertTrue(store.isAsync)
        XCTAssertEqual(store.isBuilt, true)
        XCTAssertTrue(store.description.contains("registration: lazy, async factory, singleton, built"), "\(store)")
    }

    /// The startup check the server can run (`--graph`): `validateAsync()`
    /// builds the async registrations too, in a throwaway copy, so the
    /// store's resolve of the pool is an edge of the graph.
    func testTheAsyncWiringValidates() async {
        let report = await UnifiedDI.validateAsync()
        XCTAssertTrue(report.isValid, "\(report)")
        XCTAssertEqual(report.registrationCount, 4)
        XCTAssertEqual(
            report.graph.edges,
            [
                DependencyGraph.Edge(from: "TodoPresenter", to: "UnitOfWork"),
                DependencyGraph.Edge(from: "TodoStore", to: "DatabasePool"),
            ])
    }

    /// A pool that cannot connect is a problem `validateAsync()` reports,
    /// with the pool's error; `validate()` does not run async factories.
    func testValidateAsyncReportsAPoolThatCannotConnect() async {
        DIWiring.registerServices(settings: DatabaseSettings(url: "postgres://db.invalid/todos"), logger: quietServiceLogger)
        XCTAssertTrue(UnifiedDI.validate().isValid)
        let report = await UnifiedDI.validateAsync()
        XCTAssertFalse(report.isValid)
        let poolFailed = report.problems.contains { problem in
            guard case .failed(let type, _, let reason) = problem else { return false }
            return type == "DatabasePool" && reason.contains("db.invalid")
        }
        XCTAssertTrue(poolFailed, "\(report)")
    }

    /// Validation builds its own copies: the live store is not rebuilt.
    func testValidationLeavesTheLiveStoreAlone() async throws {
        let store = UnifiedDI.requireResolve(TodoStore.self)
        _ = try await store.insert(title: "added before validating")
        XCTAssertTrue(UnifiedDI.validate().isValid)
        XCTAssertTrue(UnifiedDI.requireResolve(TodoStore.self) === store)
        let count = try await store.count()
        XCTAssertEqual(count, 4)
    }
}
