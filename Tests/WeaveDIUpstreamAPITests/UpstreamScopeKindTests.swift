import WeaveDI
import XCTest

// Upstream 3.3's named scopes (DIAdvanced.Scope, ScopeContext).

private final class Cart: Sendable {}
private actor Session {}

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
}
