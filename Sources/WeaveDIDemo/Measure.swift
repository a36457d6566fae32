import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds per call of `body`, the best of several rounds, with each of
/// `threads` threads running the same loop at once.
/// `around` wraps each thread's whole loop, e.g. in an override scope.
func nanosecondsPerCall(
    threads: Int,
    iterations: Int = demoIterations,
    rounds: Int = 5,
    around: @escaping @Sendable (() -> Void) -> Void = { $0() },
    _ body: @escaping @Sendable () -> Void
) -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = monotonicNanoseconds()
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            around {
                for _ in 0..<iterations {
                    body()
                }
            }
        }
        let elapsed = Double(monotonicNanoseconds() - start)
        best = min(best, elapsed / Double(iterations))
    }
    return best
}

func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Returns its argument as a new owned reference, so the floor pays the
/// retain and release that every resolve pays.
@inline(never)
func ownedCopy(_ value: Greeter) -> Greeter {
    value
}

/// Keeps the optimizer from deleting a read whose result is unused.
@inline(never)
func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

func format(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

/// `WEAVEDI_DEMO_ITERATIONS` shortens the run (e.g. under valgrind).
let demoIterations: Int = {
    guard let raw = getenv("WEAVEDI_DEMO_ITERATIONS") else { return 2_000_000 }
    return Int(String(cString: raw)) ?? 2_000_000
}()
