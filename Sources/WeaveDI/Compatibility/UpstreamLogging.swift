import Logging

// Upstream WeaveDI's `DILogger` (3.3 Sources/Core/Logging, 3.4 WeaveDICore),
// written to `DILog/logger`: one logger, no print. Upstream filtered by
// channel; swift-log has one level per logger, so the channel travels in
// the metadata (key "channel", upstream's raw value such as "REG") and a
// log handler can filter on it.

/// Upstream's log channels: the kind of message. Here each message carries
/// its channel's raw value in the swift-log metadata under "channel".
///
/// ```swift
/// DILogger.info(channel: .registration, "registered the network module")
/// ```
public enum DILogChannel: String, CaseIterable, Sendable {
    /// Registrations.
    case registration = "REG"
    /// Resolutions.
    case resolution = "RES"
    /// Optimization.
    case optimization = "OPT"
    /// Health checks.
    case health = "HEALTH"
    /// Diagnostics.
    case diagnostics = "DIAG"
    /// Everything else, the default.
    case general = "GEN"
    /// Errors.
    case error = "ERROR"
    /// Timings.
    case performance = "PERF"
}

/// The severity of a message, ordered `debug < info < warning < error`,
/// logged at the swift-log level of the same name.
///
/// ```swift
/// DILogger.configure(level: .all, severityThreshold: .warning)
/// ```
public enum DILogSeverity: String, CaseIterable, Comparable, Sendable {
    /// swift-log's `.debug`.
    case debug = "DEBUG"
    /// swift-log's `.info`.
    case info = "INFO"
    /// swift-log's `.warning`.
    case warning = "WARN"
    /// swift-log's `.error`.
    case error = "ERROR"

    /// Orders by severity.
    public static func < (lhs: DILogSeverity, rhs: DILogSeverity) -> Bool {
        lhs.loggerLevel < rhs.loggerLevel
    }

    var loggerLevel: Logger.Level {
        switch self {
        case .debug: return .debug
        case .info: return .info
        case .warning: return .warning
        case .error: return .error
        }
    }
}

/// Upstream's filter for ``DILogger``. Channels are not filtered here (see
/// ``DILogChannel``): each case sets the lowest swift-log level it lets
/// through, and ``DILogger/configure(level:severityThreshold:)`` logs at
/// the higher of that and the severity threshold.
///
/// ```swift
/// DILogger.configure(level: .errorsOnly)
/// ```
public enum DILogLevel: String, CaseIterable, Sendable {
    /// Everything (`.debug`).
    case all = "ALL"
    /// Registrations and everything else (`.debug`), as
    /// `UnifiedDI.setLogLevel(.registration)`.
    case registration = "REG"
    /// Informational messages and above (`.info`).
    case optimization = "OPT"
    /// Informational messages and above (`.info`), as
    /// `UnifiedDI.setLogLevel(.health)`.
    case health = "HEALTH"
    /// Errors only (`.error`).
    case errorsOnly = "ERROR"
    /// Nothing (`.critical`, which WeaveDI never uses).
    case off = "OFF"

    var floor: Logger.Level {
        switch self {
        case .all, .registration: return .debug
        case .optimization, .health: return .info
        case .errorsOnly: return .error
        case .off: return .critical
        }
    }
}

/// Upstream's logger, writing to `DILog/logger`, the logger WeaveDI's own
/// diagnostics use. Its configuration is the one `UnifiedDI.setLogLevel(_:)`
/// sets: configuring either changes both.
///
/// Each message goes to swift-log with its channel in the metadata
/// ("channel"), and the `file`, `function` and `line` given. Upstream's
/// `verbose` formatting and its default of silence in release builds are
/// not kept: the handler formats, and the default level is `.info`.
///
/// ```swift
/// DILogger.configure(level: .all, severityThreshold: .debug)
/// DILogger.info(channel: .registration, "user module ready")
/// DILogger.logPerformance(operation: "bootstrap", duration: 0.05)
/// ```
public enum DILogger {
    /// The pair last given to ``configure(level:severityThreshold:)`` and
    /// the `UnifiedDI.LogLevel` it set. While that is still the level set,
    /// the pair is what was configured; once `UnifiedDI.setLogLevel(_:)`
    /// set another, the pair is derived from that level.
    private struct Configured {
        var level: DILogLevel
        var severity: DILogSeverity
        var unified: UnifiedDI.LogLevel
    }

