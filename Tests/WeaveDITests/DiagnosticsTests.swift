import InMemoryLogging
import Logging
import XCTest

@testable import WeaveDI

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

// Near misses: a resolve that finds nothing names what is registered that
// looks close, and why it did not answer.
final class NMConfig: Sendable {}
protocol NMService: Sendable {}
final class NMServiceImpl: NMService {}
enum NMFirst {
    struct Settings: Sendable {}
}
enum NMSecond {
    struct Settings: Sendable {}
}

final class NearMissTests: DITestCase {
    private var saved: Logging.Logger?

    override func tearDown() {
        if let saved { DILog.logger = saved }
        super.tearDown()
    }

    private func debugLog() -> InMemoryLogHandler {
        saved = DILog.logger
        let handler = InMemoryLogHandler()
        var logger = Logging.Logger(label: "WeaveDI") { _ in handler }
        logger.logLevel = .debug
        DILog.logger = logger
        return handler
    }

    private func missDescription<T: Sendable>(_ type: T.Type) -> String {
        do {
            _ = try UnifiedDI.resolveThrowing(type)
            return "resolved"
        } catch {
            return error.description
        }
    }

    func testAnOptionalRegistrationIsNamedWhenTheTypeItselfIsAsked() {
        let log = debugLog()
        UnifiedDI.register(NMConfig?.self) { NMConfig() }
        let message = missDescription(NMConfig.self)
        XCTAssertTrue(message.contains("no registration for 'NMConfig'"), message)
        XCTAssertTrue(message.contains("'Optional<NMConfig>' (registered as an Optional: register NMConfig itself)"), message)
        let logged = log.entries.map { "\($0.message)" }
        XCTAssertTrue(
            logged.contains { $0.contains("no registration for NMConfig;") && $0.contains("registered as an Optional") },
            "\(logged)")
    }

    func testAProtocolRegistrationWhoseInstanceIsTheAskedTypeIsNamed() {
        let log = debugLog()
        UnifiedDI.register(NMService.self) { NMServiceImpl() }
        XCTAssertNil(UnifiedDI.resolve(NMServiceImpl.self))
        let logged = log.entries.map { "\($0.message)" }
        XCTAssertTrue(
            logged.contains {
                $0.contains("'NMService' (its instance is a 'NMServiceImpl': resolve NMService.self, or register NMServiceImpl itself)")
            }, "\(logged)")
        let report = MissingDependencyReport(
            type: NMServiceImpl.self, error: .dependencyNotFound(type: "NMServiceImpl"), container: .live)
        XCTAssertTrue(report.message.contains("its instance is a 'NMServiceImpl'"), report.message)
    }

    func testADifferentTypeWithTheSameNameIsNamedInFull() {
        UnifiedDI.register(NMFirst.Settings.self) { NMFirst.Settings() }
        let message = missDescription(NMSecond.Settings.self)
        XCTAssertTrue(message.contains("no registration for 'Settings'"), message)
        XCTAssertTrue(
            message.contains("'WeaveDITests.NMFirst.Settings' (registered under this name in the live container)"), message)
        let report = MissingDependencyReport(
            type: NMSecond.Settings.self, error: .dependencyNotFound(type: "Settings"), container: .live)
        XCTAssertTrue(
            report.message.contains(
                "'WeaveDITests.NMFirst.Settings' (a different type with the same name as the one asked for, 'WeaveDITests.NMSecond.Settings')"
            ), report.message)
    }

    func testNothingCloseMeansNoSuggestions() {
        UnifiedDI.register(NMConfig.self) { NMConfig() }
        let message = missDescription(Double.self)
        XCTAssertFalse(message.contains("looks close"), message)
    }
}
