import Dispatch
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

// Issue 41 item 4: a container's first registration notes its registry in
// sharded tables of unretained references (`NotedRegistries`), with no
// global lock and no weak reference; the registry's deinit removes it first.

private final class NRConfig: Sendable {}
private final class NRMissing: Sendable {}

/// Counts its deinits, so a test sees when a registry's entries went.
private final class NRTracked: Sendable {
    let deinits: NRCounter
    init(_ deinits: NRCounter) { self.deinits = deinits }
    deinit { deinits.add() }
}

private final class NRCounter: @unchecked Sendable {
    private let value = Locked(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// A container another thread drops.
private final class NRBox: @unchecked Sendable {
    var container: DIContainer?
}

final class NotedRegistriesTests: DITestCase {
    private func isNoted(_ id: ObjectIdentifier) -> Bool {
        NotedRegistries.alive().contains { ObjectIdentifier($0) == id }
    }

    func testARegistrationInAChildAndInASiblingIsStillNamed() {
        let child = WeaveDI.Container.live.createChild()
        child.register(NRConfig.self) { NRConfig() }
        let fromLive = NearMiss.suggestions(for: NRConfig.self, in: .live)
        XCTAssertTrue(
            fromLive.contains { $0.hasPrefix("'WeaveDITests.NRConfig' (registered in a child of the live container") },
            "\(fromLive)")
        let byName = NearMiss.suggestions(forName: "NRConfig")
        XCTAssertTrue(
            byName.contains { $0.contains("registered under this name in a child of the live container") }, "\(byName)")
        let sibling = WeaveDI.Container.live.createChild()
        let fromSibling = NearMiss.suggestions(for: NRConfig.self, in: sibling)
        XCTAssertTrue(
            fromSibling.contains {
                $0.hasPrefix(
                    "'WeaveDITests.NRConfig' (registered in a sibling branch of the container asked (both descend "
                        + "from the live container)")
            }, "\(fromSibling)")
        withExtendedLifetime((child, sibling)) {}
    }

    func testADroppedChildIsNoLongerReportedAndTheCountDrops() {
        let before = UnifiedDI.childContainerCount()
        var child: DIContainer? = WeaveDI.Container.live.createChild()
        let id = ObjectIdentifier(child!.registry)
        XCTAssertFalse(isNoted(id), "noted before any registration")
        child!.register(NRConfig.self) { NRConfig() }
        XCTAssertTrue(isNoted(id))
        XCTAssertEqual(UnifiedDI.childContainerCount(), before + 1)
        XCTAssertFalse(NearMiss.suggestions(for: NRConfig.self, in: .live).isEmpty)
        child = nil
        XCTAssertFalse(isNoted(id), "a dropped registry is still noted")
        XCTAssertEqual(UnifiedDI.childContainerCount(), before)
        let suggestions = NearMiss.suggestions(for: NRConfig.self, in: .live)
        XCTAssertFalse(suggestions.contains { $0.contains("child") }, "\(suggestions)")
    }

    /// A weak reference would raise the registry's weak count above 1 (the
    /// count an object without a side table reports) for as long as the
    /// table held it, which was the registry's life.
    func testAFirstRegistrationFormsNoWeakReference() {
        let child = WeaveDI.Container.live.createChild()
        XCTAssertEqual(_getWeakRetainCount(child.registry), 1)
        child.register(NRConfig.self) { NRConfig() }
        child.register(NRMissing.self) { NRMissing() }
        XCTAssertTrue(isNoted(ObjectIdentifier(child.registry)))
        XCTAssertEqual(_getWeakRetainCount(child.registry), 1, "a weak reference to the registry")
        XCTAssertEqual(_getWeakRetainCount(child), 1, "a weak reference to the container")
    }

    /// Two first registrations at once note the registry once, and its
    /// deinit removes it.
    func testConcurrentFirstRegistrationsNoteOnce() {
        for _ in 0..<200 {
            var child: DIContainer? = WeaveDI.Container.live.createChild()
            let id = ObjectIdentifier(child!.registry)
            let shared = child!
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    shared.register(NRConfig.self) { NRConfig() }
                } else {
                    shared.register(NRMissing.self) { NRMissing() }
                }
            }
            XCTAssertEqual(NotedRegistries.alive().filter { ObjectIdentifier($0) == id }.count, 1)
            child = nil
            _ = shared
        }
    }

