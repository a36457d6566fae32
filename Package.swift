// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

// Where the registry links the system's Concurrency Kit: on Linux with the
// SystemConcurrencyKit trait (a default one), on macOS only with
// MacOSSystemConcurrencyKit (off by default). A Mac app built with the
// defaults would otherwise link Homebrew's libck dylib and fail to load on a
// Mac without Homebrew. Each condition below is one platform and one trait;
// the two entries together are the rule.
// SwiftPM rejects two conditional dependencies on the same target
// ("invalid duplicate target dependency declaration"), so each condition
// has its own system-library module over the same headers and library.
let systemCKConditions: [(module: String, platforms: [Platform], traits: Set<String>)] = [
    ("CConcurrencyKit", [.linux], ["SystemConcurrencyKit"]),
    ("CConcurrencyKitMacOS", [.macOS], ["MacOSSystemConcurrencyKit"]),
]

let registryCSettings: [CSetting] =
    [.define("_GNU_SOURCE")]
    // Read by weave_ck.h: the system's ck, else portable_ck.h.
    + systemCKConditions.map { .define("WEAVE_SYSTEM_CK", .when(platforms: $0.platforms, traits: $0.traits)) }
    // Aborts on a slot read left open or nested: debug builds only.
    + [.define("WEAVE_CHECK_SECTIONS", .when(configuration: .debug))]

