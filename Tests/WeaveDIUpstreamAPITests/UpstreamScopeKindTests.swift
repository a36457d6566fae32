import WeaveDI
import XCTest

// Upstream 3.3's named scopes (DIAdvanced.Scope, ScopeContext).

private final class Cart: Sendable {}
private actor Session {}

private final class LabelledCart: Sendable {
    let label: String
    init(_ label: String) { self.label = label }
}

private final class ClosedLabels: Sendable {
    private let labels = TestMutex<[String]>([])
    func add(_ label: String) { labels.withLock { $0.append(label) } }
    var sorted: [String] { labels.withLock { $0.sorted() } }
}

private final class ClosingCart: AsyncShutdown {
    let closed: ClosedLabels
    let label: String
    init(_ label: String, closed: ClosedLabels) {
        self.label = label
        self.closed = closed
    }
    func shutdown() async { closed.add(label) }
}

final class UpstreamScopeKindTests: XCTestCase {
    override func setUp() {
        WeaveDI.Container.live = WeaveDI.Container()
        ScopeContext.shared.clear(.session)
    }

    override func tearDown() {
        WeaveDI.Container.live = WeaveDI.Container()
        ScopeContext.shared.clear(.session)
    }

    func testOneInstancePerSessionId() async {
        DIAdvanced.Scope.registerScoped(Cart.self, scope: .session) { Cart() }
        XCTAssertFalse(UnifiedDI.resolve(Cart.self) === UnifiedDI.resolve(Cart.self), "no current id: a new instance each time")

        ScopeContext.shared.setCurrent(.session, id: "a")
        let a = UnifiedDI.resolve(Cart.self)
        XCTAssertNotNil(a)
        XCTAssertTrue(UnifiedDI.resolve(Cart.self) === a)
        ScopeContext.shared.setCurrent(.session, id: "b")
        let b = UnifiedDI.resolve(Cart.self)
        XCTAssertFalse(a === b)
        ScopeContext.shared.setCurrent(.session, id: "a")
        XCTAssertTrue(UnifiedDI.resolve(Cart.self) === a)
        XCTAssertEqual(ScopeContext.shared.currentID(for: .session), "a")

        let released = await DIAdvanced.Scope.releaseScope(.session, id: "a")
        XCTAssertEqual(released, 1)
        XCTAssertFalse(UnifiedDI.resolve(Cart.self) === a, "a released scope builds anew")
        let scopedRelease = await DIAdvanced.Scope.releaseScoped(Cart.self, kind: .session, id: "b")
        XCTAssertTrue(scopedRelease)
        let again = await DIAdvanced.Scope.releaseScoped(Cart.self, kind: .session, id: "b")
        XCTAssertFalse(again)
    }

    func testConcurrentResolvesInOneScopeBuildOnce() async {
        DIAdvanced.Scope.registerScoped(Cart.self, scope: .session) { Cart() }
        ScopeContext.shared.setCurrent(.session, id: "shared")
        let ids = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<64 {
                group.addTask { UnifiedDI.resolve(Cart.self).map(ObjectIdentifier.init) }
            }
            return await group.reduce(into: Set<ObjectIdentifier?>()) { $0.insert($1) }
        }
        XCTAssertEqual(ids.count, 1)
        XCTAssertFalse(ids.contains(nil))
        await DIAdvanced.Scope.releaseScope(.session, id: "shared")
    }

    func testSingletonKindAndReleaseClosure() {
        let release = DIAdvanced.Scope.registerScoped(Cart.self, scope: .singleton) { Cart() }
        XCTAssertTrue(UnifiedDI.resolve(Cart.self) === UnifiedDI.resolve(Cart.self))
        release()
        XCTAssertNil(UnifiedDI.resolve(Cart.self))
    }

    func testAsyncScoped() async {
        DIAdvanced.Scope.registerAsyncScoped(Session.self, scope: .session) { Session() }
        ScopeContext.shared.setCurrent(.session, id: "x")
        let first = await UnifiedDI.resolveAsync(Session.self)
        let second = await UnifiedDI.resolveAsync(Session.self)
        XCTAssertNotNil(first)
        XCTAssertTrue(first === second)
        await DIAdvanced.Scope.releaseScope(.session, id: "x")
    }

    // Issue 50 item 3: a scope id's instance lives with its registration.

    func testAReRegistrationIsUsedForAnIdAlreadyBuilt() {
        DIAdvanced.Scope.registerScoped(LabelledCart.self, scope: .session) { LabelledCart("first") }
        ScopeContext.shared.setCurrent(.session, id: "a")
        XCTAssertEqual(UnifiedDI.resolve(LabelledCart.self)?.label, "first")
        DIAdvanced.Scope.registerScoped(LabelledCart.self, scope: .session) { LabelledCart("second") }
        XCTAssertEqual(UnifiedDI.resolve(LabelledCart.self)?.label, "second")
    }

    func testReleaseReleaseAllAndResetDropTheScopesInstances() {
        ScopeContext.shared.setCurrent(.session, id: "a")
        for drop in [
            { UnifiedDI.release(Cart.self) }, { UnifiedDI.releaseAll() }, { WeaveDI.Container.resetForTesting() },
        ] {
            DIAdvanced.Scope.registerScoped(Cart.self, scope: .session) { Cart() }
            weak let built = UnifiedDI.resolve(Cart.self)
            XCTAssertNotNil(built)
            drop()
            XCTAssertNil(built, "the scope's instance went with its registration")
        }
    }

    func testAnOverlaysRegistrationHasItsOwnInstancesPerId() {
        DIAdvanced.Scope.registerScoped(LabelledCart.self, scope: .session) { LabelledCart("root") }
        ScopeContext.shared.setCurrent(.session, id: "a")
        let root = UnifiedDI.resolve(LabelledCart.self)
        XCTAssertEqual(root?.label, "root")
        withContainerOverlay {
            DIAdvanced.Scope.registerScoped(LabelledCart.self, scope: .session) { LabelledCart("overlay") }
            XCTAssertEqual(UnifiedDI.resolve(LabelledCart.self)?.label, "overlay")
        }
        XCTAssertTrue(UnifiedDI.resolve(LabelledCart.self) === root)
    }

    func testShutdownShutsDownEachIdsInstance() async {
        let closed = ClosedLabels()
        DIAdvanced.Scope.registerScoped(ClosingCart.self, scope: .session) {
            ClosingCart(ScopeContext.shared.currentID(for: .session) ?? "none", closed: closed)
        }
        for id in ["a", "b"] {
            ScopeContext.shared.setCurrent(.session, id: id)
            _ = UnifiedDI.resolve(ClosingCart.self)
        }
        await UnifiedDI.shutdown()
        XCTAssertEqual(closed.sorted, ["a", "b"])
        XCTAssertEqual(WeaveDI.Container.live.registrationCount, 0)
    }
}
