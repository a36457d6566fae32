import WeaveDI
import XCTest

// Upstream 3.3's DIAdvanced namespace and UnifiedDI's optimizer calls.

private final class AdvancedClock: Sendable {}
private struct AdvancedConfig: Sendable, Equatable { let name: String }

final class UpstreamAdvancedTests: XCTestCase {
    override func setUp() { WeaveDI.Container.live = WeaveDI.Container() }
    override func tearDown() { WeaveDI.Container.live = WeaveDI.Container() }

    func testRegisterManyRunsOnlyTheChosenBranch() {
        let useMock = true
        DIAdvanced.Batch.registerMany {
            BatchRegistration(AdvancedClock.self) { AdvancedClock() }
            BatchRegistration(AdvancedConfig.self, condition: useMock) {
                AdvancedConfig(name: "mock")
            } fallback: {
                XCTFail("the fallback must not run")
                return AdvancedConfig(name: "live")
            }
        }
        XCTAssertNotNil(UnifiedDI.resolve(AdvancedClock.self))
        XCTAssertEqual(UnifiedDI.resolve(AdvancedConfig.self), AdvancedConfig(name: "mock"))
        DIAdvanced.Batch.registerMany {
            BatchRegistration(AdvancedConfig.self, default: AdvancedConfig(name: "default"))
        }
        XCTAssertEqual(DIAdvanced.Performance.resolveWithTracking(AdvancedConfig.self), AdvancedConfig(name: "default"))
    }

    func testMemoryUsageCountsRegistrationsAndBuiltSingletons() async {
        UnifiedDI.register(AdvancedClock.self, scope: .singleton) { AdvancedClock() }
        UnifiedDI.register(AdvancedConfig.self, scope: .transient) { AdvancedConfig(name: "t") }
        var usage = await UnifiedDI.getMemoryUsageAsync()
        XCTAssertEqual(usage.registeredCount, 2)
        XCTAssertEqual(usage.singletonCount, 0, "nothing built yet")
        _ = UnifiedDI.staticResolve(AdvancedClock.self)
        usage = await UnifiedDI.getMemoryUsageAsync()
        XCTAssertEqual(usage.singletonCount, 1)
        await UnifiedDI.clearAsync()
        usage = await UnifiedDI.getMemoryUsageAsync()
        XCTAssertEqual(usage.registeredCount, 0)
    }

    func testRegisterBulkAsyncRegistersEachType() async {
        await UnifiedDI.registerBulkAsync([(AdvancedConfig.self, { @Sendable () async in AdvancedConfig(name: "bulk") })])
        XCTAssertEqual(UnifiedDI.resolve(AdvancedConfig.self), AdvancedConfig(name: "bulk"))
        UnifiedDI.configureOptimization(debounceMs: 100, threshold: 10, realTimeUpdate: true)
        UnifiedDI.setAutoOptimizerLogLevel(.errors)
        XCTAssertEqual(UnifiedDI.resolve(AdvancedConfig.self), AdvancedConfig(name: "bulk"), "the tuning calls change nothing")
    }
}
