#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Which `InjectedKey` default a read falls back to.
public enum InjectionContext: String, Sendable, CaseIterable {
    case live
    case test
    case preview

    /// Set `WEAVEDI_CONTEXT=live|test|preview` to force a context; otherwise
    /// previews are detected by Xcode's environment and tests by the test
    /// runner (XCTest or Swift Testing, `swift test` on Linux and macOS).
    static func detect(
        environment: (String) -> String? = { getenv($0).map { String(cString: $0) } },
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
        if program.hasSuffix(".xctest") || program.hasSuffix("/xctest") || program.contains(".xctest/")
            || arguments.contains("--testing-library") {
            return .test
        }
        return .live
    }
}

/// The context, readable without a lock (a default's first evaluation reads it).
enum ContextStorage {
    static let value = Atomic<UInt8>(InjectionContext.detect().code)
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
    /// The context defaults are chosen by. Detected at launch; assign to
    /// force one (tests of live wiring, a preview harness). Assigning drops
    /// every default evaluated so far, and every cached read of one.
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
