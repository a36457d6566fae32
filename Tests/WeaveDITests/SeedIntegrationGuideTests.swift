import Synchronization
import WeaveDI
import XCTest

// Seed 002 (TCA integration guide): the container and injection samples that
// need only WeaveDI, pasted as a user would, adapted only where Swift 6
// requires it (Sendable protocols; `[String: any Sendable]` parameters).

struct Endpoint: Sendable {
    let path: String
    static func user(id: String) -> Endpoint { Endpoint(path: "/users/\(id)") }
}

enum ServiceError: Error {
    case networkServiceUnavailable
}

struct GuideUser: Codable, Sendable, Equatable {
    let id: String
}

protocol GuideUserService: Sendable {
    func fetchUser(id: String) async throws -> GuideUser
}

protocol AnalyticsService: Sendable {
    func track(event: String, parameters: [String: any Sendable])
}

protocol NetworkService: Sendable {
    func request<T: Codable>(_ endpoint: Endpoint) async throws -> T
}

final class URLSessionNetworkService: NetworkService {
    let baseURL: String
    init(baseURL: String = "https://api.example.com") { self.baseURL = baseURL }
    func request<T: Codable>(_ endpoint: Endpoint) async throws -> T {
        let id = String(endpoint.path.split(separator: "/").last ?? "")
        return GuideUser(id: id) as! T
    }
}

final class MockNetworkService: NetworkService {
    func request<T: Codable>(_ endpoint: Endpoint) async throws -> T {
        GuideUser(id: "mock") as! T
    }
}

final class RecordingAnalytics: AnalyticsService, @unchecked Sendable {
    private let lock = NSLockish()
    private var events: [String] = []
    func track(event: String, parameters: [String: any Sendable]) { lock.run { events.append(event) } }
    var recorded: [String] { lock.run { events } }
}

/// A tiny lock so the test double stays dependency-free.
final class NSLockish: @unchecked Sendable {
    private let mutex = Mutex<Void>(())
    func run<R>(_ body: () -> R) -> R { mutex.withLock { _ in body() } }
}

// MARK: - Service Implementations
// A property wrapper's storage is a `var`, which a checked Sendable class may
// not have; the wrappers themselves are thread-safe, hence `@unchecked`.
final class GuideUserServiceImpl: GuideUserService, @unchecked Sendable {
    @Injected private var networkService: NetworkService?
    @Injected private var analytics: AnalyticsService?

    func fetchUser(id: String) async throws -> GuideUser {
        analytics?.track(event: "user_fetch_started", parameters: ["user_id": id])

        guard let network = networkService else {
            throw ServiceError.networkServiceUnavailable
        }

        let user: GuideUser = try await network.request(.user(id: id))
        analytics?.track(event: "user_fetch_completed", parameters: ["user_id": id])

        return user
    }
}

// MARK: - Dependency Registration
extension WeaveDI {
    static func registerTCADependencies(analytics: RecordingAnalytics) async {
        await WeaveDI.Container.bootstrap { container in
            // Core services
            container.register(NetworkService.self) {
                URLSessionNetworkService()
            }

            container.register(AnalyticsService.self) {
                analytics
            }

            // Business services
            container.register(GuideUserService.self) {
                GuideUserServiceImpl()
            }
        }
    }
}

// MARK: - Feature Module Protocol
protocol OrderRepository: Sendable {}
final class APIOrderRepository: OrderRepository {}
protocol OrderService: Sendable {}
final class OrderServiceImpl: OrderService {}

protocol FeatureModule {
    static func registerDependencies() async
}

struct UserFeatureModule: FeatureModule {
    static func registerDependencies() async {
        await WeaveDI.Container.bootstrap { container in
            container.register(GuideUserService.self) {
                GuideUserServiceImpl()
            }
        }
    }
}

struct OrderFeatureModule: FeatureModule {
    static func registerDependencies() async {
        await WeaveDI.Container.bootstrap { container in
            container.register(OrderRepository.self) {
                APIOrderRepository()
            }

            container.register(OrderService.self) {
                OrderServiceImpl()
            }
        }
    }
}

