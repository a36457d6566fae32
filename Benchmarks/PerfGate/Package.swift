// swift-tools-version: 6.1
// The performance gate's package: the WeaveDI benchmark paths (a library the
// full suite in ../ reuses) and the gate executable. It depends on WeaveDI
// alone, so CI builds no peer library and no package-benchmark for the gate.
import PackageDescription

let package = Package(
    name: "WeaveDIPerfGate",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WeaveDIBenchPaths", targets: ["WeaveDIBenchPaths"]),
        .executable(name: "weavedi-perf-gate", targets: ["weavedi-perf-gate"]),
    ],
    dependencies: [
        .package(name: "WeaveDI", path: "../..", traits: []),
    ],
    targets: [
        .target(
            name: "WeaveDIBenchPaths",
            dependencies: [.product(name: "WeaveDI", package: "WeaveDI")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "weavedi-perf-gate",
            dependencies: ["WeaveDIBenchPaths"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
