import Dispatch
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

// The graph scope (issue 52, item 3): one instance per outermost resolve.
// Each type here is read by nothing outside this file.

private final class GraphLogger: Sendable {}

private final class GraphRepository: Sendable {
    let logger: GraphLogger?
    init(logger: GraphLogger?) { self.logger = logger }
}

/// `A -> Repository -> Logger` and `A -> Logger`.
private final class GraphScreen: Sendable {
    let logger: GraphLogger?
    let repository: GraphRepository?
    init(logger: GraphLogger?, repository: GraphRepository?) {
        self.logger = logger
        self.repository = repository
    }
}

private struct GraphFailure: Error {}

/// Holds the first build of the screen between its two resolves of the
/// logger, so another thread's outermost resolve runs inside that window.
private final class GraphWindow: @unchecked Sendable {
    let reached = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let first = Locked(true)
    func holdOnFirstBuild() {
        let isFirst = first.withLock { isFirst in
            defer { isFirst = false }
            return isFirst
        }
        if isFirst {
            reached.signal()
            release.wait()
        }
    }
}

final class GraphScopeTests: XCTestCase {
    override func setUp() {
        super.setUp()
        UnifiedDI.releaseAll()
    }

    override func tearDown() {
        UnifiedDI.releaseAll()
        super.tearDown()
    }

    private func registerScreen(_ between: @escaping @Sendable () -> Void = {}) {
        UnifiedDI.register(GraphLogger.self, scope: .graph) { GraphLogger() }
        UnifiedDI.register(GraphRepository.self, scope: .transient) {
            GraphRepository(logger: UnifiedDI.resolve(GraphLogger.self))
        }
        UnifiedDI.register(GraphScreen.self, scope: .transient) {
            let logger = UnifiedDI.resolve(GraphLogger.self)
            between()
            return GraphScreen(logger: logger, repository: UnifiedDI.resolve(GraphRepository.self))
        }
    }

    func testOneResolveSharesOneInstanceAndTheNextResolveGetsAnother() throws {
        registerScreen()
        let first = try XCTUnwrap(UnifiedDI.resolve(GraphScreen.self))
        let logger = try XCTUnwrap(first.logger)
        XCTAssertTrue(first.repository?.logger === logger, "A -> Repository -> Logger and A -> Logger share it")

        let second = try XCTUnwrap(UnifiedDI.resolve(GraphScreen.self))
        XCTAssertTrue(second.repository?.logger === second.logger)
        XCTAssertFalse(second.logger === logger, "the next outermost resolve builds its own")
    }

    func testResolvedAloneItIsBuiltEachTime() {
        UnifiedDI.register(GraphLogger.self, scope: .graph) { GraphLogger() }
        let first = UnifiedDI.resolve(GraphLogger.self)
        let second = UnifiedDI.resolve(GraphLogger.self)
        XCTAssertNotNil(first)
        XCTAssertFalse(first === second)
        XCTAssertTrue(BuildChain.current.graphInstances.isEmpty, "nothing kept outside a build")
    }

    func testAGraphRegistrationSharesItsOwnDependencies() throws {
        UnifiedDI.register(GraphLogger.self, scope: .graph) { GraphLogger() }
        UnifiedDI.register(GraphScreen.self, scope: .graph) {
            GraphScreen(
                logger: UnifiedDI.resolve(GraphLogger.self),
                repository: GraphRepository(logger: UnifiedDI.resolve(GraphLogger.self)))
        }
        let screen = try XCTUnwrap(UnifiedDI.resolve(GraphScreen.self))
        XCTAssertNotNil(screen.logger)
        XCTAssertTrue(screen.repository?.logger === screen.logger)
    }

    func testContainerResolvesInsideTheBuildShareIt() throws {
        let container = WeaveDI.Container()
        container.register(GraphLogger.self, scope: .graph) { GraphLogger() }
        container.register(GraphRepository.self, scope: .transient) {
            GraphRepository(logger: container.resolve(GraphLogger.self))
        }
        container.register(GraphScreen.self, scope: .transient) {
            GraphScreen(logger: container.resolve(GraphLogger.self), repository: container.resolve(GraphRepository.self))
        }
        let screen = try XCTUnwrap(container.resolve(GraphScreen.self))
        XCTAssertNotNil(screen.logger)
        XCTAssertTrue(screen.repository?.logger === screen.logger)
    }

