// The same paths as the custom harness (Sources/weavedi-bench), as
// package-benchmark benchmarks, for its baselines and comparisons:
//   swift package --package-path Benchmarks --scratch-path Benchmarks/.build \
//     --allow-writing-to-package-directory benchmark [--filter REGEX]
// Each benchmark's setup prepares the live container at its table size; one
// iteration is 1,000 operations (scalingFactor .kilo), on 1 or 2 threads.
import Benchmark
import Dispatch
import PeerPaths
import WeaveDI
import WeaveDIBenchPaths

/// The paths prepared by the running benchmark's setup.
final class Current: @unchecked Sendable {
    static let shared = Current()
    var paths: [String: BenchPath] = [:]
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .cpuTotal, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: 100_000
    )
    // Names are fixed here; the closures are built in setup, after the
    // container holds `size` registrations.
    prepareContainer(tableSize: 10)
    let catalogue = [floorPath] + weaveDIPaths(tableSize: 10) + peerPaths(tableSize: 10)
    for size in [10, 1_000, 100_000] {
        for template in catalogue where template.costScale < 100 {
            for threads in [1, 2] where threads == 1 || template.multiThread {
                let id = template.id
                Benchmark(
                    "\(template.label) [\(size) types, \(threads) thr]",
                    closure: { benchmark in
                        guard let path = Current.shared.paths[id] else { return }
                        let n = benchmark.scaledIterations.count
                        if threads == 1 {
                            path.run(n)
                        } else {
                            DispatchQueue.concurrentPerform(iterations: threads) { _ in path.run(n) }
                        }
                    },
                    setup: {
                        prepareContainer(tableSize: size)
                        let paths = [floorPath] + weaveDIPaths(tableSize: size) + peerPaths(tableSize: size)
                        Current.shared.paths = Dictionary(paths.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                        Current.shared.paths[id]?.applyMode()
                    },
                    teardown: {
                        UnifiedRegistry.shared.enableOptimization()
                    }
                )
            }
        }
    }
}
