/// A list of module makers: upstream WeaveDI's module factories, which an
/// app extends with its own `registerDefaultDefinitions()`.
///
/// ```swift
/// extension RepositoryModuleFactory {
///     mutating func registerDefaultDefinitions() {
///         let register = registerModule
///         definitions = [register.makeDependency(AuthRepository.self) { AuthRepositoryImpl() }]
///     }
/// }
/// ```
public protocol ModuleFactory {
    /// The helper that makes the modules.
    var registerModule: RegisterModule { get }

    /// The module makers, in registration order.
    var definitions: [@Sendable () -> Module] { get set }

    /// One module per definition, in order.
    func makeAllModules() -> [Module]
}

extension ModuleFactory {
    /// One module per definition, in order.
    public func makeAllModules() -> [Module] {
        definitions.map { $0() }
    }
}

/// A module factory of one role: the members the four upstream factories
/// share, written once. Each upstream name is this type bound to its role
/// (``RepositoryModuleFactory``, ``UseCaseModuleFactory``,
/// ``ScopeModuleFactory``, ``DiModuleFactory``), and each role's `add…`
/// method is in an extension of that name. An app extends a factory by its
/// upstream name, as before:
///
/// ```swift
/// extension RepositoryModuleFactory {
///     public mutating func registerDefaultDefinitions() {
///         addRepository(AuthRepository.self) { AuthRepositoryImpl() }
///     }
/// }
/// ```
public struct ModuleFactoryOf<Role: ModuleFactoryRole>: ModuleFactory, Sendable {
    /// The helper that makes the modules.
    public let registerModule = RegisterModule()
    /// The module makers, in registration order.
    public var definitions: [@Sendable () -> Module] = []

    /// An empty factory.
    public init() {}
}

/// What a ``ModuleFactoryOf`` makes modules for: one of the four roles of
/// upstream's module factories. A role is only a name; it has no members.
public protocol ModuleFactoryRole {}

/// The roles of the four upstream module factories.
public enum ModuleFactoryRoles {
    /// Repositories: ``RepositoryModuleFactory``.
    public enum Repository: ModuleFactoryRole {}
    /// Use cases built from repositories: ``UseCaseModuleFactory``.
    public enum UseCase: ModuleFactoryRole {}
    /// Scoped services: ``ScopeModuleFactory``.
    public enum Scope: ModuleFactoryRole {}
    /// Other dependencies: ``DiModuleFactory``.
    public enum Dependency: ModuleFactoryRole {}
}

/// The module factory for repositories.
public typealias RepositoryModuleFactory = ModuleFactoryOf<ModuleFactoryRoles.Repository>

/// The module factory for use cases built from repositories.
public typealias UseCaseModuleFactory = ModuleFactoryOf<ModuleFactoryRoles.UseCase>

/// The module factory for scoped services.
public typealias ScopeModuleFactory = ModuleFactoryOf<ModuleFactoryRoles.Scope>

/// The module factory for other dependencies.
public typealias DiModuleFactory = ModuleFactoryOf<ModuleFactoryRoles.Dependency>

extension RepositoryModuleFactory {
    /// Adds a definition registering `factory` for `type`.
    ///
    /// ```swift
    /// factory.addRepository(AuthRepository.self) { AuthRepositoryImpl() }
    /// ```
    public mutating func addRepository<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) {
        definitions.append(registerModule.makeDependency(type, factory: factory))
    }
}

extension UseCaseModuleFactory {
    /// Adds a definition registering a use case built from the registered
    /// repository, or from `repositoryFallback()` when none is registered
    /// (``RegisterModule/makeUseCaseWithRepository(_:repositoryProtocol:repositoryFallback:factory:)``).
    ///
    /// ```swift
    /// factory.addUseCase(
    ///     AuthUseCase.self,
    ///     repositoryType: AuthRepository.self,
    ///     repositoryFallback: { DefaultAuthRepository() }
    /// ) { repository in AuthUseCaseImpl(repository: repository) }
    /// ```
    public mutating func addUseCase<UseCase: Sendable, Repo: Sendable>(
        _ useCaseType: UseCase.Type,
        repositoryType: Repo.Type,
        repositoryFallback: @escaping @Sendable () -> Repo,
        factory: @escaping @Sendable (Repo) -> UseCase
    ) {
        definitions.append(
            registerModule.makeUseCaseWithRepository(
                useCaseType,
                repositoryProtocol: repositoryType,
                repositoryFallback: repositoryFallback(),
                factory: factory
            )
        )
    }
}

