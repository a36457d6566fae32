import Foundation
import WeaveDI
import XCTest

private final class CycleA: Sendable {
    let b: CycleB?
    init(b: CycleB?) { self.b = b }
}
private final class CycleB: Sendable {
    let a: CycleA?
    init(a: CycleA?) { self.a = a }
}
private final class SelfLoop: Sendable {}

final class CycleTests: DITestCase {
    func testTwoTypeCycleThrowsWithChain() {
        forEachBackend { backend in
            UnifiedDI.register(CycleA.self, scope: .transient) { CycleA(b: UnifiedDI.resolve(CycleB.self)) }
            UnifiedDI.register(CycleB.self, scope: .transient) { CycleB(a: UnifiedDI.resolve(CycleA.self)) }
            let error = caughtError { () throws(DIError) in try UnifiedDI.resolveThrowing(CycleA.self) }
            XCTAssertEqual(error, .circularDependency(chain: "CycleA -> CycleB -> CycleA"), backend)
            XCTAssertNil(UnifiedDI.resolve(CycleB.self), backend)
        }
    }

    func testSingletonCycleThrowsAndCachesNothing() {
        UnifiedDI.register(CycleA.self, scope: .singleton) { CycleA(b: UnifiedDI.resolve(CycleB.self)) }
        UnifiedDI.register(CycleB.self, scope: .singleton) { CycleB(a: UnifiedDI.resolve(CycleA.self)) }
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing(CycleB.self)) { error in
            XCTAssertEqual(error as? DIError, .circularDependency(chain: "CycleB -> CycleA -> CycleB"))
        }
        // Breaking the cycle afterwards must work: nothing half-built was kept.
        UnifiedDI.register(CycleB.self, scope: .singleton) { CycleB(a: nil) }
        let a = UnifiedDI.resolve(CycleA.self)
        XCTAssertNotNil(a?.b)
        XCTAssertNil(a?.b?.a)
    }

    func testSelfDependencyIsACycleNotAStackOverflow() {
        UnifiedDI.register(SelfLoop.self, scope: .transient) {
            _ = UnifiedDI.resolve(SelfLoop.self)
            return SelfLoop()
        }
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing(SelfLoop.self)) { error in
            XCTAssertEqual(error as? DIError, .circularDependency(chain: "SelfLoop -> SelfLoop"))
        }
    }

    func testEagerRegistrationWithCycleThroughLazyEntries() {
        UnifiedDI.register(CycleB.self, scope: .transient) { CycleB(a: UnifiedDI.resolve(CycleA.self)) }
        UnifiedDI.register(CycleA.self, scope: .transient) { CycleA(b: UnifiedDI.resolve(CycleB.self)) }
        XCTAssertThrowsError(try WeaveDI.Container.live.resolveThrowing(CycleA.self))
    }

    func testCrossThreadSingletonCycleReportsInsteadOfHanging() {
        // Thread 1 builds A (needs B); thread 2 builds B (needs A). Both
        // factories wait until the other has started, so each holds the
        // slot the other needs.
        // Flags, not semaphores: a factory that runs again after the cycle
        // was reported must not block on a signal already consumed.
        let aStarted = Counter()
        let bStarted = Counter()
        @Sendable func waitFor(_ flag: Counter) {
            for _ in 0..<2_000 where flag.count == 0 { usleep(1_000) }
        }
        UnifiedDI.register(CycleA.self, scope: .singleton) {
            aStarted.increment()
            waitFor(bStarted)
            return CycleA(b: UnifiedDI.resolve(CycleB.self))
        }
        UnifiedDI.register(CycleB.self, scope: .singleton) {
            bStarted.increment()
            waitFor(aStarted)
            return CycleB(a: UnifiedDI.resolve(CycleA.self))
        }
        let results = ResultsBox()
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) { results.set(0, Result { try UnifiedDI.resolveThrowing(CycleA.self) }.map { _ in () }) }
        DispatchQueue.global().async(group: done) { results.set(1, Result { try UnifiedDI.resolveThrowing(CycleB.self) }.map { _ in () }) }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "cross-thread cycle hung")
        let failures = results.all.filter { if case .failure = $0 { return true } else { return false } }
        XCTAssertGreaterThanOrEqual(failures.count, 1, "a cycle went unreported")
        for case .failure(let error) in results.all {
            guard case .circularDependency(let chain)? = error as? DIError else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertTrue(chain.contains("CycleA") && chain.contains("CycleB"), chain)
        }
    }

    func testFactoryMayResolveAndRegisterWithoutDeadlock() {
        UnifiedDI.register(Int.self) { 41 }
        UnifiedDI.register(ServiceImpl.self, scope: .singleton) {
            UnifiedDI.register(String.self) { "registered inside a factory" }
            return ServiceImpl(id: UnifiedDI.requireResolve(Int.self) + 1)
        }
        XCTAssertEqual(UnifiedDI.resolve(ServiceImpl.self)?.id, 42)
        XCTAssertEqual(UnifiedDI.resolve(String.self), "registered inside a factory")
        // An eager registration whose factory registers too.
        UnifiedDI.register(Service.self) {
            UnifiedDI.register(Double.self) { 1.5 }
            return ServiceImpl(id: 1)
        }
        XCTAssertEqual(UnifiedDI.resolve(Double.self), 1.5)
    }

    func testDeinitMayCallBackIntoTheRegistry() {
        UnifiedDI.register(Reentrant.self) { Reentrant() }
        UnifiedDI.release(Reentrant.self)
        XCTAssertEqual(UnifiedDI.resolve(String.self), "from deinit")
    }
}

private final class Reentrant: Sendable {
    deinit { UnifiedDI.register(String.self) { "from deinit" } }
}

private final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Int: Result<Void, any Error>] = [:]
    func set(_ index: Int, _ result: Result<Void, any Error>) { lock.withLock { results[index] = result } }
    var all: [Result<Void, any Error>] { lock.withLock { Array(results.values) } }
}
