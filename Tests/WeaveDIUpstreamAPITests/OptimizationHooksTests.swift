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

private struct HookRefusal: Error {}

/// The other hooks are called where the event they carry happens: the
/// settings they mirror, DIActor's resolves, a module's registration.
final class OptimizationHookCallsTests: UpstreamTestCase {
    override func tearDown() {
        OptimizationHooks.setOptimizationEnabled = nil
        OptimizationHooks.resetStats = nil
        OptimizationHooks.setOptimizerLogLevel = nil
        OptimizationHooks.beginResolution = nil
        OptimizationHooks.endResolution = nil
        OptimizationHooks.onModuleRegistered = nil
        WeaveDIConfiguration.enableAutoMonitor = false
        UnifiedDI.setAutoOptimization(false)
        super.tearDown()
    }

    func testSettingsCallTheHooksThatCarryThem() {
        let log = TestMutex<[String]>([])
        OptimizationHooks.setOptimizationEnabled = { on in log.withLock { $0.append("optimization \(on)") } }
        OptimizationHooks.resetStats = { log.withLock { $0.append("reset") } }
        OptimizationHooks.setOptimizerLogLevel = { level in log.withLock { $0.append("level \(level)") } }

        UnifiedDI.setAutoOptimization(true)
        UnifiedDI.resetStats()
        UnifiedDI.setLogLevel(.performance)
        UnifiedDI.setLogLevel(.warnings)
        UnifiedDI.setAutoOptimization(false)
        XCTAssertEqual(
            log.withLock { $0 },
            ["optimization true", "reset", "level optimization", "level errors", "optimization false"])
    }

    func testDIActorResolvesAreBracketedByTheResolutionHooks() async throws {
        let log = TestMutex<[String]>([])
        OptimizationHooks.beginResolution = { type in log.withLock { $0.append("begin \(type)") } }
        OptimizationHooks.endResolution = { type in log.withLock { $0.append("end \(type)") } }
        UnifiedDI.register(Tracked.self) { Tracked() }

        let found = await DIActor.shared.resolve(Tracked.self)
        XCTAssertNotNil(found)
        let missing = await DIActor.shared.resolve(NeverRegistered.self)
        XCTAssertNil(missing)
        _ = try await DIActor.shared.resolveThrows(Tracked.self)
        _ = await DIActor.shared.resolveResult(Tracked.self)
        XCTAssertEqual(
            log.withLock { $0 },
            [
                "begin Tracked", "end Tracked", "begin NeverRegistered", "end NeverRegistered",
                "begin Tracked", "end Tracked", "begin Tracked", "end Tracked",
            ])
    }

    func testAnErrorFromBeginResolutionStopsTheResolve() async {
        let ended = TestMutex(0)
        OptimizationHooks.beginResolution = { _ in throw HookRefusal() }
        OptimizationHooks.endResolution = { _ in ended.withLock { $0 += 1 } }
        UnifiedDI.register(Tracked.self) { Tracked() }

        let stopped = await DIActor.shared.resolve(Tracked.self)
        XCTAssertNil(stopped, "registered, but the hook refused")
        do {
            _ = try await DIActor.shared.resolveThrows(Tracked.self)
            XCTFail("the hook's error is thrown")
        } catch {
            XCTAssertTrue(error is HookRefusal, "\(error)")
        }
        let result = await DIActor.shared.resolveResult(Tracked.self)
        XCTAssertEqual(result.failureError, .circularDependency(chain: "Tracked"))
        XCTAssertEqual(ended.withLock { $0 }, 0, "a refused resolve does not end")
    }

    func testModuleRegistrationIsReportedWhileTheMonitorIsOn() async {
        let log = TypeLog()
        OptimizationHooks.onModuleRegistered = { log.add($0) }
        await Module(Tracked.self) { Tracked() }.register()
        XCTAssertEqual(log.all, [], "monitor off: not reported")

        WeaveDIConfiguration.enableAutoMonitor = true
        await Module(Tracked.self) { Tracked() }.register()
        try? await Module(NeverRegistered.self) { NeverRegistered() }.registerThrowing()
        XCTAssertEqual(log.all, ["Tracked", "NeverRegistered"])
        XCTAssertNotNil(UnifiedDI.resolve(NeverRegistered.self))
    }
}

extension Result {
    fileprivate var failureError: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
