import ArgumentParser
import Foundation
import Logging

/// Where the handlers' services come from.
public enum Wiring: String, Sendable, CaseIterable {
    /// Through WeaveDI: `@Injected`, `UnifiedDI`, a `.task` scope per request.
    case di
    /// Constructed by hand and passed explicitly.
    case manual
}

/// Both servers' command line. The server listens on 127.0.0.1 only; the
/// DI wiring starts its services before serving, and a database it cannot
/// reach fails the start (the error on stderr, exit status 1).
public struct ServerOptions: ParsableArguments {
    public enum WiringOption: String, ExpressibleByArgument, CaseIterable, Sendable {
        case di, manual, both
    }

    public enum GraphFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
        case dot, mermaid
    }

    @Option(
        help: """
            di: through WeaveDI; manual: wired by hand; both: the DI routes under /di and the \
            hand-wired ones under /manual (scripts/loadtest.sh's same-process comparison).
            """)
    public var wiring: WiringOption = .di

    @Option(help: "The port on 127.0.0.1.")
    public var port: Int = 8080

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevelName: String = "info"

    @Option(
        name: .customLong("database-url"),
        help: "The PostgreSQL server and database; else $DATABASE_URL, else \(DatabaseSettings.defaultURL).")
    var databaseURL: String?

    @Option(
        name: .customLong("request-budget-ms"),
        help: "How long a request waits for the database before it gets a 503.")
    var requestBudgetMilliseconds: Int = 1000

    @Option(name: .customLong("start-timeout-ms"), help: "How long the DI wiring's start may take.")
    var startTimeoutMilliseconds: Int = 10_000

    @Option(
        help: """
            Validate the DI wiring, print its dependency graph and exit (non-zero when validation \
            found a problem).
            """)
    public var graph: GraphFormat?

    public init() {}

    public func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes a number from 0 to 65535") }
        guard Logger.Level(rawValue: logLevelName) != nil else {
            throw ValidationError("--log-level takes trace, debug, info, notice, warning, error or critical")
        }
        guard requestBudgetMilliseconds > 0 else { throw ValidationError("--request-budget-ms takes a positive number") }
        guard startTimeoutMilliseconds > 0 else { throw ValidationError("--start-timeout-ms takes a positive number") }
    }

    /// The wiring to serve; nil for both.
    public var selectedWiring: Wiring? { Wiring(rawValue: wiring.rawValue) }

    public var logLevel: Logger.Level { Logger.Level(rawValue: logLevelName) ?? .info }

    public var startTimeout: Duration { .milliseconds(startTimeoutMilliseconds) }

    public var databaseSettings: DatabaseSettings {
        var settings = DatabaseSettings(
            url: databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? DatabaseSettings.defaultURL)
        settings.requestBudget = .milliseconds(requestBudgetMilliseconds)
        // Within the start's timeout, so a database that does not answer
        // fails the start with the pool's own reason, not a bare timeout.
        settings.connectTimeout = min(settings.connectTimeout, startTimeout / 2)
        return settings
    }
}

/// The options under the executable's own name (`hummingbird-server`,
/// `vapor-server`) in the usage text: `ServerCommand.parseOrExit().options`.
public struct ServerCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "server") })
    }

    @OptionGroup public var options: ServerOptions

    public init() {}
}