let package = Package(
    name: "WeaveDI",
    // Upstream WeaveDI's minimums. Nothing above them is needed: atomics come
    // from swift-atomics on Apple platforms (Sources/WeaveDICore/Registry/PlatformAtomic.swift),
    // and start(timeout:) with its Duration is marked iOS 16 / tvOS 16 / watchOS 9.
    platforms: [.macOS(.v14), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1), .macCatalyst(.v15)],
    products: [
        .library(name: "WeaveDI", targets: ["WeaveDI"]),
        // The core alone, without upstream's compatibility names.
        .library(name: "WeaveDICore", targets: ["WeaveDICore"]),
        // Upstream 3.4's product name for its macros: a manifest that names
        // it gets the WeaveDI module, which declares @Component and @Provide
        // (with the Macros trait, a default).
        .library(name: "WeaveDIMacros", targets: ["WeaveDI"]),
        // Test support (Swift Testing traits, an XCTest base class). A product
        // of its own so the main one never links a test framework.
        .library(name: "WeaveDITesting", targets: ["WeaveDITesting"]),
        // DependencyShutdownService: shuts a container down with a
        // swift-service-lifecycle ServiceGroup (Hummingbird, Vapor). Its own
        // product so the main one does not link ServiceLifecycle.
        .library(name: "WeaveDIServiceLifecycle", targets: ["WeaveDIServiceLifecycle"]),
        .executable(name: "weavedi-demo", targets: ["WeaveDIDemo"]),
    ],
    traits: [
        // The bridge to pointfreeco/swift-dependencies. On by default so the
        // guides' `extension DependencyValues { ... self[SomeInjectedKey.self] }`
        // compiles with `import WeaveDI`; a package that does not want it
        // depends on WeaveDI with `traits: []` and never builds it.
        .trait(name: "SwiftDependencies"),
        // @Component / @Provide. On by default; without it nothing depends on
        // swift-syntax, which saves minutes per clean release build (the
        // performance gate builds WeaveDI this way).
        .trait(name: "Macros"),
        // The C registry on the system's Concurrency Kit (libck-dev) on Linux,
        // as the performance gate measures it. On by default; without it, on
        // macOS unless MacOSSystemConcurrencyKit is on, and on iOS, tvOS,
        // watchOS, visionOS and Mac Catalyst (which have no libck to link), the registry compiles its own
        // implementation of the ck pieces it uses (C11 atomics and pthreads,
        // CSources/CWeaveRegistry/portable_ck.c) and links no libck.
        .trait(name: "SystemConcurrencyKit"),
        // The system's Concurrency Kit on macOS too (Homebrew's concurrencykit,
        // a dylib the app then needs at run time). Off by default: a Mac build
        // with the defaults links no libck and compiles portable_ck.c.
        .trait(name: "MacOSSystemConcurrencyKit"),
        // Atomics from swift-atomics instead of Synchronization, as Apple
        // platforms always get them (Sources/WeaveDICore/Registry/PlatformAtomic.swift).
        // Off by default; CI turns it on to test that code on Linux.
        .trait(name: "PortableAtomics"),
        .default(enabledTraits: ["SwiftDependencies", "Macros", "SystemConcurrencyKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "603.0.1"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies.git", from: "1.17.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Atomics on Apple platforms, where Synchronization is above the
        // declared minimums, and with the PortableAtomics trait
        // (Sources/WeaveDICore/Registry/PlatformAtomic.swift).
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // Documentation only: `swift package generate-documentation` (scripts/docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        // Test-only: the model-based randomized test's generators, seeds and shrinker.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CConcurrencyKit",
            path: "CSources/CConcurrencyKit",
            pkgConfig: "ck",
            providers: [.apt(["libck-dev"]), .brew(["concurrencykit"])]
        ),
        .systemLibrary(
            name: "CConcurrencyKitMacOS",
            path: "CSources/CConcurrencyKitMacOS",
            pkgConfig: "ck",
            providers: [.brew(["concurrencykit"])]
        ),
        .target(
            name: "CWeaveRegistry",
            dependencies: systemCKConditions.map {
                .target(name: $0.module, condition: .when(platforms: $0.platforms, traits: $0.traits))
            },
            path: "CSources/CWeaveRegistry",
            cSettings: registryCSettings
        ),
        // The macros' implementation. Its module is not named WeaveDIMacros:
        // SwiftPM gives a macro target a product of its own name, which would
        // clash with the WeaveDIMacros library product above.
        .macro(
            name: "WeaveDIMacroExpansions",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            path: "Sources/WeaveDIMacros"
        ),
        // The core: the registry, resolution and the recommended API.
        // `import WeaveDICore` gives new code this alone.
        .target(
            name: "WeaveDICore",
            dependencies: [
                "CWeaveRegistry",
                .target(name: "WeaveDIMacroExpansions", condition: .when(traits: ["Macros"])),
                .product(name: "Logging", package: "swift-log"),
                // Imported only on Apple platforms and with PortableAtomics;
                // linked everywhere (one product cannot carry both conditions).
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                // The build protocol's test hooks (BuildWindows.swift), as the
                // C side's WEAVE_STRESS_HOOKS: debug builds only.
                .define("WEAVE_STRESS_HOOKS", .when(configuration: .debug)),
            ]
        ),
        // Upstream WeaveDI's surface and the swift-dependencies bridge,
        // written on the core's public and `package` API only (the compiler
        // holds it to that); re-exports the core, so `import WeaveDI`
        // compiles upstream apps unchanged.
        .target(
            name: "WeaveDI",
            dependencies: [
                "WeaveDICore",
                // @DependencyGraph's implementation (upstream's name, declared here).
                .target(name: "WeaveDIMacroExpansions", condition: .when(traits: ["Macros"])),
                .product(name: "Logging", package: "swift-log"),
                .product(
                    name: "Dependencies",
                    package: "swift-dependencies",
                    condition: .when(traits: ["SwiftDependencies"])
                ),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "WeaveDITesting",
            dependencies: ["WeaveDI"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "WeaveDIServiceLifecycle",
            dependencies: [
                "WeaveDI",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "WeaveDIDemo",
            dependencies: ["WeaveDI"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "WeaveDITests",
            dependencies: [
                // Tests/Shared/TestSynchronization.swift on Apple platforms and with PortableAtomics.
                .product(name: "Atomics", package: "swift-atomics"),
                "WeaveDI",
                .product(
                    name: "Dependencies",
                    package: "swift-dependencies",
                    condition: .when(traits: ["SwiftDependencies"])
                ),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .define("WEAVE_STRESS_HOOKS", .when(configuration: .debug)),
            ]
        ),
        .testTarget(
            name: "WeaveDIServiceLifecycleTests",
            dependencies: [
                // Tests/Shared/TestSynchronization.swift on Apple platforms and with PortableAtomics.
                .product(name: "Atomics", package: "swift-atomics"),
                "WeaveDI",
                "WeaveDIServiceLifecycle",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "WeaveDITestingTests",
            dependencies: ["WeaveDI", "WeaveDITesting"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "WeaveDIUpstreamAPITests",
            dependencies: [
                // Tests/Shared/TestSynchronization.swift on Apple platforms and with PortableAtomics.
                .product(name: "Atomics", package: "swift-atomics"),
                "WeaveDI",
                .product(
                    name: "Dependencies",
                    package: "swift-dependencies",
                    condition: .when(traits: ["SwiftDependencies"])
                ),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // An app module with Xcode 26's defaults: main-actor isolation by
        // default, nonisolated async functions run on the caller's actor,
        // inferred isolated conformances. Its one file is also compiled in
        // Swift 5 mode by WeaveDISwift5Tests.
        .testTarget(
            name: "WeaveDIAppDefaultsTests",
            dependencies: ["WeaveDI"],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
            ]
        ),
        .testTarget(
            name: "WeaveDISwift5Tests",
            dependencies: ["WeaveDI"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Without the Macros trait its files compile to nothing and it
        // depends on nothing from swift-syntax.
        .testTarget(
            name: "WeaveDIMacrosTests",
            dependencies: [
                .target(name: "WeaveDIMacroExpansions", condition: .when(traits: ["Macros"])),
                .product(
                    name: "SwiftSyntaxMacrosTestSupport",
                    package: "swift-syntax",
                    condition: .when(traits: ["Macros"])
                ),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
