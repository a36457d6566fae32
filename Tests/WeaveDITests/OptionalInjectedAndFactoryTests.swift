import WeaveDI
import XCTest

// An optional `@Injected` reads nil while nothing is registered; `@Injected`
// keeps the registered singleton while `@Factory` builds anew on each access.

private enum ServiceError: Error {
    case networkServiceUnavailable
}

private protocol NetworkService: Sendable {
    func ping() -> String
}

private final class MockNetworkService: NetworkService {
    func ping() -> String { "mock" }
}

private protocol AnalyticsService: Sendable {
    func track(event: String)
}

// A property wrapper's storage is a `var`, which a checked Sendable class may
// not have; the wrappers themselves are thread-safe, hence `@unchecked`.
private final class UserServiceImpl: @unchecked Sendable {
    @Injected private var networkService: NetworkService?
    @Injected private var analytics: AnalyticsService?

    func fetchUser(id: String) throws -> String {
        analytics?.track(event: "user_fetch_started")
        guard let network = networkService else {
            throw ServiceError.networkServiceUnavailable
        }
        return "\(network.ping())-\(id)"
    }
}

private final class DocumentGenerator: Sendable {}

private final class FactoryAndInjectedHolder {
    @Injected private var apiClient: NetworkService?
    @Factory private var generator: DocumentGenerator
    var api: MockNetworkService? { apiClient as? MockNetworkService }
    var documentGenerator: DocumentGenerator { generator }
}

final class OptionalInjectedAndFactoryTests: DITestCase {
    func testOptionalInjectedServicesAreNilWhenNotRegistered() {
        XCTAssertThrowsError(try UserServiceImpl().fetchUser(id: "1")) { error in
            XCTAssertTrue(error is ServiceError, "expected networkServiceUnavailable, got \(error)")
        }
        UnifiedDI.register(NetworkService.self) { MockNetworkService() }
        XCTAssertEqual(try UserServiceImpl().fetchUser(id: "1"), "mock-1")
    }

    func testInjectedForSingletonsFactoryForFreshObjects() {
        UnifiedDI.register(DocumentGenerator.self) { DocumentGenerator() }
        UnifiedDI.register(NetworkService.self) { MockNetworkService() }
        let holder = FactoryAndInjectedHolder()
        XCTAssertTrue(holder.api === holder.api)
        XCTAssertFalse(holder.documentGenerator === holder.documentGenerator)
    }
}
