/// Modules added to a container with `DIContainer/addModule(_:)` and not
/// yet registered. Kept beside the containers rather than in them: modules
/// are a startup-time convenience, and a field in every container would be
/// paid by each per-request child container. An entry holds its container
/// weakly and is matched by identity, so a new container at a freed one's
/// address never inherits its modules.
private enum PendingModules {
    struct Pending {
        weak var container: DIContainer?
        var modules: [Module]
    }

    static let byContainer = Locked<[ObjectIdentifier: Pending]>([:])

    static func append(_ module: Module, to container: DIContainer) {
        byContainer.withLock { table in
            let id = ObjectIdentifier(container)
            if let pending = table[id], pending.container === container {
                table[id]?.modules.append(module)
            } else {
                table[id] = Pending(container: container, modules: [module])
            }
            table = table.filter { $0.value.container != nil }
        }
    }

    static func take(from container: DIContainer) -> [Module] {
        byContainer.withLock { table in
            let id = ObjectIdentifier(container)
            guard let pending = table.removeValue(forKey: id), pending.container === container else { return [] }
            return pending.modules
        }
    }

    static func count(in container: DIContainer) -> Int {
        byContainer.withLock { table in
            guard let pending = table[ObjectIdentifier(container)], pending.container === container else { return 0 }
            return pending.modules.count
        }
    }
}

extension DIContainer {
    /// Registers `module` into this container now.
    ///
    /// ```swift
    /// await container.register(RegisterModule().makeModule(Clock.self) { SystemClock() })
    /// ```
    public func register(_ module: Module) async {
        module.register(into: self)
    }

    /// Adds `module` to the ones ``buildModules()`` registers; nothing is
    /// registered until then.
    ///
    /// ```swift
    /// await container.addModule(repositoryModule).addModule(useCaseModule).buildModules()
    /// ```
    @discardableResult
    public func addModule(_ module: Module) -> Self {
        PendingModules.append(module, to: self)
        return self
    }

    /// Registers every module added with ``addModule(_:)``, in the order
    /// added, and forgets them.
    public func buildModules() async {
        for module in PendingModules.take(from: self) {
            module.register(into: self)
        }
    }

    /// ``buildModules()``, timed.
    ///
    /// ```swift
    /// let metrics = await container.buildModulesWithMetrics()
    /// print(metrics.summary)
    /// ```
    public func buildModulesWithMetrics() async -> ModuleBuildMetrics {
        let modules = PendingModules.take(from: self)
        let clock = ContinuousClock()
        let started = clock.now
        for module in modules {
            module.register(into: self)
        }
        let elapsed = started.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return ModuleBuildMetrics(
            moduleCount: modules.count,
            duration: seconds,
            modulesPerSecond: modules.isEmpty || seconds == 0 ? 0 : Double(modules.count) / seconds
        )
    }

    /// The number of modules added with ``addModule(_:)`` and not yet
    /// registered.
    public var moduleCount: Int { PendingModules.count(in: self) }

    /// Whether no module waits for ``buildModules()``. Says nothing about
    /// registrations: see `registrationCount`.
    public var isEmpty: Bool { moduleCount == 0 }

    /// Runs `configure` and returns this container, for
    /// `await container { ... }.build()`.
    @discardableResult
    public func callAsFunction(_ configure: () -> Void = {}) -> Self {
        configure()
        return self
    }

    /// The same as ``buildModules()``.
    public func build() async {
        await buildModules()
    }

    /// The registered ``RepositoryModuleFactory``, for `@Factory(\.repositoryFactory)`.
    public var repositoryFactory: RepositoryModuleFactory? { resolve(RepositoryModuleFactory.self) }
    /// The registered ``UseCaseModuleFactory``, for `@Factory(\.useCaseFactory)`.
    public var useCaseFactory: UseCaseModuleFactory? { resolve(UseCaseModuleFactory.self) }
    /// The registered ``ScopeModuleFactory``, for `@Factory(\.scopeFactory)`.
    public var scopeFactory: ScopeModuleFactory? { resolve(ScopeModuleFactory.self) }
    /// The registered ``ModuleFactoryManager``.
    public var moduleFactoryManager: ModuleFactoryManager? { resolve(ModuleFactoryManager.self) }

    /// Runs ``registerDi()``, ``registerRepositories()`` and
    /// ``registerUseCases()``, in that order; ``ModuleFactoryManager/registerAll(to:)``
    /// calls it first.
    ///
    /// The three are empty here. A static method an app declares with the
    /// same name in its own extension shadows them only in the app's own
    /// code: this method, compiled in WeaveDI, still calls the empty ones.
    /// Call the app's own from the app:
    ///
    /// ```swift
    /// extension WeaveDI.Container {
    ///     static func registerRepositories() async {
    ///         await AuthRepositoryModule().register()
    ///     }
    /// }
    /// await WeaveDI.Container.registerRepositories()
    /// ```
    public static func registerAllDependencies() async {
        await registerDi()
        await registerRepositories()
        await registerUseCases()
    }

    /// Empty; see ``registerAllDependencies()``.
    public static func registerRepositories() async {}

    /// Empty; see ``registerAllDependencies()``.
    public static func registerUseCases() async {}

    /// Empty; see ``registerAllDependencies()``.
    public static func registerDi() async {}
}

extension UnifiedDI {
    /// Makes and registers each module into `DIContainer/live`, in order.
    public static func registerModules(_ modules: [@Sendable () -> Module]) async {
        for make in modules {
            await make().register()
        }
    }

    /// Registers each module into `DIContainer/live`, in order.
    public static func registerModules(_ modules: [Module]) async {
        for module in modules {
            await module.register()
        }
    }

    /// Registers the modules `build` makes with a ``RegisterModule``.
    ///
    /// ```swift
    /// await UnifiedDI.registerDi { register in
    ///     [register.makeDependency(Clock.self) { SystemClock() }]
    /// }
    /// ```
    public static func registerDi(_ build: @Sendable (RegisterModule) -> [@Sendable () -> Module]) async {
        await registerModules(build(RegisterModule()))
    }

    /// Registers each module into `DIContainer/live`, in order.
    public static func registerDi(_ modules: [Module]) async {
        await registerModules(modules)
    }
}
