import Foundation
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private protocol Greeter: Sendable {
    var name: String { get }
}

private final class NamedGreeter: Greeter {
    let name: String
    init(_ name: String) { self.name = name }
}

private final class CountedGreeter: Greeter {
    static let alive = TestAtomic<Int>(0)
    let name = "counted"
    init() { Self.alive.add(1, ordering: .relaxed) }
    deinit { Self.alive.subtract(1, ordering: .relaxed) }
}

/// `UnifiedDI.resolve` (and `@Inject`, which calls it) keeps a cacheable
/// result in the type's slot. Whatever the cache holds, a resolve must
/// answer what the container holds now: after a write, inside an overlay,
/// and for scopes that must not be cached.
final class ResolveCacheTests: DITestCase {
    private func name(_ greeter: (any Greeter)?) -> String? { greeter?.name }

    func testReRegisteringReplacesTheCachedInstance() {
        UnifiedDI.register(Greeter.self) { NamedGreeter("first") }
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "first")
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "first")

        UnifiedDI.register(Greeter.self) { NamedGreeter("second") }
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "second")

        UnifiedDI.register(Greeter.self, scope: .singleton) { NamedGreeter("lazy") }
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "lazy")
    }

    func testReleaseEndsTheCachedSingletonAtOnce() {
        UnifiedDI.register(Greeter.self, scope: .singleton) { CountedGreeter() }
        let before = CountedGreeter.alive.load(ordering: .relaxed)
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "counted")
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "counted")
        XCTAssertEqual(CountedGreeter.alive.load(ordering: .relaxed), before + 1)

        UnifiedDI.release(Greeter.self)
        XCTAssertEqual(CountedGreeter.alive.load(ordering: .relaxed), before, "the resolve cache kept the instance alive")
        XCTAssertNil(UnifiedDI.resolve(Greeter.self))
    }

    func testReplacingTheLiveContainerIsSeenAtOnce() {
        UnifiedDI.register(Greeter.self) { NamedGreeter("old") }
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "old")

        WeaveDI.Container.live = WeaveDI.Container()
        XCTAssertNil(UnifiedDI.resolve(Greeter.self))
    }

    func testAnOverlaySeesItsOwnRegistrationAfterALiveReadWasCached() {
        UnifiedDI.register(Greeter.self) { NamedGreeter("live") }
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "live")

        withContainerOverlay { container in
            container.register(Greeter.self) { NamedGreeter("overlay") }
        } operation: {
            XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "overlay")
            UnifiedDI.release(Greeter.self)
            XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "live")
        }
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "live")
    }

    func testAnOverlayReadDoesNotFillTheLiveCache() {
        withContainerOverlay { container in
            container.register(Greeter.self) { NamedGreeter("overlay") }
        } operation: {
            XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "overlay")
        }
        XCTAssertNil(UnifiedDI.resolve(Greeter.self))
    }

    func testTransientAndWeakAreNotCached() {
        UnifiedDI.register(NamedGreeter.self, scope: .transient) { NamedGreeter("t") }
        let a = UnifiedDI.resolve(NamedGreeter.self)
        let b = UnifiedDI.resolve(NamedGreeter.self)
        XCTAssertNotNil(a)
        XCTAssertFalse(a === b, "a transient resolve returned a cached instance")

        UnifiedDI.register(CountedGreeter.self, scope: .weak) { CountedGreeter() }
        let before = CountedGreeter.alive.load(ordering: .relaxed)
        var held = UnifiedDI.resolve(CountedGreeter.self)
        XCTAssertTrue(held === UnifiedDI.resolve(CountedGreeter.self))
        held = nil
        XCTAssertEqual(CountedGreeter.alive.load(ordering: .relaxed), before, "a cache kept the weak instance alive")
        XCTAssertNotNil(UnifiedDI.resolve(CountedGreeter.self))
        _ = held
    }

    /// The slot keeps a transient or `.task` registration itself; the
    /// next resolve builds from it, and any write makes it stale.
    func testAKeptRegistrationBuildsFreshAndFollowsWrites() {
        UnifiedDI.register(Greeter.self, scope: .transient) { NamedGreeter("t1") }
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "t1")
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "t1")
        UnifiedDI.register(Greeter.self, scope: .transient) { NamedGreeter("t2") }
        XCTAssertEqual(name(UnifiedDI.resolve(Greeter.self)), "t2")
        UnifiedDI.release(Greeter.self)
        XCTAssertNil(UnifiedDI.resolve(Greeter.self))

        UnifiedDI.register(NamedGreeter.self, scope: .task) { NamedGreeter("scoped") }
        XCTAssertNil(UnifiedDI.resolve(NamedGreeter.self), "a .task resolve outside every scope")
        XCTAssertNil(UnifiedDI.resolve(NamedGreeter.self), "a .task resolve outside every scope, again")
        let first = withTaskScope { (UnifiedDI.resolve(NamedGreeter.self), UnifiedDI.resolve(NamedGreeter.self)) }
        let second = withTaskScope { UnifiedDI.resolve(NamedGreeter.self) }
        XCTAssertNotNil(first.0)
        XCTAssertTrue(first.0 === first.1, "one scope, two instances")
        XCTAssertFalse(first.0 === second, "two scopes shared an instance")
    }

    /// Readers on several threads while a writer re-registers: every read
    /// is a registered value, and once the writer is done every reader
    /// sees the last one.
    func testConcurrentReadsDuringWritesEndOnTheLastWrite() {
        UnifiedDI.register(Greeter.self) { NamedGreeter("v0") }
        let writes = 300
        let readers = 4
        let done = TestAtomic<Bool>(false)
        let bad = TestAtomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: readers + 1) { index in
            if index == 0 {
                for write in 1...writes {
                    UnifiedDI.register(Greeter.self) { NamedGreeter("v\(write)") }
                }
                done.store(true, ordering: .releasing)
                return
            }
            while !done.load(ordering: .acquiring) {
                guard let read = UnifiedDI.resolve(Greeter.self), read.name.hasPrefix("v") else {
                    bad.add(1, ordering: .relaxed)
                    continue
                }
            }
            if UnifiedDI.resolve(Greeter.self)?.name != "v\(writes)" {
                bad.add(1, ordering: .relaxed)
            }
        }
        XCTAssertEqual(bad.load(ordering: .relaxed), 0)
    }
}
