// swift-tools-version: 6.1
// A Vapor JSON API whose handlers get their services through WeaveDI, and the
// same API hand-wired, for comparing the two under load
// (scripts/loadtest.sh --framework vapor), both keeping their data in
// PostgreSQL through postgres-nio. Not a dependency of the WeaveDI package.
import PackageDescription

let package = Package(
    name: "VaporServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "vapor-server", targets: ["VaporServer"])
    ],
    dependencies: [
        // No swift-dependencies bridge and no macros: this example uses neither.
        // The registry on the system's Concurrency Kit, as a Linux server has it.
        .package(name: "WeaveDI", path: "../..", traits: ["SystemConcurrencyKit"]),
        .package(url: "https://github.com/vapor/vapor.git", exact: "4.122.3"),
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
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "VaporServer",
            dependencies: [
                "TodoAPI",
                .product(name: "TodoServices", package: "TodoServices"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "TodoAPITests",
            dependencies: [
                "TodoAPI",
                .product(name: "TodoServices", package: "TodoServices"),
                .product(name: "WeaveDI", package: "WeaveDI"),
                .product(name: "XCTVapor", package: "vapor"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
