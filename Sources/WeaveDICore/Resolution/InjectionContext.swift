#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// Which ``InjectedKey`` default a read falls back to.
///
/// Detected once at launch: `WEAVEDI_CONTEXT=live|test|preview` in the
/// environment forces one; otherwise Xcode previews are detected by their
/// environment and tests by the test runner (XCTest or Swift Testing,
/// `swift test` on Linux and macOS); anything else is ``live``. Assign
/// ``InjectedValues/context`` to change it at run time.
///
/// ```swift
/// // A test of the live wiring:
/// InjectedValues.context = .live
/// defer { InjectedValues.context = .test }
/// ```
public enum InjectionContext: String, Sendable, CaseIterable {
    /// A running app: keys fall back to ``InjectedKey/liveValue``.
    case live
    /// A test run: keys fall back to ``InjectedKey/testValue``.
    case test
    /// An Xcode preview: keys fall back to ``InjectedKey/previewValue``.
    case preview

    /// Set `WEAVEDI_CONTEXT=live|test|preview` to force a context; otherwise
    /// previews are detected by Xcode's environment and tests by the test
    /// runner (XCTest or Swift Testing, `swift test` on Linux and macOS).
    package static func detect(
        environment: (String) -> String? = ProcessEnvironment.value,
        arguments: [String] = CommandLine.arguments
    ) -> InjectionContext {
        if let forced = environment("WEAVEDI_CONTEXT").flatMap({ InjectionContext(rawValue: $0.lowercased()) }) {
            return forced
        }
        if environment("XCODE_RUNNING_FOR_PREVIEWS") == "1" {
            return .preview
        }
        let testEnvironment = ["XCTestConfigurationFilePath", "XCTestBundlePath", "XCTestSessionIdentifier"]
        if testEnvironment.contains(where: { environment($0) != nil }) {
            return .test
        }
        let program = arguments.first ?? ""
        if program.hasSuffix(".xctest") || program.hasSuffix("/xctest") || program.includes(".xctest/")
            || arguments.contains("--testing-library")
        {
            return .test
        }
        return .live
    }
}

/// The context, readable without a lock (a default's first evaluation reads it).
enum ContextStorage {
    static let value = PlatformAtomic<UInt8>(InjectionContext.detect().code)
}

extension InjectionContext {
    var code: UInt8 {
        switch self {
        case .live: return 0
        case .test: return 1
        case .preview: return 2
        }
    }

    init(code: UInt8) {
        switch code {
        case 1: self = .test
        case 2: self = .preview
        default: self = .live
        }
    }
}

extension InjectedValues {
    /// The context ``InjectedKey`` defaults are chosen by. Detected at
    /// launch (see ``InjectionContext``); assign to force one, e.g. in tests
    /// of the live wiring or a preview harness.
    ///
    /// Process-wide, not task-local. Assigning drops every default evaluated
    /// so far, and every cached read of one, before it returns; the next read
    /// of each key evaluates the new context's default.
    ///
    /// ```swift
    /// InjectedValues.context = .preview
    /// ```
    public static var context: InjectionContext {
        get { InjectionContext(code: ContextStorage.value.load(ordering: .acquiring)) }
        set {
            ContextStorage.value.store(newValue.code, ordering: .releasing)
            // Emptying the tables advances the generation and releases every
            // cached read of the old defaults before this returns.
            DefaultValues.reset()
        }
    }
}
