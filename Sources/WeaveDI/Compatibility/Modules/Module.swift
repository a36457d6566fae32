/// One registration, made now or later: upstream WeaveDI's unit of the
/// module and factory API (``RegisterModule``, ``ModuleFactoryManager``).
///
/// ```swift
/// let module = Module(UserRepository.self) { UserRepositoryImpl() }
/// await module.register()                       // into WeaveDI.Container.live
/// await WeaveDI.Container.live.register(module) // the same, into a given container
/// ```
///
/// A module's factory is registered lazily with the `ProvideScope/transient`
/// lifetime, as upstream's factory registrations were declared: each resolve
/// builds a new instance. It goes through the container's ordinary
/// registration, so validation, `start` and shutdown see it like any other.
public struct Module: Sendable {
    private let registration: @Sendable (DIContainer) -> Void

    /// The registered type's name, for logs and diagnostics.
    public let typeName: String
    /// The registered type, for ``OptimizationHooks/onModuleRegistered``.
    let type: any Any.Type
    let file: String
    let line: Int

    /// A module that registers `factory` for `type`.
    ///
    /// ```swift
    /// let module = Module(AuthRepository.self) { AuthRepositoryImpl() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type the factory is registered under.
    ///   - factory: Builds one instance per resolve.
    ///   - file: Where the module was made, for diagnostics.
    ///   - function: The function that made it; kept for upstream's signature.
    ///   - line: The line it was made on, for diagnostics.
    public init<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T,
        file: StaticString = #fileID,
        function: StaticString = #function,
        line: UInt = #line
    ) {
        self.init(type, file: file, line: line) { _ in factory }
    }

    /// A module whose factory is made for the container it is registered
    /// into, so a factory that resolves other types reads that container.
    init<T: Sendable>(
        _ type: T.Type,
        file: StaticString = #fileID,
        line: UInt = #line,
        factoryFor: @escaping @Sendable (_ container: ContainerReference) -> @Sendable () -> T
    ) {
        self.typeName = qualifiedTypeName(T.self)
        self.type = T.self
        self.file = "\(file)"
        self.line = Int(line)
        self.registration = { container in
            container.register(type, scope: .transient, factory: factoryFor(ContainerReference(container)))
        }
    }

    /// Registers the module into `DIContainer/live`.
    ///
    /// ```swift
    /// await module.register()
    /// ```
    ///
    /// While `WeaveDIConfiguration/enableAutoMonitor` is on, then awaits
    /// ``OptimizationHooks/onModuleRegistered`` with the module's type.
    public func register() async {
        registration(DIContainer.live)
        await reportRegistered()
    }

    private func reportRegistered() async {
        if WeaveDIConfiguration.enableAutoMonitor, let hook = OptimizationHooks.onModuleRegistered {
            await hook(type)
        }
    }

    /// Registers the module into `DIContainer/live`. Registration cannot
    /// fail, so this never throws; it exists for upstream callers that
    /// write `try await module.registerThrowing()`.
    public func registerThrowing() async throws {
        registration(DIContainer.live)
        await reportRegistered()
    }

    /// Registers the module into `container` now, from synchronous code.
    ///
    /// ```swift
    /// module.register(into: container)
    /// ```
    public func register(into container: DIContainer) {
        registration(container)
    }
}

/// A container a module's factory reads from. Held weakly: the factory is
/// stored in that container's registry, and a strong reference would keep
/// the container alive through its own registration.
struct ContainerReference: Sendable {
    private weak let container: DIContainer?

    init(_ container: DIContainer) {
        self.container = container
    }

    /// The container, or `DIContainer/live` once it has gone.
    var current: DIContainer { container ?? DIContainer.live }
}

/// Makes ``Module``s: upstream WeaveDI's registration helper, used inside
/// module factories and `AppDIManager` setups.
///
/// ```swift
/// let register = RegisterModule()
/// let repository = register.makeDependency(UserRepository.self) { UserRepositoryImpl() }
/// let useCase = register.makeUseCaseWithRepository(
///     UserUseCase.self,
///     repositoryProtocol: UserRepository.self,
///     repositoryFallback: MockUserRepository()
/// ) { repository in UserUseCaseImpl(repository: repository) }
/// await repository().register()
/// await useCase().register()
/// ```
public struct RegisterModule: Sendable {
    /// A helper; it holds no state.
    public init() {}

    /// A module that registers `factory` for `type`.
    ///
    /// ```swift
    /// let module = RegisterModule().makeModule(Clock.self) { SystemClock() }
    /// ```
    public func makeModule<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> Module {
        Module(type, factory: factory)
    }

