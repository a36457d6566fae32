import Logging

/// Upstream WeaveDI's logging switch, mapped onto the swift-log level of
/// `DILog.logger` (label "WeaveDI"). Upstream's categories (registration,
/// health, performance) are not separate channels here: each picks the
/// swift-log level at which its messages appear.
extension UnifiedDI {
    public enum LogLevel: Sendable, Hashable, CaseIterable {
        /// Everything, including each registration and miss (`.debug`).
        case all
        /// Errors only: dependency cycles and failed bootstraps.
        case errors
        /// Warnings and errors, e.g. a `.task` service resolved outside a scope.
        case warnings
        /// Registrations and misses (`.debug`).
        case registration
        /// Informational messages and above (`.info`, the default).
        case performance
        /// Upstream 3.1's name for `.performance`.
        case optimization
        /// Informational messages and above (`.info`).
        case health
        /// Nothing (swift-log has no "off": `.critical`, which WeaveDI never uses).
        case off

        var loggerLevel: Logger.Level {
            switch self {
            case .all, .registration: return .debug
            case .errors: return .error
            case .warnings: return .warning
            case .performance, .optimization, .health: return .info
            case .off: return .critical
            }
        }
    }

    public enum LogSeverity: Sendable, Hashable, CaseIterable {
        case debug, info, warning, error

        var loggerLevel: Logger.Level {
            switch self {
            case .debug: return .debug
            case .info: return .info
            case .warning: return .warning
            case .error: return .error
            }
        }
    }

    /// Sets the level of WeaveDI's logger, e.g. `UnifiedDI.setLogLevel(.off)`
    /// in tests or `.errors` in production.
    public static func setLogLevel(_ level: LogLevel) {
        logLevelSetting.withLock { $0 = level }
        setLoggerLevel(level.loggerLevel)
    }

    /// Sets the lowest severity logged.
    public static func setLogSeverity(_ severity: LogSeverity) {
        setLoggerLevel(severity.loggerLevel)
    }

    /// The level last set with `setLogLevel` (`.performance`, i.e. `.info`,
    /// until then).
    public static var logLevel: LogLevel {
        logLevelSetting.withLock { $0 }
    }

    public static func getLogLevel() async -> LogLevel {
        logLevel
    }

    /// Back to the default: `.info`.
    public static func resetLogConfiguration() {
        setLogLevel(.performance)
    }

    private static let logLevelSetting = Locked(LogLevel.performance)

    private static func setLoggerLevel(_ level: Logger.Level) {
        var logger = DILog.logger
        logger.logLevel = level
        DILog.logger = logger
    }
}
