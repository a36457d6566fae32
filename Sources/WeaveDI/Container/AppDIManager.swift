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

    /// Runs `registerModules` once, now, against ``DIContainer/live``.
    ///
    /// ```swift
    /// await AppDIManager.shared.registerDependencies { container in
    ///     container.register(Clock.self) { SystemClock() }
    /// }
    /// ```
    ///
    /// - Parameter registerModules: Registrations to make; it receives the
    ///   live container (or the current task's overlay inside
    ///   `withContainerOverlay`).
    public func registerDependencies(registerModules: @Sendable (DIContainer) async -> Void) async {
        await registerModules(DIContainer.live)
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
