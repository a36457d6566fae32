import WeaveDI
import XCTest

// Registering through `WeaveDI.Container.bootstrap` and `AppDIManager`: a
// service layer, feature modules that each bootstrap, per-environment
// registrations, and resetting the live container in a test's set-up. The
// samples are written as a user would, adapted only where Swift 6 requires it
// (Sendable protocols; `[String: any Sendable]` parameters).

private struct Endpoint: Sendable {
    let path: String
    static func user(id: String) -> Endpoint { Endpoint(path: "/users/\(id)") }
}

private enum ServiceError: Error {
    case networkServiceUnavailable
}

private struct User: Codable, Sendable, Equatable {
    let id: String
}

private protocol UserService: Sendable {
    func fetchUser(id: String) async throws -> User
}

private protocol AnalyticsService: Sendable {
    func track(event: String, parameters: [String: any Sendable])
}

private protocol NetworkService: Sendable {
    func request<T: Codable>(_ endpoint: Endpoint) async throws -> T
}

private final class URLSessionNetworkService: NetworkService {
    let baseURL: String
    init(baseURL: String = "https://api.example.com") { self.baseURL = baseURL }
    func request<T: Codable>(_ endpoint: Endpoint) async throws -> T {
        let id = String(endpoint.path.split(separator: "/").last ?? "")
        return User(id: id) as! T
    }
}

private final class MockNetworkService: NetworkService {
    func request<T: Codable>(_ endpoint: Endpoint) async throws -> T {
        User(id: "mock") as! T
    }
}

private final class RecordingAnalytics: AnalyticsService {
    private let events = TestMutex<[String]>([])
    func track(event: String, parameters: [String: any Sendable]) { events.withLock { $0.append(event) } }
    var recorded: [String] { events.withLock { $0 } }
}

// MARK: - Service Implementations
// A property wrapper's storage is a `var`, which a checked Sendable class may
// not have; the wrappers themselves are thread-safe, hence `@unchecked`.
private final class UserServiceImpl: UserService, @unchecked Sendable {
    @Injected private var networkService: NetworkService?
    @Injected private var analytics: AnalyticsService?

    func fetchUser(id: String) async throws -> User {
        analytics?.track(event: "user_fetch_started", parameters: ["user_id": id])

        guard let network = networkService else {
            throw ServiceError.networkServiceUnavailable
        }

        let user: User = try await network.request(.user(id: id))
        analytics?.track(event: "user_fetch_completed", parameters: ["user_id": id])

        return user
    }
}

// MARK: - Dependency Registration
private func registerServiceLayer(analytics: RecordingAnalytics) async {
    await WeaveDI.Container.bootstrap { container in
        // Core services
        container.register(NetworkService.self) {
            URLSessionNetworkService()
        }

        container.register(AnalyticsService.self) {
            analytics
        }

        // Business services
        container.register(UserService.self) {
            UserServiceImpl()
        }
    }
}

// MARK: - Feature Module Protocol
private protocol OrderRepository: Sendable {}
private final class APIOrderRepository: OrderRepository {}
private protocol OrderService: Sendable {}
private final class OrderServiceImpl: OrderService {}

private protocol FeatureModule {
    static func registerDependencies() async
}

private struct UserFeatureModule: FeatureModule {
    static func registerDependencies() async {
        await WeaveDI.Container.bootstrap { container in
            container.register(UserService.self) {
                UserServiceImpl()
            }
        }
    }
}

private struct OrderFeatureModule: FeatureModule {
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
private enum AppEnvironment {
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

private func registerForEnvironment(_ environment: AppEnvironment) async {
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

// MARK: - App start-up through AppDIManager
private protocol APIClient: Sendable { var name: String { get } }
private struct URLSessionAPIClient: APIClient { let name = "urlsession" }
private protocol CacheService: Sendable { var name: String { get } }
private struct MemoryCacheService: CacheService { let name = "memory" }

private final class UserServiceImplHolder {
    let service = UserServiceImpl()
}

final class BootstrapRegistrationTests: DITestCase {
    func testServiceLayerSetupThroughBootstrap() async throws {
        let analytics = RecordingAnalytics()
        await registerServiceLayer(analytics: analytics)
        let service = try XCTUnwrap(UnifiedDI.resolve(UserService.self))
        let user = try await service.fetchUser(id: "42")
        XCTAssertEqual(user, User(id: "42"))
        XCTAssertEqual(analytics.recorded, ["user_fetch_started", "user_fetch_completed"])
    }

    func testFeatureModulesEachBootstrapAndMerge() async {
        await UserFeatureModule.registerDependencies()
        await OrderFeatureModule.registerDependencies()
        XCTAssertNotNil(UnifiedDI.resolve(UserService.self), "the user module was discarded")
        XCTAssertNotNil(UnifiedDI.resolve(OrderRepository.self))
        XCTAssertNotNil(UnifiedDI.resolve(OrderService.self))
    }

    func testEnvironmentBasedRegistration() async {
        await registerForEnvironment(.staging)
        let staging = UnifiedDI.resolve(NetworkService.self) as? URLSessionNetworkService
        XCTAssertEqual(staging?.baseURL, "https://staging-api.example.com")
        await registerForEnvironment(.development)
        XCTAssertTrue(UnifiedDI.resolve(NetworkService.self) is MockNetworkService)
    }

    // A test's set-up: reset the live container, then bootstrap mocks.
    func testSetUpResettingTheLiveContainer() async throws {
        UnifiedDI.register(NetworkService.self) { URLSessionNetworkService() }
        WeaveDI.Container.live = WeaveDI.Container()
        await WeaveDI.Container.bootstrap { container in
            container.register(NetworkService.self) {
                MockNetworkService()
            }
        }
        XCTAssertTrue(UnifiedDI.resolve(NetworkService.self) is MockNetworkService)
        let user = try await UserServiceImplHolder().service.fetchUser(id: "x")
        XCTAssertEqual(user, User(id: "mock"))
    }

    func testAppDIManagerDefaultsRegisterThroughBootstrapInTask() async throws {
        AppDIManager.shared.addDefaultDependencies { container in
            container.register(APIClient.self) { URLSessionAPIClient() }
        }
        // An app's initializer
        WeaveDI.Container.bootstrapInTask { @DIContainerActor _ in
            await AppDIManager.shared.registerDefaultDependencies()
        }
        for _ in 0..<500 where UnifiedDI.resolve(APIClient.self) == nil {
            try await Task.sleep(for: .milliseconds(5))
        }
        XCTAssertEqual(UnifiedDI.resolve(APIClient.self)?.name, "urlsession")
        await AppDIManager.shared.registerDependencies { container in
            container.register(CacheService.self) { MemoryCacheService() }
        }
        XCTAssertNotNil(UnifiedDI.resolve(CacheService.self))
    }
}
