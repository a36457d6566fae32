import Synchronization
import WeaveDI
import XCTest

protocol Service: Sendable {
    var id: Int { get }
}

final class ServiceImpl: Service {
    let id: Int
    init(id: Int = 0) { self.id = id }
}

/// Counts live instances so tests can prove a deinit ran.
final class Tracked: Sendable {
    static let alive = Atomic<Int>(0)
    let tag: Int

    init(tag: Int = 0) {
        self.tag = tag
        Self.alive.add(1, ordering: .sequentiallyConsistent)
    }

    deinit { Self.alive.subtract(1, ordering: .sequentiallyConsistent) }
}

/// Counts how many times a factory ran.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    @discardableResult
    func increment() -> Int { value.add(1, ordering: .sequentiallyConsistent).newValue }
    var count: Int { value.load(ordering: .sequentiallyConsistent) }
}

/// Every test starts from an empty live container with the C path on.
class DITestCase: XCTestCase {
    override func setUp() {
        super.setUp()
        UnifiedRegistry.shared.enableOptimization()
        WeaveDI.Container.live = WeaveDI.Container()
    }

    override func tearDown() {
        UnifiedRegistry.shared.enableOptimization()
        WeaveDI.Container.live = WeaveDI.Container()
        super.tearDown()
    }

    /// Runs `body` once with the C table and once with the Swift baseline.
    func forEachBackend(_ body: (String) -> Void) {
        for optimized in [true, false] {
            WeaveDI.Container.live = WeaveDI.Container()
            if optimized {
                UnifiedRegistry.shared.enableOptimization()
            } else {
                UnifiedRegistry.shared.disableOptimization()
            }
            body(optimized ? "C table" : "Swift baseline")
        }
        UnifiedRegistry.shared.enableOptimization()
    }
}

/// The error a typed-throwing call raised, or nil when it returned.
func caughtError<T>(_ body: () throws(DIError) -> T) -> DIError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
