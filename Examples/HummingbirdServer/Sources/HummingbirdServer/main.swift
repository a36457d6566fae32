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
//     [--database-url URL] [--request-budget-ms N] [--start-timeout-ms N]
//     [--graph dot|mermaid]
// The options and their defaults are TodoServices' ServerOptions
// (`hummingbird-server --help`). The data lives in PostgreSQL (scripts/postgres.sh
// start makes the default server). The DI wiring starts its services before
// serving: the pool connects and creates the table; a database it cannot
// reach fails the start (the error on stderr, exit status 1, nothing
// served). --graph validates the DI wiring, prints its dependency graph and
// exits. Logs through swift-log; at the default level (info) nothing is
// logged per request; the start and the shutdown log each service opened
// and closed, in order.

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

var logger = Logger(label: "hummingbird-server")
logger.logLevel = options.logLevel
var diLogger = Logger(label: "WeaveDI")
diLogger.logLevel = options.logLevel
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
