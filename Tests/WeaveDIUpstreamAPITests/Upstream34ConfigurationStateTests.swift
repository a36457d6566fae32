import WeaveDI
import XCTest

// One key-path accessor over the locked state serves every hook of
// `OptimizationHooks` and every switch of `WeaveDIConfiguration`: each
// property reads and assigns its own field.

final class Upstream34ConfigurationStateTests: UpstreamTestCase {
    private struct Switch {
        let name: String
        let get: () -> Bool
        let set: (Bool) -> Void
    }

    func testEachSwitchReadsBackWhatWasAssignedAndChangesNoOther() {
        let switches = [
            Switch(
                name: "enableOptimizerTracking", get: { WeaveDIConfiguration.enableOptimizerTracking },
                set: { WeaveDIConfiguration.enableOptimizerTracking = $0 }),
            Switch(
                name: "enableAutoMonitor", get: { WeaveDIConfiguration.enableAutoMonitor },
                set: { WeaveDIConfiguration.enableAutoMonitor = $0 }),
            Switch(
                name: "enableVerboseLogging", get: { WeaveDIConfiguration.enableVerboseLogging },
                set: { WeaveDIConfiguration.enableVerboseLogging = $0 }),
            Switch(
                name: "enableRegistryAutoHealthCheck", get: { WeaveDIConfiguration.enableRegistryAutoHealthCheck },
                set: { WeaveDIConfiguration.enableRegistryAutoHealthCheck = $0 }),
            Switch(
                name: "enableRegistryAutoFix", get: { WeaveDIConfiguration.enableRegistryAutoFix },
                set: { WeaveDIConfiguration.enableRegistryAutoFix = $0 }),
            Switch(
                name: "enableRegistryHealthLogging", get: { WeaveDIConfiguration.enableRegistryHealthLogging },
                set: { WeaveDIConfiguration.enableRegistryHealthLogging = $0 }),
        ]
        let before = switches.map { $0.get() }
        defer { for (flag, value) in zip(switches, before) { flag.set(value) } }
        XCTAssertEqual(before, [true, false, false, true, true, false], "upstream's defaults")

        for (index, flag) in switches.enumerated() {
            flag.set(!before[index])
            for (other, value) in zip(switches, before) {
                XCTAssertEqual(other.get(), other.name == flag.name ? !value : value, "\(flag.name) -> \(other.name)")
            }
            flag.set(before[index])
        }
    }

    private struct Hook {
        let name: String
        let isInstalled: () -> Bool
        let install: () -> Void
        let remove: () -> Void
    }

    func testEachHookKeepsWhatIsInstalledInItsOwnSlot() {
        let hooks = [
            Hook(
                name: "trackRegistration", isInstalled: { OptimizationHooks.trackRegistration != nil },
                install: { OptimizationHooks.trackRegistration = { _ in } },
                remove: { OptimizationHooks.trackRegistration = nil }),
            Hook(
                name: "trackResolution", isInstalled: { OptimizationHooks.trackResolution != nil },
                install: { OptimizationHooks.trackResolution = { _ in } },
                remove: { OptimizationHooks.trackResolution = nil }),
            Hook(
                name: "handleNilResolution", isInstalled: { OptimizationHooks.handleNilResolution != nil },
                install: { OptimizationHooks.handleNilResolution = { _ in } },
                remove: { OptimizationHooks.handleNilResolution = nil }),
            Hook(
                name: "setOptimizationEnabled", isInstalled: { OptimizationHooks.setOptimizationEnabled != nil },
                install: { OptimizationHooks.setOptimizationEnabled = { _ in } },
                remove: { OptimizationHooks.setOptimizationEnabled = nil }),
            Hook(
                name: "resetStats", isInstalled: { OptimizationHooks.resetStats != nil },
                install: { OptimizationHooks.resetStats = {} }, remove: { OptimizationHooks.resetStats = nil }),
            Hook(
                name: "setOptimizerLogLevel", isInstalled: { OptimizationHooks.setOptimizerLogLevel != nil },
                install: { OptimizationHooks.setOptimizerLogLevel = { _ in } },
                remove: { OptimizationHooks.setOptimizerLogLevel = nil }),
            Hook(
                name: "setAutoMonitorEnabled", isInstalled: { OptimizationHooks.setAutoMonitorEnabled != nil },
                install: { OptimizationHooks.setAutoMonitorEnabled = { _ in } },
                remove: { OptimizationHooks.setAutoMonitorEnabled = nil }),
            Hook(
                name: "onModuleRegistered", isInstalled: { OptimizationHooks.onModuleRegistered != nil },
                install: { OptimizationHooks.onModuleRegistered = { _ in } },
                remove: { OptimizationHooks.onModuleRegistered = nil }),
            Hook(
                name: "recordAutoEdgeIfEnabled", isInstalled: { OptimizationHooks.recordAutoEdgeIfEnabled != nil },
                install: { OptimizationHooks.recordAutoEdgeIfEnabled = { _ in } },
                remove: { OptimizationHooks.recordAutoEdgeIfEnabled = nil }),
            Hook(
                name: "beginResolution", isInstalled: { OptimizationHooks.beginResolution != nil },
                install: { OptimizationHooks.beginResolution = { _ in } },
                remove: { OptimizationHooks.beginResolution = nil }),
            Hook(
                name: "endResolution", isInstalled: { OptimizationHooks.endResolution != nil },
                install: { OptimizationHooks.endResolution = { _ in } },
                remove: { OptimizationHooks.endResolution = nil }),
            Hook(
                name: "addGraphNode", isInstalled: { OptimizationHooks.addGraphNode != nil },
                install: { OptimizationHooks.addGraphNode = { _ in } },
                remove: { OptimizationHooks.addGraphNode = nil }),
            Hook(
                name: "addGraphEdge", isInstalled: { OptimizationHooks.addGraphEdge != nil },
                install: { OptimizationHooks.addGraphEdge = { _, _, _ in } },
                remove: { OptimizationHooks.addGraphEdge = nil }),
        ]
        XCTAssertEqual(hooks.filter { $0.isInstalled() }.map(\.name), [], "none installed by default")

        for hook in hooks {
            hook.install()
            XCTAssertEqual(hooks.filter { $0.isInstalled() }.map(\.name), [hook.name])
            hook.remove()
            XCTAssertFalse(hook.isInstalled(), hook.name)
        }
    }
}
