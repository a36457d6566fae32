// Needs the async build protocol's hooks, compiled into debug builds only.
#if WEAVE_STRESS_HOOKS
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private final class WindowService: Sendable {}

/// Each window of the async build protocol (`AsyncBuilds`, `AsyncBuildWindow`)
/// held open by a hook while another task runs through it, so the
/// interleaving is forced instead of sampled.
///
/// scripts/sanitize.sh removes the waiter's look under the lock and checks
/// that `testAWaiterThatLookedBeforeTheBuildEndedFindsItsInstance` then
/// fails (a second build).
final class AsyncBuildWindowTests: XCTestCase {
    override func tearDown() {
        AsyncBuildHooks.hook.withLock { $0 = nil }
        super.tearDown()
    }

    /// Holds the first task that reaches `window` for `WindowService` until
    /// `release` opens; every later one passes.
    private func holdFirst(at window: AsyncBuildWindow, reached: Gate, release: Gate) {
        let first = TestAtomic<Bool>(true)
        AsyncBuildHooks.hook.withLock {
            $0 = { reachedWindow, type in
                guard reachedWindow == window, type == WindowService.self,
                    first.exchange(false, ordering: .sequentiallyConsistent)
                else { return }
                reached.open()
                await release.wait()
            }
        }
    }

    /// Waiter A finds nothing built and stops before joining; B builds,
    /// publishes and ends the flight; A then joins: it must find B's
    /// instance under the lock, not start a second build.
    func testAWaiterThatLookedBeforeTheBuildEndedFindsItsInstance() async throws {
        let builds = Counter()
        let container = WeaveDI.Container()
        container.register(WindowService.self, scope: .singleton) {
            builds.increment()
            await Task.yield()
            return WindowService()
        }
        let reached = Gate()
        let release = Gate()
        holdFirst(at: .afterFirstLook, reached: reached, release: release)
        let a = Task { try await container.resolveAsyncThrowing(WindowService.self) }
        await reached.wait()
        let b = try await container.resolveAsyncThrowing(WindowService.self)
        XCTAssertEqual(AsyncBuilds.inFlight, 0)
        release.open()
        let fromA = try await a.value
        XCTAssertEqual(builds.count, 1, "the factory ran \(builds.count) times")
        XCTAssertTrue(fromA === b, "the two waiters got different instances")
    }

