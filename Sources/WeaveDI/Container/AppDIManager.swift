import Synchronization

/// Central place an app's registrations run from, as the guides use it:
/// `await AppDIManager.shared.registerDefaultDependencies()` at launch.
public final class AppDIManager: Sendable {
    public static let shared = AppDIManager()

    private let defaultModules = Locked<[@Sendable (DIContainer) async -> Void]>([])

    init() {}

    /// Runs `registerModules` against the live container.
    public func registerDependencies(registerModules: @Sendable (DIContainer) async -> Void) async {
        await registerModules(DIContainer.live)
    }

    /// Adds registrations that `registerDefaultDependencies()` runs, e.g. one
    /// per feature module, declared where the module is.
    public func addDefaultDependencies(_ module: @escaping @Sendable (DIContainer) async -> Void) {
        defaultModules.withLock { $0.append(module) }
    }

    /// Runs every module added with `addDefaultDependencies`, in order,
    /// against the live container.
    public func registerDefaultDependencies() async {
        let modules = defaultModules.withLock { $0 }
        for module in modules {
            await module(DIContainer.live)
        }
    }
}
