import CWeaveRegistry
import Foundation
import WeaveDI
import XCTest

private final class BurstFixedService: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private final class BurstLazyService: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private struct BurstKey: InjectedKey {
    static let liveValue = 4_101
    static let testValue = 4_102
}

extension InjectedValues {
    fileprivate var burstNumber: Int {
        get { self[BurstKey.self] }
        set { self[BurstKey.self] = newValue }
    }
}

private final class BurstHolder: @unchecked Sendable {
    @Injected(\.burstNumber) var byKeyPath
    @Injected(BurstKey.self) var byKeyType
    @Injected var fixed: BurstFixedService
    @Injected var lazy: BurstLazyService?
}

/// What one burst thread saw. Each thread writes only its own element; the
/// test reads them after joining every thread.
private struct BurstOutcome {
    var wrongReads = 0
    var reads = 0
    var ownedRecord = false
    var recordsSeen = 0
}

/// Blocks each caller until `parties` callers have arrived; then, once all
/// have, counts them out again so the test can wait for every thread.
private final class BurstGate: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0
    private var finished = 0

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
        condition.lock()
        arrived += 1
        if arrived == parties {
            condition.broadcast()
        }
        while arrived < parties {
            condition.wait()
        }
        condition.unlock()
    }

    func finish() {
        condition.lock()
        finished += 1
        if finished == parties {
            condition.broadcast()
        }
        condition.unlock()
    }

    func waitUntilAllFinished() {
        condition.lock()
        while finished < parties {
            condition.wait()
        }
        condition.unlock()
    }
}

final class ThreadBurstTests: DITestCase {
    /// Issue 10, item 8: 2,000 threads alive at once, each reading through
    /// every read route while all are alive. Every read must be right,
    /// including on threads that found no epoch record of their own, and
    /// the number of records ever registered must stay within the bound
    /// (every grace period scans them all). On 67d7edc each thread kept a
    /// record of its own: 2,000+ records, for the rest of the process.
    func testStressThreadBurstKeepsEpochRecordsBoundedAndReadsRight() throws {
        let threadCount = 2_000
        let bound = Int(WEAVE_EPOCH_RECORDS_MAX)
        UnifiedDI.register(BurstFixedService.self) { BurstFixedService(id: 11) }
        UnifiedDI.register(BurstLazyService.self, scope: .singleton) { BurstLazyService(id: 12) }
        let expectedDefault = InjectedValues.current.burstNumber

        let outcomes = UnsafeMutableBufferPointer<BurstOutcome>.allocate(capacity: threadCount)
        outcomes.initialize(repeating: BurstOutcome())
        defer { outcomes.deallocate() }
        let gate = BurstGate(parties: threadCount)
        nonisolated(unsafe) let sharedOutcomes = outcomes

        @Sendable func readEverything(_ index: Int, into outcome: inout BurstOutcome) {
            func check(_ ok: Bool) {
                outcome.reads += 1
                if !ok { outcome.wrongReads += 1 }
            }
            check(UnifiedDI.resolve(BurstFixedService.self)?.id == 11)
            check(UnifiedDI.resolve(BurstLazyService.self)?.id == 12)
            check(WeaveDI.Container.live.resolve(BurstFixedService.self)?.id == 11)
            check(InjectedValues.current.burstNumber == expectedDefault)
            check(InjectedValues.current[BurstKey.self] == expectedDefault)
            let holder = BurstHolder()
            check(holder.byKeyPath == expectedDefault)
            check(holder.byKeyType == expectedDefault)
            check(holder.fixed.id == 11)
            check(holder.lazy?.id == 12)
            // A write from a thread that may own no record: a container of
            // its own, written, read and destroyed (each waits a grace period).
            if index % 50 == 0 {
                let own = WeaveDI.Container()
                own.register(BurstFixedService.self, instance: BurstFixedService(id: index))
                check(own.resolve(BurstFixedService.self)?.id == index)
                own.release(BurstFixedService.self)
                check(own.resolve(BurstFixedService.self) == nil)
            }
        }

        for index in 0..<threadCount {
            let thread = Thread {
                var outcome = BurstOutcome()
                readEverything(index, into: &outcome)
                // Every thread has read (so has, or found no, record) and is
                // alive before any reads again and exits.
                gate.arriveAndWait()
                outcome.ownedRecord = weave_debug_thread_owns_record()
                outcome.recordsSeen = weave_debug_epoch_records()
                readEverything(index, into: &outcome)
                sharedOutcomes[index] = outcome
                gate.finish()
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        gate.waitUntilAllFinished()

        let results = Array(outcomes)
        let wrong = results.reduce(0) { $0 + $1.wrongReads }
        let reads = results.reduce(0) { $0 + $1.reads }
        let recordLess = results.filter { !$0.ownedRecord }.count
        let mostRecords = results.map(\.recordsSeen).max() ?? 0
        let recordsAfter = weave_debug_epoch_records()
        print(
            "thread burst: \(threadCount) threads, \(reads) reads, \(wrong) wrong; "
                + "\(threadCount - recordLess) owned a record, \(recordLess) did not; "
                + "\(mostRecords) records at most, \(recordsAfter) after (bound \(bound))")
        XCTAssertEqual(wrong, 0, "wrong or missing reads")
        XCTAssertEqual(reads, threadCount * 2 * 9 + 2 * 2 * (threadCount / 50))
        XCTAssertLessThanOrEqual(mostRecords, bound, "epoch records registered during the burst")
        XCTAssertLessThanOrEqual(recordsAfter, bound, "epoch records registered after the burst")
        XCTAssertGreaterThan(recordLess, 0, "no thread read without a record of its own")
        let recordLessRight = results.filter { !$0.ownedRecord && $0.wrongReads == 0 }.count
        XCTAssertEqual(recordLessRight, recordLess, "threads without a record read wrong values")
    }
}
