import WeaveDI
import XCTest

// Names upstream WeaveDI 3.4.0 compiles, written as its documentation
// writes them (issue 50, item 5).

private protocol Clock: Sendable {
    var name: String { get }
}

private final class SystemClock: Clock {
    let name = "system"
}

#if Macros
private final class Database: Sendable {}

@Component
private struct StorageComponent {
    @Provide(.singleton) var database: Database = Database()
    @Provide(.transient) var clock: Clock = SystemClock()
}
#endif

final class UpstreamNamesTests: UpstreamTestCase {
    func testTopLevelContainerIsTheLiveContainer() {
        Container.shared.register(Clock.self) { SystemClock() }
        XCTAssertEqual(UnifiedDI.resolve(Clock.self)?.name, "system")
        XCTAssertTrue(Container.shared === WeaveDI.Container.live)
        let own = Container()
        XCTAssertFalse(own === Container.shared)
        XCTAssertEqual(own.registrationCount, 0)
    }

    #if Macros
    func testProvideWithAnUnlabelledScope() throws {
        let container = Container()
        StorageComponent.registerAll(into: container)
        let first = try XCTUnwrap(container.resolve(Database.self))
        XCTAssertTrue(container.resolve(Database.self) === first, ".singleton: one instance")
        XCTAssertEqual(container.resolve(Clock.self)?.name, "system")
    }
    #endif
}
