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

enum ContextStorage {
    static let value = Locked<InjectionContext>(InjectionContext.detect())
}

extension InjectedValues {
    /// The context defaults are chosen by. Detected at launch; assign to
    /// force one (tests of live wiring, a preview harness).
    public static var context: InjectionContext {
        get { ContextStorage.value.withLock { $0 } }
        set {
            ContextStorage.value.withLock { $0 = newValue }
            DefaultValues.reset()
            RegistryGeneration.advance()
        }
    }
}
