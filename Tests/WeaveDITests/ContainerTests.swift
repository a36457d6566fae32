import XCTest

@testable import WeaveDI
@testable import WeaveDICore

final class ContainerTests: DITestCase {
    func testAssigningLiveIsSeenByUnifiedDI() {
        UnifiedDI.register(Service.self) { ServiceImpl(id: 1) }
        let fresh = WeaveDI.Container()
        fresh.register(Service.self) { ServiceImpl(id: 2) }
        WeaveDI.Container.live = fresh
        XCTAssertEqual(UnifiedDI.resolve(Service.self)?.id, 2)
        XCTAssertTrue(WeaveDI.Container.shared === fresh)
        WeaveDI.Container.shared = WeaveDI.Container()
        XCTAssertNil(UnifiedDI.resolve(Service.self))
    }

    func testSwappedOutContainerIsFreedWithItsInstances() {
        let before = Tracked.alive.load(ordering: .sequentiallyConsistent)
        weak var weakContainer: DIContainer?
        do {
            let container = WeaveDI.Container()
            container.register(Tracked.self) { Tracked() }
            WeaveDI.Container.live = container
            weakContainer = container
        }
        WeaveDI.Container.live = WeaveDI.Container()
        XCTAssertNil(weakContainer)
        XCTAssertEqual(Tracked.alive.load(ordering: .sequentiallyConsistent), before)
    }

    func testChildResolvesOwnEntriesThenParents() {
        forEachBackend { backend in
            let parent = WeaveDI.Container()
            parent.register(Service.self) { ServiceImpl(id: 1) }
            parent.register(Int.self, instance: 10)
            let child = parent.createChild()
            child.register(Service.self) { ServiceImpl(id: 2) }
            XCTAssertEqual(child.resolve(Service.self)?.id, 2, backend)
            XCTAssertEqual(child.resolve(Int.self), 10, backend)
            XCTAssertEqual(parent.resolve(Service.self)?.id, 1, backend)
            let grandchild = DIContainer(parent: child)
            XCTAssertEqual(grandchild.resolve(Service.self)?.id, 2, backend)
            XCTAssertNil(parent.resolve(String.self), backend)
            child.release(Service.self)
            XCTAssertEqual(grandchild.resolve(Service.self)?.id, 1, backend)
        }
    }

    func testRegisterInstanceAndEagerFactory() {
        let container = WeaveDI.Container()
        let instance = ServiceImpl(id: 5)
        container.register(ServiceImpl.self, instance: instance)
        XCTAssertTrue(container.resolve(ServiceImpl.self) === instance)
        let counter = Counter()
        let eager = container.register(Service.self) {
            counter.increment()
            return ServiceImpl(id: 6)
        }
        XCTAssertEqual(counter.count, 1)
        XCTAssertEqual(eager.id, 6)
        // The guides' trailing-closure form must stay unambiguous.
        container.register(String.self) { "trailing" }
        XCTAssertEqual(container.resolve(String.self), "trailing")
    }

    func testBootstrapMergesModules() async {
        await WeaveDI.Container.bootstrap { container in
            container.register(Service.self) { ServiceImpl(id: 1) }
        }
        await WeaveDI.Container.bootstrap { container in
            container.register(Int.self) { 2 }
        }
        XCTAssertEqual(UnifiedDI.resolve(Service.self)?.id, 1, "second bootstrap discarded the first module")
        XCTAssertEqual(UnifiedDI.resolve(Int.self), 2)
        let ok = await WeaveDI.Container.bootstrapAsync { container in
            container.register(String.self) { "async" }
        }
        XCTAssertTrue(ok)
        XCTAssertEqual(UnifiedDI.resolve(String.self), "async")
    }

    func testBootstrapInTaskAcceptsAnActorIsolatedClosure() async throws {
        WeaveDI.Container.bootstrapInTask { @DIContainerActor container in
            container.register(Service.self) { ServiceImpl(id: 9) }
        }
        for _ in 0..<500 where UnifiedDI.resolve(Service.self) == nil {
            try await Task.sleep(for: .milliseconds(5))
        }
        XCTAssertEqual(UnifiedDI.resolve(Service.self)?.id, 9)
    }

    func testResetForTesting() {
        UnifiedDI.register(Service.self) { ServiceImpl() }
        WeaveDI.Container.resetForTesting()
        XCTAssertNil(UnifiedDI.resolve(Service.self))
    }

    func testRequireResolveMessageNamesTypeCloseMatchesAndHowToRegister() {
        UnifiedDI.register(ServiceImpl.self) { ServiceImpl() }
        let report = MissingDependencyReport(
            type: Service.self, error: .dependencyNotFound(type: "Service"), container: .live)
        XCTAssertTrue(report.message.contains("no registration for 'WeaveDITests.Service'"), report.message)
        XCTAssertTrue(
            report.message.contains(
                "look close: 'WeaveDITests.ServiceImpl' (its instance is a 'WeaveDITests.Service': "
                    + "resolve ServiceImpl.self, or register Service itself)"),
            report.message)
        XCTAssertTrue(report.message.contains("UnifiedDI.register(Service.self)"), report.message)
    }
}
