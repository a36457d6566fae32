import Foundation
import WeaveDI
import XCTest

final class ScopeTests: DITestCase {
    func testTransientGivesANewInstanceEachResolve() {
        forEachBackend { backend in
            UnifiedDI.register(ServiceImpl.self, scope: .transient) { ServiceImpl() }
            let a = UnifiedDI.resolve(ServiceImpl.self)
            let b = UnifiedDI.resolve(ServiceImpl.self)
            XCTAssertNotNil(a, backend)
            XCTAssertFalse(a === b, backend)
        }
    }

    func testLazySingletonIsBuiltOnFirstResolveOnly() {
        forEachBackend { backend in
            let counter = Counter()
            UnifiedDI.register(ServiceImpl.self, scope: .singleton) {
                counter.increment()
                return ServiceImpl()
            }
            XCTAssertEqual(counter.count, 0, "lazy registration ran its factory early (\(backend))")
            let a = UnifiedDI.resolve(ServiceImpl.self)
            let b = UnifiedDI.resolve(ServiceImpl.self)
            XCTAssertTrue(a === b, backend)
            XCTAssertEqual(counter.count, 1, backend)
        }
    }

    func testSingletonIsBuiltOnceWhenManyThreadsResolveItFirstTogether() {
        for round in 0..<20 {
            WeaveDI.Container.live = WeaveDI.Container()
            let counter = Counter()
            UnifiedDI.register(ServiceImpl.self, scope: .singleton) {
                counter.increment()
                usleep(200)  // widen the window in which others arrive
                return ServiceImpl(id: round)
            }
            let seen = SeenIdentities()
            DispatchQueue.concurrentPerform(iterations: 16) { _ in
                seen.insert(UnifiedDI.resolve(ServiceImpl.self))
            }
            XCTAssertEqual(counter.count, 1, "round \(round): factory ran \(counter.count) times")
            XCTAssertEqual(seen.count, 1, "round \(round): threads saw different instances")
        }
    }

    func testWeakScopeSharesWhileHeldAndRebuildsAfter() {
        let counter = Counter()
        UnifiedDI.register(Tracked.self, scope: .weak) { Tracked(tag: counter.increment()) }
        var held: Tracked? = UnifiedDI.resolve(Tracked.self)
        XCTAssertTrue(UnifiedDI.resolve(Tracked.self) === held)
        XCTAssertEqual(counter.count, 1)
        held = nil
        let rebuilt = UnifiedDI.resolve(Tracked.self)
        XCTAssertEqual(rebuilt?.tag, 2)
        XCTAssertEqual(counter.count, 2)
        _ = held
    }

    func testFactoryScopesMapToTheSameProvideScopeCases() {
        XCTAssertEqual(Set(ProvideScope.allCases), [.transient, .singleton, .weak, .task, .graph])
    }
}

/// Collects the distinct object identities several threads observed.
private final class SeenIdentities: Sendable {
    private let identities = TestMutex(Set<ObjectIdentifier>())

    func insert(_ object: AnyObject?) {
        guard let object else { return }
        identities.withLock { _ = $0.insert(ObjectIdentifier(object)) }
    }

    var count: Int { identities.withLock { $0.count } }
}
