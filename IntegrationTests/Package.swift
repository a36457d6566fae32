// swift-tools-version: 6.1
// Integration tests and measuring programs for the C registry: their own
// package, so nothing here is part of what a WeaveDI user builds.
//
//   RegistryStress  the C stress and semantics test of CSources/CWeaveRegistry
//                   (Sources/RegistryStress/README.md). `swift run` builds it
//                   against Debian's libck without sanitizers;
//                   scripts/sanitize.sh compiles the same file with ck's own
//                   sources under ASan+UBSan and TSan.
//   WriteLatency    what a registry write costs under readers and after a
//                   thread burst (scripts/write-latency.sh runs it, also
//                   against an older revision of weave_registry.c).
//
// Both reach CWeaveRegistry through the WeaveDI product (the C module is not
// a product of its own), built with the SystemConcurrencyKit trait only: the
// registry on Debian's libck, and no swift-syntax or swift-dependencies.
// (scripts/sanitize.sh compiles the stress test against the portable layer,
// portable_ck.c, too.)
import PackageDescription

let package = Package(
    name: "WeaveDIIntegrationTests",
    dependencies: [
        .package(name: "WeaveDI", path: "..", traits: ["SystemConcurrencyKit"])
    ],
    targets: [
        .executableTarget(
            name: "RegistryStress",
            dependencies: [.product(name: "WeaveDI", package: "WeaveDI")],
            exclude: ["README.md"],
            cSettings: [.define("_GNU_SOURCE")]
        ),
        .executableTarget(
            name: "WriteLatency",
            dependencies: [.product(name: "WeaveDI", package: "WeaveDI")],
            cSettings: [.define("_GNU_SOURCE")]
        ),
    ]
)