// MARK: - Environment Configuration
enum AppEnvironment {
    case development
    case staging
    case production

    var apiBaseURL: String {
        switch self {
        case .development: return "https://dev-api.example.com"
        case .staging: return "https://staging-api.example.com"
        case .production: return "https://api.example.com"
        }
    }
}

extension WeaveDI {
    static func registerForEnvironment(_ environment: AppEnvironment) async {
        await WeaveDI.Container.bootstrap { container in
            switch environment {
            case .development:
                container.register(NetworkService.self) {
                    MockNetworkService()  // Use mocks in development
                }
            case .staging, .production:
                container.register(NetworkService.self) {
                    URLSessionNetworkService(baseURL: environment.apiBaseURL)
                }
            }
        }
    }
}

final class SeedIntegrationGuideTests: DITestCase {
    func testServiceLayerSetupThroughBootstrap() async throws {
        let analytics = RecordingAnalytics()
        await WeaveDI.registerTCADependencies(analytics: analytics)
        let service = try XCTUnwrap(UnifiedDI.resolve(GuideUserService.self))
        let user = try await service.fetchUser(id: "42")
        XCTAssertEqual(user, GuideUser(id: "42"))
        XCTAssertEqual(analytics.recorded, ["user_fetch_started", "user_fetch_completed"])
    }

    func testOptionalInjectedServicesAreNilWhenNotRegistered() async {
        do {
            _ = try await GuideUserServiceImpl().fetchUser(id: "1")
            XCTFail("expected networkServiceUnavailable")
        } catch {
            XCTAssertTrue(error is ServiceError)
        }
    }

    func testFeatureModulesEachBootstrapAndMerge() async {
        await UserFeatureModule.registerDependencies()
        await OrderFeatureModule.registerDependencies()
        XCTAssertNotNil(UnifiedDI.resolve(GuideUserService.self), "the user module was discarded")
        XCTAssertNotNil(UnifiedDI.resolve(OrderRepository.self))
        XCTAssertNotNil(UnifiedDI.resolve(OrderService.self))
    }

    func testEnvironmentBasedRegistration() async {
        await WeaveDI.registerForEnvironment(.staging)
        let staging = UnifiedDI.resolve(NetworkService.self) as? URLSessionNetworkService
        XCTAssertEqual(staging?.baseURL, "https://staging-api.example.com")
        await WeaveDI.registerForEnvironment(.development)
        XCTAssertTrue(UnifiedDI.resolve(NetworkService.self) is MockNetworkService)
    }

    // The guide's test set-up: reset the live container, then bootstrap mocks.
    func testSetUpResettingTheLiveContainer() async throws {
        UnifiedDI.register(NetworkService.self) { URLSessionNetworkService() }
        WeaveDI.Container.live = WeaveDI.Container()
        await WeaveDI.Container.bootstrap { container in
            container.register(NetworkService.self) {
                MockNetworkService()
            }
        }
        XCTAssertTrue(UnifiedDI.resolve(NetworkService.self) is MockNetworkService)
        let user = try await GuideUserServiceImplHolder().service.fetchUser(id: "x")
        XCTAssertEqual(user, GuideUser(id: "mock"))
    }

    // "Issue 3: Memory Issues with Factories"
    func testInjectedForSingletonsFactoryForFreshObjects() {
        UnifiedDI.register(DocumentGenerator.self) { DocumentGenerator() }
        UnifiedDI.register(NetworkService.self) { MockNetworkService() }
        let holder = FactoryAndInjectedHolder()
        XCTAssertTrue(holder.api === holder.api)
        XCTAssertFalse(holder.documentGenerator === holder.documentGenerator)
    }
}

final class GuideUserServiceImplHolder {
    let service = GuideUserServiceImpl()
}

final class DocumentGenerator: Sendable {}

final class FactoryAndInjectedHolder {
    @Injected private var apiClient: NetworkService?
    @Factory private var generator: DocumentGenerator
    var api: MockNetworkService? { apiClient as? MockNetworkService }
    var documentGenerator: DocumentGenerator { generator }
}
