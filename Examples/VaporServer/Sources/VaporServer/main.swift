import Logging
import TodoAPI
import TodoServices
import Vapor
import WeaveDI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// vapor-server [--wiring di|manual|both] [--port N] [--log-level LEVEL]
//              [--database-url URL] [--request-budget-ms N] [--start-timeout-ms N]
// The data lives in PostgreSQL: --database-url, else $DATABASE_URL, else
// postgres://weavedi@127.0.0.1:54329/todos (scripts/postgres.sh start makes
// that server). The DI wiring starts its services before serving: the pool
// connects and creates the table; a database it cannot reach fails the
// start (the error on stderr, exit status 1, nothing served).
// A request waits for the database at most --request-budget-ms (1000), then
// gets a 503.
// Listens on 127.0.0.1 only. Logs through swift-log; at the default level
// (info) nothing is logged per request; the start and the shutdown log each
// service opened and closed, in order. The options are parsed here and not
// by Vapor's command line, which knows none of them: Vapor is handed `serve`.

func usage(_ message: String) -> Never {
    let text = """
        error: \(message)
        usage: vapor-server [--wiring di|manual|both] [--port N] [--log-level trace|debug|info|notice|warning|error|critical] [--database-url URL] [--request-budget-ms N] [--start-timeout-ms N]

        """
    FileHandleStderr.write(text)
    exit(2)
}

var wiring: Wiring? = .di  // nil: both (the DI routes under /di, the hand-wired ones under /manual)
var port = 8080
var level = Logger.Level.info
var settings = DatabaseSettings(url: ProcessInfo.processInfo.environment["DATABASE_URL"] ?? DatabaseSettings.defaultURL)
var startTimeout = Duration.seconds(10)
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--wiring":
        guard let value = arguments.popFirst(), value == "both" || Wiring(rawValue: value) != nil else {
            usage("--wiring takes di, manual or both")
        }
        wiring = Wiring(rawValue: value)
    case "--port":
        guard let value = arguments.popFirst(), let parsed = Int(value), (0...65535).contains(parsed) else {
            usage("--port takes a number from 0 to 65535")
        }
        port = parsed
    case "--log-level":
        guard let value = arguments.popFirst(), let parsed = Logger.Level(rawValue: value) else {
            usage("--log-level takes trace, debug, info, notice, warning, error or critical")
        }
        level = parsed
    case "--database-url":
        guard let value = arguments.popFirst() else { usage("--database-url takes a URL") }
        settings.url = value
    case "--request-budget-ms":
        guard let value = arguments.popFirst(), let parsed = Int(value), parsed > 0 else {
            usage("--request-budget-ms takes a positive number")
        }
        settings.requestBudget = .milliseconds(parsed)
    case "--start-timeout-ms":
        guard let value = arguments.popFirst(), let parsed = Int(value), parsed > 0 else {
            usage("--start-timeout-ms takes a positive number")
        }
        startTimeout = .milliseconds(parsed)
        // Within the start's timeout, so a database that does not answer
        // fails the start with the pool's own reason, not a bare timeout.
        settings.connectTimeout = min(settings.connectTimeout, startTimeout / 2)
    case "-h", "--help":
        print(
            "usage: vapor-server [--wiring di|manual|both] [--port N] [--log-level LEVEL] [--database-url URL] [--request-budget-ms N] [--start-timeout-ms N]"
        )
        exit(0)
    default:
        usage("unknown argument \(argument)")
    }
}

var logger = Logger(label: "vapor-server")
logger.logLevel = level
var diLogger = Logger(label: "WeaveDI")
diLogger.logLevel = level
DILog.logger = diLogger

logger.info("starting", metadata: ["wiring": "\(wiring?.rawValue ?? "both")", "address": "127.0.0.1:\(port)"])
let app: Application
do {
    // Under DI, starts the services first (UnifiedDI.start in startServices).
    app = try await buildApplication(
        wiring: wiring,
        port: port,
        logger: logger,
        settings: settings,
        startTimeout: startTimeout
    )
} catch {
    // A failed start (DIError.startFailed names each service that failed or
    // hung, and why), or Vapor could not make the application. Nothing was
    // served.
    FileHandleStderr.write("error: \(error)\n")
    exit(1)
}
do {
    // Returns on SIGTERM or SIGINT, after the server stopped accepting.
    try await app.execute()
} catch {
    try? await app.asyncShutdown()
    throw error
}
// Runs the lifecycle handlers, among them the one that waits for the
// requests in flight and then shuts WeaveDI's container down: the store,
// then the pool (ReleaseDependenciesOnShutdown).
try await app.asyncShutdown()
