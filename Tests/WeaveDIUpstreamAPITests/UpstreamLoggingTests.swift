import InMemoryLogging
import Logging
import WeaveDI
import XCTest

// Upstream 3.3/3.4's logging and monitoring calls (DILogger,
// UnifiedDI.getLogConfiguration, the monitoring and health-check calls), as
// an app makes them, checked against what reaches swift-log.

private final class LoggedService: Sendable {}
private final class NeedsMissing: Sendable {
    init(_ dependency: LoggedService?) {}
}
private final class LoggingCycleA: Sendable {
    init(_ b: LoggingCycleB?) {}
}
private final class LoggingCycleB: Sendable {
    init(_ a: LoggingCycleA?) {}
}

/// Records the whole event, for the source location InMemoryLogHandler drops.
private struct RecordingHandler: LogHandler {
    final class Store: Sendable {
        let events = TestMutex<[LogEvent]>([])
    }
    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    func log(event: LogEvent) {
        store.events.withLock { $0.append(event) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

final class UpstreamLoggingTests: XCTestCase {
    private var savedLogger: Logger!
    private var handler: InMemoryLogHandler!

    override func setUp() {
        super.setUp()
        savedLogger = DILog.logger
        WeaveDI.Container.live = WeaveDI.Container()
        UnifiedDI.resetStats()
        let handler = InMemoryLogHandler()
        self.handler = handler
        DILog.logger = Logger(label: "WeaveDI") { _ in handler }
        DILogger.resetToDefaults()
    }

    override func tearDown() {
        let done = expectation(description: "monitoring stopped")
        Task { @MainActor in
            UnifiedDI.stopMonitoring()
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        UnifiedDI.setAutoOptimization(false)
        UnifiedDI.resetStats()
        WeaveDI.Container.live = WeaveDI.Container()
        DILogger.resetToDefaults()
        DILog.logger = savedLogger
        super.tearDown()
    }

    private func messages() -> [String] {
        handler.entries.map { "\($0.message)" }
    }

    // MARK: DILogger

    func testInfoReachesSwiftLogWithTheChannelInTheMetadata() {
        DILogger.info(channel: .registration, "network module ready", "v2")
        let entry = handler.entries.last
        XCTAssertEqual(entry?.level, .info)
        XCTAssertEqual(entry.map { "\($0.message)" }, "network module ready v2")
        XCTAssertEqual(entry?.metadata["channel"], "REG")

        DILogger.warning("no channel given")
        XCTAssertEqual(handler.entries.last?.level, .warning)
        XCTAssertEqual(handler.entries.last?.metadata["channel"], "GEN")
    }

    func testErrorWithSeveralChannelsLogsOnceWithEveryChannel() {
        DILogger.error(channels: [.error, .health], "database down")
        XCTAssertEqual(handler.entries.count, 1)
        XCTAssertEqual(handler.entries.first?.level, .error)
        XCTAssertEqual(handler.entries.first?.metadata["channel"], "ERROR,HEALTH")

        DILogger.error(channels: [], "nowhere")
        XCTAssertEqual(handler.entries.count, 1)
    }

    func testTheCallersSourceLocationIsForwarded() {
        let store = RecordingHandler.Store()
        DILog.logger = Logger(label: "WeaveDI") { _ in RecordingHandler(store: store) }
        DILogger.info("here")
        let line = UInt(#line) - 1
        UnifiedDI.logInfo(channel: .resolution, "there")
        DILogger.macroWarning(channel: .health, "explicit", file: "/src/App/Feature.swift", function: "f()", line: 7)

        let events = store.events.withLock { $0 }
        XCTAssertEqual(events.count, 3)
        XCTAssertEqual(events[0].line, line)
        XCTAssertEqual(events[0].file, #fileID)
        XCTAssertEqual(events[0].source, "WeaveDIUpstreamAPITests")
        XCTAssertEqual(events[1].line, line + 2)
        XCTAssertEqual(events[1].metadata?["channel"], "RES")
        XCTAssertEqual(events[2].source, "App")
        XCTAssertEqual(events[2].function, "f()")
        XCTAssertEqual(events[2].line, 7)
    }

    func testConfigureErrorsOnlySuppressesDebugInfoAndWarnings() {
        DILogger.configure(level: .errorsOnly)
        XCTAssertEqual(DILog.logger.logLevel, .error)
        XCTAssertEqual(UnifiedDI.logLevel, .errors)

        DILogger.debug("d")
        DILogger.macroDebug(channel: .registration, "md")
        DILogger.info("i")
        DILogger.warning("w")
        XCTAssertTrue(handler.entries.isEmpty, "\(messages())")
        DILogger.error("e")
        XCTAssertEqual(messages(), ["e"])
    }

    func testTheSeverityThresholdRaisesTheLevel() {
        DILogger.configure(level: .all)  // threshold .info by default, as upstream
        DILogger.debug("hidden")
        DILogger.info("shown")
        XCTAssertEqual(messages(), ["shown"])

        DILogger.configure(level: .all, severityThreshold: .debug)
        XCTAssertEqual(DILog.logger.logLevel, .debug)
        DILogger.debug("now shown")
        XCTAssertEqual(messages(), ["shown", "now shown"])

        DILogger.configure(level: .off)
        DILogger.error("silenced")
        XCTAssertEqual(messages(), ["shown", "now shown"])
    }

    func testGetLogConfigurationRoundTripsEveryConfiguration() {
        for level in DILogLevel.allCases {
            for severity in DILogSeverity.allCases {
                DILogger.configure(level: level, severityThreshold: severity)
                let configuration = UnifiedDI.getLogConfiguration()
                XCTAssertEqual(configuration.level, level)
                XCTAssertEqual(configuration.severity, severity)
                XCTAssertEqual(DILogger.getCurrentLogLevel(), level)
                XCTAssertEqual(DILogger.getCurrentSeverityThreshold(), severity)
            }
        }
    }

    func testSetLogLevelAndConfigureAgree() {
        DILogger.configure(level: .health, severityThreshold: .info)
        XCTAssertEqual(UnifiedDI.logLevel, .health)

        UnifiedDI.setLogLevel(.errors)
        XCTAssertTrue(UnifiedDI.getLogConfiguration() == (.errorsOnly, .error))
        UnifiedDI.setLogLevel(.all)
        XCTAssertTrue(UnifiedDI.getLogConfiguration() == (.all, .debug))
        UnifiedDI.setLogSeverity(.warning)
        XCTAssertTrue(UnifiedDI.getLogConfiguration() == (.all, .warning))

        // What getLogConfiguration reports, configured back, is the same level.
        for level in UnifiedDI.LogLevel.allCases {
            UnifiedDI.setLogLevel(level)
            let loggerLevel = DILog.logger.logLevel
            let configuration = UnifiedDI.getLogConfiguration()
            DILogger.configure(level: configuration.level, severityThreshold: configuration.severity)
            XCTAssertEqual(DILog.logger.logLevel, loggerLevel, "\(level)")
        }

        DILogger.resetToDefaults()
        XCTAssertEqual(UnifiedDI.logLevel, .performance)
        XCTAssertEqual(DILog.logger.logLevel, .info)
        XCTAssertTrue(UnifiedDI.getLogConfiguration() == (.optimization, .info))
    }

    func testSpecializedMessages() {
        DILogger.configure(level: .all, severityThreshold: .debug)
        DILogger.logRegistration(type: LoggedService.self, success: true)
        DILogger.logResolution(type: LoggedService.self, success: false)
        DILogger.logResolution(type: LoggedService.self, success: true, duration: 0.002)
        DILogger.logPerformance(operation: "bootstrap", duration: 0.0512345)
        DILogger.logHealth(component: "Network", status: false, details: "offline")

        let entries = handler.entries
        XCTAssertEqual(entries.count, 5)
        XCTAssertEqual(entries.map(\.level), [.info, .error, .info, .info, .warning])
        XCTAssertEqual(entries.map { $0.metadata["channel"] }, ["REG", "RES", "PERF", "PERF", "HEALTH"])
        XCTAssertEqual("\(entries[0].message)", "Successfully registered LoggedService")
        XCTAssertEqual("\(entries[2].message)", "Successfully resolved LoggedService (took 2.00ms)")
        XCTAssertEqual("\(entries[3].message)", "bootstrap completed in 51.23ms")
        XCTAssertEqual(entries[3].metadata["duration_ms"], "51.23")
        XCTAssertEqual("\(entries[4].message)", "Network health check: FAIL - offline")
    }

    // MARK: Health check and monitoring

    private func check(_ status: DIHealthStatus, _ name: String) -> DIHealthCheckResult? {
        status.checks.first { $0.name == name }
    }

    func testTheHealthCheckReflectsRegistrations() async {
        let empty = await UnifiedDI.performHealthCheck()
        XCTAssertEqual(empty.summary.registeredDependencies, 0)
        XCTAssertEqual(check(empty, "Container Status")?.severity, .warning)
        XCTAssertEqual(check(empty, "Dependency Validation")?.status, false)

        UnifiedDI.register(LoggedService.self) { LoggedService() }
        let one = await UnifiedDI.performHealthCheck()
        XCTAssertEqual(one.summary.registeredDependencies, 1)
        XCTAssertEqual(check(one, "Container Status")?.severity, .info)
        XCTAssertEqual(check(one, "Container Status")?.metrics?["total_registrations"], "1")
        XCTAssertFalse(one.overallHealth, "never validated: not healthy")
        XCTAssertTrue(
            handler.entries.contains {
                $0.metadata["channel"] == "HEALTH" && "\($0.message)".contains("DI Container health check: FAIL")
                    && "\($0.message)".contains("not validated")
            })
        XCTAssertFalse(handler.entries.contains { "\($0.message)".contains("DI Container health check: PASS") })

        _ = UnifiedDI.validate()
        let validated = await UnifiedDI.performHealthCheck()
        XCTAssertTrue(validated.overallHealth)
        XCTAssertTrue(handler.entries.contains { "\($0.message)".contains("DI Container health check: PASS") })
    }

    func testTheHealthCheckReportsTheLastValidation() async {
        UnifiedDI.register(LoggedService.self) { LoggedService() }
        _ = UnifiedDI.validate()
        let valid = await UnifiedDI.performHealthCheck()
        XCTAssertEqual(check(valid, "Dependency Validation")?.status, true)
        XCTAssertTrue(valid.overallHealth)

        UnifiedDI.release(LoggedService.self)
        UnifiedDI.register(NeedsMissing.self, scope: .transient) { NeedsMissing(UnifiedDI.resolve(LoggedService.self)) }
        _ = UnifiedDI.validate()
        let missing = await UnifiedDI.performHealthCheck()
        XCTAssertEqual(missing.summary.failedResolutions, 1)
        XCTAssertEqual(check(missing, "Dependency Validation")?.severity, .warning)
        XCTAssertFalse(missing.overallHealth, "a missing dependency is not healthy")

        UnifiedDI.register(LoggingCycleA.self, scope: .transient) { LoggingCycleA(UnifiedDI.resolve(LoggingCycleB.self)) }
        UnifiedDI.register(LoggingCycleB.self, scope: .transient) { LoggingCycleB(UnifiedDI.resolve(LoggingCycleA.self)) }
        _ = UnifiedDI.validate()
        let cycle = await UnifiedDI.performHealthCheck()
        XCTAssertEqual(cycle.summary.circularDependencies, 1)
        XCTAssertEqual(check(cycle, "Dependency Validation")?.severity, .critical)
        XCTAssertFalse(cycle.overallHealth)
    }

    @MainActor
    func testDevelopmentMonitoringCountsResolvesAndMessages() async {
        UnifiedDI.register(LoggedService.self) { LoggedService() }
        // Validated, so that the report's own health check passes (an
        // unvalidated one logs a warning, which monitoring would count).
        _ = UnifiedDI.validate()
        UnifiedDI.startDevelopmentMonitoring()
        XCTAssertEqual(UnifiedDI.logLevel, .all)
        XCTAssertTrue(UnifiedDI.getLogConfiguration() == (.all, .debug))

        _ = UnifiedDI.resolve(LoggedService.self)
        _ = UnifiedDI.resolve(LoggedService.self)
        DILogger.error("boom")
        UnifiedDI.logWarning(channel: .resolution, "slow")
        let report = await UnifiedDI.generateMonitoringReport()
        XCTAssertEqual(report.healthStatus.summary.resolvedDependencies, 2)
        XCTAssertEqual(report.logSummary.errorCount, 1)
        XCTAssertEqual(report.logSummary.warningCount, 1)
        XCTAssertEqual(report.logSummary.channelBreakdown[.resolution], 1)
        XCTAssertTrue(report.recommendations.contains { $0.contains("1 errors") }, "\(report.recommendations)")
        XCTAssertGreaterThan(report.period, 0)

        UnifiedDI.stopMonitoring()
        _ = UnifiedDI.resolve(LoggedService.self)
        DILogger.error("after")
        let after = await UnifiedDI.generateMonitoringReport()
        XCTAssertEqual(after.healthStatus.summary.resolvedDependencies, 2, "counting stopped with monitoring")
        XCTAssertEqual(after.logSummary.errorCount, 1)
    }

    @MainActor
    func testProductionMonitoringLogsErrorsOnlyAndDoesNotCountResolves() async {
        UnifiedDI.register(LoggedService.self) { LoggedService() }
        UnifiedDI.startProductionMonitoring()
        XCTAssertEqual(UnifiedDI.logLevel, .errors)
        _ = UnifiedDI.resolve(LoggedService.self)
        DILogger.info("dropped")
        let report = await UnifiedDI.generateMonitoringReport()
        XCTAssertEqual(report.healthStatus.summary.resolvedDependencies, 0)
        XCTAssertEqual(report.logSummary.totalLogs, 0)
        XCTAssertFalse(messages().contains("dropped"))
    }
}
