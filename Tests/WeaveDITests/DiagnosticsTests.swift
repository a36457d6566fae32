import InMemoryLogging
import Logging
import WeaveDI
import XCTest

private final class CycleA: Sendable {
    let b: CycleB?
    init(b: CycleB?) { self.b = b }
}
private final class CycleB: Sendable {
    let a: CycleA?
    init(a: CycleA?) { self.a = a }
}

final class DiagnosticsTests: DITestCase {
    private var saved: Logging.Logger?

    override func tearDown() {
        if let saved { DILog.logger = saved }
        super.tearDown()
    }

    /// Sends WeaveDI's log to a fresh in-memory handler at `level`.
    private func capture(level: Logging.Logger.Level) -> InMemoryLogHandler {
        saved = DILog.logger
        let handler = InMemoryLogHandler()
        var logger = Logging.Logger(label: "WeaveDI") { _ in handler }
        logger.logLevel = level
        DILog.logger = logger
        return handler
    }

    func testDebugLevelReportsRegistrationsAndMisses() {
        let log = capture(level: .debug)
        UnifiedDI.register(Service.self) { ServiceImpl() }
        XCTAssertNil(UnifiedDI.resolve(Double.self))
        let messages = log.entries.map { "\($0.message)" }
        XCTAssertTrue(messages.contains("registered Service"), "\(messages)")
        XCTAssertTrue(messages.contains("no registration for Double"), "\(messages)")
    }

    func testDefaultLevelIsQuietForHitsMissesAndRegistrations() {
        let log = capture(level: .info)
        UnifiedDI.register(Service.self) { ServiceImpl() }
        for _ in 0..<100 {
            _ = UnifiedDI.resolve(Service.self)
            _ = UnifiedDI.resolve(Double.self)
        }
        XCTAssertTrue(log.entries.isEmpty, "\(log.entries)")
    }

    func testCyclesAreErrorsAndScopeLeaksWarnings() {
        let log = capture(level: .info)
        UnifiedDI.register(CycleA.self, scope: .transient) { CycleA(b: UnifiedDI.resolve(CycleB.self)) }
        UnifiedDI.register(CycleB.self, scope: .transient) { CycleB(a: UnifiedDI.resolve(CycleA.self)) }
        _ = try? WeaveDI.Container.live.resolveThrowing(CycleA.self)
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: 0) }
        _ = UnifiedDI.resolve(RequestContext.self)
        let levels = log.entries.map(\.level)
        XCTAssertTrue(
            log.entries.contains { $0.level == .error && "\($0.message)".contains("CycleA -> CycleB -> CycleA") },
            "\(log.entries)")
        XCTAssertTrue(levels.contains(.warning), "\(log.entries)")
    }
}
