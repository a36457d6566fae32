// swift-tools-version: 6.1
// README's quick start as a package of its own: `swift run` prints what the
// README's comments say. scripts/test-examples.sh builds it, runs it and
// compares the output.
import PackageDescription

let package = Package(
    name: "QuickStart",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The registry on the system's Concurrency Kit, as WeaveDI's defaults
        // give it: a package copied from here gets the build most apps use.
        // No swift-dependencies bridge and no macros: the quick start uses
        // neither.
        .package(name: "WeaveDI", path: "../..", traits: ["SystemConcurrencyKit"])
    ],
    targets: [
        .executableTarget(
            name: "QuickStart",
            dependencies: [.product(name: "WeaveDI", package: "WeaveDI")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
