#if SwiftDependencies
import Dependencies
import WeaveDI
import XCTest

// The TCA sync bridge inside `withContainerOverlay` (issue 50, items 1 and
// 2): a registration made in an overlay is what every read in it gives, and
// a bridge installed in an overlay never makes the root's unrecognisable.

private protocol Ledger: Sendable {
    var name: String { get }
}

private final class NamedLedger: Ledger {
    let name: String
    init(_ name: String) { self.name = name }
}

private struct LedgerKey: DependencyKey {
    static let liveValue: any Ledger = NamedLedger("key-live")
    static let testValue: any Ledger = NamedLedger("key-test")
}

extension DependencyValues {
    fileprivate var ledger: any Ledger {
        get { self[autoSync: LedgerKey.self] }
        set { self[autoSync: LedgerKey.self] = newValue }
    }
}

private func dependencyName() -> String {
    @Dependency(\.ledger) var ledger
    return ledger.name
}

private func resolvedName() -> String? {
    UnifiedDI.resolve((any Ledger).self)?.name
}

final class TCASyncOverlayTests: UpstreamTestCase {
    func testRegistrationWithAutoSyncInsideAnOverlayIsResolvedThere() {
        UnifiedDI.registerWithAutoSync((any Ledger).self) { NamedLedger("root") }
        withContainerOverlay {
            UnifiedDI.registerWithAutoSync((any Ledger).self) { NamedLedger("overlay-mock") }
            XCTAssertEqual(resolvedName(), "overlay-mock")
            XCTAssertEqual(dependencyName(), "overlay-mock")
        }
        XCTAssertEqual(resolvedName(), "root")
        XCTAssertEqual(dependencyName(), "root")
    }

    func testFirstSyncRegistrationInsideAnOverlayStaysThere() {
        withContainerOverlay {
            UnifiedDI.registerWithAutoSync((any Ledger).self) { NamedLedger("overlay-only") }
            XCTAssertEqual(resolvedName(), "overlay-only")
            XCTAssertEqual(dependencyName(), "overlay-only")
        }
        XCTAssertNotEqual(resolvedName(), "overlay-only")
        XCTAssertNotEqual(dependencyName(), "overlay-only")
    }

    func testTheRootBridgeIsStillRecognisedAfterAnOverlayInstallsItsOwn() {
        UnifiedDI.register((any Ledger).self) { NamedLedger("app") }
        withContainerOverlay { overlay in
            overlay.register((any Ledger).self) { NamedLedger("overlay-plain") }
        } operation: {
            // Installs the overlay's own bridge over its plain registration.
            XCTAssertEqual(dependencyName(), "overlay-plain")
        }
        // Installs the root's bridge over the app's registration.
        XCTAssertEqual(dependencyName(), "app")
        withContainerOverlay { overlay in
            overlay.register((any Ledger).self) { NamedLedger("second-overlay") }
        } operation: {
            XCTAssertEqual(dependencyName(), "second-overlay")
        }
        // A second install at the root must see its bridge as one, not move
        // it behind a new bridge (which then reads itself: a cycle, nil).
        XCTAssertEqual(dependencyName(), "app")
        XCTAssertEqual(resolvedName(), "app")
    }

    func testParallelOverlaysEachReadTheirOwnSyncRegistration() async {
        UnifiedDI.register((any Ledger).self) { NamedLedger("app") }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    await withContainerOverlay {
                        for round in 0..<20 {
                            let name = "overlay-\(index)-\(round)"
                            UnifiedDI.registerWithAutoSync((any Ledger).self) { NamedLedger(name) }
                            XCTAssertEqual(resolvedName(), name)
                            XCTAssertEqual(dependencyName(), name)
                            await Task.yield()
                        }
                    }
                }
            }
        }
        XCTAssertEqual(dependencyName(), "app")
        XCTAssertEqual(resolvedName(), "app")
    }

    func testASyncedReadRegistersNothingSoBootstrapIfNeededStillRuns() async {
        XCTAssertEqual(dependencyName(), "key-test", "the key's own value: nothing is registered")
        XCTAssertFalse(WeaveDI.Container.isBootstrapped, "a read installs a bridge, not a registration")
        let ran = await WeaveDI.Container.bootstrapIfNeeded { container in
            container.register((any Ledger).self) { NamedLedger("bootstrapped") }
        }
        XCTAssertTrue(ran)
        XCTAssertTrue(WeaveDI.Container.isBootstrapped)
        XCTAssertEqual(dependencyName(), "bootstrapped")
        XCTAssertEqual(resolvedName(), "bootstrapped")
    }
}
#endif
