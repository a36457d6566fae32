import Logging
import WeaveDI
import XCTest

private final class Config: Sendable {
    let source: String
    init(_ source: String) { self.source = source }
}

extension WeaveDI.Container {
    fileprivate var config: Config? { resolve(Config.self) }
}

/// State upstream's surface keeps must agree with the core's (issue 50,
/// item 5): one answer whichever way it is read.
final class CompatibilityStateTests: UpstreamTestCase {
    func testBulkAsyncRegistrationsLandInTheOrderGiven() async {
        // The first factory finishes last: registered as it finished, it
        // would win; in the order given, the second one does.
        await UnifiedDI.registerBulkAsync([
            (
                Config.self,
                { @Sendable () async in
                    try? await Task.sleep(for: .milliseconds(50))
                    return Config("primary")
                }
            ),
            (Config.self, { @Sendable () async in Config("override") }),
        ])
        XCTAssertEqual(UnifiedDI.resolve(Config.self)?.source, "override")
    }

    func testTheLogLevelFollowsTheLoggerOnceItIsSetDirectly() {
        UnifiedDI.setLogLevel(.registration)
        XCTAssertEqual(UnifiedDI.logLevel, .registration, "a name set last is kept while the logger has its level")
        var logger = Logger(label: "app.di")
        logger.logLevel = .error
        DILog.logger = logger
        XCTAssertEqual(UnifiedDI.logLevel, .errors)
        logger.logLevel = .trace
        DILog.logger = logger
        XCTAssertEqual(UnifiedDI.logLevel, .all)
        logger.logLevel = .critical
        DILog.logger = logger
        XCTAssertEqual(UnifiedDI.logLevel, .off)
        UnifiedDI.setLogLevel(.health)
        XCTAssertEqual(UnifiedDI.logLevel, .health)
        XCTAssertEqual(DILog.logger.logLevel, .info)
    }

    func testGetOrCreateInAnOverlayNeverReceivesTheRootsInstance() async {
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let (release, releaseSignal) = AsyncStream<Void>.makeStream()
        let root = Task {
            await DIAsync.getOrCreate(\.config) {
                startedSignal.yield()
                for await _ in release { break }
                return Config("root")
            }
        }
        for await _ in started { break }
        // The root's build is in flight: an overlay's getOrCreate must build
        // its own, not wait for the root's.
        let overlay = Task {
            await withContainerOverlay {
                await DIAsync.getOrCreate(\.config) { Config("overlay") }
            }
        }
        let finishedFirst = TestMutex<Bool>(false)
        let watcher = Task {
            _ = await overlay.value
            finishedFirst.withLock { $0 = true }
        }
        for _ in 0..<200 where !finishedFirst.withLock({ $0 }) {
            try? await Task.sleep(for: .milliseconds(1))
        }
        let overlayFinishedWhileRootBuilt = finishedFirst.withLock { $0 }
        releaseSignal.yield()
        releaseSignal.finish()
        let rootConfig = await root.value
        let overlayConfig = await overlay.value
        await watcher.value
        XCTAssertTrue(overlayFinishedWhileRootBuilt, "the overlay waited for the root's build")
        XCTAssertEqual(rootConfig.source, "root")
        XCTAssertEqual(overlayConfig.source, "overlay")
        XCTAssertEqual(UnifiedDI.resolve(Config.self)?.source, "root")
    }
}
