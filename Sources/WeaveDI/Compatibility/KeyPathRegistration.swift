/// Upstream WeaveDI's key-path style, where an app names its services as
/// computed properties of the container:
///
///     extension WeaveDI.Container {
///         var userService: UserService? { resolve(UserService.self) }
///     }
///     UnifiedDI.register(\.userService) { UserServiceImpl() }
///     let service = UnifiedDI.resolve(\.userService)
///     @Inject(\.userService) var userService: UserService?
///
/// The key path only names the type: registration stores under `T`, exactly
/// as `register(T.self)` does, so `resolve(T.self)` sees it too; resolution
/// reads the property, so whatever the property does is what you get.
extension UnifiedDI {
    /// Eager, like `register(_:factory:)`: runs the factory now and returns
    /// the instance.
    @discardableResult
    public static func register<T: Sendable>(
        _ keyPath: KeyPath<DIContainer, T?>,
        factory: @escaping @Sendable () -> T
    ) -> T {
        DIContainer.live.register(T.self, factory: factory)
    }

    /// Lazy, with a lifetime, like `register(_:scope:factory:)`.
    public static func register<T: Sendable>(
        _ keyPath: KeyPath<DIContainer, T?>,
        scope: ProvideScope,
        factory: @escaping @Sendable () -> T
    ) {
        DIContainer.live.register(T.self, scope: scope, factory: factory)
    }

    /// Awaits the factory once and registers its instance under `T`.
    @discardableResult
    public static func registerAsync<T: Sendable>(
        _ keyPath: KeyPath<DIContainer, T?>,
        scope: ProvideScope = .singleton,
        factory: @escaping @Sendable () async -> T
    ) async -> T {
        await registerAsync(T.self, scope: scope, factory: factory)
    }

    /// The value of the container property `keyPath` names, read on the
    /// live container.
    public static func resolve<T>(_ keyPath: KeyPath<DIContainer, T?>) -> T? {
        DIContainer.live[keyPath: keyPath]
    }
}
