import WeaveDI
import XCTest

private final class ScopedReader: @unchecked Sendable {
    @Injected var transient: ServiceImpl
    @Injected var request: RequestContext?
}

final class InjectedScopeTests: DITestCase {
    func testTransientRegistrationsGiveANewInstancePerRead() {
        UnifiedDI.register(ServiceImpl.self, scope: .transient) { ServiceImpl() }
        let reader = ScopedReader()
        XCTAssertFalse(reader.transient === reader.transient, "@Injected pinned a transient")
    }

    func testALongLivedWrapperSeesEachTaskScopesOwnInstance() async {
        let counter = Counter()
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: counter.increment()) }
        let reader = ScopedReader()
        var serials: [Int] = []
        for _ in 0..<3 {
            let serial = await withTaskScope { () async -> Int? in
                await Task.yield()
                let first = reader.request
                XCTAssertTrue(first === reader.request, "one instance per scope")
                return first?.serial
            }
            serials.append(serial ?? -1)
        }
        XCTAssertEqual(serials, [1, 2, 3])
        XCTAssertNil(reader.request, "outside a scope there is no task instance")
    }

    func testSingletonsAreStillCachedAfterTheirFirstBuild() {
        let counter = Counter()
        UnifiedDI.register(ServiceImpl.self, scope: .singleton) { ServiceImpl(id: counter.increment()) }
        let reader = ScopedReader()
        XCTAssertTrue(reader.transient === reader.transient)
        XCTAssertEqual(counter.count, 1)
    }
}