extension ScopeModuleFactory {
    /// Adds a definition registering `factory` for `type`.
    public mutating func addScoped<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) {
        definitions.append(registerModule.makeDependency(type, factory: factory))
    }
}

extension DiModuleFactory {
    /// Adds a definition registering `factory` for `type`.
    public mutating func addDependency<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) {
        definitions.append(registerModule.makeDependency(type, factory: factory))
    }
}

@available(*, deprecated, message: "Use RepositoryModuleFactory instead")
public typealias RepositoryModuleFactoryProtocol = ModuleFactory

@available(*, deprecated, message: "Use UseCaseModuleFactory instead")
public typealias UseCaseModuleFactoryProtocol = ModuleFactory

@available(*, deprecated, message: "Use ScopeModuleFactory instead")
public typealias ScopeModuleFactoryProtocol = ModuleFactory

/// The four module factories of an app, registered together.
///
/// ```swift
/// var manager = ModuleFactoryManager()
/// manager.repositoryFactory.registerDefaultDefinitions()
/// manager.useCaseFactory.registerDefaultDefinitions()
/// await manager.registerAll(to: WeaveDI.Container.live)
/// ```
public struct ModuleFactoryManager: Sendable {
    /// Dependencies registered first.
    public var diFactory = DiModuleFactory()
    /// Repositories, registered after ``diFactory``.
    public var repositoryFactory = RepositoryModuleFactory()
    /// Use cases, registered after the repositories.
    public var useCaseFactory = UseCaseModuleFactory()
    /// Scoped services, registered last.
    public var scopeFactory = ScopeModuleFactory()

    /// Four empty factories.
    public init() {}

    /// Every factory's modules: dependencies, repositories, use cases,
    /// scoped services, in that order.
    public func makeAllModules() -> [Module] {
        diFactory.makeAllModules() + repositoryFactory.makeAllModules() + useCaseFactory.makeAllModules()
            + scopeFactory.makeAllModules()
    }

    /// Runs `DIContainer/registerAllDependencies()`, then registers every
    /// factory's modules into `container`, in the order of
    /// ``makeAllModules()``.
    ///
    /// ```swift
    /// await manager.registerAll(to: container)
    /// ```
    public func registerAll(to container: DIContainer) async {
        await DIContainer.registerAllDependencies()
        let modules = makeAllModules()
        for module in modules {
            module.register(into: container)
        }
        DILog.logger.debug("registered \(modules.count) modules from ModuleFactoryManager")
    }

    /// Registers every factory's modules into `DIContainer/live`.
    public func registerAll() async {
        for module in makeAllModules() {
            await module.register()
        }
    }

    /// Runs `builder` on this manager, to fill its factories in one place.
    ///
    /// ```swift
    /// manager.setup {
    ///     { $0.repositoryFactory.registerDefaultDefinitions() }
    /// }
    /// ```
    public mutating func setup(@ModuleDefinitionBuilder _ builder: (inout ModuleFactoryManager) -> Void) {
        builder(&self)
    }

    /// Registers an empty manager's modules (none) after
    /// `DIContainer/registerAllDependencies()`.
    public static func createAndRegisterAll(to container: DIContainer) async {
        await ModuleFactoryManager().registerAll(to: container)
    }
}

/// Joins closures that fill a ``ModuleFactoryManager`` into one.
@resultBuilder
public struct ModuleDefinitionBuilder {
    /// Runs each component in order.
    public static func buildBlock(
        _ components: (inout ModuleFactoryManager) -> Void...
    ) -> (inout ModuleFactoryManager) -> Void {
        { manager in
            for component in components {
                component(&manager)
            }
        }
    }
}

/// How long `DIContainer/buildModulesWithMetrics()` took.
public struct ModuleBuildMetrics: Sendable {
    /// Modules registered.
    public let moduleCount: Int
    /// Seconds taken.
    public let duration: Double
    /// Modules registered per second (0 for none).
    public let modulesPerSecond: Double

    /// A three-line summary.
    public var summary: String {
        let rate = (modulesPerSecond * 10).rounded() / 10
        let seconds = (duration * 1000).rounded() / 1000
        return """
            Module Build Metrics:
            - Modules: \(moduleCount)
            - Duration: \(seconds)s
            - Rate: \(rate) modules/sec
            """
    }
}

extension Sequence {
    /// Runs `body` on each element in order, awaiting each before the next.
    ///
    /// ```swift
    /// await modules.asyncForEach { module in await container.register(module) }
    /// ```
    public func asyncForEach(_ body: (Element) async throws -> Void) async rethrows {
        for element in self {
            try await body(element)
        }
    }
}