    /// A closure that makes the module registering `factory` for
    /// `protocolType`, the form module factories keep in `definitions`.
    ///
    /// ```swift
    /// definitions.append(register.makeDependency(AuthRepository.self) { AuthRepositoryImpl() })
    /// ```
    public func makeDependency<T: Sendable>(
        _ protocolType: T.Type,
        factory: @escaping @Sendable () -> T
    ) -> @Sendable () -> Module {
        { Module(protocolType, factory: factory) }
    }

    /// A closure that makes the module registering a use case built from a
    /// repository: each resolve of `useCaseProtocol` resolves
    /// `repositoryProtocol` from the container the module was registered
    /// into and passes it to `factory`, or passes `repositoryFallback()`
    /// when the repository is not registered.
    ///
    /// ```swift
    /// register.makeUseCaseWithRepository(
    ///     AuthUseCase.self,
    ///     repositoryProtocol: AuthRepository.self,
    ///     repositoryFallback: DefaultAuthRepository()
    /// ) { repository in AuthUseCaseImpl(repository: repository) }
    /// ```
    public func makeUseCaseWithRepository<UseCase: Sendable, Repo: Sendable>(
        _ useCaseProtocol: UseCase.Type,
        repositoryProtocol: Repo.Type,
        repositoryFallback: @escaping @Sendable @autoclosure () -> Repo,
        factory: @escaping @Sendable (Repo) -> UseCase
    ) -> @Sendable () -> Module {
        {
            Module(useCaseProtocol) { container in
                { factory(container.current.resolve(repositoryProtocol) ?? repositoryFallback()) }
            }
        }
    }

    /// The instance of `type` registered in `DIContainer/live`, or
    /// `fallback()` when there is none.
    ///
    /// ```swift
    /// let repository = register.resolveOrDefault(for: AuthRepository.self, fallback: DefaultAuthRepository())
    /// ```
    public func resolveOrDefault<T: Sendable>(
        for type: T.Type,
        fallback: @escaping @Sendable @autoclosure () -> T
    ) -> T {
        DIContainer.live.resolve(type) ?? fallback()
    }

    /// The same as ``resolveOrDefault(for:fallback:)``.
    public func defaultInstance<T: Sendable>(
        for type: T.Type,
        fallback: @escaping @Sendable @autoclosure () -> T
    ) -> T {
        DIContainer.live.resolve(type) ?? fallback()
    }

    /// Two module makers for one interface: the first registers
    /// `repositoryFactory()` under `interfaceType`, the second registers,
    /// under the same type, `useCaseFactory` applied to a new
    /// `repositoryFactory()`. Registered in order, the second replaces the
    /// first, so resolving `interfaceType` gives the use case wrapping the
    /// repository. `fallbackFactory` is never needed, since the repository
    /// is built directly rather than resolved: upstream resolved
    /// `interfaceType` from inside its own factory, a cycle.
    ///
    /// ```swift
    /// for make in register.interface(
    ///     Auth.self,
    ///     repository: { AuthRepositoryImpl() },
    ///     useCase: { repository in AuthUseCaseImpl(repository: repository) },
    ///     fallback: { DefaultAuthRepository() }
    /// ) {
    ///     await make().register()
    /// }
    /// ```
    public func interface<Interface: Sendable>(
        _ interfaceType: Interface.Type,
        repository repositoryFactory: @escaping @Sendable () -> Interface,
        useCase useCaseFactory: @escaping @Sendable (Interface) -> Interface,
        fallback fallbackFactory: @escaping @Sendable () -> Interface
    ) -> [() -> Module] {
        [
            { Module(interfaceType, factory: repositoryFactory) },
            { Module(interfaceType) { useCaseFactory(repositoryFactory()) } },
        ]
    }
}

/// A value marked `Sendable` without the compiler's check, for handing a
/// non-`Sendable` value across a concurrency boundary the caller knows is
/// safe.
///
/// ```swift
/// let box = unsafeSendable(formatter)
/// Task { print(box.value.string(from: date)) }
/// ```
public struct UncheckedSendableBox<T>: @unchecked Sendable {
    /// The boxed value.
    public let value: T

    /// Boxes `value`.
    public init(_ value: T) { self.value = value }
}

/// Boxes `value` in an ``UncheckedSendableBox``.
@inlinable
public func unsafeSendable<T>(_ value: T) -> UncheckedSendableBox<T> {
    UncheckedSendableBox(value)
}
