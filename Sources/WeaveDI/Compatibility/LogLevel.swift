import Logging

// Upstream WeaveDI's logging switch, mapped onto the swift-log level of
// `DILog.logger` (label "WeaveDI").
extension UnifiedDI {
    /// Upstream WeaveDI's logging switch, mapped onto the swift-log level of
    /// `DILog/logger` (label "WeaveDI").
    ///
    /// Upstream's categories (registration, health, performance) are not
    /// separate channels here: each picks the swift-log level at which
    /// WeaveDI's messages appear.
    ///
    /// ```swift
    /// UnifiedDI.setLogLevel(.errors)
    /// ```
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

        /// The level that logs at `level`, for a logger whose level was set
        /// outside `UnifiedDI/setLogLevel(_:)`.
        init(matching level: Logger.Level) {
            switch level {
            case .trace, .debug: self = .all
            case .info, .notice: self = .performance
            case .warning: self = .warnings
            case .error: self = .errors
            case .critical: self = .off
            }
        }

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

    /// The lowest severity logged, one for each swift-log level WeaveDI
    /// uses.
    ///
    /// ```swift
    /// UnifiedDI.setLogSeverity(.warning)
    /// ```
    public enum LogSeverity: Sendable, Hashable, CaseIterable {
        /// Registrations, misses and captive dependencies, and everything
        /// below.
        case debug
        /// Informational messages and above: swift-log's default.
        case info
        /// Warnings (a `.task` service resolved outside a scope) and errors.
        case warning
        /// Errors only: dependency cycles and failed bootstraps.
        case error

        /// The level that logs exactly this severity and above.
        var logLevel: LogLevel {
            switch self {
            case .debug: return .all
            case .info: return .performance
            case .warning: return .warnings
            case .error: return .errors
            }
        }
    }

    /// Sets the level of WeaveDI's logger, e.g. `UnifiedDI.setLogLevel(.off)`
    /// in tests or `.errors` in production. Process-wide, and thread-safe.
    ///
    /// ```swift
    /// UnifiedDI.setLogLevel(.off)
    /// ```
    ///
    /// - Parameter level: The level to log at.
    public static func setLogLevel(_ level: LogLevel) {
        lastNamedLevel.withLock { $0 = level }
        setLoggerLevel(level.loggerLevel)
        OptimizationHooks.setOptimizerLogLevel?(level.optimizerLogLevel)
    }

    /// Sets the lowest severity logged. Process-wide, and thread-safe.
    /// ``logLevel`` then reports the matching level: `.debug` -> `.all`,
    /// `.info` -> `.performance`, `.warning` -> `.warnings`, `.error` ->
    /// `.errors`.
    ///
    /// ```swift
    /// UnifiedDI.setLogSeverity(.warning)
    /// ```
    ///
    /// - Parameter severity: The lowest severity to log.
    public static func setLogSeverity(_ severity: LogSeverity) {
        setLogLevel(severity.logLevel)
    }

    /// The level `DILog/logger` logs at, in upstream's terms: the one last
    /// set with ``setLogLevel(_:)`` or ``setLogSeverity(_:)`` while the
    /// logger still has its level (`.performance`, i.e. `.info`, until
    /// then), else the one that matches the level the logger was given
    /// since (`DILog.logger = ...`), so the two never disagree.
    ///
    /// ```swift
    /// if UnifiedDI.logLevel == .off { print("WeaveDI is silent") }
    /// ```
    public static var logLevel: LogLevel {
        let named = lastNamedLevel.withLock { $0 }
        let current = DILog.logger.logLevel
        return named.loggerLevel == current ? named : LogLevel(matching: current)
    }

    /// Upstream's `async` spelling of ``logLevel``.
    ///
    /// ```swift
    /// let level = await UnifiedDI.getLogLevel()
    /// ```
    ///
    /// - Returns: The level last set with ``setLogLevel(_:)`` or ``setLogSeverity(_:)``.
    public static func getLogLevel() async -> LogLevel {
        logLevel
    }

    /// Back to the default: `.performance`, i.e. swift-log's `.info`.
    ///
    /// ```swift
    /// UnifiedDI.resetLogConfiguration()
    /// ```
    public static func resetLogConfiguration() {
        setLogLevel(.performance)
    }

    /// Which of the names for one swift-log level was set last (`.all`
    /// and `.registration` are both `.debug`): only read while the logger's
    /// level is still that name's.
    private static let lastNamedLevel = Locked(LogLevel.performance)

    private static func setLoggerLevel(_ level: Logger.Level) {
        var logger = DILog.logger
        logger.logLevel = level
        DILog.logger = logger
    }
}

extension UnifiedDI.LogLevel {
    /// What upstream's `setLogLevel` passed to an installed optimizer
    /// (``OptimizationHooks/setOptimizerLogLevel``) for this level.
    var optimizerLogLevel: OptimizerLogLevel {
        switch self {
        case .all: .all
        case .errors, .warnings, .health: .errors
        case .performance, .optimization: .optimization
        case .registration: .registration
        case .off: .off
        }
    }
}
