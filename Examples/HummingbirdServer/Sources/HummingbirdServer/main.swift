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

// hummingbird-server [--wiring di|manual|both] [--port N] [--log-level LEVEL]
// --wiring both serves the DI routes under /di and the hand-wired ones under
// /manual, for scripts/loadtest.sh's same-process comparison.
// hummingbird-server --graph dot|mermaid: validates the DI wiring, prints its
// dependency graph and exits (non-zero when validation found a problem).
// Listens on 127.0.0.1 only. Logs through swift-log; at the default level
// (info) nothing is logged per request.

func usage(_ message: String) -> Never {
    let text = """
        error: \(message)
        usage: hummingbird-server [--wiring di|manual|both] [--port N] [--log-level trace|debug|info|notice|warning|error|critical]

        """
    FileHandleStderr.write(text)
    exit(2)
}

var wiring = Wiring.di
var both = false
var port = 8080
var level = Logger.Level.info
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
    case "--graph":
        guard let format = arguments.popFirst(), format == "dot" || format == "mermaid" else {
            usage("--graph takes dot or mermaid")
        }
        DIWiring.registerServices()
        let report = UnifiedDI.validate()
        FileHandleStderr.write(report.description + "\n")
        print(format == "dot" ? report.graph.dot() : report.graph.mermaid(), terminator: "")
        exit(report.isValid ? 0 : 1)
    case "-h", "--help":
        print("usage: hummingbird-server [--wiring di|manual|both] [--port N] [--log-level LEVEL]")
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
// Returns on SIGTERM or SIGINT, once the server has stopped.
if both {
    try await buildComparisonApplication(port: port, logger: logger).runService()
} else {
    try await buildApplication(wiring: wiring, port: port, logger: logger).runService()
}
// Releases the singletons with the application rather than at exit, newest
// first, awaiting the cleanup of any that conforms to AsyncShutdown.
if both || wiring == .di {
    await UnifiedDI.shutdown()
}
