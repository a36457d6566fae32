/// Upstream 3.3's other registration and resolution spellings on the
/// container. Each is one of the container's own registrations or reads
/// under another name.
extension DIContainer {
    /// ``live``, from ``DIContainerActor``.
    @DIContainerActor
    public static var actorShared: DIContainer {
        get { live }
        set { live = newValue }
    }

    /// Registers `factory`'s instance in ``live`` and returns it.
    @DIContainerActor @discardableResult
    public static func registerAsync<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
        live.register(type, factory: factory)
    }

    /// Resolves `type` from ``live`` as `live.resolveAsync(_:)` does: a
    /// lazy async registration is built.
    @DIContainerActor
    public static func resolveAsync<T: Sendable>(_ type: T.Type) async -> T? {
        await live.resolveAsync(type)
    }

    /// The container this one falls back to, if any.
    public func getParent() -> DIContainer? { parent }

    /// Registers `factory`'s instance, built now, and returns it.
    @discardableResult
    public func registerAsync<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) async -> T {
        register(type, factory: factory)
    }

    /// Registers the instance `factory` returns, awaited now, and returns it.
    @discardableResult
    public func registerAsync<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () async -> T) async -> T {
        let instance = await factory()
        register(type, instance: instance)
        return instance
    }

    /// Registers `instance`.
    public func registerAsync<T: Sendable>(_ type: T.Type, instance: T) async {
        register(type, instance: instance)
    }

    /// Registers `factory`'s instance, built now, and returns it.
    @discardableResult
    public func actorRegister<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
        register(type, factory: factory)
    }

    /// Registers `instance`.
    @DIContainerActor
    public func actorRegister<T: Sendable>(_ type: T.Type, instance: T) {
        register(type, instance: instance)
    }

    /// Registers `factory` as a ``ProvideScope/transient`` registration (a
    /// new instance per resolve) and returns a closure that releases the
    /// registration of `type`.
    ///
    /// ```swift
    /// let release = container.register(ReportBuilder.self, build: { ReportBuilder() })
    /// release()
    /// ```
    ///
    /// Disfavoured, so `register(T.self) { ... }` with a trailing closure
    /// stays the eager `register(_:factory:)`.
    @_disfavoredOverload @discardableResult
    public func register<T: Sendable>(_ type: T.Type, build factory: @escaping @Sendable () -> T) -> @Sendable () -> Void {
        register(type, scope: .transient, factory: factory)
        return { [weak self] in self?.release(type) }
    }

    /// ``register(_:build:)`` from async code, returning an async release.
    @discardableResult
    public func registerFactoryAsync<T: Sendable>(
        _ type: T.Type,
        build factory: @escaping @Sendable () -> T
    ) async -> @Sendable () async -> Void {
        let release = register(type, build: factory)
        return { release() }
    }

    /// ``resolve(_:)``; a miss is logged at `.debug` level when `logOnMiss`.
    public func resolve<T: Sendable>(_ type: T.Type, logOnMiss: Bool) -> T? {
        let value = resolve(type)
        if value == nil && logOnMiss {
            DILog.logger.debug("no registration of \(qualifiedTypeName(T.self))")
        }
        return value
    }

    /// The registered instance of `type`, or `defaultValue()`.
    public func resolveOrDefault<T: Sendable>(_ type: T.Type, default defaultValue: @autoclosure () -> T) -> T {
        resolve(type) ?? defaultValue()
    }

    /// ``release(_:)`` from async code.
    public func releaseAsync<T: Sendable>(_ type: T.Type) async {
        release(type)
    }

    /// Resolves the type a container property names; the property is not
    /// read.
    ///
    /// ```swift
    /// let service = container[\.userService]
    /// ```
    public subscript<T: Sendable>(_ keyPath: KeyPath<DIContainer, T?>) -> T? {
        resolve(T.self)
    }
}
