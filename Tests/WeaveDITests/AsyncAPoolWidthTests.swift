import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// scripts/test.sh's width-one run (`taskset -c 0`,
/// `LIBDISPATCH_COOPERATIVE_POOL_STRICT=1`): the check that the cooperative
/// pool is one thread wide. Named to sort before
/// AsyncBuildWindowTests and AsyncServiceTests, so it runs before them.
final class AsyncAPoolWidthTests: XCTestCase {
    /// The width-one run's own check: scripts/test.sh sets
    /// WEAVEDI_EXPECT_ONE_POOL_THREAD=1 for it, and this test fails if task
    /// segments ran on two threads at once.
    func testTheCooperativePoolIsOneThreadWideInTheWidthOneRun() async throws {
        guard ProcessInfo.processInfo.environment["WEAVEDI_EXPECT_ONE_POOL_THREAD"] == "1" else {
            throw XCTSkip("only in scripts/test.sh's width-one run")
        }
        // How many task segments ever ran at the same moment. Distinct
        // thread IDs would not do: a pool of one thread may retire its
        // thread and start another, which is still one at a time. The
        // narrowest of three tries counts: a pool two wide overlaps in
        // every try.
        final class Overlap: Sendable {
            let state = TestMutex<(running: Int, most: Int)>((0, 0))
            func enter() {
                state.withLock {
                    $0.running += 1
                    $0.most = max($0.most, $0.running)
                }
            }
            func leave() { state.withLock { $0.running -= 1 } }
        }
        var widths: [Int] = []
        for _ in 0..<3 {
            let overlap = Overlap()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        for _ in 0..<4 {
                            try? await Task.sleep(for: .milliseconds(1))
                            overlap.enter()
                            // Long enough that two pool threads would overlap here.
                            let until = ContinuousClock.now + .microseconds(200)
                            while ContinuousClock.now < until {}
                            overlap.leave()
                        }
                    }
                }
            }
            widths.append(overlap.state.withLock { $0.most })
            if widths.last == 1 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertEqual(widths.min(), 1, "the cooperative pool is wider than one thread: \(widths)")
    }

}
