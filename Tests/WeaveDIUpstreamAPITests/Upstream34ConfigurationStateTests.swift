import WeaveDI
import XCTest

// One key-path accessor over the locked state serves every hook of
// `OptimizationHooks` and every switch of `WeaveDIConfiguration`: each
// property reads and assigns its own field. The tables name each public
// property once, by a key path on the type's metatype (Swift 6.1); a key
// path to a computed property prints as an address, so a failure names
// the property by its index in the table.

final class Upstream34ConfigurationStateTests: UpstreamTestCase {
    @available(*, deprecated, message: "exercises upstream names kept as deprecated no-ops")
    func testEachSwitchReadsBackWhatWasAssignedAndChangesNoOther() {
        let switches: [ReferenceWritableKeyPath<WeaveDIConfiguration.Type, Bool>] = [
            \.enableOptimizerTracking, \.enableAutoMonitor, \.enableVerboseLogging,
            \.enableRegistryAutoHealthCheck, \.enableRegistryAutoFix, \.enableRegistryHealthLogging,
        ]
        let configuration = WeaveDIConfiguration.self
        let before = switches.map { configuration[keyPath: $0] }
        defer { for (flag, value) in zip(switches, before) { configuration[keyPath: flag] = value } }
        XCTAssertEqual(before, [true, false, false, true, true, false], "upstream's defaults")

        for (index, flag) in switches.enumerated() {
            configuration[keyPath: flag] = !before[index]
            for (otherIndex, other) in switches.enumerated() {
                let expected = otherIndex == index ? !before[otherIndex] : before[otherIndex]
                XCTAssertEqual(configuration[keyPath: other], expected, "switch \(index) -> switch \(otherIndex)")
            }
            configuration[keyPath: flag] = before[index]
        }
    }

    private struct Hook {
        let isInstalled: () -> Bool
        let install: () -> Void
        let remove: () -> Void

        init<Value>(_ path: ReferenceWritableKeyPath<OptimizationHooks.Type, Value?>, installing value: Value) {
            isInstalled = { OptimizationHooks.self[keyPath: path] != nil }
            install = { OptimizationHooks.self[keyPath: path] = value }
            remove = { OptimizationHooks.self[keyPath: path] = nil }
        }
    }

    @available(*, deprecated, message: "exercises upstream names kept as deprecated no-ops")
    func testEachHookKeepsWhatIsInstalledInItsOwnSlot() {
        let hooks = [
            Hook(\.trackRegistration, installing: { _ in }),
            Hook(\.trackResolution, installing: { _ in }),
            Hook(\.handleNilResolution, installing: { _ in }),
            Hook(\.setOptimizationEnabled, installing: { _ in }),
            Hook(\.resetStats, installing: {}),
            Hook(\.setOptimizerLogLevel, installing: { _ in }),
            Hook(\.setAutoMonitorEnabled, installing: { _ in }),
            Hook(\.onModuleRegistered, installing: { _ in }),
            Hook(\.recordAutoEdgeIfEnabled, installing: { _ in }),
            Hook(\.beginResolution, installing: { _ in }),
            Hook(\.endResolution, installing: { _ in }),
            Hook(\.addGraphNode, installing: { _ in }),
            Hook(\.addGraphEdge, installing: { _, _, _ in }),
        ]
        let installed = { hooks.indices.filter { hooks[$0].isInstalled() } }
        XCTAssertEqual(installed(), [], "none installed by default")

        for (index, hook) in hooks.enumerated() {
            hook.install()
            XCTAssertEqual(installed(), [index])
            hook.remove()
            XCTAssertFalse(hook.isInstalled(), "hook \(index)")
        }
    }
}
