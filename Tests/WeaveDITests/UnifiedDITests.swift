import WeaveDI
import XCTest

final class UnifiedDITests: DITestCase {
    func testEagerRegisterRunsFactoryNowAndReturnsTheInstance() {
        forEachBackend { backend in
            let counter = Counter()
            let registered = UnifiedDI.register(Service.self) {
                counter.increment()
                return ServiceImpl(id: 7)
            }
            XCTAssertEqual(counter.count, 1, backend)
            XCTAssertEqual(registered.id, 7, backend)
            XCTAssertTrue(UnifiedDI.resolve(Service.self) as? ServiceImpl === registered as? ServiceImpl, backend)
            XCTAssertEqual(counter.count, 1, "resolving an eager registration must not run the factory again")
        }
    }

    func testResolveMissReturnsNilAndDefault() {
        forEachBackend { backend in
            XCTAssertNil(UnifiedDI.resolve(Service.self), backend)
            XCTAssertEqual(UnifiedDI.resolve(Service.self, default: ServiceImpl(id: 3)).id, 3, backend)
        }
    }

    func testResolveThrowingNamesTheMissingType() {
        forEachBackend { backend in
            let error = caughtError { () throws(DIError) in try UnifiedDI.resolveThrowing(Service.self) }
            XCTAssertEqual(error, .dependencyNotFound(type: "Service"), backend)
            XCTAssertTrue("\(error.map { "\($0)" } ?? "")".contains("UnifiedDI.register(Service.self)"), backend)
        }
    }

    func testReRegisterReplacesAndOldInstanceDeinits() {
        forEachBackend { backend in
            let before = Tracked.alive.load(ordering: .sequentiallyConsistent)
            UnifiedDI.register(Tracked.self) { Tracked(tag: 1) }
            UnifiedDI.register(Tracked.self) { Tracked(tag: 2) }
            XCTAssertEqual(UnifiedDI.resolve(Tracked.self)?.tag, 2, backend)
            XCTAssertEqual(Tracked.alive.load(ordering: .sequentiallyConsistent), before + 1, "replaced instance leaked (\(backend))")
            UnifiedDI.release(Tracked.self)
            XCTAssertNil(UnifiedDI.resolve(Tracked.self), backend)
            XCTAssertEqual(Tracked.alive.load(ordering: .sequentiallyConsistent), before, "released instance leaked (\(backend))")
        }
    }

    func testReleaseAllDropsEverythingAndDeinits() {
        let before = Tracked.alive.load(ordering: .sequentiallyConsistent)
        UnifiedDI.register(Tracked.self) { Tracked() }
        UnifiedDI.register(Service.self) { ServiceImpl() }
        UnifiedDI.register(Int.self, scope: .singleton) { 5 }
        UnifiedDI.releaseAll()
        XCTAssertNil(UnifiedDI.resolve(Tracked.self))
        XCTAssertNil(UnifiedDI.resolve(Service.self))
        XCTAssertNil(UnifiedDI.resolve(Int.self))
        XCTAssertEqual(WeaveDI.Container.live.registrationCount, 0)
        XCTAssertEqual(Tracked.alive.load(ordering: .sequentiallyConsistent), before)
    }

    func testReleaseAllFromAnActorAndDetachedTask() async {
        UnifiedDI.register(Service.self) { ServiceImpl() }
        await Task.detached { UnifiedDI.releaseAll() }.value
        XCTAssertNil(UnifiedDI.resolve(Service.self))
        UnifiedDI.register(Service.self) { ServiceImpl() }
        await MainActor.run { UnifiedDI.releaseAll() }
        XCTAssertNil(UnifiedDI.resolve(Service.self))
    }

    func testAsyncRegisterAndResolve() async {
        let value = await UnifiedDI.registerAsync(Service.self) { ServiceImpl(id: 11) }
        XCTAssertEqual(value.id, 11)
        let resolved = await UnifiedDI.resolveAsync(Service.self)
        XCTAssertEqual(resolved?.id, 11)
    }

    func testDIIsAnAliasOfUnifiedDI() {
        DI.register(Service.self) { ServiceImpl(id: 4) }
        XCTAssertEqual(UnifiedDI.resolve(Service.self)?.id, 4)
    }

    func testValueTypesAndExistentialsAreKeyedByTheirOwnType() {
        UnifiedDI.register(Int.self) { 1 }
        UnifiedDI.register(String.self) { "s" }
        UnifiedDI.register(Service.self) { ServiceImpl(id: 2) }
        UnifiedDI.register(ServiceImpl.self) { ServiceImpl(id: 3) }
        XCTAssertEqual(UnifiedDI.resolve(Int.self), 1)
        XCTAssertEqual(UnifiedDI.resolve(String.self), "s")
        XCTAssertEqual(UnifiedDI.resolve(Service.self)?.id, 2)
        XCTAssertEqual(UnifiedDI.resolve(ServiceImpl.self)?.id, 3)
        XCTAssertNil(UnifiedDI.resolve(Double.self))
    }

    func testToggleKeepsEveryRegistration() {
        for i in 0..<3 {
            UnifiedDI.register(Service.self) { ServiceImpl(id: i) }
            UnifiedRegistry.shared.disableOptimization()
            XCTAssertFalse(UnifiedRegistry.shared.isOptimizationEnabled)
            XCTAssertEqual(UnifiedDI.resolve(Service.self)?.id, i)
            UnifiedRegistry.shared.enableOptimization()
            XCTAssertTrue(UnifiedRegistry.shared.isOptimizationEnabled)
            XCTAssertEqual(UnifiedDI.resolve(Service.self)?.id, i)
        }
    }
}
