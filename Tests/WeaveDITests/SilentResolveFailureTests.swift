import InMemoryLogging
import Logging
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private final class LoopA: Sendable {
    let b: LoopB?
    init(b: LoopB?) { self.b = b }
}
private final class LoopB: Sendable {
    let a: LoopA?
    init(a: LoopA?) { self.a = a }
}

/// The resolves that answer nil instead of throwing say why at error level
/// when the cause is a cycle: before, `UnifiedDI.resolve` and the
/// container's `resolve` returned nil on a cycle and logged nothing, so a
/// module that resolved itself (as one public app's did) failed silently.
final class SilentResolveFailureTests: DITestCase {
    private var saved: Logging.Logger?

    override func tearDown() {
        if let saved { DILog.logger = saved }
        super.tearDown()
    }

    /// At `.info`, the default: what a server logs.
    private func infoLog() -> InMemoryLogHandler {
        saved = DILog.logger
        let handler = InMemoryLogHandler()
        var logger = Logging.Logger(label: "WeaveDI") { _ in handler }
        logger.logLevel = .info
        DILog.logger = logger
        return handler
    }

    private func cycleErrors(in log: InMemoryLogHandler) -> [String] {
        log.entries.filter { $0.level == .error }.map { "\($0.message)" }.filter {
            $0.contains("LoopA -> ") && $0.contains("LoopB")
        }
    }

    func testUnifiedDIResolveLogsACycleItAnswersNilFor() {
        let log = infoLog()
        UnifiedDI.register(LoopA.self, scope: .singleton) { LoopA(b: UnifiedDI.resolve(LoopB.self)) }
        UnifiedDI.register(LoopB.self, scope: .singleton) { LoopB(a: UnifiedDI.resolve(LoopA.self)) }
        XCTAssertNil(UnifiedDI.resolve(LoopA.self))
        XCTAssertFalse(cycleErrors(in: log).isEmpty, "\(log.entries.map { "\($0.level) \($0.message)" })")
    }

    func testAContainersResolveLogsACycleItAnswersNilFor() {
        let log = infoLog()
        let container = WeaveDI.Container()
        container.register(LoopA.self, scope: .singleton) { [unowned container] in LoopA(b: container.resolve(LoopB.self)) }
        container.register(LoopB.self, scope: .singleton) { [unowned container] in LoopB(a: container.resolve(LoopA.self)) }
        XCTAssertNil(container.resolve(LoopA.self))
        XCTAssertFalse(cycleErrors(in: log).isEmpty, "\(log.entries.map { "\($0.level) \($0.message)" })")
    }

    /// A miss stays quiet at `.info`: it is the normal answer for an
    /// optional dependency.
    func testAMissIsNotLoggedAtInfo() {
        let log = infoLog()
        XCTAssertNil(UnifiedDI.resolve(LoopA.self))
        XCTAssertEqual(log.entries.filter { $0.level >= .info }.count, 0, "\(log.entries.map(\.message))")
    }
}
