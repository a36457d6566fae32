import WeaveDI
import XCTest

// The module and factory API as apps written for upstream WeaveDI 3.3 use
// it: factories filled in extensions, a manager registering them through
// AppDIManager, use cases built from repositories.

protocol KioskProductRepository: Sendable {
    func products() -> [String]
}

struct KioskRemoteRepository: KioskProductRepository {
    func products() -> [String] { ["iPhone", "Mac"] }
}

struct KioskMockRepository: KioskProductRepository {
    func products() -> [String] { ["mock"] }
}

protocol KioskProductUseCase: Sendable {
    var repository: KioskProductRepository { get }
}

struct KioskProductUseCaseImpl: KioskProductUseCase {
    let repository: KioskProductRepository
}

final class KioskBuildCounter: Sendable {
    static let built = TestAtomic<Int>(0)
    init() { Self.built.add(1, ordering: .sequentiallyConsistent) }
}

extension RegisterModule {
    var productRepositoryModule: @Sendable () -> Module {
        makeDependency(KioskProductRepository.self) { KioskRemoteRepository() }
    }

    var productUseCaseModule: @Sendable () -> Module {
        makeUseCaseWithRepository(
            KioskProductUseCase.self,
            repositoryProtocol: KioskProductRepository.self,
            repositoryFallback: KioskMockRepository()
        ) { repository in KioskProductUseCaseImpl(repository: repository) }
    }
}

extension RepositoryModuleFactory {
    mutating func registerDefaultDefinitions() {
        let register = registerModule
        definitions = [register.productRepositoryModule]
    }
}

extension UseCaseModuleFactory {
    mutating func registerDefaultDefinitions() {
        let register = registerModule
        definitions = [register.productUseCaseModule]
    }
}

extension ModuleFactoryManager {
    mutating func registerDefaultDependencies() {
        repositoryFactory.registerDefaultDefinitions()
        useCaseFactory.registerDefaultDefinitions()
    }
}

typealias AppDIContainer = AppWeaveDI.Container

extension AppDIContainer {
    func registerDefaultDependencies() async {
        await registerDependencies(logLevel: .errors) { container in
            var factory = ModuleFactoryManager()
            factory.registerDefaultDependencies()
            await factory.registerAll(to: container)
        }
    }
}

final class ModuleFactoryTests: XCTestCase {
    override func setUp() {
        WeaveDI.Container.live = WeaveDI.Container()
    }

    override func tearDown() {
        WeaveDI.Container.live = WeaveDI.Container()
        UnifiedDI.resetLogConfiguration()
    }

    func testTheAppShapeRegistersRepositoriesAndUseCasesThroughAppDIManager() async {
        await AppDIContainer.shared.registerDefaultDependencies()

        let useCase = UnifiedDI.resolve(KioskProductUseCase.self)
        XCTAssertEqual(useCase?.repository.products(), ["iPhone", "Mac"], "the use case got the registered repository")
        XCTAssertEqual(WeaveDI.Container.live.resolve(KioskProductRepository.self)?.products(), ["iPhone", "Mac"])
        XCTAssertEqual(UnifiedDI.logLevel, .errors, "registerDependencies(logLevel:) set the level")
    }

    func testAUseCaseFallsBackWhenItsRepositoryIsNotRegistered() async {
        await RegisterModule().productUseCaseModule().register()
        XCTAssertEqual(UnifiedDI.resolve(KioskProductUseCase.self)?.repository.products(), ["mock"])
    }

    func testAUseCaseReadsTheRepositoryOfTheContainerItWasRegisteredInto() async {
        let parent = WeaveDI.Container()
        let child = parent.createChild()
        parent.register(KioskProductRepository.self) { KioskMockRepository() }
        child.register(KioskProductRepository.self) { KioskRemoteRepository() }
        await child.register(RegisterModule().productUseCaseModule())

        XCTAssertEqual(child.resolve(KioskProductUseCase.self)?.repository.products(), ["iPhone", "Mac"])
        XCTAssertNil(UnifiedDI.resolve(KioskProductUseCase.self), "nothing went into the live container")
    }

    func testAModuleIsTransientAndGoesThroughTheRegistry() async {
        let module = Module(KioskBuildCounter.self) { KioskBuildCounter() }
        let before = KioskBuildCounter.built.load(ordering: .sequentiallyConsistent)
        await module.register()
        XCTAssertEqual(KioskBuildCounter.built.load(ordering: .sequentiallyConsistent), before, "registration builds nothing")
        let first = UnifiedDI.resolve(KioskBuildCounter.self)
        let second = UnifiedDI.resolve(KioskBuildCounter.self)
        XCTAssertNotNil(first)
        XCTAssertFalse(first === second, "each resolve builds a new instance")
        XCTAssertTrue(WeaveDI.Container.live.isRegistered(KioskBuildCounter.self))
        XCTAssertTrue(WeaveDI.Container.live.registeredTypeNames.contains { $0.contains("KioskBuildCounter") })
    }