    /// The forced window: thread 1 is inside its outermost build, its logger
    /// built and kept, when thread 2 makes a whole outermost resolve. Thread
    /// 2 must build its own logger (Swinject #135 returned the other
    /// thread's), and thread 1 must still share its own.
    func testAnotherThreadsResolveInsideTheWindowGetsItsOwnInstance() throws {
        let window = GraphWindow()
        registerScreen { window.holdOnFirstBuild() }
        let firstScreen = Locked<GraphScreen?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            firstScreen.withLock { $0 = UnifiedDI.resolve(GraphScreen.self) }
            done.signal()
        }
        window.reached.wait()
        let inside = try XCTUnwrap(UnifiedDI.resolve(GraphScreen.self))
        window.release.signal()
        done.wait()

        let first = try XCTUnwrap(firstScreen.withLock { $0 })
        XCTAssertNotNil(first.logger)
        XCTAssertTrue(first.repository?.logger === first.logger, "thread 1's build still shares its logger")
        XCTAssertTrue(inside.repository?.logger === inside.logger, "thread 2's build shares its own")
        XCTAssertFalse(inside.logger === first.logger, "two outermost resolves never share an instance")
    }

    func testAFailedBuildKeepsNothingForTheNextResolve() throws {
        UnifiedDI.register(GraphLogger.self, scope: .graph) { GraphLogger() }
        let seen = Locked<GraphLogger?>(nil)
        UnifiedDI.register(GraphScreen.self, scope: .transient) {
            seen.withLock { $0 = UnifiedDI.resolve(GraphLogger.self) }
            throw GraphFailure()
        }
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing(GraphScreen.self))
        XCTAssertNotNil(seen.withLock { $0 })
        XCTAssertTrue(BuildChain.current.graphInstances.isEmpty, "the failed build's instances went with it")
        XCTAssertFalse(UnifiedDI.resolve(GraphLogger.self) === seen.withLock { $0 })
    }

    func testManyThreadsEachShareOnlyTheirOwnInstances() {
        registerScreen()
        let wrong = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<500 {
                guard let screen = UnifiedDI.resolve(GraphScreen.self), let logger = screen.logger,
                    screen.repository?.logger === logger
                else {
                    wrong.withLock { $0 += 1 }
                    continue
                }
            }
        }
        XCTAssertEqual(wrong.withLock { $0 }, 0)
    }

    func testAGraphCycleIsReportedNotBuilt() {
        UnifiedDI.register(GraphLogger.self, scope: .graph) {
            _ = UnifiedDI.resolve(GraphLogger.self)
            return GraphLogger()
        }
        XCTAssertThrowsError(try UnifiedDI.resolveThrowing(GraphLogger.self)) { error in
            guard case .circularDependency = error as? DIError else {
                return XCTFail("expected a cycle, got \(error)")
            }
        }
    }

    /// An async build can move between threads: it has no graph, so two
    /// resolves inside one async factory build two (the documented limit).
    func testInsideAnAsyncBuildEachResolveBuildsItsOwn() async throws {
        UnifiedDI.register(GraphLogger.self, scope: .graph) { () async throws -> GraphLogger in GraphLogger() }
        UnifiedDI.register(GraphScreen.self, scope: .transient) { () async throws -> GraphScreen in
            let logger = try await UnifiedDI.resolveAsyncThrowing(GraphLogger.self)
            let repository = GraphRepository(logger: try await UnifiedDI.resolveAsyncThrowing(GraphLogger.self))
            return GraphScreen(logger: logger, repository: repository)
        }
        let screen = try await UnifiedDI.resolveAsyncThrowing(GraphScreen.self)
        XCTAssertNotNil(screen.logger)
        XCTAssertFalse(screen.repository?.logger === screen.logger)
    }

    /// A resolve with arguments is a build like any other: its factory's
    /// resolves share the graph.
    func testAFactoryTakingArgumentsSharesItsGraph() throws {
        UnifiedDI.register(GraphLogger.self, scope: .graph) { GraphLogger() }
        UnifiedDI.register(GraphRepository.self, scope: .transient) {
            GraphRepository(logger: UnifiedDI.resolve(GraphLogger.self))
        }
        UnifiedDI.register(GraphScreen.self) { (_: Int) in
            GraphScreen(logger: UnifiedDI.resolve(GraphLogger.self), repository: UnifiedDI.resolve(GraphRepository.self))
        }
        let screen = try XCTUnwrap(UnifiedDI.resolve(GraphScreen.self, argument: 1))
        XCTAssertNotNil(screen.logger)
        XCTAssertTrue(screen.repository?.logger === screen.logger)
        XCTAssertFalse(UnifiedDI.resolve(GraphScreen.self, argument: 1)?.logger === screen.logger)
    }
}
