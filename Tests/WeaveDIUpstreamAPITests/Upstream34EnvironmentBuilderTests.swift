import InMemoryLogging
import Logging
import WeaveDI
import XCTest

// `WeaveDI.builder` and `registerForEnvironment` make their registrations
// through one helper that notes each type in the batch: both warn about a
// type registered twice (`Upstream34BuilderTests` covers the chain).

private protocol Greeter: Sendable {
    func greet() -> String
}

private struct Hello: Greeter {
    func greet() -> String { "hello" }
}

private struct Hi: Greeter {
    func greet() -> String { "hi" }
}

final class Upstream34EnvironmentBuilderTests: UpstreamTestCase {
    func testRegisteringOneTypeTwiceForAnEnvironmentWarnsAndTheLaterWins() {
        let handler = InMemoryLogHandler()
        let saved = DILog.logger
        defer { DILog.logger = saved }
        DILog.logger = Logger(label: "WeaveDI") { _ in handler }
        UnifiedDI.setLogLevel(.warnings)

        WeaveDI.registerForEnvironment { env in
            env.register { Hello() as Greeter }
            env.register(Greeter.self) { Hi() }
        }

        XCTAssertEqual(UnifiedDI.resolve(Greeter.self)?.greet(), "hi")
        XCTAssertEqual(
            handler.entries.filter { $0.level == .warning && "\($0.message)".contains("Greeter") }.count, 1,
            "\(handler.entries)")
    }
}
