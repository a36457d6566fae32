import WeaveDI
import XCTest

// `@Injected` reads an InjectedKey's default for the current context, by key
// path or by a type that is its own key, whatever the container holds.

private typealias User = UserServiceFixtures.User
private typealias UserService = UserServiceFixtures.UserService
private typealias UserServiceImpl = UserServiceFixtures.UserServiceImpl
private typealias MockUserService = UserServiceFixtures.MockUserService
private typealias UserServiceKey = UserServiceFixtures.UserServiceKey

private final class UserViewModel {
    @Injected(\.userService) var userService
    var lastUser: User?

    func loadUser() async {
        let user = await userService.fetchUser(id: "123")
        lastUser = user
    }
}

// A simple service
private protocol Logger: Sendable { func log(_ message: String) -> String }
private struct ConsoleLogger: Logger { func log(_ message: String) -> String { "console: \(message)" } }

private struct LoggerKey: InjectedKey {
    static let liveValue: Logger = ConsoleLogger()
}

extension InjectedValues {
    fileprivate var logger: Logger {
        get { self[LoggerKey.self] }
        set { self[LoggerKey.self] = newValue }
    }
}

// Several dependencies in one type
private protocol APIClient: Sendable { var name: String { get } }
private struct URLSessionAPIClient: APIClient { let name = "urlsession" }
private protocol CacheService: Sendable { var name: String { get } }
private struct MemoryCacheService: CacheService { let name = "memory" }

private struct APIClientKey: InjectedKey {
    static let liveValue: APIClient = URLSessionAPIClient()
}
private struct CacheServiceKey: InjectedKey {
    static let liveValue: CacheService = MemoryCacheService()
}

extension InjectedValues {
    fileprivate var apiClient: APIClient {
        get { self[APIClientKey.self] }
        set { self[APIClientKey.self] = newValue }
    }
    fileprivate var cache: CacheService {
        get { self[CacheServiceKey.self] }
        set { self[CacheServiceKey.self] = newValue }
    }
}

private final class ViewModel {
    @Injected(\.userService) var userService
    @Injected(\.apiClient) var apiClient
    @Injected(\.cache) var cache
}

// A type that is its own key
extension UserServiceFixtures.UserServiceImpl: InjectedKey {
    static var liveValue: UserServiceFixtures.UserServiceImpl { UserServiceFixtures.UserServiceImpl() }
}

private final class TypeBasedViewModel {
    @Injected(UserServiceImpl.self) var userService
}

final class InjectedKeyAccessTests: DITestCase {
    func testInjectedUsesTestValueUnderTestsAndLiveValueWhenForced() async {
        let viewModel = UserViewModel()
        await viewModel.loadUser()
        XCTAssertEqual(viewModel.lastUser, User(id: "mock-123"), "testValue under swift test")
        InjectedValues.context = .live
        defer { InjectedValues.context = .test }
        await viewModel.loadUser()
        XCTAssertEqual(viewModel.lastUser, User(id: "123"), "liveValue in the live context")
    }

    func testKeyPathKeysReadTheirDefaults() {
        @Injected(\.logger) var logger
        XCTAssertEqual(logger.log("hi"), "console: hi")
        let model = ViewModel()
        XCTAssertEqual(model.apiClient.name, "urlsession")
        XCTAssertEqual(model.cache.name, "memory")
        XCTAssertTrue(model.userService is MockUserService)
    }

    func testATypeThatIsItsOwnKeyIsReadByType() async {
        let model = TypeBasedViewModel()
        let user = await model.userService.fetchUser(id: "7")
        XCTAssertEqual(user, User(id: "7"))
    }

    func testReleaseAllDoesNotAffectInjectedValues() {
        // UnifiedDI.releaseAll() empties the container, not InjectedValues.
        UnifiedDI.releaseAll()
        XCTAssertTrue(UserViewModel().userService is MockUserService)
    }
}
