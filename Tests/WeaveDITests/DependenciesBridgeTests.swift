// Needs the `SwiftDependencies` trait (on by default), which provides the bridge.
#if SwiftDependencies
import Dependencies
import WeaveDI
import XCTest

private protocol BridgeService: Sendable { var name: String { get } }
private struct NamedBridgeService: BridgeService { let name: String }

// The guide's bridge sample, for a key that is only an InjectedKey.
private struct BridgeServiceKey: InjectedKey {
    static let liveValue: BridgeService = NamedBridgeService(name: "live")
    static let testValue: BridgeService = NamedBridgeService(name: "test")
}

extension DependencyValues {
    fileprivate var bridgeService: BridgeService {
        get { self[BridgeServiceKey.self] }
        set { self[BridgeServiceKey.self] = newValue }
    }
}

extension InjectedValues {
    fileprivate var bridgeService: BridgeService {
        get { self[BridgeServiceKey.self] }
        set { self[BridgeServiceKey.self] = newValue }
    }
}

private struct BridgeFeature {
    @Dependency(\.bridgeService) var viaDependencies
    @Injected(\.bridgeService) var viaWeaveDI
}

final class DependenciesBridgeTests: DITestCase {
    func testBothSystemsReadTheSameTestValue() {
        let feature = BridgeFeature()
        XCTAssertEqual(feature.viaDependencies.name, "test")
        XCTAssertEqual(feature.viaWeaveDI.name, "test")
    }

    func testBothSystemsSeeAContainerRegistration() {
        UnifiedDI.register(BridgeService.self) { NamedBridgeService(name: "registered") }
        let feature = BridgeFeature()
        XCTAssertEqual(feature.viaDependencies.name, "registered")
        XCTAssertEqual(feature.viaWeaveDI.name, "registered")
    }

    func testWithDependenciesOverridesThroughTheBridge() {
        withDependencies {
            $0.bridgeService = NamedBridgeService(name: "overridden")
        } operation: {
            XCTAssertEqual(BridgeFeature().viaDependencies.name, "overridden")
        }
        XCTAssertEqual(BridgeFeature().viaDependencies.name, "test")
    }

    func testWithInjectedValuesOverrideIsSeenByDependency() {
        withInjectedValues {
            $0.bridgeService = NamedBridgeService(name: "injected override")
        } operation: {
            XCTAssertEqual(BridgeFeature().viaDependencies.name, "injected override")
            XCTAssertEqual(BridgeFeature().viaWeaveDI.name, "injected override")
        }
    }
}
#endif
