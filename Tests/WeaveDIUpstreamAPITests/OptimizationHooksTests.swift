import WeaveDI
import XCTest

private final class Tracked: Sendable {}
private final class NeverRegistered: Sendable {}

private final class TypeLog: Sendable {
    private let names = TestMutex<[String]>([])
    func add(_ type: Any.Type) { names.withLock { $0.append(String(describing: type)) } }
    var all: [String] { names.withLock { $0 } }
}

/// The tracking hooks upstream's core called are called where the same
/// event happens (issue 50, item 6).
final class OptimizationHooksTests: UpstreamTestCase {
    override func tearDown() {
        OptimizationHooks.trackRegistration = nil
        OptimizationHooks.trackResolution = nil
        OptimizationHooks.handleNilResolution = nil
        WeaveDIConfiguration.enableOptimizerTracking = true
        super.tearDown()
    }

    func testTrackRegistrationHearsEveryRegistration() {
        let log = TypeLog()
        OptimizationHooks.trackRegistration = { log.add($0) }
        UnifiedDI.register(Tracked.self) { Tracked() }
        WeaveDI.Container().register(NeverRegistered.self, instance: NeverRegistered())
        XCTAssertEqual(log.all, ["Tracked", "NeverRegistered"])
        OptimizationHooks.trackRegistration = nil
        UnifiedDI.register(Tracked.self) { Tracked() }
        XCTAssertEqual(log.all.count, 2, "removed: not called")
    }

    func testTrackResolutionHearsResolvesThroughTheCacheToo() {
        UnifiedDI.register(Tracked.self, scope: .singleton) { Tracked() }
        _ = UnifiedDI.resolve(Tracked.self)  // built and cached before the hook
        let statsBefore = UnifiedDI.stats()
        let log = TypeLog()
        OptimizationHooks.trackResolution = { log.add($0) }
        XCTAssertNotNil(OptimizationHooks.trackResolution)
        _ = UnifiedDI.resolve(Tracked.self)
        _ = UnifiedDI.resolve(Tracked.self)
        XCTAssertEqual(log.all, ["Tracked", "Tracked"])
        OptimizationHooks.trackResolution = nil
        _ = UnifiedDI.resolve(Tracked.self)
        XCTAssertEqual(log.all.count, 2, "removed: not called")
        XCTAssertEqual(UnifiedDI.stats(), statsBefore, "the hook does not turn on stats() counting")
    }

    func testHandleNilResolutionHearsEveryMiss() {
        let log = TypeLog()
        OptimizationHooks.handleNilResolution = { log.add($0) }
        XCTAssertNil(UnifiedDI.resolve(NeverRegistered.self))
        UnifiedDI.register(Tracked.self) { Tracked() }
        XCTAssertNotNil(UnifiedDI.resolve(Tracked.self))
        XCTAssertEqual(log.all, ["NeverRegistered"])
    }

    func testOptimizerTrackingOffSilencesRegistrationAndResolutionTracking() {
        let log = TypeLog()
        let misses = TypeLog()
        OptimizationHooks.trackRegistration = { log.add($0) }
        OptimizationHooks.trackResolution = { log.add($0) }
        OptimizationHooks.handleNilResolution = { misses.add($0) }
        WeaveDIConfiguration.enableOptimizerTracking = false
        UnifiedDI.register(Tracked.self) { Tracked() }
        _ = UnifiedDI.resolve(Tracked.self)
        XCTAssertNil(UnifiedDI.resolve(NeverRegistered.self))
        XCTAssertEqual(log.all, [], "tracking off: neither tracking hook is called")
        XCTAssertEqual(misses.all, ["NeverRegistered"], "a miss is reported whatever the switch says, as upstream")
        WeaveDIConfiguration.enableOptimizerTracking = true
        _ = UnifiedDI.resolve(Tracked.self)
        XCTAssertEqual(log.all, ["Tracked"])
    }
}
