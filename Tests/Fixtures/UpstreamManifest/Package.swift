// swift-tools-version: 6.1
// An app manifest written as upstream WeaveDI 3.4's README writes it, naming
// the products WeaveDI and WeaveDIMacros, plus WeaveDICore for new code.
// scripts/check-upstream-manifest.sh loads its package graph (which fails on
// a product the package does not have); nothing builds it.
import PackageDescription

let package = Package(
    name: "UpstreamManifest",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "WeaveDI", path: "../../..")
    ],
    targets: [
        .executableTarget(
            name: "UpstreamApp",
            dependencies: [
                .product(name: "WeaveDI", package: "WeaveDI"),
                .product(name: "WeaveDIMacros", package: "WeaveDI"),
                .product(name: "WeaveDICore", package: "WeaveDI"),
            ]
        )
    ]
)
