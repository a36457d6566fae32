import Logging
import Synchronization
import WeaveDI
import XCTest

private final class CycleA: Sendable { let b: CycleB?; init(b: CycleB?) { self.b = b } }
private final class CycleB: Sendable { let a: CycleA?; init(a: CycleA?) { self.a = a } }

/// Records what WeaveDI logs.
private struct RecordingLogHandler: LogHandler {
    let records: Records
    var logLevel: Logging.Logger.Level
    var metadata: Logging.Logger.Metadata = [:]

    final class Records: Sendable {
        let entries = Mutex<[(Logging.Logger.Level, String)]>([])
        var all: [(Logging.Logger.Level, String)] { entries.withLock { $0 } }
    }

    subscript(metadataKey key: String) -> Logging.Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.entries.withLock { $0.append((event.level, "\(event.message)")) }
    }
}

final class DiagnosticsTests: DITestCase {
    private var saved: Logging.Logger?

    override func tearDown() {
        if let saved { DILog.logger = saved }
        super.tearDown()
    }

    private func capture(level: Logging.Logger.Level) -> RecordingLogHandler.Records {
        saved = DILog.logger
        let records = RecordingLogHandler.Records()
        DILog.logger = Logging.Logger(label: "WeaveDI") { _ in RecordingLogHandler(records: records, logLevel: level) }
        return records
    }

    func testDebugLevelReportsRegistrationsAndMisses() {
        let records = capture(level: .debug)
        UnifiedDI.register(Service.self) { ServiceImpl() }
        XCTAssertNil(UnifiedDI.resolve(Double.self))
        let messages = records.all.map(\.1)
        XCTAssertTrue(messages.contains("registered Service"), "\(messages)")
        XCTAssertTrue(messages.contains("no registration for Double"), "\(messages)")
    }

    func testDefaultLevelIsQuietForHitsMissesAndRegistrations() {
        let records = capture(level: .info)
        UnifiedDI.register(Service.self) { ServiceImpl() }
        for _ in 0..<100 {
            _ = UnifiedDI.resolve(Service.self)
            _ = UnifiedDI.resolve(Double.self)
        }
        XCTAssertTrue(records.all.isEmpty, "\(records.all)")
    }

    func testCyclesAreErrorsAndScopeLeaksWarnings() {
        let records = capture(level: .info)
        UnifiedDI.register(CycleA.self, scope: .transient) { CycleA(b: UnifiedDI.resolve(CycleB.self)) }
        UnifiedDI.register(CycleB.self, scope: .transient) { CycleB(a: UnifiedDI.resolve(CycleA.self)) }
        _ = try? WeaveDI.Container.live.resolveThrowing(CycleA.self)
        UnifiedDI.register(RequestContext.self, scope: .task) { RequestContext(serial: 0) }
        _ = UnifiedDI.resolve(RequestContext.self)
        let levels = records.all.map(\.0)
        XCTAssertTrue(records.all.contains { $0.0 == .error && $0.1.contains("CycleA -> CycleB -> CycleA") }, "\(records.all)")
        XCTAssertTrue(levels.contains(.warning), "\(records.all)")
    }
}
