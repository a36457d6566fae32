// swift-tools-version: 6.1
// WeaveDI's benchmark suite: its own package, so library users never build
// these dependencies. Two executables:
//   weavedi-bench       the custom harness behind scripts/bench.sh (clock_gettime,
//                       best of N rounds, 1 and 2 threads, peers in the same run,
//                       JSON/CSV out), and
//   WeaveDIBenchmarks   the same paths as package-benchmark benchmarks
//                       (`swift package --package-path Benchmarks benchmark`).
// The paths themselves live in PerfGate/ (a package that depends on WeaveDI
// alone), which the CI gate (scripts/perf-gate.sh) builds on its own.
import PackageDescription

let package = Package(
    name: "WeaveDIBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WeaveDI", path: ".."),
        .package(path: "PerfGate"),
        .package(url: "https://github.com/ordo-one/benchmark.git", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/Swinject/Swinject.git", exact: "2.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies.git", exact: "1.17.1"),
    ],
    targets: [
        .target(
            name: "PeerPaths",
            dependencies: [
                .product(name: "WeaveDIBenchPaths", package: "PerfGate"),
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "Dependencies", package: "swift-dependencies"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "weavedi-bench",
            dependencies: [
                "PeerPaths",
                .product(name: "WeaveDI", package: "WeaveDI"),
                .product(name: "WeaveDIBenchPaths", package: "PerfGate"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "WeaveDIBenchmarks",
            dependencies: [
                "PeerPaths",
                .product(name: "WeaveDI", package: "WeaveDI"),
                .product(name: "WeaveDIBenchPaths", package: "PerfGate"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/WeaveDIBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
