// swift-tools-version: 6.1
// A Hummingbird JSON API whose handlers get their services through WeaveDI,
// and the same API hand-wired, for comparing the two under load
// (scripts/loadtest.sh), both keeping their data in PostgreSQL through
// postgres-nio. Not a dependency of the WeaveDI package.
import PackageDescription

let package = Package(
    name: "HummingbirdServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hummingbird-server", targets: ["HummingbirdServer"])
    ],
    dependencies: [
        // No swift-dependencies bridge: this example does not use it. The
        // registry on the system's Concurrency Kit, as a Linux server has it.
        .package(name: "WeaveDI", path: "../..", traits: ["SystemConcurrencyKit"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1", traits: []),
        // The services and bodies both examples share.
        .package(path: "../TodoServices"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // The API: both wirings and the routes over TodoServices. Shared by the executable and the tests.
        .target(
            name: "TodoAPI",
            dependencies: [
                .product(name: "WeaveDI", package: "WeaveDI"),
                .product(name: "TodoServices", package: "TodoServices"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "HummingbirdServer",
            dependencies: [
                "TodoAPI",
                .product(name: "TodoServices", package: "TodoServices"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "TodoAPITests",
            dependencies: [
                "TodoAPI",
                .product(name: "TodoServices", package: "TodoServices"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
