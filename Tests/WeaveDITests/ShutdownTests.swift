import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private final class ShutdownLog: Sendable {
    private let names = Locked<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
    var entries: [String] { names.withLock { $0 } }
}

private final class SDatabase: AsyncShutdown {
    let log: ShutdownLog
    init(log: ShutdownLog) { self.log = log }
    func shutdown() async {
        try? await Task.sleep(for: .milliseconds(5))  // a real await: the next waits for it
        log.append("Database")
    }
}

private final class SRepository: AsyncShutdown {
    let log: ShutdownLog
    let database: SDatabase
    init(log: ShutdownLog, database: SDatabase) {
        self.log = log
        self.database = database
    }
    func shutdown() async { log.append("Repository") }
}

private protocol SOrdering: Sendable {}
private final class SOrderService: AsyncShutdown, SOrdering {
    let log: ShutdownLog
    let repository: SRepository
    init(log: ShutdownLog, repository: SRepository) {
        self.log = log
        self.repository = repository
    }
    func shutdown() async { log.append("OrderService") }
}

private final class SConfig: AsyncShutdown {
    let log: ShutdownLog
    init(log: ShutdownLog) { self.log = log }
    func shutdown() async { log.append("Config") }
}

private final class SNeverBuilt: AsyncShutdown {
    let log: ShutdownLog
    init(log: ShutdownLog) { self.log = log }
    func shutdown() async { log.append("NeverBuilt") }
}

private protocol SStore: Sendable {}
extension SRepository: SStore {}

private final class SApi: AsyncShutdown {
    let log: ShutdownLog
    let repository: SRepository
    init(log: ShutdownLog, repository: SRepository) {
        self.log = log
        self.repository = repository
    }
    func shutdown() async { log.append("Api") }
}

/// Counts its cleanups; the first one signals `entered` and then waits for `release`.
private final class SSlowCleanup: AsyncShutdown {
    let calls = TestAtomic<Int>(0)
    let entered = Gate()
    let release = Gate()
    func shutdown() async {
        calls.add(1, ordering: .sequentiallyConsistent)
        entered.open()
        await release.wait()
    }
}

/// Shuts its own container down again from its cleanup.
private final class SReentrantCleanup: AsyncShutdown {
    let container: DIContainer
    let calls = TestAtomic<Int>(0)
    init(container: DIContainer) { self.container = container }
    func shutdown() async {
        calls.add(1, ordering: .sequentiallyConsistent)
        await container.shutdown()
    }
}

final class ShutdownTests: XCTestCase {
    func testACleanupThatShutsItsContainerDownAgainDoesNotWaitForItself() async throws {
        let container = DIContainer()
        let service = SReentrantCleanup(container: container)
        container.register(SReentrantCleanup.self, instance: service)
        try await within(10) { await container.shutdown() }
        XCTAssertEqual(service.calls.load(ordering: .sequentiallyConsistent), 1)
        XCTAssertEqual(container.registrationCount, 0)
    }

    func testAnInstanceUnderTwoTypesShutsDownInDependencyOrder() async {
        let log = ShutdownLog()
        let container = DIContainer()
        container.register(SDatabase.self, scope: .singleton) { SDatabase(log: log) }
        container.register(SRepository.self, scope: .singleton) {
            SRepository(log: log, database: container.resolve(SDatabase.self)!)
        }
        // The repository again, as the protocol; this registration finishes
        // building last, when the repository itself is long built.
        container.register((any SStore).self, scope: .singleton) { container.resolve(SRepository.self)! }
        container.register(SApi.self, scope: .singleton) {
            SApi(log: log, repository: container.resolve(SRepository.self)!)
        }
        XCTAssertNotNil(container.resolve(SApi.self))
        XCTAssertNotNil(container.resolve((any SStore).self))

        await container.shutdown()

        XCTAssertEqual(log.entries, ["Api", "Repository", "Database"])
    }

    func testOverlappingShutdownsCleanEachInstanceOnce() async throws {
        let container = DIContainer()
        let service = SSlowCleanup()
        container.register(SSlowCleanup.self, instance: service)
        let first = Task { await container.shutdown() }
        // The window: the first shutdown is inside the instance's cleanup,
        // its registration not yet removed, when the second one starts.
        try await within(10) { await service.entered.wait() }
        let secondDone = TestAtomic<Bool>(false)
        let second = Task {
            await container.shutdown()
            secondDone.store(true, ordering: .sequentiallyConsistent)
        }
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertFalse(secondDone.load(ordering: .sequentiallyConsistent), "the second shutdown returned while the first was still running")
        service.release.open()
        try await within(10) {
            await first.value
            await second.value
        }
        XCTAssertEqual(service.calls.load(ordering: .sequentiallyConsistent), 1, "AsyncShutdown.shutdown() ran more than once")
        XCTAssertTrue(secondDone.load(ordering: .sequentiallyConsistent))
        XCTAssertEqual(container.registrationCount, 0)
    }

    func testReleasesSingletonsInReverseDependencyOrderAwaitingCleanups() async {
        let log = ShutdownLog()
        let container = DIContainer()
        container.register(SConfig.self) { SConfig(log: log) }
        // Registered in an order unrelated to the graph.
        container.register(SOrderService.self, scope: .singleton) {
            SOrderService(log: log, repository: container.resolve(SRepository.self)!)
        }
        container.register(SDatabase.self, scope: .singleton) { SDatabase(log: log) }
        container.register(SRepository.self, scope: .singleton) {
            SRepository(log: log, database: container.resolve(SDatabase.self)!)
        }
        container.register(SNeverBuilt.self, scope: .singleton) { SNeverBuilt(log: log) }
        weak var database: SDatabase?
        do {
            let orders = container.resolve(SOrderService.self)!
            database = orders.repository.database
            // The same instance under a second type: cleaned up once.
            container.register((any SOrdering).self, instance: orders)
        }
        XCTAssertNotNil(database)

        await container.shutdown()

        XCTAssertEqual(log.entries, ["OrderService", "Repository", "Database", "Config"])
        XCTAssertEqual(container.registrationCount, 0)
        XCTAssertNil(container.resolve(SDatabase.self))
        XCTAssertNil(database, "the database was still alive after shutdown")
    }

    func testUnifiedShutdownEmptiesTheTasksOverlay() async {
        let log = ShutdownLog()
        await withContainerOverlay { container in
            container.register(SConfig.self) { SConfig(log: log) }
        } operation: {
            await UnifiedDI.shutdown()
            XCTAssertNil(UnifiedDI.resolve(SConfig.self))
        }
        XCTAssertEqual(log.entries, ["Config"])
    }
}
