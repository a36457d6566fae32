import Logging
import ServiceLifecycle
import WeaveDI
import WeaveDIServiceLifecycle
import XCTest

private final class Flag: Sendable {
    let value = TestAtomic<Bool>(false)
}

private final class Pool: AsyncShutdown {
    let closed = TestAtomic<Bool>(false)
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

private final class Connection: AsyncShutdown {
    let closed = TestAtomic<Bool>(false)
    func shutdown() async { closed.store(true, ordering: .sequentiallyConsistent) }
}

private final class FailingService: Sendable {}

private struct Refused: Error {}

final class DependencyLifecycleServiceTests: XCTestCase {
    func testTheGroupStartsTheContainerAndShutsItDown() async throws {
        let container = DIContainer()
        let builds = TestAtomic<Int>(0)
        container.register(Connection.self, scope: .singleton) {
            try await Task.sleep(for: .milliseconds(5))
            builds.add(1, ordering: .sequentiallyConsistent)
            return Connection()
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: DependencyLifecycleService(container: container, startTimeout: .seconds(10)))],
                logger: Logger(label: "test")))
        async let running: Void = group.run()
        var connection: Connection?
        for _ in 0..<500 where connection == nil {
            try await Task.sleep(for: .milliseconds(10))
            connection = container.resolve(Connection.self)
        }
        let started = try XCTUnwrap(connection, "the service group did not start the container")
        XCTAssertEqual(builds.load(ordering: .sequentiallyConsistent), 1)
        await group.triggerGracefulShutdown()
        try await running
        XCTAssertTrue(started.closed.load(ordering: .sequentiallyConsistent))
    }

    func testAFailedStartStopsTheGroupWithTheServicesNamed() async throws {
        final class Built: Sendable {
            let connection = TestMutex<Connection?>(nil)
        }
        let built = Built()
        let container = DIContainer()
        container.register(Connection.self, scope: .singleton) {
            let connection = Connection()
            built.connection.withLock { $0 = connection }
            return connection
        }
        container.register(FailingService.self, scope: .singleton) { () async throws -> FailingService in
            throw Refused()
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: DependencyLifecycleService(container: container, startTimeout: .seconds(10)))],
                logger: Logger(label: "test")))
        do {
            try await group.run()
            XCTFail("the group ran with a failed start")
        } catch DIError.startFailed(let failures) {
            XCTAssertEqual(failures.map { $0.type.split(separator: ".").last.map(String.init) }, ["FailingService"])
        }
        let connection = try XCTUnwrap(built.connection.withLock { $0 }, "the start built the connection")
        XCTAssertTrue(connection.closed.load(ordering: .sequentiallyConsistent), "what the start built is shut down")
    }

    func testTheLiveContainerIsReadWhenTheServiceRuns() async throws {
        let service = DependencyShutdownService()
        let replaced = DIContainer()
        replaced.register(Connection.self, scope: .singleton) { Connection() }
        let connection = try XCTUnwrap(replaced.resolve(Connection.self))
        let previous = WeaveDI.Container.live
        WeaveDI.Container.live = replaced
        defer { WeaveDI.Container.live = previous }
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: Logger(label: "test")))
        async let running: Void = group.run()
        try await Task.sleep(for: .milliseconds(20))
        await group.triggerGracefulShutdown()
        try await running
        XCTAssertTrue(connection.closed.load(ordering: .sequentiallyConsistent))
    }
}