    func testAddedModulesWaitForBuild() async {
        let container = WeaveDI.Container()
        let register = RegisterModule()
        container.addModule(register.makeModule(KioskProductRepository.self) { KioskRemoteRepository() })
        XCTAssertEqual(container.moduleCount, 1)
        XCTAssertFalse(container.isEmpty)
        XCTAssertNil(container.resolve(KioskProductRepository.self), "not registered before build")

        await container {}.build()
        XCTAssertEqual(container.moduleCount, 0)
        XCTAssertTrue(container.isEmpty)
        XCTAssertEqual(container.resolve(KioskProductRepository.self)?.products(), ["iPhone", "Mac"])

        let metrics = await container.addModule(register.makeModule(KioskBuildCounter.self) { KioskBuildCounter() })
            .buildModulesWithMetrics()
        XCTAssertEqual(metrics.moduleCount, 1)
        XCTAssertTrue(metrics.summary.contains("Modules: 1"))
    }

    func testPendingModulesBelongToTheirContainer() async {
        var container: WeaveDI.Container? = WeaveDI.Container()
        container?.addModule(Module(KioskProductRepository.self) { KioskRemoteRepository() })
        container = nil
        let other = WeaveDI.Container()
        await other.buildModules()
        XCTAssertNil(other.resolve(KioskProductRepository.self), "another container's module is not built here")
    }

    func testTheFactoriesAddDefinitionsInOrder() async {
        var manager = ModuleFactoryManager()
        manager.diFactory.addDependency(KioskBuildCounter.self) { KioskBuildCounter() }
        manager.repositoryFactory.addRepository(KioskProductRepository.self) { KioskMockRepository() }
        manager.useCaseFactory.addUseCase(
            KioskProductUseCase.self,
            repositoryType: KioskProductRepository.self,
            repositoryFallback: { KioskRemoteRepository() }
        ) { KioskProductUseCaseImpl(repository: $0) }
        manager.scopeFactory.addScoped(String.self) { "scoped" }
        XCTAssertEqual(
            manager.makeAllModules().map(\.typeName).map { $0.split(separator: ".").last.map(String.init) ?? $0 },
            ["KioskBuildCounter", "KioskProductRepository", "KioskProductUseCase", "String"]
        )

        await manager.registerAll()
        XCTAssertEqual(UnifiedDI.resolve(KioskProductUseCase.self)?.repository.products(), ["mock"])
        XCTAssertEqual(UnifiedDI.resolve(String.self), "scoped")
    }

    func testUnifiedDIRegisterDi() async {
        await UnifiedDI.registerDi { register in
            [register.productRepositoryModule, register.productUseCaseModule]
        }
        XCTAssertEqual(UnifiedDI.resolve(KioskProductUseCase.self)?.repository.products(), ["iPhone", "Mac"])
    }

    func testInterfaceRegistersTheUseCaseWrappingTheRepository() async {
        let makers = RegisterModule().interface(
            KioskProductRepository.self,
            repository: { KioskRemoteRepository() },
            useCase: { repository in KioskWrappingRepository(inner: repository) },
            fallback: { KioskMockRepository() }
        )
        XCTAssertEqual(makers.count, 2)
        for make in makers {
            await make().register()
        }
        XCTAssertEqual(UnifiedDI.resolve(KioskProductRepository.self)?.products(), ["wrapped iPhone", "wrapped Mac"])
    }

    func testResolveOrDefaultAndAsyncForEach() async {
        let register = RegisterModule()
        XCTAssertEqual(register.resolveOrDefault(for: KioskProductRepository.self, fallback: KioskMockRepository()).products(), ["mock"])
        UnifiedDI.register(KioskProductRepository.self) { KioskRemoteRepository() }
        XCTAssertEqual(
            register.defaultInstance(for: KioskProductRepository.self, fallback: KioskMockRepository()).products(), ["iPhone", "Mac"])

        var seen: [Int] = []
        await [1, 2, 3].asyncForEach { value in
            await Task.yield()
            seen.append(value)
        }
        XCTAssertEqual(seen, [1, 2, 3])
    }

    func testAppDIManagerFactoriesAreFreshValues() async {
        var factory = AppDIContainer.shared.repositoryFactory
        XCTAssertTrue(factory.definitions.isEmpty)
        factory.registerDefaultDefinitions()
        XCTAssertEqual(factory.definitions.count, 1)
        XCTAssertTrue(AppDIContainer.shared.repositoryFactory.definitions.isEmpty, "a read is a new value")
        XCTAssertTrue(AppDIContainer.shared.useCaseFactory.definitions.isEmpty)
        XCTAssertTrue(AppDIContainer.shared.scopeFactory.definitions.isEmpty)
    }

    func testUncheckedSendableBoxCarriesAValue() async {
        final class NotSendable { var value = 7 }
        let box = unsafeSendable(NotSendable())
        let read = await Task { box.value.value }.value
        XCTAssertEqual(read, 7)
    }
}

struct KioskWrappingRepository: KioskProductRepository {
    let inner: KioskProductRepository
    func products() -> [String] { inner.products().map { "wrapped \($0)" } }
}

#if Macros
@Component
struct KioskComponent {
    @Provide(scope: .singleton) var repository: KioskProductRepository = KioskRemoteRepository()
}

func installComponent<C: ComponentProtocol>(_ component: C.Type, into container: WeaveDI.Container) {
    component.registerAll(into: container)
}

final class ComponentConformanceUseTests: XCTestCase {
    func testAComponentIsAComponentProtocolWithoutDeclaringIt() {
        let container = WeaveDI.Container()
        installComponent(KioskComponent.self, into: container)
        XCTAssertEqual(container.resolve(KioskProductRepository.self)?.products(), ["iPhone", "Mac"])
    }
}
#endif