    private static let configured = Locked<Configured?>(nil)

    /// Sets WeaveDI's logger to the higher of the level's floor and the
    /// severity threshold, through `UnifiedDI.setLogLevel(_:)`:
    /// `(.all, .debug)` is `.all`, `(.registration, .debug)` `.registration`,
    /// `(.health, .info)` `.health`, other `.info` pairs `.performance`,
    /// `.warning` pairs `.warnings`, `.error` pairs and `.errorsOnly`
    /// `.errors`, and `.off` `.off`.
    ///
    /// ```swift
    /// DILogger.configure(level: .errorsOnly)
    /// ```
    ///
    /// - Parameters:
    ///   - level: Upstream's filter; here, the lowest swift-log level.
    ///   - severityThreshold: The lowest severity logged.
    public static func configure(level: DILogLevel, severityThreshold: DILogSeverity = .info) {
        let unified = unifiedLevel(level: level, severity: severityThreshold)
        // Under this lock so that concurrent calls leave the pair and the
        // level they set in agreement.
        configured.withLock { configured in
            configured = Configured(level: level, severity: severityThreshold, unified: unified)
            UnifiedDI.setLogLevel(unified)
        }
    }

    /// The level configured, or the one matching the level
    /// `UnifiedDI.setLogLevel(_:)` set (`.optimization` by default).
    ///
    /// ```swift
    /// let level = DILogger.getCurrentLogLevel()
    /// ```
    ///
    /// - Returns: The level.
    public static func getCurrentLogLevel() -> DILogLevel {
        current.level
    }

    /// The severity threshold configured, or the one matching the level
    /// `UnifiedDI.setLogLevel(_:)` set (`.info` by default).
    ///
    /// ```swift
    /// let threshold = DILogger.getCurrentSeverityThreshold()
    /// ```
    ///
    /// - Returns: The threshold.
    public static func getCurrentSeverityThreshold() -> DILogSeverity {
        current.severity
    }

    /// Back to the default, as `UnifiedDI.resetLogConfiguration()`:
    /// `.info`. Upstream's default was silence outside debug builds.
    ///
    /// ```swift
    /// DILogger.resetToDefaults()
    /// ```
    public static func resetToDefaults() {
        configured.withLock { configured in
            configured = nil
            UnifiedDI.resetLogConfiguration()
        }
    }

    static var current: (level: DILogLevel, severity: DILogSeverity) {
        configured.withLock { configured in
            let unified = UnifiedDI.logLevel
            if let configured, configured.unified == unified {
                return (configured.level, configured.severity)
            }
            return derived(from: unified)
        }
    }

    /// The pair upstream's `setLogLevel` configured for each level, where
    /// its effect matches ours; where it does not, the pair that
    /// ``configure(level:severityThreshold:)`` maps back to the same level
    /// (`.registration` logs `.debug` here, `.warnings` every channel).
    private static func derived(from level: UnifiedDI.LogLevel) -> (level: DILogLevel, severity: DILogSeverity) {
        switch level {
        case .all: return (.all, .debug)
        case .registration: return (.registration, .debug)
        case .performance, .optimization: return (.optimization, .info)
        case .health: return (.health, .info)
        case .warnings: return (.all, .warning)
        case .errors: return (.errorsOnly, .error)
        case .off: return (.off, .info)
        }
    }

    private static func unifiedLevel(level: DILogLevel, severity: DILogSeverity) -> UnifiedDI.LogLevel {
        switch max(level.floor, severity.loggerLevel) {
        case .trace, .debug: return level == .registration ? .registration : .all
        case .info, .notice: return level == .health ? .health : .performance
        case .warning: return .warnings
        case .error: return .errors
        case .critical: return .off
        }
    }

    // MARK: Logging

