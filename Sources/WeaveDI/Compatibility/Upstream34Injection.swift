#if SwiftDependencies
import Dependencies
#endif

// Upstream 3.4's `InjectedManager`, the `InjectedValues` additions, the
// `UnifiedDI.Bootstrap` entry point, over the
// existing override scopes and the live container.

/// Upstream's name for reading and overriding `InjectedValues`.
///
/// ```swift
/// let name = InjectedManager.withDependencies {
///     $0.userService = MockUserService()
/// } operation: {
///     ProfileModel().displayName
/// }
/// ```
public enum InjectedManager {
    /// The values the current task sees: `InjectedValues/current`.
    public static var current: InjectedValues {
        InjectedValues.current
    }

    /// Makes the overrides set on `values` since it was read from
    /// `current` the process-wide ones, by registering each in
    /// `DIContainer/live` (the current task's overlay inside
    /// `withContainerOverlay`): the same as assigning
    /// `InjectedValues/current`.
    ///
    /// Overrides `values` carries from an enclosing `withDependencies` or
    /// `withInjectedValues` scope are not registered: they end with their
    /// scope. To override for one piece of work only, use
    /// ``withDependencies(_:operation:)``.
    ///
    /// ```swift
    /// var values = InjectedManager.current
    /// values.userService = MockUserService()
    /// InjectedManager.setCurrent(values)
    /// ```
    ///
    /// - Parameter values: Values read from `current` and then changed.
    public static func setCurrent(_ values: InjectedValues) {
        InjectedValues.current = values
    }

    /// Runs `operation` seeing the overrides `updateValues` sets, as
    /// `withInjectedValues(_:operation:)` does: only this task and its
    /// child tasks see them, and they end when `operation` returns.
    ///
    /// - Parameters:
    ///   - updateValues: Sets the overrides, on a copy of the current values.
    ///   - operation: The code that sees them.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withDependencies<R>(
        _ updateValues: (inout InjectedValues) -> Void,
        operation: () throws -> R
    ) rethrows -> R {
        try withInjectedValues(updateValues, operation: operation)
    }

    /// The `async` form of ``withDependencies(_:operation:)``: `operation`
    /// and its child tasks see the overrides.
    ///
    /// ```swift
    /// await InjectedManager.withDependencies {
    ///     $0.clock = TestClock()
    /// } operation: {
    ///     await SessionModel().expire()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: The actor `operation` runs on; the caller's by default.
    ///   - updateValues: Sets the overrides, on a copy of the current values.
    ///   - operation: The code that sees them.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    public static func withDependencies<R>(
        isolation: isolated (any Actor)? = #isolation,
        _ updateValues: (inout InjectedValues) -> Void,
        operation: () async throws -> R
    ) async rethrows -> R {
        try await withInjectedValues(isolation: isolation, updateValues, operation: operation)
    }
}

/// The key an override set by type (`values[SomeType.self] = x`) is stored
/// under: the override store is keyed by `InjectedKey`, and a generic key
/// per value type keeps such overrides apart from every real key. Its
/// default is never read: the by-type subscript reads overrides by value type.
private enum OverrideByTypeKey<Value: Sendable>: InjectedKey {
    static var liveValue: Value {
        preconditionFailure("WeaveDI: the default of a by-type override key is never read")
    }
}

extension InjectedValues {
    /// Sets `keyType` to `value` on these values: the same as
    /// `self[keyType] = value`.
    ///
    /// ```swift
    /// InjectedManager.withDependencies {
    ///     $0.set(ClockKey.self, to: TestClock())
    /// } operation: {
    ///     ...
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keyType: The key.
    ///   - value: Its value on these values.
    public mutating func set<Key: InjectedKey>(_ keyType: Key.Type, to value: Key.Value) {
        self[keyType] = value
    }

    /// The dependency of type `T`, read by type as `@Injected var x: T`
    /// reads it: an override of type `T` set on these values, then a
    /// registration of `T` (in the live container or the task's overlay),
    /// then the default of the `InjectedKey` providing `T` (or of `T`
    /// itself, when `T` is a key whose value is `T`). Stops the program,
    /// naming `T`, when there is none, or when the registration is part of
    /// a cycle.
    ///
    /// Setting it records an override of type `T` on these values only: it
    /// takes effect inside `withInjectedValues` or
    /// ``InjectedManager/withDependencies(_:operation:)``, or process-wide
    /// once the values are assigned to `InjectedValues/current`.
    ///
    /// ```swift
    /// InjectedManager.withDependencies {
    ///     $0[AuthRepository.self] = MockAuthRepository()
    /// } operation: {
    ///     LoginModel().signIn()     // its @Injected var auth: AuthRepository sees the mock
    /// }
    /// ```
    ///
    /// - Parameter dependencyKeyType: The type of the dependency.
    @_disfavoredOverload
    public subscript<T: Sendable>(dependencyKeyType: T.Type) -> T {
        get {
            if let overridden = overriddenValue(ofType: T.self) {
                return overridden
            }
            do {
                if let resolved = try TypeResolution.resolve(T.self, record: nil) {
                    return resolved
                }
            } catch {
                InjectionSlots.stopReading(T.self, error)
            }
            if let value = Self.ownKeyDefault(T.self) {
                return value
            }
            InjectionSlots.stopMissing(T.self)
        }
        set {
            self[OverrideByTypeKey<T>.self] = newValue
        }
    }

