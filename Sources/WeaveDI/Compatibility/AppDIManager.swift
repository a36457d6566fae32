/// A place for an app's registrations to run from at launch.
///
/// Feature modules add their registrations where they are declared, and the
/// app runs them all, in the order they were added, against the live
/// container:
///
/// ```swift
/// AppDIManager.shared.addDefaultDependencies { container in
///     container.register(UserService.self, scope: .singleton) { UserServiceImpl() }
/// }
/// await AppDIManager.shared.registerDefaultDependencies()
/// ```
///
/// Thread-safe: the list of added modules is guarded by a lock, and each
/// module runs outside it.
public final class AppDIManager: Sendable {
    /// The process-wide manager.
    public static let shared = AppDIManager()

    private let defaultModules = Locked<[@Sendable (DIContainer) async -> Void]>([])

    init() {}

    /// Runs `registerModules` once, now, against `DIContainer/live`.
    ///
    /// ```swift
    /// await AppDIManager.shared.registerDependencies(logLevel: .errors) { container in
    ///     container.register(Clock.self) { SystemClock() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - logLevel: The level to set with `UnifiedDI/setLogLevel(_:)`
    ///     first; `nil` (the default) leaves the level as it is.
    ///   - registerModules: Registrations to make; it receives the live
    ///     container (or the current task's overlay inside
    ///     `withContainerOverlay`).
    public func registerDependencies(
        logLevel: UnifiedDI.LogLevel? = nil,
        registerModules: @Sendable (DIContainer) async -> Void
    ) async {
        if let logLevel {
            UnifiedDI.setLogLevel(logLevel)
        }
        await registerModules(DIContainer.live)
    }

    /// The ``RepositoryModuleFactory`` registered in the live container, or
    /// an empty one: a new value on every read, for an app to fill and
    /// register.
    ///
    /// ```swift
    /// var factory = AppDIManager.shared.repositoryFactory
    /// factory.registerDefaultDefinitions()
    /// ```
    public var repositoryFactory: RepositoryModuleFactory {
        DIContainer.live.resolve(RepositoryModuleFactory.self) ?? RepositoryModuleFactory()
    }

    /// The ``UseCaseModuleFactory`` registered in the live container, or an
    /// empty one.
    public var useCaseFactory: UseCaseModuleFactory {
        DIContainer.live.resolve(UseCaseModuleFactory.self) ?? UseCaseModuleFactory()
    }

    /// The ``ScopeModuleFactory`` registered in the live container, or an
    /// empty one.
    public var scopeFactory: ScopeModuleFactory {
        DIContainer.live.resolve(ScopeModuleFactory.self) ?? ScopeModuleFactory()
    }

    /// Adds registrations for ``registerDefaultDependencies()`` to run,
    /// typically one call per feature module, made where the module is
    /// declared. Nothing runs until then.
    ///
    /// ```swift
    /// AppDIManager.shared.addDefaultDependencies { container in
    ///     container.register(Analytics.self, scope: .singleton) { NoOpAnalytics() }
    /// }
    /// ```
    ///
    /// - Parameter module: Registrations to make against the live container.
    public func addDefaultDependencies(_ module: @escaping @Sendable (DIContainer) async -> Void) {
        defaultModules.withLock { $0.append(module) }
    }

    /// Runs every module added with ``addDefaultDependencies(_:)``, in the
    /// order they were added, against the live container. Modules stay in
    /// the list, so calling this again runs them all again (re-registering
    /// replaces the earlier entries).
    ///
    /// ```swift
    /// await AppDIManager.shared.registerDefaultDependencies()
    /// ```
    public func registerDefaultDependencies() async {
        let modules = defaultModules.withLock { $0 }
        for module in modules {
            await module(DIContainer.live)
        }
    }
}

/// Upstream's namespace for the app-level manager:
/// `AppWeaveDI.Container` is ``AppDIManager``.
///
/// ```swift
/// typealias AppDIContainer = AppWeaveDI.Container
/// await AppDIContainer.shared.registerDependencies { container in ... }
/// ```
public enum AppWeaveDI {
    /// Upstream's name for ``AppDIManager``.
    public typealias Container = AppDIManager
}
