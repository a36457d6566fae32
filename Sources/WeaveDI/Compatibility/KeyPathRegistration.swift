// Upstream WeaveDI's key-path style, where an app names its services as
// computed properties of the container:
//
//     extension WeaveDI.Container {
//         var userService: UserService? { resolve(UserService.self) }
//     }
//     UnifiedDI.register(\.userService) { UserServiceImpl() }
//     let service = UnifiedDI.resolve(\.userService)
//     @Inject(\.userService) var userService: UserService?
//
// The key path only names the type: registration stores under `T`, exactly
// as `register(T.self)` does, so `resolve(T.self)` sees it too; resolution
// reads the property, so whatever the property does is what you get.
extension UnifiedDI {
    /// Upstream's key-path registration. Eager, like the type form of
    /// `register(_:factory:)`: runs the factory now and returns the instance.
    ///
    /// The key path only names the type: the instance is stored under `T`,
    /// exactly as `register(T.self) { ... }` stores it, so a resolve by type
    /// sees it too.
    ///
    /// ```swift
    /// extension WeaveDI.Container {
    ///     var userService: UserService? { resolve(UserService.self) }
    /// }
    ///
    /// UnifiedDI.register(\.userService) { UserServiceImpl() }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: A container property of type `T?`; it is not read.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult
    public static func register<T: Sendable>(
        _ keyPath: KeyPath<DIContainer, T?>,
        factory: @escaping @Sendable () -> T
    ) -> T {
        DIContainer.live.register(T.self, factory: factory)
    }

    /// Upstream's key-path registration, lazy, with a lifetime: as the type
    /// form of `register(_:scope:factory:)`, stored under `T`.
    ///
    /// ```swift
    /// UnifiedDI.register(\.userService, scope: .singleton) { UserServiceImpl() }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: A container property of type `T?`; it is not read.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed.
    public static func register<T: Sendable>(
        _ keyPath: KeyPath<DIContainer, T?>,
        scope: ProvideScope,
        factory: @escaping @Sendable () -> T
    ) {
        DIContainer.live.register(T.self, scope: scope, factory: factory)
    }

    /// Awaits the factory once and registers its instance under `T`, as the
    /// type form of `registerAsync(_:scope:factory:)` does (only
    /// `.singleton` is honoured).
    ///
    /// ```swift
    /// await UnifiedDI.registerAsync(\.userService) { await UserServiceImpl.load() }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: A container property of type `T?`; it is not read.
    ///   - scope: Only `.singleton` is honoured; the default.
    ///   - factory: Awaited once, before this returns.
    /// - Returns: The instance registered.
    @discardableResult
    public static func registerAsync<T: Sendable>(
        _ keyPath: KeyPath<DIContainer, T?>,
        scope: ProvideScope = .singleton,
        factory: @escaping @Sendable () async -> T
    ) async -> T {
        await registerAsync(T.self, scope: scope, factory: factory)
    }

    /// The value of the container property `keyPath` names, read on the
    /// live container (or the task's overlay): whatever the property does
    /// is what this returns.
    ///
    /// ```swift
    /// let service = UnifiedDI.resolve(\.userService)
    /// ```
    ///
    /// - Parameter keyPath: A container property of type `T?`.
    /// - Returns: The property's value.
    public static func resolve<T>(_ keyPath: KeyPath<DIContainer, T?>) -> T? {
        DIContainer.live[keyPath: keyPath]
    }
}