    /// Per-request children made, registered into, resolved and dropped on
    /// several threads while others describe misses and count children.
    func testStressRequestChildrenAgainstMissReports() {
        let before = UnifiedDI.childContainerCount()
        let deinits = NRCounter()
        let rounds = 5_000
        let done = Locked(false)
        let readerPasses = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            if worker < 4 {
                for round in 0..<rounds {
                    let child = WeaveDI.Container.live.createChild()
                    child.register(NRTracked.self, instance: NRTracked(deinits))
                    XCTAssertNotNil(child.resolve(NRTracked.self))
                    if round % 3 == 0 {
                        // A grandchild: a chain the relation walks.
                        let grandchild = child.createChild()
                        grandchild.register(NRConfig.self) { NRConfig() }
                    }
                }
                if worker == 0 { done.withLock { $0 = true } }
            } else {
                repeat {
                    let suggestions = NearMiss.suggestions(for: NRTracked.self, in: .live)
                    XCTAssertTrue(suggestions.count <= NearMiss.limit)
                    _ = NearMiss.suggestions(forName: "NRTracked")
                    _ =
                        MissingDependencyReport(
                            type: NRConfig.self, error: .dependencyNotFound(type: "NRConfig"), container: .live
                        ).message
                    XCTAssertGreaterThanOrEqual(UnifiedDI.childContainerCount(), before)
                    readerPasses.withLock { $0 += 1 }
                } while !done.withLock({ $0 })
            }
        }
        XCTAssertEqual(deinits.count, 4 * rounds)
        XCTAssertEqual(UnifiedDI.childContainerCount(), before)
        XCTAssertGreaterThan(readerPasses.withLock { $0 }, 0)
    }

    /// The forced interleaving: a reader holds a registry's shard lock while
    /// another thread drops the registry's last reference. The deinit waits
    /// on the lock (the registry's entries are intact meanwhile), the reader
    /// skips the dying registry and finishes, and the deinit then completes.
    func testAReaderHoldingTheShardLockOutlivesADeinitBlockedOnIt() {
        let deinits = NRCounter()
        let box = NRBox()
        let id = Self.fillBox(box, deinits)
        let dropping = DispatchSemaphore(value: 0)
        let started = Locked(false)
        let dropped = Locked(false)
        DispatchQueue.global().async {
            dropping.wait()
            started.withLock { $0 = true }
            box.container = nil
            dropped.withLock { $0 = true }
        }
        var visited = 0
        var droppedMeanwhile = true
        var deinitsMeanwhile = -1
        let alive = NotedRegistries.alive { visiting in
            guard visiting == id else { return }
            visited += 1
            dropping.signal()
            while !started.withLock({ $0 }) { usleep(1_000) }
            // Long enough for the release to reach the deinit and block.
            usleep(200_000)
            droppedMeanwhile = dropped.withLock { $0 }
            deinitsMeanwhile = deinits.count
        }
        XCTAssertEqual(visited, 1)
        XCTAssertFalse(droppedMeanwhile, "the deinit did not wait for the reader")
        XCTAssertEqual(deinitsMeanwhile, 0, "the registry's entries went while a reader held its shard")
        XCTAssertFalse(alive.contains { ObjectIdentifier($0) == id }, "a deiniting registry was retained")
        let deadline = DispatchTime.now() + .seconds(10)
        while !dropped.withLock({ $0 }) && DispatchTime.now() < deadline { usleep(1_000) }
        XCTAssertTrue(dropped.withLock { $0 }, "the deinit did not complete after the reader")
        XCTAssertEqual(deinits.count, 1)
        XCTAssertFalse(isNoted(id))
    }

    /// The other order: the reader has retained the registry when the
    /// container's owner drops it; the reader's reference, dropped after
    /// the lock, is the last and runs the deinit there.
    func testAReaderThatRetainedTheRegistryRunsItsDeinitAfterTheLock() {
        let deinits = NRCounter()
        let box = NRBox()
        let id = Self.fillBox(box, deinits)
        var alive: [Registry]? = NotedRegistries.alive()
        XCTAssertTrue(alive!.contains { ObjectIdentifier($0) == id })
        box.container = nil
        XCTAssertEqual(deinits.count, 0, "the reader's reference did not keep the registry")
        XCTAssertTrue(isNoted(id))
        alive = nil
        XCTAssertEqual(deinits.count, 1)
        XCTAssertFalse(isNoted(id))
    }

    /// The child lives only in `box` once this returns.
    private static func fillBox(_ box: NRBox, _ deinits: NRCounter) -> ObjectIdentifier {
        let child = WeaveDI.Container.live.createChild()
        child.register(NRTracked.self, instance: NRTracked(deinits))
        box.container = child
        return ObjectIdentifier(child.registry)
    }
}
