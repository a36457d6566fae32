import Foundation
import WeaveDI
import XCTest

// Upstream 3.3's bootstrap family, called as its apps call it.

private struct BootClock: Sendable { let name: String }
private struct BootConfig: Sendable { let port: Int }
private struct BootFailure: Error {}

final class BootstrapVariantsTests: XCTestCase {
    override func setUp() { WeaveDI.Container.live = WeaveDI.Container() }
    override func tearDown() { WeaveDI.Container.live = WeaveDI.Container() }

    func testBootstrapMixedRunsSyncThenAsyncIntoLive() async {
        let order = Order()
        await WeaveDI.Container.bootstrapMixed(
            sync: { container in
                order.append("sync")
                container.register(BootClock.self) { BootClock(name: "system") }
            },
            async: { container in
                order.append("async")
                XCTAssertEqual(container.resolve(BootClock.self)?.name, "system", "sync ran first")
                container.register(BootConfig.self, instance: BootConfig(port: 8080))
            }
        )
        XCTAssertEqual(order.values, ["sync", "async"])
        XCTAssertEqual(UnifiedDI.resolve(BootConfig.self)?.port, 8080)
    }

    func testBootstrapIfNeededRunsOnlyOnAnEmptyContainer() async {
        XCTAssertFalse(WeaveDI.Container.isBootstrapped)
        let first = await WeaveDI.Container.bootstrapIfNeeded { $0.register(BootClock.self) { BootClock(name: "first") } }
        let second = await WeaveDI.Container.bootstrapIfNeeded { $0.register(BootClock.self) { BootClock(name: "second") } }
        XCTAssertTrue(first)
        XCTAssertFalse(second)
        XCTAssertTrue(WeaveDI.Container.isBootstrapped)
        XCTAssertEqual(UnifiedDI.resolve(BootClock.self)?.name, "first")
        let asyncAgain = await WeaveDI.Container.bootstrapAsyncIfNeeded { _ in throw BootFailure() }
        XCTAssertFalse(asyncAgain, "already bootstrapped: the closure does not run")
        WeaveDI.Container.ensureBootstrapped()
    }

    func testBootstrapAsyncIfNeededReportsAThrow() async {
        let ran = await WeaveDI.Container.bootstrapAsyncIfNeeded { container in
            container.register(BootClock.self) { BootClock(name: "partial") }
            throw BootFailure()
        }
        XCTAssertFalse(ran)
        XCTAssertEqual(UnifiedDI.resolve(BootClock.self)?.name, "partial", "what was registered before the throw stays")
    }

    func testUpdateAddsToLive() async {
        await WeaveDI.Container.update { $0.register(BootClock.self) { BootClock(name: "a") } }
        await WeaveDI.Container.updateAsync { $0.register(BootConfig.self, instance: BootConfig(port: 1)) }
        await WeaveDI.Container.flushPendingRegistryTasks()
        XCTAssertEqual(UnifiedDI.resolve(BootClock.self)?.name, "a")
        XCTAssertEqual(UnifiedDI.resolve(BootConfig.self)?.port, 1)
    }

    func testBootstrapInTaskTakesAThrowingClosure() async throws {
        let done = expectation(description: "bootstrap ran")
        WeaveDI.Container.bootstrapInTask { container in
            container.register(BootConfig.self, instance: BootConfig(port: 9))
            done.fulfill()
            throw BootFailure()
        }
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(UnifiedDI.resolve(BootConfig.self)?.port, 9)
    }
}

private final class Order: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ value: String) { lock.withLock { stored.append(value) } }
    var values: [String] { lock.withLock { stored } }
}
