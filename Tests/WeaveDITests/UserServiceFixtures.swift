import WeaveDI

// The migration guide's user service, shared by the files that follow the
// guide's samples (InjectMigrationTests, InjectedKeyAccessTests); each file
// names the types it uses with private typealiases.
enum UserServiceFixtures {
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

    struct UserServiceKey: InjectedKey {
        static let liveValue: any UserService = UserServiceImpl()
        static let testValue: any UserService = MockUserService()
    }
}

extension InjectedValues {
    var userService: any UserServiceFixtures.UserService {
        get { self[UserServiceFixtures.UserServiceKey.self] }
        set { self[UserServiceFixtures.UserServiceKey.self] = newValue }
    }
}
