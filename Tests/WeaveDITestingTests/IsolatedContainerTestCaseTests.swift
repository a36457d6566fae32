import WeaveDI
import WeaveDITesting
import XCTest

private protocol XCTestIsolatedService: Sendable { var name: String { get } }
private struct NamedXCTestIsolatedService: XCTestIsolatedService { let name: String }

/// The XCTest set-up pattern (`releaseAll()`, then register a mock in
/// `setUp`), unchanged except for the base class.
final class IsolatedContainerTestCaseSetUpTests: IsolatedContainerTestCase {
    override func setUp() {
        super.setUp()
        UnifiedDI.releaseAll()
        UnifiedDI.register((any XCTestIsolatedService).self) { NamedXCTestIsolatedService(name: "mock") }
    }

    func testTheTestSeesItsMockAndTheLiveContainerDoesNot() async {
        XCTAssertEqual(UnifiedDI.resolve((any XCTestIsolatedService).self)?.name, "mock")
        let outside = await Task.detached { UnifiedDI.resolve((any XCTestIsolatedService).self) }.value
        XCTAssertNil(outside)
    }

    func testSynchronousTestsRunInsideTheOverlayToo() {
        XCTAssertEqual(UnifiedDI.resolve((any XCTestIsolatedService).self)?.name, "mock")
    }
}

final class IsolatedContainerTestCaseRegistrationTests: IsolatedContainerTestCase {
    override func registerDependencies(in container: DIContainer) {
        container.register((any XCTestIsolatedService).self) { NamedXCTestIsolatedService(name: "listed") }
    }

    func testRegistrationsListedByTheClassAreThere() {
        XCTAssertEqual(UnifiedDI.resolve((any XCTestIsolatedService).self)?.name, "listed")
    }
}
