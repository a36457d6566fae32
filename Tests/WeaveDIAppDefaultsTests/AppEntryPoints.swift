import Testing
import WeaveDI

// An app module as Xcode 26 creates it: default MainActor isolation,
// NonisolatedNonsendingByDefault and InferIsolatedConformances (this
// target's settings in Package.swift), and the same file compiled in Swift 5
// mode (WeaveDISwift5Tests links it). Each declaration below is written the
// way such an app writes it, with no isolation annotations: the types,
// their key conformances and the tests are main-actor isolated here.

protocol AuthUseCase: Sendable {
    func signIn() -> String
}

struct LiveAuthUseCase: AuthUseCase {
    func signIn() -> String { "live" }
}

struct MockAuthUseCase: AuthUseCase {
    func signIn() -> String { "mock" }
}

struct AuthUseCaseKey: InjectedKey {
    static var liveValue: any AuthUseCase { LiveAuthUseCase() }
    static var testValue: any AuthUseCase { MockAuthUseCase() }
}

extension InjectedValues {
    var authUseCase: any AuthUseCase {
        get { self[AuthUseCaseKey.self] }
        set { self[AuthUseCaseKey.self] = newValue }
    }
}

protocol Greeter: Sendable {
    func greet() -> String
}

struct EnglishGreeter: Greeter {
    func greet() -> String { "hello" }
}

extension WeaveDI.Container {
    var greeter: (any Greeter)? { resolve((any Greeter).self) }
}

final class SignInModel {
    @Injected(\.authUseCase) var byKeyPath
    @Injected(AuthUseCaseKey.self) var byKey
    @available(*, deprecated) @Inject(\.greeter) var greeter: (any Greeter)?
    @available(*, deprecated) @SafeInject var safeGreeter: (any Greeter)?
    @Factory(\.greeter) var freshGreeter: any Greeter
}

/// The deprecated wrappers, read through a protocol witness so the target
/// builds without deprecation warnings while using them as an app would.
protocol LegacyReads {
    func greetings(_ model: SignInModel) -> [String?]
}

struct DeprecatedLegacyReads: LegacyReads {
    @available(*, deprecated)
    func greetings(_ model: SignInModel) -> [String?] {
        [model.greeter?.greet(), model.safeGreeter?.greet()]
    }
}

#if SwiftDependencies
protocol APIClient: Sendable {
    func fetch() -> Int
}

struct LiveAPIClient: APIClient {
    func fetch() -> Int { 1 }
}

struct MockAPIClient: APIClient {
    func fetch() -> Int { 2 }
}

enum APIClientKey: DependencyKey {
    static let liveValue: any APIClient = LiveAPIClient()
    static let testValue: any APIClient = LiveAPIClient()
}

final class FeedModel {
    @Injected(APIClientKey.self) var api
}
#endif

extension RegisterModule {
    var greeterModule: @Sendable () -> Module {
        makeDependency((any Greeter).self) { EnglishGreeter() }
    }
}

@Suite(.serialized)
struct AppEntryPointTests {
    @Test func injectedKeyReadsAndOverrides() async {
        let model = SignInModel()
        #expect(model.byKeyPath.signIn() == "live" || model.byKeyPath.signIn() == "mock")
        withInjectedValues {
            $0.authUseCase = MockAuthUseCase()
        } operation: {
            #expect(model.byKeyPath.signIn() == "mock")
            #expect(model.byKey.signIn() == "mock")
        }
        await withInjectedValues {
            $0.authUseCase = MockAuthUseCase()
        } operation: {
            await Task.yield()
            #expect(model.byKey.signIn() == "mock")
        }
    }

    // Each test runs in its own container overlay: the Swift 5 copy of this
    // suite runs in parallel with this one, in the same process.
    @Test func containerAndUnifiedDI() async throws {
        try await withContainerOverlay { try await containerAndUnifiedDIInOverlay() }
    }

    func containerAndUnifiedDIInOverlay() async throws {
        #expect(UnifiedDI.resolve((any Greeter).self) == nil)
        UnifiedDI.register((any Greeter).self) { EnglishGreeter() }
        #expect(UnifiedDI.resolve((any Greeter).self)?.greet() == "hello")
        #expect(try UnifiedDI.resolveThrowing((any Greeter).self).greet() == "hello")
        #expect(await UnifiedDI.resolveAsync((any Greeter).self)?.greet() == "hello")

        let model = SignInModel()
        let legacy: any LegacyReads = DeprecatedLegacyReads()
        #expect(legacy.greetings(model) == ["hello", "hello"])
        #expect(model.freshGreeter.greet() == "hello")

        let child = WeaveDI.Container.live.createChild()
        child.register(String.self, scope: .singleton) { "child" }
        #expect(child.resolve(String.self) == "child")
        #expect(child.resolve((any Greeter).self)?.greet() == "hello")
    }

    @Test func modulesAndAppDIManager() async {
        await withContainerOverlay {
            await AppWeaveDI.Container.shared.registerDependencies { container in
                await container.register(RegisterModule().greeterModule())
            }
            #expect(UnifiedDI.resolve((any Greeter).self)?.greet() == "hello")
        }
    }

    #if SwiftDependencies
    @Test func dependencyKeyReadsWhatDependencyReads() {
        let model = FeedModel()
        withDependencies {
            $0[APIClientKey.self] = MockAPIClient()
        } operation: {
            #expect(model.api.fetch() == 2)
        }
        #expect(model.api.fetch() == 1)
    }
    #endif
}
