import Foundation
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

/// A gate that synchronous code blocks on: a factory that "never returns"
/// until the test ends.
private final class BlockingGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Opens `gate` after `seconds` on a thread of its own, outside the
/// cooperative pool, which the hung factories may have starved: a start
/// that would never return then returns once its factories do, and the
/// test fails on `fired` instead of hanging.
private final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var _fired = false
    private var cancelled = false

    var fired: Bool { lock.withLock { _fired } }

    init(after seconds: Double, releasing gate: BlockingGate) {
        Thread.detachNewThread { [self] in
            Thread.sleep(forTimeInterval: seconds)
            let fire = lock.withLock { () -> Bool in
                if cancelled { return false }
                _fired = true
                return true
            }
            if fire { gate.open() }
        }
    }

    func cancel() { lock.withLock { cancelled = true } }
}

/// A service whose factory blocks on the test's gate; one type per
/// registration.
private protocol HungService: Sendable { init() }
private final class Hung0: HungService {}
private final class Hung1: HungService {}
private final class Hung2: HungService {}
private final class Hung3: HungService {}
private final class Hung4: HungService {}
private final class Hung5: HungService {}
private final class Hung6: HungService {}
private final class Hung7: HungService {}
private final class Built: Sendable {}

/// Issue 41 (a): `start(timeout:)` returns within its timeout however many
/// synchronous factories never return, more than the cooperative pool has
/// threads, inside an overlay or not. Before, each hung factory kept a pool
/// thread (and start's task group waited for it), so with the pool's width
/// of them start's timer never fired and start never returned.
///
/// scripts/test.sh runs this class in the width-one run too (a pool of one
/// thread), where one hung factory was enough.
final class AsyncStartHungFactoryTests: DITestCase {
    /// More hung factories than the pool has threads (at least 3).
    private var hungCount: Int { min(8, max(3, ProcessInfo.processInfo.activeProcessorCount + 1)) }

    /// Registers `count` singletons whose factories block on `gate`,
    /// synchronous ones or async ones that block their thread.
    private func registerHung(
        in container: WeaveDI.Container, _ count: Int, gate: BlockingGate, async: Bool = false
    ) {
        func register<Service: HungService>(_ type: Service.Type) {
            if async {
                container.register(Service.self, scope: .singleton) { () async throws -> Service in
                    gate.wait()
                    return Service()
                }
            } else {
                container.register(Service.self, scope: .singleton) {
                    gate.wait()
                    return Service()
                }
            }
        }
        let types: [any HungService.Type] = [
            Hung0.self, Hung1.self, Hung2.self, Hung3.self, Hung4.self, Hung5.self, Hung6.self, Hung7.self,
        ]
        for type in types.prefix(count) { register(type) }
    }

    /// Runs `body` with a gate for hung factories to block on and a watchdog
    /// that opens it after 15 s; the gate opens when `body` ends, so no
    /// factory is left blocked.
    private func withHungFactories(_ body: (BlockingGate, Watchdog) async throws -> Void) async rethrows {
        let gate = BlockingGate()
        let watchdog = Watchdog(after: 15, releasing: gate)
        defer {
            watchdog.cancel()
            gate.open()
        }
        try await body(gate, watchdog)
    }

    /// Runs `start`, and returns its failures and how long it took.
    private func timedStart(_ start: @Sendable () async throws -> Void) async throws -> ([StartFailure], Duration) {
        let clock = ContinuousClock()
        let began = clock.now
        do {
            try await start()
            return ([], clock.now - began)
        } catch DIError.startFailed(let failures) {
            return (failures, clock.now - began)
        }
    }

    private func assertHungNamed(_ failures: [StartFailure], count: Int, took: Duration, watchdog: Watchdog) {
        XCTAssertFalse(watchdog.fired, "start returned only once the watchdog released the hung factories")
        XCTAssertLessThan(took, .seconds(5), "start(timeout: 300 ms) took \(took)")
        let names = failures.map { String($0.type.split(separator: ".").last!) }.sorted()
        XCTAssertEqual(names, (0..<count).map { "Hung\($0)" })
        XCTAssertTrue(failures.allSatisfy(\.timedOut), "\(failures)")
    }

    func testStartReturnsWithinItsTimeoutWithMoreHungSynchronousFactoriesThanThePoolHasThreads() async throws {
        try await withHungFactories { gate, watchdog in
            let container = WeaveDI.Container()
            let count = hungCount
            registerHung(in: container, count, gate: gate)
            container.register(Built.self, scope: .singleton) { Built() }
            let (failures, took) = try await timedStart { try await container.start(timeout: .milliseconds(300)) }
            assertHungNamed(failures, count: count, took: took, watchdog: watchdog)
            XCTAssertNotNil(container.resolve(Built.self), "a service that built is kept")
            // The pool is free: other async work runs while the factories hang.
            let value = await Task { 41 + 1 }.value
            XCTAssertEqual(value, 42)
        }
    }

    /// Inside an overlay the synchronous builds are the overlay's own and run
    /// in start's task itself, not in a flight: that task's thread was the
    /// one held.
    func testStartInsideAnOverlayReturnsWithinItsTimeoutWithHungSynchronousFactories() async throws {
        try await withHungFactories { gate, watchdog in
            let live = WeaveDI.Container.live
            let count = hungCount
            registerHung(in: live, count, gate: gate)
            live.register(Built.self, scope: .singleton) { Built() }
            let (failures, took) = try await withContainerOverlay { overlay in
                overlay.register(Built.self, instance: Built())
            } operation: {
                try await timedStart { try await live.start(timeout: .milliseconds(300)) }
            }
            assertHungNamed(failures, count: count, took: took, watchdog: watchdog)
        }
    }

    /// An async factory that blocks its thread in a synchronous call (a
    /// blocking client library) is held the same way.
    func testStartReturnsWithinItsTimeoutWhenAsyncFactoriesBlockTheirThread() async throws {
        try await withHungFactories { gate, watchdog in
            let container = WeaveDI.Container()
            registerHung(in: container, 3, gate: gate, async: true)
            let (failures, took) = try await timedStart { try await container.start(timeout: .milliseconds(300)) }
            assertHungNamed(failures, count: 3, took: took, watchdog: watchdog)
        }
    }

    /// A hung build goes on after start has returned, and a later resolve
    /// gets its instance once it returns: the build is kept, not dropped.
    func testAHungBuildThatReturnsAfterStartIsKept() async throws {
        try await withHungFactories { gate, watchdog in
            let container = WeaveDI.Container()
            registerHung(in: container, 1, gate: gate)
            let (failures, _) = try await timedStart { try await container.start(timeout: .milliseconds(200)) }
            XCTAssertEqual(failures.count, 1)
            gate.open()
            let hung = try await container.resolveAsyncThrowing(Hung0.self)
            XCTAssertTrue(container.resolve(Hung0.self) === hung)
            XCTAssertFalse(watchdog.fired)
        }
    }
}
