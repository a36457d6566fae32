import WeaveDI
import XCTest

private final class Warehouse: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private final class Ledger: Sendable {}
private final class Unregistered: Sendable {}

/// Upstream's `async` resolve spellings await the registration as
/// `UnifiedDI.resolveAsync(_:)` does (issue 50, item 4): a lazy async
/// registration is built, never answered with nil, the default or a stop.
final class AsyncSpellingsTests: UpstreamTestCase {
    private func registerLazyAsyncServices() {
        UnifiedDI.register(Warehouse.self, scope: .singleton) {
            try await Task.sleep(for: .milliseconds(1))
            return Warehouse(serial: 7)
        }
        UnifiedDI.register(Ledger.self, scope: .singleton) {
            await Task.yield()
            return Ledger()
        }
    }

    func testRequireResolveAsyncBuildsALazyAsyncRegistration() async {
        registerLazyAsyncServices()
        let warehouse = await UnifiedDI.requireResolveAsync(Warehouse.self)
        XCTAssertEqual(warehouse.serial, 7)
        XCTAssertTrue(UnifiedDI.resolve(Warehouse.self) === warehouse)
    }

    func testResolveAsyncWithADefaultBuildsBeforeFallingBack() async {
        registerLazyAsyncServices()
        let warehouse = await UnifiedDI.resolveAsync(Warehouse.self, default: Warehouse(serial: -1))
        XCTAssertEqual(warehouse.serial, 7)
        let missing = await UnifiedDI.resolveAsync(Unregistered.self, default: Unregistered())
        XCTAssertNil(UnifiedDI.resolve(Unregistered.self), "the default is not registered")
        _ = missing
    }

    func testPairAndTripleBuildEachLazyAsyncRegistration() async {
        registerLazyAsyncServices()
        let (warehouse, ledger) = await UnifiedDI.resolvePairAsync(Warehouse.self, Ledger.self)
        XCTAssertEqual(warehouse?.serial, 7)
        XCTAssertNotNil(ledger)
        UnifiedDI.releaseAll()
        registerLazyAsyncServices()
        let (second, third, none) = await UnifiedDI.resolveTripleAsync(Warehouse.self, Ledger.self, Unregistered.self)
        XCTAssertEqual(second?.serial, 7)
        XCTAssertNotNil(third)
        XCTAssertNil(none)
    }

    func testGlobalRegistryAndStaticContainerResolveAsyncBuild() async {
        registerLazyAsyncServices()
        let fromRegistry = await GlobalUnifiedRegistry.resolveAsync(Warehouse.self)
        XCTAssertEqual(fromRegistry?.serial, 7)
        let fromContainer = await WeaveDI.Container.resolveAsync(Ledger.self)
        XCTAssertNotNil(fromContainer)
        XCTAssertTrue(UnifiedDI.resolve(Ledger.self) === fromContainer)
    }
}
