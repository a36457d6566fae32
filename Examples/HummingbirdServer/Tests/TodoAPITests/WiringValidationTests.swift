import TodoAPI
import WeaveDI
import XCTest

final class WiringValidationTests: XCTestCase {
    override func setUp() {
        super.setUp()
        WeaveDI.Container.live = WeaveDI.Container()
        DIWiring.registerServices(store: { TodoStore.seeded() })
    }

    /// The startup check the server can run (`--graph`): the wiring has no
    /// missing dependency, cycle or captive dependency, and the presenter
    /// depends on the request's unit of work.
    func testTheWiringValidates() {
        let report = UnifiedDI.validate()
        XCTAssertTrue(report.isValid, "\(report)")
        XCTAssertEqual(report.registrationCount, 3)
        XCTAssertEqual(report.graph.edges, [DependencyGraph.Edge(from: "TodoPresenter", to: "UnitOfWork")])
        XCTAssertEqual(
            report.graph.nodes,
            [
                .init(name: "TodoPresenter", scope: .transient),
                .init(name: "TodoStore", scope: .singleton),
                .init(name: "UnitOfWork", scope: .task),
            ])
    }

    /// Validation builds its own copies: the live store is not rebuilt.
    func testValidationLeavesTheLiveStoreAlone() {
        let store = UnifiedDI.requireResolve(TodoStore.self)
        _ = store.insert(title: "added before validating")
        XCTAssertTrue(UnifiedDI.validate().isValid)
        XCTAssertTrue(UnifiedDI.requireResolve(TodoStore.self) === store)
        XCTAssertEqual(store.count, 4)
    }
}
