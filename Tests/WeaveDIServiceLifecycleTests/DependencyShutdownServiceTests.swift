import Logging
import ServiceLifecycle
import Synchronization
import WeaveDI
import WeaveDIServiceLifecycle
import XCTest

private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}

private final class Pool: AsyncShutdown {
    let closed = Atomic<Bool>(false)
    func shutdown() async { closed.store(true, ordering: .sequentiallyConsistent) }
}

/// Stands in for a server: runs until graceful shutdown, then records that
/// it stopped (while the pool must still be open).
private struct FakeServer: Service {
    let pool: Pool
    let poolOpenWhenServerStopped = Flag()

    func run() async throws {
        try? await gracefulShutdown()
        poolOpenWhenServerStopped.value.store(!pool.closed.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
    }
}

final class DependencyShutdownServiceTests: XCTestCase {
    func testTheContainerShutsDownAfterTheServerWithTheGroup() async throws {
        let container = DIContainer()
        container.register(Pool.self, scope: .singleton) { Pool() }
        let pool = container.resolve(Pool.self)!
        let server = FakeServer(pool: pool)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: DependencyShutdownService(container: container)), .init(service: server)],
                logger: Logger(label: "test")))

        async let running: Void = group.run()
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertFalse(pool.closed.load(ordering: .sequentiallyConsistent))
        await group.triggerGracefulShutdown()
        try await running

        XCTAssertTrue(pool.closed.load(ordering: .sequentiallyConsistent))
        XCTAssertTrue(server.poolOpenWhenServerStopped.value.load(ordering: .sequentiallyConsistent))
        XCTAssertEqual(container.registrationCount, 0)
    }
}
