import WeaveDI
import XCTest

// Upstream 3.3's other container spellings, called as its code calls them.

private final class Report: Sendable {}
private struct Port: Sendable, Equatable { let value: Int }

extension WeaveDI.Container {
    fileprivate var report: Report? { resolve(Report.self) }
}

final class ContainerSpellingsTests: XCTestCase {
    override func setUp() { WeaveDI.Container.live = WeaveDI.Container() }
    override func tearDown() { WeaveDI.Container.live = WeaveDI.Container() }

    func testBuildIsTransientAndItsClosureReleases() {
        let container = WeaveDI.Container()
        let release = container.register(Report.self, build: { Report() })
        let first = container.resolve(Report.self)
        XCTAssertNotNil(first)
        XCTAssertFalse(first === container.resolve(Report.self), "a new instance per resolve")
        release()
        XCTAssertNil(container.resolve(Report.self))
    }

    func testATrailingClosureStillRegistersEagerly() {
        let container = WeaveDI.Container()
        let instance = container.register(Report.self) { Report() }
        XCTAssertTrue(container.resolve(Report.self) === instance, "register(_:) { } is the eager form, not build:")
    }

    func testAsyncSpellings() async {
        let container = WeaveDI.Container()
        let port = await container.registerAsync(Port.self) { () async -> Port in Port(value: 1) }
        XCTAssertEqual(port, Port(value: 1))
        let resolved = await container.resolveAsync(Port.self)
        XCTAssertEqual(resolved, Port(value: 1))
        await container.registerAsync(Port.self, instance: Port(value: 2))
        XCTAssertEqual(container.resolve(Port.self), Port(value: 2))
        let release = await container.registerFactoryAsync(Report.self, build: { Report() })
        XCTAssertNotNil(container.resolve(Report.self))
        await release()
        XCTAssertNil(container.resolve(Report.self))
        await container.releaseAsync(Port.self)
        XCTAssertNil(container.resolve(Port.self))
    }

    func testActorSpellings() async {
        let registered = await WeaveDI.Container.registerAsync(Port.self) { Port(value: 5) }
        XCTAssertEqual(registered, Port(value: 5))
        let resolved = await WeaveDI.Container.resolveAsync(Port.self)
        XCTAssertEqual(resolved, Port(value: 5))
        let shared = await WeaveDI.Container.actorShared
        XCTAssertTrue(shared === WeaveDI.Container.live)
        await shared.actorRegister(Port.self, instance: Port(value: 6))
        XCTAssertEqual(UnifiedDI.resolve(Port.self), Port(value: 6))
        XCTAssertEqual(shared.actorRegister(Port.self) { Port(value: 7) }, Port(value: 7))
    }

    func testReadSpellings() {
        let parent = WeaveDI.Container()
        let child = parent.createChild()
        XCTAssertTrue(child.getParent() === parent)
        XCTAssertNil(parent.getParent())
        XCTAssertEqual(child.resolveOrDefault(Port.self, default: Port(value: 0)), Port(value: 0))
        XCTAssertNil(child.resolve(Port.self, logOnMiss: true))
        let report = parent.register(Report.self) { Report() }
        XCTAssertTrue(child[\.report] === report)
        XCTAssertTrue(child.resolve(Report.self, logOnMiss: false) === report)
    }
}
