/// The static front door to the live container.
public enum UnifiedDI {
    /// Eager: runs the factory now, keeps the instance as the singleton for
    /// `type` and returns it. Re-registering replaces the previous entry.
    @discardableResult
    public static func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
        DIContainer.live.register(type, factory: factory)
    }

    /// Lazy registration with an explicit lifetime.
    public static func register<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope,
        factory: @escaping @Sendable () -> T
    ) {
        DIContainer.live.register(type, scope: scope, factory: factory)
    }

    /// Nil when missing (or when building it met a cycle); never crashes.
    @inlinable
    public static func resolve<T: Sendable>(_ type: T.Type) -> T? {
        try? resolveThrowing(type)
    }

    public static func resolve<T: Sendable>(_ type: T.Type, default defaultValue: @autoclosure () -> T) -> T {
        resolve(type) ?? defaultValue()
    }

    /// Stops the program with a message naming the type, what is registered
    /// that looks close, and how to register it, when `type` is missing.
    public static func requireResolve<T: Sendable>(_ type: T.Type) -> T {
        do {
            return try resolveThrowing(type)
        } catch {
            fatalError(MissingDependencyReport(type: type, error: error, container: .live).message)
        }
    }

    /// The non-crashing form for servers: `.dependencyNotFound` or
    /// `.circularDependency` with the chain.
    @inlinable
    public static func resolveThrowing<T: Sendable>(_ type: T.Type) throws(DIError) -> T {
        guard let resolution = try Resolver.resolve(type, in: nil) else {
            throw DIError.missing(type)
        }
        return resolution.value
    }

    public static func resolveAsync<T: Sendable>(_ type: T.Type) async -> T? {
        resolve(type)
    }

    public static func release<T>(_ type: T.Type) {
        DIContainer.live.release(type)
    }

    /// Drops every registration and cached instance of the live container
    /// (their deinit runs). `withInjectedValues` overrides and `InjectedKey`
    /// defaults are not touched.
    public static func releaseAll() {
        DIContainer.live.releaseAll()
    }
}

public typealias DI = UnifiedDI