    /// Logs `message` and `arguments` (upstream dropped the arguments),
    /// separated by spaces, at `level` with the channels in the metadata.
    /// Nothing is built when the logger's level is above `level`.
    static func emit(
        _ severity: DILogSeverity,
        channels: [DILogChannel],
        _ message: Any,
        _ arguments: [Any] = [],
        metadata extra: Logger.Metadata = [:],
        file: String,
        function: String,
        line: Int
    ) {
        // Upstream logged nothing for an empty channel list.
        guard !channels.isEmpty else { return }
        let logger = DILog.logger
        let level = severity.loggerLevel
        guard logger.logLevel <= level else { return }
        var metadata = extra
        metadata["channel"] = .string(channels.map(\.rawValue).joined(separator: ","))
        var text = String(describing: message)
        for argument in arguments {
            text += " \(argument)"
        }
        logger.log(
            level: level, "\(text)", metadata: metadata, source: sourceModule(file), file: file, function: function,
            line: UInt(clamping: line))
        DIMonitoring.count(severity, channels: channels)
    }

    /// The module a `#fileID` ("Module/File.swift") or `#filePath` names,
    /// as swift-log derives a message's source (callers in Swift 5 mode pass
    /// a path for upstream's `#file`).
    private static func sourceModule(_ file: String) -> String {
        let parts = file.split(separator: "/", omittingEmptySubsequences: true)
        if file.hasPrefix("/") {
            return parts.count >= 2 ? String(parts[parts.count - 2]) : "WeaveDI"
        }
        return parts.count >= 2 ? String(parts[0]) : "WeaveDI"
    }

    /// Logs at `.debug`.
    ///
    /// ```swift
    /// DILogger.debug(channel: .resolution, "looking up", "UserService")
    /// ```
    ///
    /// - Parameters:
    ///   - channel: Put in the metadata.
    ///   - message: Described with `String(describing:)`.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    ///   - arguments: Appended to the message, separated by spaces.
    public static func debug(
        channel: DILogChannel = .general,
        _ message: Any,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line,
        _ arguments: Any...
    ) {
        emit(.debug, channels: [channel], message, arguments, file: file, function: function, line: line)
    }

    /// Logs at `.info`.
    ///
    /// ```swift
    /// DILogger.info(channel: .registration, "user module ready")
    /// ```
    ///
    /// - Parameters:
    ///   - channel: Put in the metadata.
    ///   - message: Described with `String(describing:)`.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    ///   - arguments: Appended to the message, separated by spaces.
    public static func info(
        channel: DILogChannel = .general,
        _ message: Any,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line,
        _ arguments: Any...
    ) {
        emit(.info, channels: [channel], message, arguments, file: file, function: function, line: line)
    }

    /// Logs at `.warning`.
    ///
    /// ```swift
    /// DILogger.warning(channel: .health, "cache is cold")
    /// ```
    ///
    /// - Parameters:
    ///   - channel: Put in the metadata.
    ///   - message: Described with `String(describing:)`.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    ///   - arguments: Appended to the message, separated by spaces.
    public static func warning(
        channel: DILogChannel = .general,
        _ message: Any,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line,
        _ arguments: Any...
    ) {
        emit(.warning, channels: [channel], message, arguments, file: file, function: function, line: line)
    }

    /// Logs at `.error`, once, with every channel in the metadata
    /// (comma-separated); upstream logged once per channel.
    ///
    /// ```swift
    /// DILogger.error(channels: [.error, .resolution], "no UserService")
    /// ```
    ///
    /// - Parameters:
    ///   - channels: Put in the metadata; nothing is logged when empty.
    ///   - message: Described with `String(describing:)`.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    ///   - arguments: Appended to the message, separated by spaces.
    public static func error(
        channels: [DILogChannel] = [.error],
        _ message: Any,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line,
        _ arguments: Any...
    ) {
        emit(.error, channels: channels, message, arguments, file: file, function: function, line: line)
    }

