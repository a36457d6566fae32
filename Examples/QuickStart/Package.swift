// swift-tools-version: 6.1
// README's quick start as a package of its own: `swift run` prints what the
// README's comments say. scripts/test-examples.sh builds it, runs it and
// compares the output.
import PackageDescription

let package = Package(
    name: "QuickStart",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WeaveDI", path: "../..", traits: [])
    ],
    targets: [
        .executableTarget(
            name: "QuickStart",
            dependencies: [.product(name: "WeaveDI", package: "WeaveDI")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
