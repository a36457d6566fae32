// swift-tools-version: 6.1
// What both server examples run behind their HTTP layer: the PostgreSQL pool,
// the todo store, the per-request unit of work, the presenter, the handlers'
// logic, the response bodies and the command line. No web framework and no
// DI: each example adds its framework's conformances and wires these services
// its two ways (WeaveDI and by hand).
// A package of its own so Examples/HummingbirdServer and Examples/VaporServer
// depend on one copy; not a dependency of the WeaveDI package.
import PackageDescription

let package = Package(
    name: "TodoServices",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TodoServices", targets: ["TodoServices"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "TodoServices",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
