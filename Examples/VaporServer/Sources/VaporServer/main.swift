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
//     [--database-url URL] [--request-budget-ms N] [--start-timeout-ms N]
//     [--graph dot|mermaid]
// The options and their defaults are TodoServices' ServerOptions
// (`vapor-server --help`). The data lives in PostgreSQL (scripts/postgres.sh
// start makes the default server). The DI wiring starts its services before
// serving: the pool connects and creates the table; a database it cannot
// reach fails the start (the error on stderr, exit status 1, nothing
// served). --graph validates the DI wiring, prints its dependency graph and
// exits. Logs through swift-log; at the default level (info) nothing is
// logged per request; the start and the shutdown log each service opened
// and closed, in order. The options are parsed here and not
// by Vapor's command line, which knows none of them: Vapor is handed `serve`.

let options = ServerCommand.parseOrExit().options
let wiring = options.selectedWiring
let port = options.port
let settings = options.databaseSettings
let startTimeout = options.startTimeout
if let format = options.graph {
    DIWiring.registerServices(settings: settings)
    // Builds the async registrations too (the pool connects, in a
    // throwaway copy), so the graph has the store's edge to the pool.
    let report = await UnifiedDI.validateAsync()
    FileHandleStderr.write(report.description + "\n")
    print(format == .dot ? report.graph.dot() : report.graph.mermaid(), terminator: "")
    exit(report.isValid ? 0 : 1)
}

var logger = Logger(label: "vapor-server")
logger.logLevel = options.logLevel
var diLogger = Logger(label: "WeaveDI")
diLogger.logLevel = options.logLevel
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
