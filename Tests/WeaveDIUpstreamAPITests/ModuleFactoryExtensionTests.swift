import WeaveDI
import XCTest

// Apps written for upstream WeaveDI extend the module factories by name,
// with public methods, and call them through ModuleFactoryManager. Here the
// four factories are one generic struct bound to four roles, so these
// extensions (and ModuleFactoryTests' on the other two factories, with the
// same method name) extend one specialisation each.

protocol LedgerStore: Sendable {
    var name: String { get }
}

struct LedgerDiskStore: LedgerStore {
    let name = "disk"
}

struct LedgerSession: Sendable {
    let user: String
}

extension DiModuleFactory {
    public mutating func registerDefaultDefinitions() {
        let register = registerModule
        definitions = [register.makeDependency(LedgerStore.self) { LedgerDiskStore() }]
    }
}

extension ScopeModuleFactory {
    public mutating func registerDefaultDefinitions() {
        let register = registerModule
        definitions = [register.makeDependency(LedgerSession.self) { LedgerSession(user: "ada") }]
    }
}

final class ModuleFactoryExtensionTests: XCTestCase {
    override func setUp() {
        WeaveDI.Container.live = WeaveDI.Container()
    }

    override func tearDown() {
        WeaveDI.Container.live = WeaveDI.Container()
    }

    func testPublicExtensionsOfTwoFactoriesRegisterTheirModules() async {
        var manager = ModuleFactoryManager()
        manager.diFactory.registerDefaultDefinitions()
        manager.scopeFactory.registerDefaultDefinitions()
        XCTAssertEqual(manager.diFactory.definitions.count, 1)
        XCTAssertEqual(manager.scopeFactory.definitions.count, 1)
        XCTAssertTrue(manager.repositoryFactory.definitions.isEmpty, "another factory's extension filled only its own")

        let container = WeaveDI.Container()
        await manager.registerAll(to: container)
        XCTAssertEqual(container.resolve(LedgerStore.self)?.name, "disk")
        XCTAssertEqual(container.resolve(LedgerSession.self)?.user, "ada")
    }

    func testEachFactoryIsItsOwnTypeInAContainer() {
        var repositories = RepositoryModuleFactory()
        repositories.addRepository(LedgerStore.self) { LedgerDiskStore() }
        let registered = repositories
        let container = WeaveDI.Container()
        container.register(RepositoryModuleFactory.self) { registered }
        XCTAssertEqual(container.repositoryFactory?.definitions.count, 1)
        XCTAssertNil(container.useCaseFactory, "a use-case factory is not the registered repository factory")
        XCTAssertNil(container.scopeFactory)
    }
}
