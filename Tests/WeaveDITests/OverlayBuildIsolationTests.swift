import Foundation
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private final class OverlaySvc: Sendable {
    let tag: String
    init(_ tag: String) { self.tag = tag }
}

private final class OverlayClient: Sendable {
    let svc: OverlaySvc
    init(_ svc: OverlaySvc) { self.svc = svc }
}

private struct OverlaySvcKey: InjectedKey {
    static let liveValue = OverlaySvc("default")
}

extension InjectedValues {
    fileprivate var overlaySvc: OverlaySvc {
        get { self[OverlaySvcKey.self] }
        set { self[OverlaySvcKey.self] = newValue }
    }
}

/// What is built inside an overlay or a `withInjectedValues` scope belongs to
/// that scope: a live singleton or weak instance first reached there is the
/// scope's own, shared inside it and gone with it, and never seen by the live
/// container or by another scope.
final class OverlayBuildIsolationTests: DITestCase {
    private func registerLive(_ scope: ProvideScope) {
        UnifiedDI.register(OverlaySvc.self) { OverlaySvc("live") }
        UnifiedDI.register(OverlayClient.self, scope: scope) {
            OverlayClient(UnifiedDI.requireResolve(OverlaySvc.self))
        }
    }

    func testASingletonFirstBuiltInsideAnOverlayIsNotKeptByTheLiveContainer() {
        registerLive(.singleton)
        let inside = withContainerOverlay({ $0.register(OverlaySvc.self) { OverlaySvc("mock") } }) {
            let first = UnifiedDI.requireResolve(OverlayClient.self)
            XCTAssertTrue(first === UnifiedDI.requireResolve(OverlayClient.self), "one instance inside the overlay")
            return first.svc.tag
        }
        XCTAssertEqual(inside, "mock")
        XCTAssertEqual(UnifiedDI.requireResolve(OverlayClient.self).svc.tag, "live")
    }

    func testASecondOverlayGetsItsOwnMockNotTheFirstOnes() {
        registerLive(.singleton)
        let first = withContainerOverlay({ $0.register(OverlaySvc.self) { OverlaySvc("mock") } }) {
            UnifiedDI.requireResolve(OverlayClient.self).svc.tag
        }
        let second = withContainerOverlay({ $0.register(OverlaySvc.self) { OverlaySvc("mock2") } }) {
            UnifiedDI.requireResolve(OverlayClient.self).svc.tag
        }
        XCTAssertEqual(first, "mock")
        XCTAssertEqual(second, "mock2")
    }

    func testAWeakInstanceFirstBuiltInsideAnOverlayIsNotSharedWithTheLiveContainer() {
        registerLive(.weak)
        let held = withContainerOverlay({ $0.register(OverlaySvc.self) { OverlaySvc("mock") } }) {
            UnifiedDI.requireResolve(OverlayClient.self)
        }
        XCTAssertEqual(held.svc.tag, "mock")
        let live = UnifiedDI.requireResolve(OverlayClient.self)
        XCTAssertEqual(live.svc.tag, "live")
        XCTAssertFalse(live === held)
    }

    func testASingletonBuiltInsideWithInjectedValuesIsNotKeptAfterIt() {
        UnifiedDI.register(OverlayClient.self, scope: .singleton) {
            OverlayClient(InjectedValues.current.overlaySvc)
        }
        let inside = withInjectedValues {
            $0.overlaySvc = OverlaySvc("override")
        } operation: {
            UnifiedDI.requireResolve(OverlayClient.self).svc.tag
        }
        XCTAssertEqual(inside, "override")
        XCTAssertEqual(UnifiedDI.requireResolve(OverlayClient.self).svc.tag, "default")
    }

    func testAnAsyncOverlaysChildTasksShareTheOverlaysInstance() async {
        registerLive(.singleton)
        let identities = await withContainerOverlay({ $0.register(OverlaySvc.self) { OverlaySvc("mock") } }) {
            await withTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<4 {
                    group.addTask { ObjectIdentifier(UnifiedDI.requireResolve(OverlayClient.self)) }
                }
                var all: Set<ObjectIdentifier> = []
                for await identity in group { all.insert(identity) }
                return all
            }
        }
        XCTAssertEqual(identities.count, 1)
        XCTAssertEqual(UnifiedDI.requireResolve(OverlayClient.self).svc.tag, "live")
    }

    func testALiveSingletonBuiltBeforeTheOverlayIsTheOneReadInsideIt() {
        registerLive(.singleton)
        let live = UnifiedDI.requireResolve(OverlayClient.self)
        let inside = withContainerOverlay({ $0.register(OverlaySvc.self) { OverlaySvc("mock") } }) {
            UnifiedDI.requireResolve(OverlayClient.self)
        }
        XCTAssertTrue(live === inside)
    }

    func testAnOverlaysOwnSingletonIsBuiltOnceAndShutDownWithIt() {
        let built = Counter()
        withContainerOverlay {
            UnifiedDI.register(OverlaySvc.self, scope: .singleton) {
                built.increment()
                return OverlaySvc("own")
            }
            let first = UnifiedDI.requireResolve(OverlaySvc.self)
            XCTAssertTrue(first === UnifiedDI.requireResolve(OverlaySvc.self))
            XCTAssertEqual(WeaveDI.Container.live.resolve(OverlaySvc.self)?.tag, "own")
        }
        XCTAssertEqual(built.count, 1)
        XCTAssertNil(UnifiedDI.resolve(OverlaySvc.self))
    }

    func testAScopesOwnInstanceIsNotReplacedByALiveOneBuiltMeanwhile() {
        registerLive(.singleton)
        withContainerOverlay({ $0.register(OverlaySvc.self) { OverlaySvc("mock") } }) {
            let first = UnifiedDI.requireResolve(OverlayClient.self)
            // Another thread, outside every scope, builds the live one now.
            let done = DispatchSemaphore(value: 0)
            let live = Locked<OverlayClient?>(nil)
            Thread {
                live.withLock { $0 = UnifiedDI.requireResolve(OverlayClient.self) }
                done.signal()
            }.start()
            done.wait()
            XCTAssertEqual(live.withLock { $0?.svc.tag }, "live")
            let again = UnifiedDI.requireResolve(OverlayClient.self)
            XCTAssertTrue(again === first, "the overlay's instance gave way to the live one")
            XCTAssertEqual(again.svc.tag, "mock")
        }
    }

    func testANestedScopeKeepsItsOwnInstanceWhenItsEnclosingScopeBuildsOne() async {
        registerLive(.singleton)
        await withContainerOverlay({ $0.register(OverlaySvc.self) { OverlaySvc("mock") } }) {
            let (go, signal) = AsyncStream<Void>.makeStream()
            // Started in the overlay only: it builds the overlay's instance.
            let outer = Task {
                for await _ in go { break }
                return UnifiedDI.requireResolve(OverlayClient.self)
            }
            await withInjectedValues({ $0.overlaySvc = OverlaySvc("override") }) {
                let inner = UnifiedDI.requireResolve(OverlayClient.self)
                signal.yield()
                let built = await outer.value
                XCTAssertFalse(built === inner, "the overlay saw the nested scope's instance")
                XCTAssertTrue(UnifiedDI.requireResolve(OverlayClient.self) === inner, "the nested scope's instance changed")
            }
        }
    }
}
