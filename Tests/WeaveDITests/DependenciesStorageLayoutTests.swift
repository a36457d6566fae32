#if SwiftDependencies
import Dependencies
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private struct LayoutKey: DependencyKey {
    static let liveValue = "live"
    static let testValue = "test"
}

/// swift-dependencies offers no public way to ask whether a key is
/// overridden in a `DependencyValues`, so the TCA sync bridge reads its
/// private `storage` through `Mirror` (`TCASyncBridge.overrides`). This
/// test pins that layout for the swift-dependencies versions the manifest
/// accepts (from 1.17.1 below 2.0; built here against 1.17.1): when an upgrade
/// moves it, this fails, instead of synced reads silently treating every
/// key as overridden (the bridge's fallback).
final class DependenciesStorageLayoutTests: XCTestCase {
    func testTheStorageTheBridgeReadsIsThere() {
        let storage = Mirror(reflecting: DependencyValues._current).descendant("storage")
        XCTAssertNotNil(
            storage as? [ObjectIdentifier: any Sendable],
            "DependencyValues no longer keeps its overrides in `storage: [ObjectIdentifier: any Sendable]`")
    }

    func testOverridesTellsAnOverriddenKeyFromAnUntouchedOne() {
        let key = DependencyKeyType(LayoutKey.self)
        XCTAssertFalse(TCASyncBridge.overrides(key, in: DependencyValues._current))
        withDependencies {
            $0[LayoutKey.self] = "overridden"
        } operation: {
            XCTAssertTrue(TCASyncBridge.overrides(key, in: DependencyValues._current))
        }
    }
}
#endif
