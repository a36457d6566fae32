// Fixtures more than one test file of this target uses. A fixture used by
// one file only is declared `private` in that file.

import Testing
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

protocol Service: Sendable {
    var id: Int { get }
}

final class ServiceImpl: Service {
    let id: Int
    init(id: Int = 0) { self.id = id }
}

/// Counts live instances so tests can prove a deinit ran.
final class Tracked: Sendable {
    static let alive = TestAtomic<Int>(0)
    let tag: Int

    init(tag: Int = 0) {
        self.tag = tag
        Self.alive.add(1, ordering: .sequentiallyConsistent)
    }

    deinit { Self.alive.subtract(1, ordering: .sequentiallyConsistent) }
}

/// Counts how many times a factory ran.
final class Counter: Sendable {
    private let value = TestAtomic<Int>(0)
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

/// A task-scoped value that counts live instances.
final class RequestContext: Sendable {
    static let alive = TestAtomic<Int>(0)
    let serial: Int
    init(serial: Int) {
        self.serial = serial
        Self.alive.add(1, ordering: .sequentiallyConsistent)
    }
    deinit { Self.alive.subtract(1, ordering: .sequentiallyConsistent) }
}

/// A distinct type per nesting depth, so the writer can churn many keys.
struct Nest<T>: Sendable {
    let id: Int
}

/// Type-erased operations on one churned key.
protocol ChurnKey: Sendable {
    func register(id: Int)
    func remove()
    /// nil when missing; the id otherwise.
    func resolvedID() -> Int?
}

struct ChurnKeyOf<T>: ChurnKey {
    func register(id: Int) { UnifiedDI.register(Nest<T>.self) { Nest<T>(id: id) } }
    func remove() { UnifiedDI.release(Nest<T>.self) }
    func resolvedID() -> Int? { UnifiedDI.resolve(Nest<T>.self)?.id }
}

func makeChurnKeys<T>(_ type: T.Type, count: Int, into keys: inout [any ChurnKey]) {
    guard count > 0 else { return }
    keys.append(ChurnKeyOf<T>())
    makeChurnKeys(Nest<T>.self, count: count - 1, into: &keys)
}

/// The `Fatal error:` line an exit test's child stopped with (its whole
/// standard error when there is none). Only that line counts: a cycle is
/// also logged at error level before the stop, whatever the stop then says.
func fatalErrorLine(_ result: ExitTest.Result?) -> String {
    let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    return stderr.split(separator: "\n").first { $0.contains("Fatal error:") }.map(String.init) ?? stderr
}

/// A one-shot signal a test opens and tasks await; any number may wait.
/// Behind `Locked` (a pthread mutex), not `Mutex`: the sanitizer runs
/// include its tests, and ThreadSanitizer on Linux does not see `Mutex`.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

struct TimedOut: Error {}

/// `body`'s result, or `TimedOut` after `seconds`: a test fails instead of
/// hanging.
func within<R: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    try await withThrowingTaskGroup(of: R?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = try await group.next()
        group.cancelAll()
        guard let first, let result = first else { throw TimedOut() }
        return result
    }
}
