// swift-tools-version: 6.1
// WeaveDI's benchmark harness: its own package, so library users never build
// these dependencies. One executable, weavedi-bench:
//   weavedi-bench [options]        the timing table: every WeaveDI path, the
//                                  peers (Swinject, swift-dependencies) and
//                                  the floor, on 1 and 2 threads (scripts/bench.sh)
//   weavedi-bench gate run|check|record
//                                  the CI performance gate: instructions and
//                                  allocations per operation under callgrind,
//                                  against Thresholds/perf-gate.json
//                                  (scripts/perf-gate.sh)
// The paths live in WeaveDIBenchPaths (WeaveDI only) and PeerPaths (the
// peers). The gate builds with --traits SystemCK: without the `Peers`
// trait nothing depends on Swinject or swift-dependencies, and WeaveDI is
// built with SystemConcurrencyKit alone (no swift-syntax), which keeps CI's
// cold build short. scripts/bench-configurations.sh builds it also without
// SystemCK, and with PortableAtomics, to time the registry's configurations.
import PackageDescription

let peers: Set<String> = ["Peers"]

let package = Package(
    name: "WeaveDIBenchmarks",
    platforms: [.macOS(.v15)],
    traits: [
        .trait(name: "Peers", description: "Time Swinject and swift-dependencies next to WeaveDI (WeaveDI with its default traits)."),
        .trait(name: "SystemCK", description: "WeaveDI's registry on the system's Concurrency Kit (its default)."),
        .trait(
            name: "PortableAtomics",
            description: "WeaveDI's atomics from swift-atomics, as on Apple platforms."),
        .default(enabledTraits: ["Peers", "SystemCK"]),
    ],
    dependencies: [
        .package(
            name: "WeaveDI",
            path: "..",
            traits: [
                // The gate's counts and the timing table are of the registry
                // on the system's Concurrency Kit (SystemCK, a default).
                .trait(name: "SystemConcurrencyKit", condition: .when(traits: ["SystemCK"])),
                .trait(name: "PortableAtomics", condition: .when(traits: ["PortableAtomics"])),
                .trait(name: "SwiftDependencies", condition: .when(traits: peers)),
                .trait(name: "Macros", condition: .when(traits: peers)),
            ]
        ),
        .package(url: "https://github.com/Swinject/Swinject.git", exact: "2.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies.git", exact: "1.17.1"),
    ],
    targets: [
        .target(
            name: "WeaveDIBenchPaths",
            dependencies: [.product(name: "WeaveDI", package: "WeaveDI")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "PeerPaths",
            dependencies: [
                "WeaveDIBenchPaths",
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "Dependencies", package: "swift-dependencies"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "weavedi-bench",
            dependencies: [
                "WeaveDIBenchPaths",
                .target(name: "PeerPaths", condition: .when(traits: peers)),
                .product(name: "WeaveDI", package: "WeaveDI"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
