import InMemoryLogging
import Logging
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

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
        XCTAssertTrue(messages.contains("registered WeaveDITests.Service"), "\(messages)")
        XCTAssertTrue(messages.contains("no registration for Swift.Double"), "\(messages)")
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
            log.entries.contains {
                $0.level == .error && "\($0.message)".contains("WeaveDITests.CycleA -> WeaveDITests.CycleB -> WeaveDITests.CycleA")
            },
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
private struct NMPrivateConfig: Sendable {}
struct NMPair<A, B> {}

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
        XCTAssertTrue(message.contains("no registration for 'WeaveDITests.NMConfig'"), message)
        XCTAssertTrue(
            message.contains("'Swift.Optional<WeaveDITests.NMConfig>' (registered as an Optional: register NMConfig itself)"), message)
        let logged = log.entries.map { "\($0.message)" }
        XCTAssertTrue(
            logged.contains { $0.contains("no registration for WeaveDITests.NMConfig;") && $0.contains("registered as an Optional") },
            "\(logged)")
    }

    func testAProtocolRegistrationWhoseInstanceIsTheAskedTypeIsNamed() {
        let log = debugLog()
        UnifiedDI.register(NMService.self) { NMServiceImpl() }
        XCTAssertNil(UnifiedDI.resolve(NMServiceImpl.self))
        let logged = log.entries.map { "\($0.message)" }
        XCTAssertTrue(
            logged.contains {
                $0.contains(
                    "'WeaveDITests.NMService' (its instance is a 'WeaveDITests.NMServiceImpl': resolve NMService.self, "
                        + "or register NMServiceImpl itself)")
            }, "\(logged)")
        let report = MissingDependencyReport(
            type: NMServiceImpl.self, error: .dependencyNotFound(type: "NMServiceImpl"), container: .live)
        XCTAssertTrue(report.message.contains("its instance is a 'WeaveDITests.NMServiceImpl'"), report.message)
    }

    func testADifferentTypeWithTheSameNameIsNamedInFull() {
        UnifiedDI.register(NMFirst.Settings.self) { NMFirst.Settings() }
        let message = missDescription(NMSecond.Settings.self)
        XCTAssertTrue(message.contains("no registration for 'WeaveDITests.NMSecond.Settings'"), message)
        XCTAssertTrue(
            message.contains("'WeaveDITests.NMFirst.Settings' (registered under this name in the live container)"), message)
        let report = MissingDependencyReport(
            type: NMSecond.Settings.self, error: .dependencyNotFound(type: "Settings"), container: .live)
        XCTAssertTrue(
            report.message.contains(
                "'WeaveDITests.NMFirst.Settings' (a different type with the same name as the one asked for, 'WeaveDITests.NMSecond.Settings')"
            ), report.message)
    }

    func testATypeRegisteredInAChildIsNamedWhenTheParentIsAsked() {
        let child = WeaveDI.Container.live.createChild()
        child.register(NMConfig.self) { NMConfig() }
        let report = MissingDependencyReport(
            type: NMConfig.self, error: .dependencyNotFound(type: "NMConfig"), container: .live)
        XCTAssertTrue(
            report.message.contains(
                "'WeaveDITests.NMConfig' (registered in a child of the live container, which a resolve from this "
                    + "container never reads"), report.message)
        XCTAssertTrue(
            missDescription(NMConfig.self).contains(
                "'WeaveDITests.NMConfig' (registered under this name in a child of the live container, "
                    + "which a resolve from the live container never reads)"), missDescription(NMConfig.self))
        withExtendedLifetime(child) {}
    }

    func testATypeRegisteredInASiblingIsNamed() {
        let parent = DIContainer()
        let feature = parent.createChild()
        let other = parent.createChild()
        other.register(NMConfig.self) { NMConfig() }
        let suggestions = NearMiss.suggestions(for: NMConfig.self, in: feature)
        XCTAssertEqual(
            suggestions.first?.hasPrefix(
                "'WeaveDITests.NMConfig' (registered in a sibling branch of the container asked "
                    + "(both descend from a parent of the container asked)"), true, "\(suggestions)")
        let unrelated = DIContainer()
        XCTAssertTrue(
            NearMiss.suggestions(for: NMConfig.self, in: unrelated).contains {
                $0.contains("registered in another container (not a parent or child of the container asked)")
            })
        // A parent's registration answers a child's resolve: no suggestion.
        XCTAssertNotNil(other.resolve(NMConfig.self))
        withExtendedLifetime((parent, feature, other)) {}
    }

    func testManyChildrenHoldingTheTypeGiveOneSuggestion() {
        let children = (0..<4).map { _ in WeaveDI.Container.live.createChild() }
        for child in children { child.register(NMConfig.self) { NMConfig() } }
        UnifiedDI.register(NMConfig?.self) { NMConfig() }
        let suggestions = NearMiss.suggestions(for: NMConfig.self, in: .live)
        XCTAssertEqual(suggestions.filter { $0.contains("a child of the live container") }.count, 1, "\(suggestions)")
        XCTAssertTrue(suggestions.contains { $0.contains("registered as an Optional") }, "\(suggestions)")
        withExtendedLifetime(children) {}
    }

    func testAChainKeepsNamesWithParenthesesWhole() {
        _ = typeName(NMPair<Int, (NMConfig, NMConfig)>.self)
        _ = typeName(NMConfig.self)
        XCTAssertEqual(
            TypeNames.qualifiedChain("NMPair<Int, (NMConfig, NMConfig)> -> NMPair<Int, (NMConfig, NMConfig)>"),
            "WeaveDITests.NMPair<Swift.Int, (WeaveDITests.NMConfig, WeaveDITests.NMConfig)> -> "
                + "WeaveDITests.NMPair<Swift.Int, (WeaveDITests.NMConfig, WeaveDITests.NMConfig)>")
        XCTAssertEqual(TypeNames.qualifiedChain("NMConfig (deeper than 256)"), "WeaveDITests.NMConfig (deeper than 256)")
    }

    func testAContainerGoneIsNotSuggested() {
        do {
            let child = WeaveDI.Container.live.createChild()
            child.register(NMConfig.self) { NMConfig() }
        }
        let suggestions = NearMiss.suggestions(for: NMConfig.self, in: .live)
        XCTAssertFalse(suggestions.contains { $0.contains("child") }, "\(suggestions)")
    }

    func testMessagesNameTypesInFullAndPayloadsKeepShortNames() {
        UnifiedDI.register(NMFirst.Settings.self, scope: .transient) {
            _ = UnifiedDI.resolve(NMSecond.Settings.self)
            return NMFirst.Settings()
        }
        UnifiedDI.register(NMSecond.Settings.self, scope: .transient) {
            _ = UnifiedDI.resolve(NMFirst.Settings.self)
            return NMSecond.Settings()
        }
        do {
            _ = try UnifiedDI.resolveThrowing(NMFirst.Settings.self)
            XCTFail("a cycle resolved")
        } catch {
            // Upstream's spelling in the payload, which code matches on...
            XCTAssertEqual(error, .circularDependency(chain: "Settings -> Settings -> Settings"))
            // ...and the message names both types apart.
            XCTAssertTrue(
                error.description.contains(
                    "circular dependency: Settings (WeaveDITests.NMFirst.Settings or WeaveDITests.NMSecond.Settings)"),
                error.description)
        }
        let report = UnifiedDI.validate()
        XCTAssertTrue("\(report)".contains("cycle: Settings (WeaveDITests.NMFirst.Settings or "), "\(report)")

        let missing = DIError.missing(NMPrivateConfig.self)
        XCTAssertEqual(missing, .dependencyNotFound(type: "NMPrivateConfig"))
        XCTAssertTrue(missing.description.contains("no registration for 'WeaveDITests.NMPrivateConfig'"), missing.description)
        XCTAssertFalse(missing.description.contains("unknown context"), missing.description)
    }

    func testNothingCloseMeansNoSuggestions() {
        UnifiedDI.register(NMConfig.self) { NMConfig() }
        let message = missDescription(Double.self)
        XCTAssertFalse(message.contains("looks close"), message)
    }
}
