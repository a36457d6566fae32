import Foundation
import WeaveDI
import XCTest

private final class ScopedReader: @unchecked Sendable {
    @Injected var transient: ServiceImpl
    @Injected var request: RequestContext?
}

/// `@Injected var` of a transient, `.task` or weak registration: its slot
/// keeps the registration after the first read and builds from it (for an
/// optional property, the wrapped type's registration).
private final class KeptRegistrationReader: @unchecked Sendable {
    @Injected var request: RequestContext
    @Injected var service: ServiceImpl
    @Injected var maybeService: ServiceImpl?
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

    func testANonOptionalTaskPropertyFollowsEachScopeAfterItsFirstRead() async {
        let counter = Counter()
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: counter.increment()) }
        let reader = KeptRegistrationReader()
        var serials: [Int] = []
        for _ in 0..<3 {
            let serial = await withTaskScope { () async -> Int in
                let first = reader.request
                XCTAssertTrue(first === reader.request, "one instance per scope")
                XCTAssertTrue(first === UnifiedDI.resolve(RequestContext.self), "the property and resolve agree")
                return first.serial
            }
            serials.append(serial)
        }
        XCTAssertEqual(serials, [1, 2, 3])
        XCTAssertEqual(RequestContext.alive.load(ordering: .sequentiallyConsistent), 0, "a kept registration pinned a task instance")
    }

    func testAKeptRegistrationIsDroppedWhenTheTypeIsRegisteredAgain() {
        let counter = Counter()
        UnifiedDI.register(ServiceImpl.self, scope: .transient) { ServiceImpl(id: counter.increment()) }
        let reader = KeptRegistrationReader()
        XCTAssertEqual([reader.service.id, reader.service.id, reader.service.id], [1, 2, 3])

        UnifiedDI.register(ServiceImpl.self, scope: .singleton) { ServiceImpl(id: 100 + counter.increment()) }
        let singleton = reader.service
        XCTAssertEqual(singleton.id, 104)
        XCTAssertTrue(reader.service === singleton, "the singleton registration builds once")

        UnifiedDI.register(ServiceImpl.self, scope: .transient) { ServiceImpl(id: 200) }
        XCTAssertEqual(reader.service.id, 200)
        XCTAssertFalse(reader.service === reader.service)
    }

    func testAnOptionalPropertyKeepsTheWrappedRegistrationAndFollowsWrites() {
        let counter = Counter()
        UnifiedDI.register(ServiceImpl.self, scope: .transient) { ServiceImpl(id: counter.increment()) }
        let reader = KeptRegistrationReader()
        XCTAssertEqual([reader.maybeService?.id, reader.maybeService?.id, reader.maybeService?.id], [1, 2, 3])

        UnifiedDI.register(ServiceImpl.self, scope: .weak) { ServiceImpl(id: 100 + counter.increment()) }
        var held = reader.maybeService
        XCTAssertEqual(held?.id, 104)
        XCTAssertTrue(reader.maybeService === held, "a live weak instance is shared")
        held = nil
        XCTAssertEqual(reader.maybeService?.id, 105, "the weak instance died; the next read builds anew")

        UnifiedDI.register(ServiceImpl.self, scope: .task) { ServiceImpl(id: 200 + counter.increment()) }
        XCTAssertNil(reader.maybeService, "a .task registration outside withTaskScope reads as nil")
        let inScope = withTaskScope { (reader.maybeService?.id, reader.maybeService?.id) }
        XCTAssertEqual(inScope.0, 206)
        XCTAssertEqual(inScope.1, 206, "one instance per scope")

        UnifiedDI.release(ServiceImpl.self)
        XCTAssertNil(reader.maybeService, "released: nothing to read")
    }

    func testANonOptionalWeakPropertySharesTheInstanceWhileItLivesAndRebuildsAfter() {
        let counter = Counter()
        UnifiedDI.register(ServiceImpl.self, scope: .weak) { ServiceImpl(id: counter.increment()) }
        let reader = KeptRegistrationReader()
        var held: ServiceImpl? = reader.service
        XCTAssertTrue(reader.service === held, "a live weak instance is shared")
        XCTAssertTrue(reader.service === held)
        XCTAssertEqual(held?.id, 1)
        held = nil
        XCTAssertEqual(reader.service.id, 2, "the weak instance died; the next read builds anew")
    }

    /// Readers of an `@Injected var` (and its optional form) on several threads while a
    /// writer registers its type 10,000 times, alternating transient,
    /// singleton and weak: every read comes from a registration, no reader
    /// ever goes back to an older one, and once the writer is done every
    /// reader sees the last.
    func testStressTypeSlotReadsDuringWritesEndOnTheLastRegistration() {
        UnifiedDI.register(ServiceImpl.self, scope: .transient) { ServiceImpl(id: 0) }
        let reader = KeptRegistrationReader()
        let readers = 4
        let writes = 10_000
        let started = TestAtomic<Int>(0)
        let done = TestAtomic<Bool>(false)
        let bad = TestAtomic<Int>(0)
        let reads = TestAtomic<Int>(0)
        let group = DispatchGroup()
        // Real threads: a dispatch pool on two cores would run the readers
        // after the writer instead of against it.
        for _ in 0..<readers {
            group.enter()
            Thread.detachNewThread {
                started.add(1, ordering: .releasing)
                var newest = 0
                var count = 0
                while !done.load(ordering: .acquiring) {
                    let id = count % 2 == 0 ? reader.service.id : (reader.maybeService?.id ?? -1)
                    if id < newest || id > writes { bad.add(1, ordering: .relaxed) }
                    newest = max(newest, id)
                    count += 1
                }
                if reader.service.id != writes || reader.maybeService?.id != writes { bad.add(1, ordering: .relaxed) }
                reads.add(count, ordering: .relaxed)
                group.leave()
            }
        }
        while started.load(ordering: .acquiring) < readers { sched_yield() }
        let scopes: [ProvideScope] = [.transient, .singleton, .weak]
        for write in 1...writes {
            UnifiedDI.register(ServiceImpl.self, scope: scopes[write % 3]) { ServiceImpl(id: write) }
        }
        done.store(true, ordering: .releasing)
        group.wait()
        XCTAssertEqual(bad.load(ordering: .relaxed), 0, "a read came from no registration, or went back to an older one")
        XCTAssertGreaterThan(reads.load(ordering: .relaxed), readers, "the readers never overlapped the writer")
    }
}
