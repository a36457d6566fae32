import XCTest

@testable import WeaveDI
@testable import WeaveDICore

/// `validateAsync()` builds every async registration once, in a throwaway
/// copy. A service whose factory opens connections (a database pool) is
/// really opened there, so the copy must be shut down before the report
/// returns, or each validation leaves a pool running.
final class AsyncValidationShutdownTests: DITestCase {
    private final class Events: Sendable {
        private let entries = Locked<[String]>([])
        func append(_ event: String) { entries.withLock { $0.append(event) } }
        var all: [String] { entries.withLock { $0 } }
    }

    private final class VPool: AsyncShutdown {
        let events: Events
        let id: Int
        init(events: Events, id: Int) {
            self.events = events
            self.id = id
        }
        func shutdown() async { events.append("pool \(id) closed") }
    }

    private final class VStore: AsyncShutdown {
        let pool: VPool
        init(pool: VPool) { self.pool = pool }
        func shutdown() async { pool.events.append("store on pool \(pool.id) closed") }
    }

    func testValidateAsyncShutsDownWhatItBuiltAndLeavesTheLiveInstances() async throws {
        let events = Events()
        let opened = Locked(0)
        UnifiedDI.register(VPool.self, scope: .singleton) { () async throws -> VPool in
            let id = opened.withLock { count -> Int in
                count += 1
                return count
            }
            events.append("pool \(id) opened")
            return VPool(events: events, id: id)
        }
        UnifiedDI.register(VStore.self, scope: .singleton) { () async throws -> VStore in
            VStore(pool: try await UnifiedDI.resolveAsyncThrowing(VPool.self))
        }
        let live = try await UnifiedDI.resolveAsyncThrowing(VStore.self)

        let report = await UnifiedDI.validateAsync()

        XCTAssertTrue(report.isValid, "\(report)")
        XCTAssertEqual(
            events.all,
            ["pool 1 opened", "pool 2 opened", "store on pool 2 closed", "pool 2 closed"],
            "the validation's copies were not shut down, newest first, or the live ones were"
        )
        XCTAssertTrue(UnifiedDI.resolve(VStore.self) === live)
        XCTAssertTrue(UnifiedDI.resolve(VPool.self) === live.pool)
    }
}