    /// Waiter A is cancelled after its first look and before it joins: its
    /// cancellation handler has already run and found nothing to resume. A
    /// must see the cancellation under the lock and not join (a joined
    /// waiter would wait for a build that never ends).
    func testAWaiterCancelledBeforeItJoinsDoesNotJoin() async throws {
        let builds = Counter()
        let never = Gate()
        let container = WeaveDI.Container()
        container.register(WindowService.self, scope: .singleton) {
            builds.increment()
            await never.wait()
            return WindowService()
        }
        let reached = Gate()
        let release = Gate()
        holdFirst(at: .afterFirstLook, reached: reached, release: release)
        let outcome = Locked<String?>(nil)
        let a = Task {
            do {
                _ = try await container.resolveAsyncThrowing(WindowService.self)
                outcome.withLock { $0 = "instance" }
            } catch is CancellationError {
                outcome.withLock { $0 = "cancelled" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
        }
        await reached.wait()
        a.cancel()
        release.open()
        for _ in 0..<500 where outcome.withLock({ $0 }) == nil {
            try await Task.sleep(for: .milliseconds(10))
        }
        XCTAssertEqual(
            outcome.withLock { $0 }, "cancelled", "nil: the cancelled waiter joined a build and is still waiting")
        XCTAssertEqual(builds.count, 0, "a cancelled waiter started a build")
        never.open()
        await a.value
        XCTAssertEqual(AsyncBuilds.inFlight, 0)
    }

    /// The build has published and not yet ended its flight; a waiter that
    /// comes now reads the instance, and one already waiting is resumed
    /// with it.
    func testAWaiterComingAsTheFlightEndsGetsTheInstance() async throws {
        let builds = Counter()
        let started = Gate()
        let proceed = Gate()
        let container = WeaveDI.Container()
        container.register(WindowService.self, scope: .singleton) {
            builds.increment()
            started.open()
            await proceed.wait()
            return WindowService()
        }
        let reached = Gate()
        let release = Gate()
        holdFirst(at: .beforeFlightEnds, reached: reached, release: release)
        let first = Task { try await container.resolveAsyncThrowing(WindowService.self) }
        await started.wait()
        let joined = Task { try await container.resolveAsyncThrowing(WindowService.self) }
        while AsyncBuilds.waiterCount(of: try XCTUnwrap(container.holder(of: WindowService.self))) < 2 {
            await Task.yield()
        }
        proceed.open()
        await reached.wait()
        let late = try await container.resolveAsyncThrowing(WindowService.self)
        release.open()
        let fromFirst = try await first.value
        let fromJoined = try await joined.value
        XCTAssertEqual(builds.count, 1)
        XCTAssertTrue(fromFirst === late && fromJoined === late)
        XCTAssertEqual(AsyncBuilds.inFlight, 0)
    }

    /// A's factory starts a task that resolves B while A's factory runs (the
    /// edge A -> B), then throws. Held after A's factory returned and
    /// before its flight ends, B's factory resolves A: nothing waits in a
    /// loop (A's factory has returned and waits on nothing), so B must join
    /// A's flight and get A's failure, not a cycle "B -> A -> B" found
    /// through the edge A's left-running task recorded. Found by
    /// async_returned.pml (CHILD_RESOLVES_B); fails on the code before
    /// `AsyncFlight.path(to:)` stopped at a returned flight.
    func testAFlightWhoseFactoryReturnedIsNoLinkOfACycle() async throws {
        struct Refused: Error {}
        final class ServiceA: Sendable {}
        final class ServiceB: Sendable {}
        let container = WeaveDI.Container()
        let bStarted = Gate()
        let aReturned = Gate()
        let bReadA = Locked<(any Error)?>(nil)
        let bFinishedReading = TestAtomic<Bool>(false)
        container.register(ServiceA.self, scope: .singleton) { [unowned container] () async throws -> ServiceA in
            // Left running: it waits on B's build for A's factory run.
            Task { _ = try? await container.resolveAsyncThrowing(ServiceB.self) }
            await bStarted.wait()
            throw Refused()
        }
        container.register(ServiceB.self, scope: .singleton) { [unowned container] () async -> ServiceB in
            bStarted.open()
            await aReturned.wait()
            do {
                _ = try await container.resolveAsyncThrowing(ServiceA.self)
            } catch {
                bReadA.withLock { $0 = error }
            }
            bFinishedReading.store(true, ordering: .sequentiallyConsistent)
            return ServiceB()
        }
        let holderA = try XCTUnwrap(container.holder(of: ServiceA.self))
        AsyncBuildHooks.hook.withLock {
            $0 = { window, type in
                guard window == .beforeFlightEnds, type == ServiceA.self else { return }
                aReturned.open()
                // Until B's read of A is over (a cycle) or B waits on A's
                // flight beside the first resolve (joined).
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(10)
                while !bFinishedReading.load(ordering: .sequentiallyConsistent),
                    AsyncBuilds.waiterCount(of: holderA) < 2, clock.now < deadline
                {
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
        }
        do {
            _ = try await container.resolveAsyncThrowing(ServiceA.self)
            XCTFail("A's factory threw")
        } catch DIError.factoryFailed {
        }
        _ = try await within(10) { try await container.resolveAsyncThrowing(ServiceB.self) }
        let error = try XCTUnwrap(bReadA.withLock { $0 })
        guard case DIError.factoryFailed(_, _, let underlying) = error else {
            return XCTFail("B's resolve of A: \(error)")
        }
        XCTAssertTrue(underlying.error is Refused, "\(error)")
    }
}

extension WeaveDI.Container {
    fileprivate func holder<T>(of type: T.Type) -> InstanceHolder? {
        Resolver.entry(type, in: registry).map { $0.lazy }
    }
}

#endif