    /// ``debug(channel:_:file:function:line:_:)`` for a string: upstream
    /// logged it through its logging macros.
    ///
    /// - Parameters:
    ///   - channel: Put in the metadata.
    ///   - message: The message.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func macroDebug(
        channel: DILogChannel = .general,
        _ message: String,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) {
        emit(.debug, channels: [channel], message, file: file, function: function, line: line)
    }

    /// ``info(channel:_:file:function:line:_:)`` for a string.
    ///
    /// - Parameters:
    ///   - channel: Put in the metadata.
    ///   - message: The message.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func macroInfo(
        channel: DILogChannel = .general,
        _ message: String,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) {
        emit(.info, channels: [channel], message, file: file, function: function, line: line)
    }

    /// ``warning(channel:_:file:function:line:_:)`` for a string.
    ///
    /// - Parameters:
    ///   - channel: Put in the metadata.
    ///   - message: The message.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func macroWarning(
        channel: DILogChannel = .general,
        _ message: String,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) {
        emit(.warning, channels: [channel], message, file: file, function: function, line: line)
    }

    /// ``error(channels:_:file:function:line:_:)`` for a string.
    ///
    /// - Parameters:
    ///   - channels: Put in the metadata; nothing is logged when empty.
    ///   - message: The message.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func macroError(
        channels: [DILogChannel] = [.error],
        _ message: String,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) {
        emit(.error, channels: channels, message, file: file, function: function, line: line)
    }

    // MARK: Specialized messages

    /// Logs a registration on the registration channel: `.info` when it
    /// succeeded, `.error` when not. WeaveDI's own registrations are
    /// logged at `.debug` without this.
    ///
    /// ```swift
    /// DILogger.logRegistration(type: UserService.self, success: true)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type, also in the metadata ("type").
    ///   - success: Whether it was registered.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logRegistration<T>(
        type: T.Type,
        success: Bool,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) {
        let name = String(describing: type)
        emit(
            success ? .info : .error, channels: [.registration],
            success ? "Successfully registered \(name)" : "Failed to register \(name)",
            metadata: ["type": .string(name)], file: file, function: function, line: line)
    }

    /// Logs a resolution: `.info` when it succeeded, `.error` when not; on
    /// the performance channel with the duration (also in the metadata as
    /// "duration_ms"), else on the resolution channel.
    ///
    /// ```swift
    /// DILogger.logResolution(type: UserService.self, success: true, duration: 0.002)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The resolved type, also in the metadata ("type").
    ///   - success: Whether it was resolved.
    ///   - duration: How long it took, in seconds.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logResolution<T>(
        type: T.Type,
        success: Bool,
        duration: Double? = nil,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) {
        let name = String(describing: type)
        var message = success ? "Successfully resolved \(name)" : "Failed to resolve \(name)"
        var metadata: Logger.Metadata = ["type": .string(name)]
        if let duration {
            let milliseconds = formatMilliseconds(duration)
            message += " (took \(milliseconds)ms)"
            metadata["duration_ms"] = .string(milliseconds)
        }
        emit(
            success ? .info : .error, channels: [duration == nil ? .resolution : .performance], message,
            metadata: metadata, file: file, function: function, line: line)
    }

    /// Logs how long an operation took, at `.info` on the performance
    /// channel, with "operation" and "duration_ms" in the metadata.
    ///
    /// ```swift
    /// DILogger.logPerformance(operation: "bootstrap", duration: 0.05)
    /// ```
    ///
    /// - Parameters:
    ///   - operation: What was measured.
    ///   - duration: How long it took, in seconds.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logPerformance(
        operation: String,
        duration: Double,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) {
        let milliseconds = formatMilliseconds(duration)
        emit(
            .info, channels: [.performance], "\(operation) completed in \(milliseconds)ms",
            metadata: ["operation": .string(operation), "duration_ms": .string(milliseconds)], file: file,
            function: function, line: line)
    }

    /// Logs a component's health on the health channel: `.info` when it
    /// passed, `.warning` when not, with "component" in the metadata.
    ///
    /// ```swift
    /// DILogger.logHealth(component: "Network", status: true, details: "all endpoints up")
    /// ```
    ///
    /// - Parameters:
    ///   - component: What was checked.
    ///   - status: Whether it passed.
    ///   - details: Appended to the message.
    ///   - file: The file reported to the log handler.
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logHealth(
        component: String,
        status: Bool,
        details: String? = nil,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) {
        var message = "\(component) health check: \(status ? "PASS" : "FAIL")"
        if let details { message += " - \(details)" }
        emit(
            status ? .info : .warning, channels: [.health], message, metadata: ["component": .string(component)],
            file: file, function: function, line: line)
    }

    /// Seconds as milliseconds with two decimals ("2.00").
    static func formatMilliseconds(_ seconds: Double) -> String {
        formatTwoDecimals(seconds * 1000)
    }

    /// Two decimals without Foundation's `String(format:)`, which WeaveDI
    /// does not link.
    static func formatTwoDecimals(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        let hundredths = Int((abs(value) * 100).rounded())
        let fraction = hundredths % 100
        return "\(value < 0 && hundredths > 0 ? "-" : "")\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

extension UnifiedDI {
    /// The configuration ``DILogger`` reports: what
    /// ``DILogger/configure(level:severityThreshold:)`` set, or the pair
    /// matching the level ``setLogLevel(_:)`` or ``setLogSeverity(_:)`` set.
    ///
    /// ```swift
    /// let (level, severity) = UnifiedDI.getLogConfiguration()
    /// ```
    ///
    /// - Returns: The level and the severity threshold.
    public static func getLogConfiguration() -> (level: DILogLevel, severity: DILogSeverity) {
        DILogger.current
    }

    /// Logs at `.debug` through ``DILogger``.
    ///
    /// - Parameters:
    ///   - channel: Put in the metadata.
    ///   - message: The message.
    ///   - file: The file reported to the log handler (not in upstream's signature).
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logDebug(
        channel: DILogChannel = .general, _ message: String, file: String = #fileID, function: String = #function,
        line: Int = #line
    ) {
        DILogger.emit(.debug, channels: [channel], message, file: file, function: function, line: line)
    }

    /// Logs at `.info` through ``DILogger``.
    ///
    /// - Parameters:
    ///   - channel: Put in the metadata.
    ///   - message: The message.
    ///   - file: The file reported to the log handler (not in upstream's signature).
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logInfo(
        channel: DILogChannel = .general, _ message: String, file: String = #fileID, function: String = #function,
        line: Int = #line
    ) {
        DILogger.emit(.info, channels: [channel], message, file: file, function: function, line: line)
    }

    /// Logs at `.warning` through ``DILogger``.
    ///
    /// - Parameters:
    ///   - channel: Put in the metadata.
    ///   - message: The message.
    ///   - file: The file reported to the log handler (not in upstream's signature).
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logWarning(
        channel: DILogChannel = .general, _ message: String, file: String = #fileID, function: String = #function,
        line: Int = #line
    ) {
        DILogger.emit(.warning, channels: [channel], message, file: file, function: function, line: line)
    }

    /// Logs at `.error` through ``DILogger``, once, with every channel in
    /// the metadata.
    ///
    /// - Parameters:
    ///   - channels: Put in the metadata; nothing is logged when empty.
    ///   - message: The message.
    ///   - file: The file reported to the log handler (not in upstream's signature).
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logError(
        channels: [DILogChannel] = [.error], _ message: String, file: String = #fileID, function: String = #function,
        line: Int = #line
    ) {
        DILogger.emit(.error, channels: channels, message, file: file, function: function, line: line)
    }

    /// Logs at `.info` on the registration channel.
    ///
    /// - Parameters:
    ///   - message: The message.
    ///   - file: The file reported to the log handler (not in upstream's signature).
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logRegistrationSuccess(
        _ message: String, file: String = #fileID, function: String = #function, line: Int = #line
    ) {
        DILogger.emit(.info, channels: [.registration], message, file: file, function: function, line: line)
    }

    /// Logs at `.info` on the resolution channel.
    ///
    /// - Parameters:
    ///   - message: The message.
    ///   - file: The file reported to the log handler (not in upstream's signature).
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logResolutionSuccess(
        _ message: String, file: String = #fileID, function: String = #function, line: Int = #line
    ) {
        DILogger.emit(.info, channels: [.resolution], message, file: file, function: function, line: line)
    }

    /// Logs at `.error` on the error channel.
    ///
    /// - Parameters:
    ///   - message: The message.
    ///   - file: The file reported to the log handler (not in upstream's signature).
    ///   - function: The function reported to the log handler.
    ///   - line: The line reported to the log handler.
    public static func logFailure(
        _ message: String, file: String = #fileID, function: String = #function, line: Int = #line
    ) {
        DILogger.emit(.error, channels: [.error], message, file: file, function: function, line: line)
    }
}
