// Needs the `Macros` trait (on by default), which provides @Component and @Provide.
#if Macros
import WeaveDI
import XCTest

/// The guide's `@Component` sample, unchanged, inside a namespace so its type
/// names cannot collide with other tests of this module.
private enum ComponentFixtures {
    protocol UserRepository: AnyObject, Sendable {
        var label: String { get }
    }

    protocol UserService: AnyObject, Sendable {
        var repository: UserRepository { get }
    }

    final class UserRepositoryImpl: UserRepository {
        let label: String
        init(label: String = "default") { self.label = label }
    }

    final class UserServiceImpl: UserService {
        let repository: UserRepository
        init(repository: UserRepository) { self.repository = repository }
    }

    @Component
    struct UserComponent {
        @Provide var repository: UserRepository = UserRepositoryImpl()
        @Provide(scope: .singleton) var service: UserService = UserServiceImpl(repository: repository)
    }

    /// Two repositories of one type in one component, told apart by name.
    @Component
    struct NamedRepositories {
        @Provide(scope: .singleton, name: "primary") var primary: UserRepository = UserRepositoryImpl(label: "primary")
        @Provide(.singleton, name: "replica") var replica: UserRepository = UserRepositoryImpl(label: "replica")
        @Provide(scope: .singleton) var service: UserService = UserServiceImpl(repository: replica)
    }

    /// The same providers declared in the opposite order.
    @Component
    struct ReversedComponent {
        @Provide(scope: .singleton) var service: UserService = UserServiceImpl(repository: repository)
        @Provide var repository: UserRepository = UserRepositoryImpl(label: "reversed")
    }
}

final class ComponentMacroUsageTests: XCTestCase {
    private typealias Sample = ComponentFixtures

    func testNamedProvidersRegisterUnderTheirNames() throws {
        let container = WeaveDI.Container()
        Sample.NamedRepositories.registerAll(into: container)

        XCTAssertEqual(container.registeredNames(of: Sample.UserRepository.self), ["primary", "replica"])
        XCTAssertNil(container.resolve(Sample.UserRepository.self), "no unnamed repository was provided")
        XCTAssertEqual(container.resolve(Sample.UserRepository.self, name: "primary")?.label, "primary")
        let replica = try XCTUnwrap(container.resolve(Sample.UserRepository.self, name: "replica"))
        XCTAssertEqual(replica.label, "replica")
        let service = try XCTUnwrap(container.resolve(Sample.UserService.self))
        XCTAssertTrue(service.repository === replica, "the service's factory read the named singleton")
    }

    func testServiceResolvesWithARegisteredRepository() throws {
        let container = WeaveDI.Container()
        Sample.UserComponent.registerAll(into: container)

        let service = try XCTUnwrap(container.resolve(Sample.UserService.self))
        XCTAssertTrue(service.repository is Sample.UserRepositoryImpl)
        XCTAssertEqual(service.repository.label, "default")
    }

    /// The service's factory must read the repository from the container it was
    /// registered into: replacing the repository there changes what it gets.
    func testServiceFactoryReadsTheContainerItWasRegisteredInto() throws {
        let container = WeaveDI.Container()
        Sample.UserComponent.registerAll(into: container)
        let replacement = Sample.UserRepositoryImpl(label: "replacement")
        container.register(Sample.UserRepository.self, instance: replacement)

        let service = try XCTUnwrap(container.resolve(Sample.UserService.self))
        XCTAssertIdentical(service.repository, replacement)

        let other = WeaveDI.Container()
        Sample.UserComponent.registerAll(into: other)
        let otherService = try XCTUnwrap(other.resolve(Sample.UserService.self))
        XCTAssertNotIdentical(otherService.repository, replacement)
        XCTAssertNotIdentical(otherService, service, "each container has its own singleton")
    }

    func testSingletonScopeGivesTheSameInstanceTwice() throws {
        let container = WeaveDI.Container()
        Sample.UserComponent.registerAll(into: container)

        let first = try XCTUnwrap(container.resolve(Sample.UserService.self))
        let second = try XCTUnwrap(container.resolve(Sample.UserService.self))
        XCTAssertIdentical(first, second)
    }

    func testTransientScopeGivesANewInstanceEachTime() throws {
        let container = WeaveDI.Container()
        Sample.UserComponent.registerAll(into: container)

        let first = try XCTUnwrap(container.resolve(Sample.UserRepository.self))
        let second = try XCTUnwrap(container.resolve(Sample.UserRepository.self))
        XCTAssertNotIdentical(first, second)
    }

    func testReversedDeclarationOrderStillWires() throws {
        let container = WeaveDI.Container()
        Sample.ReversedComponent.registerAll(into: container)

        let service = try XCTUnwrap(container.resolve(Sample.UserService.self))
        XCTAssertEqual(service.repository.label, "reversed")
    }

    /// `registerAll()` without a container registers into the live one.
    func testRegisterAllWithoutArgumentUsesTheLiveContainer() throws {
        let previous = WeaveDI.Container.live
        defer { WeaveDI.Container.live = previous }
        let live = WeaveDI.Container()
        WeaveDI.Container.live = live

        Sample.UserComponent.registerAll()

        XCTAssertNotNil(live.resolve(Sample.UserService.self))
        XCTAssertNotNil(live.resolve(Sample.UserRepository.self))
    }

    /// The generated static accessors read the live container, and build from
    /// the initializer when nothing is registered there.
    func testStaticAccessorsReadTheLiveContainer() {
        let previous = WeaveDI.Container.live
        defer { WeaveDI.Container.live = previous }
        WeaveDI.Container.live = WeaveDI.Container()

        XCTAssertEqual(Sample.UserComponent.repository.label, "default")

        let registered = Sample.UserRepositoryImpl(label: "live")
        WeaveDI.Container.live.register(Sample.UserRepository.self, instance: registered)
        XCTAssertIdentical(Sample.UserComponent.repository, registered)
        XCTAssertIdentical(Sample.UserComponent.service.repository, registered)
    }
}
#endif
