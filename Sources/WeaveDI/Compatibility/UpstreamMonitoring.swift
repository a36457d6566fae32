#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Upstream WeaveDI's health check and monitor (3.3 Sources/Core/Logging,
// 3.4 WeaveDIMonitoring), reduced to what `UnifiedDI` hands an app: the
// results. There is no `DIHealthCheck` actor, no `DIMonitor` object and no
// background task: a health check reads the live container when asked, and
// monitoring turns on the counting WeaveDI already has. Nothing here builds
// a registration, so a check has no side effects.

/// How serious a health check's finding is.
public enum DIHealthSeverity: String, CaseIterable, Sendable {
    /// Nothing to do.
    case info = "INFO"
    /// Worth a look; the container still works.
    case warning = "WARNING"
    /// A dependency cycle: resolving it fails.
    case critical = "CRITICAL"
}

/// One check of `UnifiedDI.performHealthCheck()`.
public struct DIHealthCheckResult: Sendable {
    /// "Container Status", "Dependency Validation" or "Resolution Statistics".
    public let name: String
    /// Whether it passed; false also when it could not be checked.
    public let status: Bool
    /// What was found.
    public let message: String
    /// How serious it is.
    public let severity: DIHealthSeverity
    /// The numbers behind the message, by name.
    public let metrics: [String: String]?
}

/// The numbers of a health check.
public struct DIHealthSummary: Sendable {
    /// Registrations in the live container (or the task's overlay) and its
    /// parents, one per key.
    public let registeredDependencies: Int
    /// Resolves counted by `UnifiedDI.stats()`: only while counting is on
    /// (`UnifiedDI.setAutoOptimization(_:)`, or development monitoring).
    public let resolvedDependencies: Int
    /// The process's peak resident memory in megabytes (`getrusage`); 0
    /// where that is not available.
    public let memoryUsage: Double
    /// Not measured here (timing every resolve would cost the lock-free
    /// read): always 0, as upstream.
    public let averageResolutionTime: Double
    /// Dependency cycles the last `validate()` of the live container found.
    public let circularDependencies: Int
    /// Registrations the last `validate()` of the live container found
    /// missing or failing. Resolves at run time are not tracked.
    public let failedResolutions: Int
}

/// The result of `UnifiedDI.performHealthCheck()`. Upstream's `timestamp`
/// (a Foundation `Date`) is not here: WeaveDI does not link Foundation.
public struct DIHealthStatus: Sendable {
    /// Whether every check passed: false before any `validate()` of the
    /// live container and when the last one found a problem.
    public let overallHealth: Bool
    /// Each check.
    public let checks: [DIHealthCheckResult]
    /// The numbers.
    public let summary: DIHealthSummary
}

/// Messages logged through ``DILogger`` (and `UnifiedDI.logInfo` and the
/// like) while monitoring ran, counted when the logger's level let them
/// through. WeaveDI's own diagnostics are not counted.
public struct DILogSummary: Sendable {
    /// All of them.
    public let totalLogs: Int
    /// At `.error`.
    public let errorCount: Int
    /// At `.warning`.
    public let warningCount: Int
    /// At `.info`.
    public let infoCount: Int
    /// At `.debug`.
    public let debugCount: Int
    /// By channel; a message with several channels counts for each.
    public let channelBreakdown: [DILogChannel: Int]
}

/// The result of `UnifiedDI.generateMonitoringReport()`. Upstream's
/// `timestamp` (a Foundation `Date`) is not here.
public struct DIMonitorReport: Sendable {
    /// Seconds monitoring ran (until it stopped, or now); 0 when it never
    /// started.
    public let period: Double
    /// A health check made for this report.
    public let healthStatus: DIHealthStatus
    /// Messages logged through ``DILogger`` while monitoring ran.
    public let logSummary: DILogSummary
    /// What to do about the health check's findings and the errors logged.
    public let recommendations: [String]
}

extension DILogger {
    /// Logs a health check: its outcome at `.info`, each check at the
    /// level of its severity (`.critical` at `.error`), and the summary,
    /// all on the health channel.
    ///
    /// ```swift
    /// DILogger.logHealthStatus(await UnifiedDI.performHealthCheck())
    /// ```
    ///
    /// - Parameter status: The health check.
    public static func logHealthStatus(_ status: DIHealthStatus) {
        info(channel: .health, "DI Health Status: \(status.overallHealth ? "HEALTHY" : "UNHEALTHY")")
        for check in status.checks {
            let message = "[\(check.status ? "PASS" : "FAIL")] \(check.name): \(check.message)"
            switch check.severity {
            case .info: info(channel: .health, message)
            case .warning: warning(channel: .health, message)
            case .critical: error(channels: [.health], message)
            }
        }
        let summary = status.summary
        info(
            channel: .health,
            "Health Summary: registered \(summary.registeredDependencies), resolved \(summary.resolvedDependencies), "
                + "peak memory \(formatTwoDecimals(summary.memoryUsage))MB, "
                + "circular dependencies \(summary.circularDependencies), failed \(summary.failedResolutions)")
    }
}

