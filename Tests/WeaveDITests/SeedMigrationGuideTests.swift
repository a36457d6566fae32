import WeaveDI
import XCTest

// Seed 000 ("Migrating from @Inject to @Injected"), pasted as a user would,
// adapted only where Swift 6 requires it: protocols are Sendable and
// `static var liveValue = ...` stored properties are `static let`.

struct User: Sendable, Equatable {
    let id: String
}

protocol UserService: Sendable {
    func fetchUser(id: String) async -> User?
}

final class UserServiceImpl: UserService {
    func fetchUser(id: String) async -> User? {
        User(id: id)
    }
}

final class MockUserService: UserService {
    func fetchUser(id: String) async -> User? {
        User(id: "mock-\(id)")
    }
}

// DI/UserServiceKey.swift
struct UserServiceKey: InjectedKey {
    static let liveValue: UserService = UserServiceImpl()
    static let testValue: UserService = MockUserService()
}

extension InjectedValues {
    var userService: UserService {
        get { self[UserServiceKey.self] }
        set { self[UserServiceKey.self] = newValue }
    }
}

// Before: the deprecated wrapper, kept working during migration.
final class LegacyUserViewModel {
    @available(*, deprecated) @Inject var userService: UserService?
    var lastUser: User?

    @available(*, deprecated)
    func loadUser() async {
        guard let service = userService else {
            print("Service not available")
            return
        }
        let user = await service.fetchUser(id: "123")
        lastUser = user
    }
}

// After
final class UserViewModel {
    @Injected(\.userService) var userService
    var lastUser: User?

    func loadUser() async {
        // No guard needed - non-optional
        let user = await userService.fetchUser(id: "123")
        lastUser = user
    }
}

// Pattern 1: Simple Service
protocol Logger: Sendable { func log(_ message: String) -> String }
struct ConsoleLogger: Logger { func log(_ message: String) -> String { "console: \(message)" } }

struct LoggerKey: InjectedKey {
    static let liveValue: Logger = ConsoleLogger()
}

extension InjectedValues {
    var logger: Logger {
        get { self[LoggerKey.self] }
        set { self[LoggerKey.self] = newValue }
    }
}

// Pattern 2: Multiple Dependencies
protocol APIClient: Sendable { var name: String { get } }
struct URLSessionAPIClient: APIClient { let name = "urlsession" }
protocol CacheService: Sendable { var name: String { get } }
struct MemoryCacheService: CacheService { let name = "memory" }

struct APIClientKey: InjectedKey {
    static let liveValue: APIClient = URLSessionAPIClient()
}
struct CacheServiceKey: InjectedKey {
    static let liveValue: CacheService = MemoryCacheService()
}

extension InjectedValues {
    var apiClient: APIClient {
        get { self[APIClientKey.self] }
        set { self[APIClientKey.self] = newValue }
    }
    var cache: CacheService {
        get { self[CacheServiceKey.self] }
        set { self[CacheServiceKey.self] = newValue }
    }
}

final class ViewModel {
    @Injected(\.userService) var userService
    @Injected(\.apiClient) var apiClient
    @Injected(\.cache) var cache
}

// Pattern 3: Type-Based Access
extension UserServiceImpl: InjectedKey {
    static var liveValue: UserServiceImpl { UserServiceImpl() }
}

final class TypeBasedViewModel {
    @Injected(UserServiceImpl.self) var userService
}

// Compatibility: both wrappers and @Factory coexist.
protocol OldService: Sendable {}
final class OldServiceImpl: OldService {}
final class ReportGenerator: Sendable {}
protocol LegacyService: Sendable {}
final class LegacyServiceImpl: LegacyService {}

final class HybridViewModel {
    @available(*, deprecated) @Inject var oldService: OldService?  // Works
    @Injected(\.userService) var newService  // Works
    @Factory var generator: ReportGenerator  // Works
}

protocol MigrationScenarios {
    func legacyInjectStillWorks() async
    func hybridViewModelWorks()
}

struct SeedMigrationScenarios: MigrationScenarios {
    @available(*, deprecated)
    func legacyInjectStillWorks() async {
        // Original code's setUp
        UnifiedDI.releaseAll()
        _ = UnifiedDI.register(UserService.self) {
            MockUserService()
        }
        let viewModel = LegacyUserViewModel()
        await viewModel.loadUser()
        XCTAssertEqual(viewModel.lastUser, User(id: "mock-123"))

        // Legacy registration still works alongside InjectedKey
        _ = UnifiedDI.register(LegacyService.self) {
            LegacyServiceImpl()
        }
        final class Holder { @Inject var legacy: LegacyService? }
        XCTAssertTrue(Holder().legacy is LegacyServiceImpl)
    }

    @available(*, deprecated)
    func hybridViewModelWorks() {
        UnifiedDI.register(OldService.self) { OldServiceImpl() }
        UnifiedDI.register(ReportGenerator.self) { ReportGenerator() }
        let model = HybridViewModel()
        XCTAssertNotNil(model.oldService)
        XCTAssertTrue(model.newService is MockUserService)
        XCTAssertFalse(model.generator === model.generator)
    }
}

final class SeedMigrationGuideTests: DITestCase {
    let scenarios: any MigrationScenarios = SeedMigrationScenarios()

    func testBeforeMigrationWithInject() async {
        await scenarios.legacyInjectStillWorks()
    }

    // After (with @Injected)
    func testLoadUser() async {
        await withInjectedValues { values in
            values.userService = MockUserService()
        } operation: {
            let viewModel = UserViewModel()
            await viewModel.loadUser()
            XCTAssertEqual(viewModel.lastUser, User(id: "mock-123"))
        }
    }

    func testInjectedUsesTestValueUnderTestsAndLiveValueWhenForced() async {
        let viewModel = UserViewModel()
        await viewModel.loadUser()
        XCTAssertEqual(viewModel.lastUser, User(id: "mock-123"), "testValue under swift test")
        InjectedValues.context = .live
        defer { InjectedValues.context = .test }
        await viewModel.loadUser()
        XCTAssertEqual(viewModel.lastUser, User(id: "123"), "liveValue in the live context")
    }

    func testPatternsOneAndTwo() {
        @Injected(\.logger) var logger
        XCTAssertEqual(logger.log("hi"), "console: hi")
        let model = ViewModel()
        XCTAssertEqual(model.apiClient.name, "urlsession")
        XCTAssertEqual(model.cache.name, "memory")
        XCTAssertTrue(model.userService is MockUserService)
    }

    func testPatternThreeTypeBasedAccess() async {
        let model = TypeBasedViewModel()
        let user = await model.userService.fetchUser(id: "7")
        XCTAssertEqual(user, User(id: "7"))
    }

    func testIssueThreeReleaseAllDoesNotAffectInjectedValues() {
        // "UnifiedDI.releaseAll() // Doesn't affect InjectedValues"
        UnifiedDI.releaseAll()
        XCTAssertTrue(UserViewModel().userService is MockUserService)
    }

    func testHybridViewModel() {
        scenarios.hybridViewModelWorks()
    }

    func testAppInitializationWithAppDIManager() async throws {
        AppDIManager.shared.addDefaultDependencies { container in
            container.register(APIClient.self) { URLSessionAPIClient() }
        }
        // App Initialization (from the guide's MyApp.init)
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
