import Hummingbird
import Logging
import TodoAPI
import WeaveDI

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// hummingbird-server [--wiring di|manual|both] [--port N] [--log-level LEVEL] [--database-url URL]
// --wiring both serves the DI routes under /di and the hand-wired ones under
// /manual, for scripts/loadtest.sh's same-process comparison.
// The DI wiring starts its services before serving: the connection pool
// connects to --database-url (default memory://todos; the stand-in opens
// memory://NAME only, so any other URL shows a failed start: the error on
// stderr, exit status 1, nothing served).
// hummingbird-server --graph dot|mermaid: validates the DI wiring, prints its
// dependency graph and exits (non-zero when validation found a problem).
// Listens on 127.0.0.1 only. Logs through swift-log; at the default level
// (info) nothing is logged per request.

func usage(_ message: String) -> Never {
    let text = """
        error: \(message)
        usage: hummingbird-server [--wiring di|manual|both] [--port N] [--log-level trace|debug|info|notice|warning|error|critical] [--database-url URL]

        """
    FileHandleStderr.write(text)
    exit(2)
}

var wiring = Wiring.di
var both = false
var port = 8080
var level = Logger.Level.info
var databaseURL = ConnectionPool.defaultURL
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--wiring":
        guard let value = arguments.popFirst() else { usage("--wiring takes di, manual or both") }
        if value == "both" {
            both = true
            continue
        }
        guard let parsed = Wiring(rawValue: value) else { usage("--wiring takes di, manual or both") }
        wiring = parsed
        both = false
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
        databaseURL = value
    case "--graph":
        guard let format = arguments.popFirst(), format == "dot" || format == "mermaid" else {
            usage("--graph takes dot or mermaid")
        }
        DIWiring.registerServices(databaseURL: databaseURL)
        // Builds the async registrations too (the pool connects, in a
        // throwaway copy), so the graph has the store's edge to the pool.
        let report = await UnifiedDI.validateAsync()
        FileHandleStderr.write(report.description + "\n")
        print(format == "dot" ? report.graph.dot() : report.graph.mermaid(), terminator: "")
        exit(report.isValid ? 0 : 1)
    case "-h", "--help":
        print("usage: hummingbird-server [--wiring di|manual|both] [--port N] [--log-level LEVEL] [--database-url URL]")
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

logger.info("starting", metadata: ["wiring": "\(both ? "both" : wiring.rawValue)", "address": "127.0.0.1:\(port)"])
let app: any ApplicationProtocol
do {
    // Under DI, starts the services first (UnifiedDI.start in startServices).
    if both {
        app = try await buildComparisonApplication(port: port, logger: logger, databaseURL: databaseURL)
    } else {
        app = try await buildApplication(wiring: wiring, port: port, logger: logger, databaseURL: databaseURL)
    }
} catch {
    // A failed start: DIError.startFailed names each service that failed or
    // hung, and why. Nothing was served.
    FileHandleStderr.write("error: \(error)\n")
    exit(1)
}
// Returns on SIGTERM or SIGINT, once the server has stopped.
try await app.runService()
// Releases the singletons with the application rather than at exit, newest
// first, awaiting the cleanup of any that conforms to AsyncShutdown.
if both || wiring == .di {
    await UnifiedDI.shutdown()
}