extension UnifiedDI {
    /// Development monitoring: sets the level to `.all` (``setLogLevel(_:)``),
    /// turns on resolve counting (``setAutoOptimization(_:)``, which costs
    /// every resolve a table read) and starts counting ``DILogger``'s
    /// messages for ``generateMonitoringReport()``. Upstream also ran a
    /// health check every minute, in debug builds only; here nothing runs
    /// in the background: call ``performHealthCheck()`` when you want one.
    ///
    /// ```swift
    /// await UnifiedDI.startDevelopmentMonitoring()
    /// ```
    @MainActor
    public static func startDevelopmentMonitoring() {
        setLogLevel(.all)
        DIMonitoring.start(countResolves: true)
    }

    /// Production monitoring: sets the level to `.errors`
    /// (``setLogLevel(_:)``) and starts counting ``DILogger``'s messages
    /// for ``generateMonitoringReport()``. Resolves are not counted, so
    /// reads stay on the shared cache.
    ///
    /// ```swift
    /// await UnifiedDI.startProductionMonitoring()
    /// ```
    @MainActor
    public static func startProductionMonitoring() {
        setLogLevel(.errors)
        DIMonitoring.start(countResolves: false)
    }

    /// Stops counting ``DILogger``'s messages, and turns resolve counting
    /// back off when monitoring turned it on. The log level stays, as
    /// upstream; the counts stay for ``generateMonitoringReport()``.
    ///
    /// ```swift
    /// await UnifiedDI.stopMonitoring()
    /// ```
    @MainActor
    public static func stopMonitoring() {
        DIMonitoring.stop()
    }

    /// Checks the live container now, without building anything, and logs
    /// the outcome on the health channel:
    /// - "Container Status": how many registrations; a warning when none.
    /// - "Dependency Validation": the problems the last `validate()` of
    ///   the live container found (critical for a cycle, a warning for the
    ///   others), or a warning that it was never validated. The check does
    ///   not validate itself, since that runs every factory.
    /// - "Resolution Statistics": the resolves ``stats()`` counted.
    ///
    /// ```swift
    /// _ = UnifiedDI.validate()
    /// let status = await UnifiedDI.performHealthCheck()
    /// ```
    ///
    /// - Returns: The checks and their numbers.
    public static func performHealthCheck() async -> DIHealthStatus {
        DIMonitoring.healthStatus()
    }

    /// A fresh ``performHealthCheck()``, the messages counted while
    /// monitoring ran, and recommendations drawn from both.
    ///
    /// ```swift
    /// let report = await UnifiedDI.generateMonitoringReport()
    /// report.recommendations.forEach { print($0) }
    /// ```
    ///
    /// - Returns: The report.
    public static func generateMonitoringReport() async -> DIMonitorReport {
        DIMonitoring.report()
    }
}

/// The state behind `UnifiedDI`'s monitoring calls.
enum DIMonitoring {
    private struct State {
        var running = false
        var startedAt: ContinuousClock.Instant?
        var stoppedAt: ContinuousClock.Instant?
        /// Whether resolve counting was off before monitoring turned it on.
        var turnedCountingOn = false
        var severities: [DILogSeverity: Int] = [:]
        var channels: [DILogChannel: Int] = [:]
    }

    private static let state = Locked(State())

    private static var countingResolves: Bool {
        ResolveStatistics.isCounting
    }

    static func start(countResolves: Bool) {
        state.withLock { state in
            if !state.running {
                state = State(running: true, startedAt: .now)
            }
            if countResolves && !countingResolves {
                UnifiedDI.setAutoOptimization(true)
                state.turnedCountingOn = true
            }
        }
    }

    static func stop() {
        state.withLock { state in
            guard state.running else { return }
            state.running = false
            state.stoppedAt = .now
            if state.turnedCountingOn {
                UnifiedDI.setAutoOptimization(false)
                state.turnedCountingOn = false
            }
        }
    }

    /// Called for each message ``DILogger`` logged.
    static func count(_ severity: DILogSeverity, channels: [DILogChannel]) {
        state.withLock { state in
            guard state.running else { return }
            state.severities[severity, default: 0] += 1
            for channel in channels { state.channels[channel, default: 0] += 1 }
        }
    }

