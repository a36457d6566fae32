#if SwiftDependencies
import WeaveDI
import XCTest

// Only `import WeaveDI`: swift-dependencies' names come through it, as with
// upstream 3.4.0, while the SwiftDependencies trait is on.
private struct ReexportClockKey: InjectedKey {
    static let liveValue = 7
}

extension DependencyValues {
    fileprivate var reexportClock: Int {
        get { self[ReexportClockKey.self] }
        set { self[ReexportClockKey.self] = newValue }
    }
}

private struct ReexportFeature {
    @Dependency(\.reexportClock) var clock
}

final class DependenciesReexportTests: XCTestCase {
    func testDependencyNamesComeWithImportWeaveDI() {
        XCTAssertEqual(ReexportFeature().clock, 7)
        withDependencies {
            $0.reexportClock = 9
        } operation: {
            XCTAssertEqual(ReexportFeature().clock, 9)
        }
    }
}
#endif
