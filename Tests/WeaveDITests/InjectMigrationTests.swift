import WeaveDI
import XCTest

// Code written against the deprecated `@Inject` keeps working while it moves
// to `@Injected`, and `@Inject`, `@Injected` and `@Factory` can sit in one
// type during the move. The samples are written as a user would, adapted
// only where Swift 6 requires it: protocols are Sendable and
// `static var liveValue = ...` stored properties are `static let`.

private typealias User = UserServiceFixtures.User
private typealias UserService = UserServiceFixtures.UserService
private typealias UserServiceImpl = UserServiceFixtures.UserServiceImpl
private typealias MockUserService = UserServiceFixtures.MockUserService
private typealias UserServiceKey = UserServiceFixtures.UserServiceKey

// Before: the deprecated wrapper, kept working during migration.
private final class LegacyUserViewModel {
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
private final class UserViewModel {
    @Injected(\.userService) var userService
    var lastUser: User?

    func loadUser() async {
        // No guard needed - non-optional
        let user = await userService.fetchUser(id: "123")
        lastUser = user
    }
}

// Both wrappers and @Factory in one type.
private protocol OldService: Sendable {}
private final class OldServiceImpl: OldService {}
private final class ReportGenerator: Sendable {}
private protocol LegacyService: Sendable {}
private final class LegacyServiceImpl: LegacyService {}

private final class HybridViewModel {
    @available(*, deprecated) @Inject var oldService: OldService?  // Works
    @Injected(\.userService) var newService  // Works
    @Factory var generator: ReportGenerator  // Works
}

/// The deprecated wrapper is exercised through a protocol witness, so the
/// test target builds without deprecation warnings.
private protocol MigrationScenarios {
    func legacyInjectStillWorks() async
    func hybridViewModelWorks()
}

private struct DeprecatedMigrationScenarios: MigrationScenarios {
    @available(*, deprecated)
    func legacyInjectStillWorks() async {
        // The set-up of tests written for @Inject
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

final class InjectMigrationTests: DITestCase {
    private let scenarios: any MigrationScenarios = DeprecatedMigrationScenarios()

    func testInjectReadsARegisteredServiceAlongsideInjectedKeys() async {
        await scenarios.legacyInjectStillWorks()
    }

    // After (with @Injected)
    func testInjectedReplacementReadsAWithInjectedValuesOverride() async {
        await withInjectedValues { values in
            values.userService = MockUserService()
        } operation: {
            let viewModel = UserViewModel()
            await viewModel.loadUser()
            XCTAssertEqual(viewModel.lastUser, User(id: "mock-123"))
        }
    }

    func testInjectInjectedAndFactoryCoexistInOneType() {
        scenarios.hybridViewModelWorks()
    }
}
