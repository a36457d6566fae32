import XCTest

@testable import WeaveDI
@testable import WeaveDICore

final class TaskScopeTests: DITestCase {
    func testOneInstancePerScopeSharedByChildTasks() async {
        let counter = Counter()
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: counter.increment()) }
        await withTaskScope {
            let first = UnifiedDI.resolve(RequestContext.self)
            let second = UnifiedDI.resolve(RequestContext.self)
            XCTAssertNotNil(first)
            XCTAssertTrue(first === second)
            async let fromChild = UnifiedDI.resolve(RequestContext.self)
            let childValue = await fromChild
            XCTAssertTrue(childValue === first, "child task got its own instance")
        }
        XCTAssertEqual(counter.count, 1)
    }

    func testInstanceIsReleasedWhenTheScopeEnds() async {
        let before = RequestContext.alive.load(ordering: .sequentiallyConsistent)
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: 0) }
        await withTaskScope {
            await Task.yield()
            _ = UnifiedDI.resolve(RequestContext.self)
            XCTAssertEqual(RequestContext.alive.load(ordering: .sequentiallyConsistent), before + 1)
        }
        XCTAssertEqual(RequestContext.alive.load(ordering: .sequentiallyConsistent), before)
    }

    func testOutsideAnyScopeIsAClearError() {
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: 0) }
        XCTAssertNil(UnifiedDI.resolve(RequestContext.self))
        let error = caughtError { () throws(DIError) in try UnifiedDI.resolveThrowing(RequestContext.self) }
        XCTAssertEqual(error, .noActiveScope(type: "RequestContext"))
    }

    func testHundredsOfConcurrentScopesNeverShare() async {
        let counter = Counter()
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: counter.increment()) }
        let serials = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<400 {
                group.addTask {
                    await withTaskScope { () async -> Int? in
                        guard let mine = UnifiedDI.resolve(RequestContext.self) else { return nil }
                        for _ in 0..<10 {
                            await Task.yield()
                            guard UnifiedDI.resolve(RequestContext.self) === mine else { return nil }
                        }
                        return mine.serial
                    }
                }
            }
            var serials: [Int?] = []
            for await serial in group { serials.append(serial) }
            return serials
        }
        XCTAssertFalse(serials.contains(nil), "a scope saw another scope's instance or none")
        XCTAssertEqual(Set(serials.compactMap { $0 }).count, 400, "two scopes shared an instance")
        XCTAssertEqual(counter.count, 400)
    }

    /// A scope holds one instance per registration: another container's
    /// registration of the same type is not the same dependency.
    func testTwoContainersRegistrationsOfOneTypeGetTheirOwnInstancesInOneScope() {
        let first = WeaveDI.Container()
        first.register(RequestContext.self, scope: .task) { RequestContext(serial: 1) }
        let second = WeaveDI.Container()
        second.register(RequestContext.self, scope: .task) { RequestContext(serial: 2) }
        let child = first.createChild()
        withTaskScope {
            let fromFirst = first.resolve(RequestContext.self)
            XCTAssertEqual(fromFirst?.serial, 1)
            XCTAssertEqual(second.resolve(RequestContext.self)?.serial, 2)
            XCTAssertTrue(child.resolve(RequestContext.self) === fromFirst, "the child inherits the same registration")
        }
    }

    /// Like a singleton, a task-scoped registration replaced mid-request
    /// gives the new registration's instance, not the one it replaced.
    func testARegistrationReplacedInsideAScopeGivesItsOwnInstance() {
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: 1) }
        withTaskScope {
            XCTAssertEqual(UnifiedDI.resolve(RequestContext.self)?.serial, 1)
            UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: 2) }
            let replaced = UnifiedDI.resolve(RequestContext.self)
            XCTAssertEqual(replaced?.serial, 2)
            XCTAssertTrue(UnifiedDI.resolve(RequestContext.self) === replaced)
        }
    }

    /// A `.task` build read through the type's slot takes no reference of
    /// its own to the registration: the scope's holder, made inside the
    /// slot read, holds it until the scope ends. So a registration released
    /// mid-request, even by its own factory, lives as long as the scope
    /// that built from it, and its factory's captures with it.
    func testAScopeHoldsTheRegistrationsItBuiltFrom() {
        for releasedByItsOwnFactory in [false, true] {
            final class Capture: Sendable {
                let freed: Counter
                init(_ freed: Counter) { self.freed = freed }
                deinit { freed.increment() }
            }
            let freed = Counter()
            let builds = Counter()
            nonisolated(unsafe) weak var registration: AnyRegistryEntry?
            // Drops the table's reference, and before returning the slot
            // box's; two more writes free whatever the release retired.
            @Sendable func releaseEverywhere() {
                UnifiedDI.release(RequestContext.self)
                UnifiedDI.register(Int.self) { 0 }
                UnifiedDI.release(Int.self)
            }
            do {
                let capture = Capture(freed)
                UnifiedDI.register(RequestContext.self, scope: .task) {
                    if builds.increment() == 2 && releasedByItsOwnFactory {
                        releaseEverywhere()
                        XCTAssertNotNil(registration, "freed during its own build")
                    }
                    return RequestContext(serial: capture.freed.count)
                }
            }
            // The first scope's resolve keeps the registration in the type's
            // slot; the second builds from the slot.
            withTaskScope { XCTAssertEqual(UnifiedDI.resolve(RequestContext.self)?.serial, 0) }
            registration = Resolver.entry(RequestContext.self, in: nil)
            XCTAssertNotNil(registration)
            withTaskScope {
                XCTAssertEqual(UnifiedDI.resolve(RequestContext.self)?.serial, 0)
                if !releasedByItsOwnFactory {
                    releaseEverywhere()
                }
                XCTAssertNotNil(registration, "the scope let go of a registration it built from")
                XCTAssertEqual(freed.count, 0)
            }
            XCTAssertNil(registration, "the scope kept the registration after it ended")
            XCTAssertEqual(freed.count, 1)
            XCTAssertEqual(builds.count, 2)
        }
    }

    func testSynchronousScope() {
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: 5) }
        let serial = withTaskScope { UnifiedDI.resolve(RequestContext.self)?.serial }
        XCTAssertEqual(serial, 5)
    }
}