    static func healthStatus() -> DIHealthStatus {
        let container = DIContainer.live
        let registrations = container.reachableEntries.count
        let graph = LastValidation.graph(for: container)
        let problems = LastValidation.problems(for: container)
        let cycles = problems.filter { if case .cycle = $0 { return true } else { return false } }.count
        let failed = problems.filter {
            switch $0 {
            case .missing, .failed: return true
            default: return false
            }
        }.count
        let resolves = ResolveStatistics.snapshot

        var checks: [DIHealthCheckResult] = []
        checks.append(
            DIHealthCheckResult(
                name: "Container Status", status: true,
                message: registrations == 0
                    ? "the live container has no registrations" : "\(registrations) registrations in the live container",
                severity: registrations == 0 ? .warning : .info,
                metrics: ["total_registrations": "\(registrations)"]))

        if let graph {
            let validated = graph.nodes.filter { $0.scope != nil }.count
            var metrics = [
                "problems": "\(problems.count)", "circular_dependencies": "\(cycles)", "failed_registrations": "\(failed)",
                "validated_registrations": "\(validated)",
            ]
            let stale = validated != registrations ? " (registrations changed since)" : ""
            if problems.isEmpty {
                checks.append(
                    DIHealthCheckResult(
                        name: "Dependency Validation", status: true,
                        message: "the last validate() found no problems\(stale)", severity: .info, metrics: metrics))
            } else {
                metrics["first_problems"] = problems.prefix(3).map(\.description).joined(separator: "; ")
                checks.append(
                    DIHealthCheckResult(
                        name: "Dependency Validation", status: false,
                        message: "the last validate() found \(problems.count) problems, first: \(problems[0])\(stale)",
                        severity: cycles > 0 ? .critical : .warning, metrics: metrics))
            }
        } else {
            checks.append(
                DIHealthCheckResult(
                    name: "Dependency Validation", status: false,
                    message: "not validated: call UnifiedDI.validate() to check the dependency graph", severity: .warning,
                    metrics: nil))
        }

        let total = resolves.values.reduce(0, +)
        let counting = countingResolves
        let top = resolves.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(3)
        checks.append(
            DIHealthCheckResult(
                name: "Resolution Statistics", status: true,
                message: counting
                    ? "\(total) resolves counted"
                    : "\(total) resolves counted; counting is off (UnifiedDI.setAutoOptimization(true) turns it on)",
                severity: .info,
                metrics: [
                    "total_resolutions": "\(total)", "counting": "\(counting)",
                    "top_types": top.map { "\($0.key)=\($0.value)" }.joined(separator: ", "),
                ]))

        // Healthy only when every check passed: a container never
        // validated, or one whose validation found a problem, is not.
        let overall = checks.allSatisfy(\.status)
        let status = DIHealthStatus(
            overallHealth: overall, checks: checks,
            summary: DIHealthSummary(
                registeredDependencies: registrations, resolvedDependencies: total, memoryUsage: peakResidentMegabytes(),
                averageResolutionTime: 0, circularDependencies: cycles, failedResolutions: failed))
        DILogger.logHealth(
            component: "DI Container", status: overall,
            details: checks.filter { $0.severity != .info }.map { "\($0.name): \($0.message)" }.joined(separator: "; "))
        return status
    }

    static func report() -> DIMonitorReport {
        let health = healthStatus()
        let (period, severities, channels) = state.withLock { state in
            let period = state.startedAt.map { (state.stoppedAt ?? .now) - $0 } ?? .zero
            return (period, state.severities, state.channels)
        }
        let logs = DILogSummary(
            totalLogs: severities.values.reduce(0, +), errorCount: severities[.error] ?? 0,
            warningCount: severities[.warning] ?? 0, infoCount: severities[.info] ?? 0,
            debugCount: severities[.debug] ?? 0, channelBreakdown: channels)

        var recommendations: [String] = []
        let container = DIContainer.live
        if LastValidation.graph(for: container) == nil {
            recommendations.append("Call UnifiedDI.validate() (in a test, for example) to check the dependency graph.")
        }
        for problem in LastValidation.problems(for: container).prefix(10) {
            recommendations.append("Fix \(problem).")
        }
        if health.summary.registeredDependencies == 0 {
            recommendations.append("Nothing is registered in the live container.")
        }
        if logs.errorCount > 0 {
            recommendations.append("\(logs.errorCount) errors were logged through DILogger while monitoring ran.")
        }
        let components = period.components
        return DIMonitorReport(
            period: Double(components.seconds) + Double(components.attoseconds) / 1e18, healthStatus: health,
            logSummary: logs, recommendations: recommendations)
    }

    /// Peak, not current, resident memory: `getrusage` has it on every
    /// platform WeaveDI builds for, without reading `/proc` or Mach.
    private static func peakResidentMegabytes() -> Double {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        var usage = rusage()
        #if canImport(Glibc)
        // Glibc declares RUSAGE_SELF in an enum, the parameter as an Int32.
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        #if canImport(Darwin)
        let bytes = Double(usage.ru_maxrss)  // bytes on Darwin
        #else
        let bytes = Double(usage.ru_maxrss) * 1024  // kilobytes on Linux
        #endif
        return bytes / 1024 / 1024
        #else
        return 0
        #endif
    }
}