    /// The default of `T` when `T` is itself a key whose value is `T`
    /// (`extension LiveClient: InjectedKey`), which the by-type lookup of
    /// keys may not list.
    private static func ownKeyDefault<T: Sendable>(_ type: T.Type) -> T? {
        if let key = T.self as? any InjectedKey.Type {
            func open<K: InjectedKey>(_ key: K.Type) -> T? {
                K.Value.self == T.self ? DefaultValues.value(for: key) as? T : nil
            }
            if let value = open(key) {
                return value
            }
        }
        #if SwiftDependencies
        if let key = T.self as? any TestDependencyKey.Type {
            func open<K: TestDependencyKey>(_ key: K.Type) -> T? {
                K.Value.self == T.self ? DependencyValues._current[key] as? T : nil
            }
            return open(key)
        }
        #endif
        return nil
    }
}

extension UnifiedDI {
    /// What `UnifiedDI.bootstrap(_:)` hands its closure: registration into, and resolution from, the container that
    /// was live when it was called.
    ///
    /// ```swift
    /// UnifiedDI.bootstrap { di in
    ///     di.register(UserService.self) { UserServiceImpl() }
    ///     let service = di.requireResolve(UserService.self)
    /// }
    /// ```
    public struct Bootstrap: Sendable {
        private let container: DIContainer

        init(container: DIContainer) {
            self.container = container
        }

        /// Eager registration under the type the closure returns.
        ///
        /// - Parameter factory: Builds the instance, once, before this returns.
        /// - Returns: The instance just built.
        @discardableResult
        public func register<T: Sendable>(_ factory: @escaping @Sendable () -> T) -> T {
            container.register(T.self, factory: factory)
        }

        /// Eager registration under `type`.
        ///
        /// - Parameters:
        ///   - type: The type to register under.
        ///   - factory: Builds the instance, once, before this returns.
        /// - Returns: The instance just built.
        @discardableResult
        public func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
            container.register(type, factory: factory)
        }

        /// Registers `instance` under its own type.
        ///
        /// - Parameter instance: The value every resolve returns.
        public func register<T: Sendable>(_ instance: T) {
            container.register(T.self, instance: instance)
        }

        /// Registers `instance` under `type`.
        ///
        /// - Parameters:
        ///   - type: The type to register under.
        ///   - instance: The value every resolve returns.
        public func register<T: Sendable>(_ type: T.Type, instance: T) {
            container.register(type, instance: instance)
        }

        /// The registration of the type the caller expects, or nil.
        ///
        /// - Returns: The instance, or nil.
        public func resolve<T: Sendable>() -> T? {
            container.resolve(T.self)
        }

        /// The registration of `type`, or nil.
        ///
        /// - Parameter type: The registered type.
        /// - Returns: The instance, or nil.
        public func resolve<T: Sendable>(_ type: T.Type) -> T? {
            container.resolve(type)
        }

        /// The registration of the type the caller expects; stops the
        /// program, naming it, when there is none.
        ///
        /// - Returns: The instance.
        public func requireResolve<T: Sendable>() -> T {
            requireResolve(T.self)
        }

        /// The registration of `type`; stops the program, naming it and
        /// what is registered that looks close, when there is none.
        ///
        /// - Parameter type: The registered type.
        /// - Returns: The instance.
        public func requireResolve<T: Sendable>(_ type: T.Type) -> T {
            do throws(DIError) {
                return try container.resolveThrowing(type)
            } catch {
                fatalError(MissingDependencyReport(type: type, error: error, container: container).message)
            }
        }
    }

    /// Runs `configure` now, against `DIContainer/live` (the current
    /// task's overlay inside `withContainerOverlay`). It adds to what is
    /// registered; calling it again, one call per feature, discards nothing.
    ///
    /// ```swift
    /// UnifiedDI.bootstrap { di in
    ///     di.register(UserService.self) { UserServiceImpl() }
    /// }
    /// ```
    ///
    /// - Parameter configure: The registrations to make.
    public static func bootstrap(_ configure: @Sendable (Bootstrap) -> Void) {
        configure(Bootstrap(container: .live))
    }

    /// The `async` form of `UnifiedDI.bootstrap(_:)`, for registrations
    /// that await.
    ///
    /// ```swift
    /// await UnifiedDI.bootstrap { di in
    ///     let config = await RemoteConfig.load()
    ///     di.register(RemoteConfig.self, instance: config)
    /// }
    /// ```
    ///
    /// - Parameter configure: The registrations to make.
    public static func bootstrap(_ configure: @Sendable (Bootstrap) async -> Void) async {
        await configure(Bootstrap(container: .live))
    }

    /// How many live child containers `DIContainer/live` has: containers
    /// made with `createChild()` or `DIContainer(parent:)` from it, and the
    /// overlays of running `withContainerOverlay` scopes, that hold at least
    /// one registration and are still referenced. A child is not kept alive
    /// by being counted.
    ///
    /// ```swift
    /// let feature = WeaveDI.Container.live.createChild()
    /// feature.register(FeatureFlags.self, instance: FeatureFlags())
    /// UnifiedDI.childContainerCount()   // 1
    /// ```
    ///
    /// - Returns: The number of such children.
    public static func childContainerCount() -> Int {
        let live = DIContainer.live.registry
        return KnownContainers.unreachable(from: .live).count { $0.0.parent === live }
    }
}

extension AppDIManager {
    /// Runs `register` against `DIContainer/live` through
    /// `UnifiedDI/Bootstrap`, as `await UnifiedDI.bootstrap(_:)` does.
    ///
    /// ```swift
    /// await AppDIManager.shared.bootstrap { di in
    ///     di.register(UserService.self) { UserServiceImpl() }
    /// }
    /// ```
    ///
    /// - Parameter register: The registrations to make.
    public func bootstrap(register: @escaping @Sendable (UnifiedDI.Bootstrap) async -> Void) async {
        await UnifiedDI.bootstrap { di in
            await register(di)
        }
    }
}
