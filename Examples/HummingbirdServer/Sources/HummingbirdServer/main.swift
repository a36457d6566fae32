import Foundation
import Hummingbird
import Logging
import TodoAPI
import TodoServices
import WeaveDI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// hummingbird-server [--wiring di|manual|both] [--port N] [--log-level LEVEL]
//                    [--database-url URL] [--request-budget-ms N] [--start-timeout-ms N]
// --wiring both serves the DI routes under /di and the hand-wired ones under
// /manual, for scripts/loadtest.sh's same-process comparison.
// The data lives in PostgreSQL: --database-url, else $DATABASE_URL, else
// postgres://weavedi@127.0.0.1:54329/todos (scripts/postgres.sh start makes
// that server). The DI wiring starts its services before serving: the pool
// connects and creates the table; a database it cannot reach fails the
// start (the error on stderr, exit status 1, nothing served).
// A request waits for the database at most --request-budget-ms (1000), then
// gets a 503.
// hummingbird-server --graph dot|mermaid: validates the DI wiring, prints its
// dependency graph and exits (non-zero when validation found a problem).
// Listens on 127.0.0.1 only. Logs through swift-log; at the default level
// (info) nothing is logged per request; the start and the shutdown log each
// service opened and closed, in order.

func usage(_ message: String) -> Never {
    let text = """
        error: \(message)
        usage: hummingbird-server [--wiring di|manual|both] [--port N] [--log-level trace|debug|info|notice|warning|error|critical] [--database-url URL] [--request-budget-ms N] [--start-timeout-ms N]

        """
    FileHandleStderr.write(text)
    exit(2)
}

var wiring: Wiring? = .di  // nil: both
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
    case "--graph":
        guard let format = arguments.popFirst(), format == "dot" || format == "mermaid" else {
            usage("--graph takes dot or mermaid")
        }
        DIWiring.registerServices(settings: settings)
        // Builds the async registrations too (the pool connects, in a
        // throwaway copy), so the graph has the store's edge to the pool.
        let report = await UnifiedDI.validateAsync()
        FileHandleStderr.write(report.description + "\n")
        print(format == "dot" ? report.graph.dot() : report.graph.mermaid(), terminator: "")
        exit(report.isValid ? 0 : 1)
    case "-h", "--help":
        print(
            "usage: hummingbird-server [--wiring di|manual|both] [--port N] [--log-level LEVEL] [--database-url URL] [--request-budget-ms N] [--start-timeout-ms N]"
        )
        exit(0)
    default:
        usage("unknown argument \(argument)")
    }
}

var logger = Logger(label: "hummingbird-server")
logger.logLevel = level
var diLogger = Logger(label: "WeaveDI")
diLogger.logLevel = level
DILog.logger = diLogger

logger.info("starting", metadata: ["wiring": "\(wiring?.rawValue ?? "both")", "address": "127.0.0.1:\(port)"])
let server: TodoServer
do {
    // Under DI, starts the services first (UnifiedDI.start in startServices).
    server = try await buildServer(
        wiring: wiring,
        port: port,
        logger: logger,
        settings: settings,
        startTimeout: startTimeout
    )
} catch {
    // A failed start: DIError.startFailed names each service that failed or
    // hung, why, and the chain waiting on it. Nothing was served.
    FileHandleStderr.write("error: \(error)\n")
    exit(1)
}
// Returns on SIGTERM or SIGINT once the requests in flight have finished and
// the services have closed: the store, then the pool.
try await server.run()
