#if SwiftDependencies
import Dependencies

// Upstream's "TCA sync" family over one read-through bridge per synced
// value type `T`, instead of copying values between two stores:
//
// - In the live container, key `T` holds a transient registration (the
//   bridge) whose factory reads, in this order: a `withInjectedValues`
//   override of `T` in the current task, a swift-dependencies override of
//   `T` made through a synced setter in the current task
//   (`TCASyncOverrideKey<T>` in `DependencyValues`), the app's own WeaveDI
//   registration of `T` (moved to the private key `TCASyncBase<T>`), and
//   last the default of the key `T` was synced from.
// - A synced `DependencyValues` getter reads the same overrides in the same
//   order, then the registration under `TCASyncBase<T>` (never the bridge
//   itself), then the key's own `DependencyValues` value.
//
// - `@Injected(K.self)` for a swift-dependencies key `K` reads what
//   `@Dependency(K.self)` reads until the app uses sync (`TCASyncGate`).
//   From then on, a read of `K` through WeaveDI or a synced getter gives,
//   in order: a `withInjectedValues` override of `K.Value`, a
//   `withDependencies` override of `K` itself (plain or synced), a synced
//   override of `K.Value`, the app's WeaveDI registration of `K.Value`, and
//   last what swift-dependencies has for `K` (its live, test or preview
//   value). A registration is app-wide configuration, as a key's default
//   is, so it outranks the default but never a scoped override.
//
// Both overrides are task-local (a `withInjectedValues` scope, a
// `withDependencies` scope), so they never leak to other tasks or outlive
// their scope, and neither side ever reads the other's read-through path,
// so a read never loops.

/// Whether the app uses TCA sync, read before any sync work so that an app
/// that never does pays one relaxed load per `@Injected(K.self)` read and
/// nothing else.
enum TCASyncGate {
    /// Set by enabling sync or by bridging a type; never cleared, since a
    /// bridge stays until the registry is released and the read must see it.
    private static let used = PlatformAtomic<Bool>(false)
    /// ``TCASmartSync/isEnabled``, readable from any isolation.
    private static let enabled = PlatformAtomic<Bool>(false)

    /// Whether a read of a swift-dependencies key must look for WeaveDI's
    /// values of its type at all.
    @inline(__always)
    static var isActive: Bool { used.load(ordering: .relaxed) }

    /// Whether every key's value type is synced, not only bridged ones.
    static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    static func setEnabled(_ on: Bool) {
        enabled.store(on, ordering: .relaxed)
        if on {
            used.store(true, ordering: .relaxed)
        }
    }

    static func noteBridge() {
        if !used.load(ordering: .relaxed) {
            used.store(true, ordering: .relaxed)
        }
    }
}

/// A synced swift-dependencies override of `T`, stored in `DependencyValues`
/// beside the key it overrides so WeaveDI can find it by type.
struct TCASyncOverride<T: Sendable>: Sendable {
    let value: T?
}

enum TCASyncOverrideKey<T: Sendable>: DependencyKey {
    static var liveValue: TCASyncOverride<T> { TCASyncOverride(value: nil) }
    static var testValue: TCASyncOverride<T> { TCASyncOverride(value: nil) }
    static var previewValue: TCASyncOverride<T> { TCASyncOverride(value: nil) }
}

/// The key the app's WeaveDI registration of a bridged `T` is kept under.
enum TCASyncBase<T> {}

enum TCASyncBridge {
    /// Serialises installs, so that two tasks installing the bridge of one
    /// type at once never move one's bridge behind the other's. Guards no
    /// state: what is a bridge is the entry's own `isForwarder`.
    private static let installs = Locked<Void>(())

    static func isBridge(_ entry: AnyRegistryEntry) -> Bool {
        entry.isForwarder
    }

    /// Puts the bridge at `T` in the live container (the overlay, inside
    /// `withContainerOverlay`) unless one is visible there already; a
    /// registration found at `T` moves behind it. `source` is the last
    /// resort of a read (a key's default), nil when there is none.
    static func install<T: Sendable>(_ type: T.Type, key: DependencyKeyType? = nil, source: (@Sendable () -> T)?) {
        let container = DIContainer.live
        let registry = container.registry
        if let current = Resolver.entry(T.self, in: registry), isBridge(current) {
            return
        }
        installs.withLock { _ in
            let current = Resolver.entry(T.self, in: registry)
            if let current, isBridge(current) {
                return
            }
            let baseKey = typeKey(TCASyncBase<T>.self)
            if let current {
                registry.set(current, forKey: baseKey)
            } else {
                registry.remove(baseKey)
            }
            let bridge = LazyEntry(forwarding: { () throws -> T in
                try bridgedRead(T.self, key: key, source: source)
            })
            TCASyncGate.noteBridge()
            container.storeRegistration(bridge, key: typeKey(T.self), scope: .transient)
        }
    }

    /// Installs the bridge of `K.Value`, falling back on what
    /// swift-dependencies has for `K` in the reading task.
    static func install<K: DependencyKey>(dependencyKey key: K.Type) where K.Value: Sendable {
        install(K.Value.self, reading: DependencyKeyType(K.self))
    }

    private static func install<T: Sendable>(_ type: T.Type, reading key: DependencyKeyType) {
        install(T.self, key: key, source: { key.read(T.self) })
    }

    /// Installs the bridge of `K.Value`, falling back on the key's default.
    static func install<K: InjectedKey>(injectedKey key: K.Type) {
        install(K.Value.self, source: { DefaultValues.value(for: K.self) })
    }

    /// Registers `entry` as the app's WeaveDI registration of `T`, behind
    /// the bridge (installed if need be), so synced overrides still win.
    static func register<T: Sendable>(_ type: T.Type, entry: AnyRegistryEntry) {
        install(T.self, source: nil)
        DIContainer.live.storeRegistration(entry, key: typeKey(TCASyncBase<T>.self), scope: nil)
    }

    /// The bridge's read (see the top of this file). `key` is the key the
    /// bridge was installed from, if any: its own `withDependencies`
    /// override wins over the registration, as in a read of that key.
    static func bridgedRead<T: Sendable>(
        _ type: T.Type, key: DependencyKeyType?, source: (@Sendable () -> T)?
    ) throws -> T {
        if let overridden = injectedOverride(T.self) {
            return overridden
        }
        let values = DependencyValues._current
        if let overridden = values[TCASyncOverrideKey<T>.self].value {
            return overridden
        }
        // Only with a registration to lose to is the override worth looking for.
        if let key, Resolver.entry(TCASyncBase<T>.self, in: DIContainer.live.registry) != nil,
            overrides(key, in: values)
        {
            return key.read(T.self, in: values)
        }
        // The task's live container (its overlay, if any), where install
        // and register put the registration, not the process-wide root.
        var cacheable = false
        if let registered = try Resolver.resolve(
            T.self, key: typeKey(TCASyncBase<T>.self), in: nil, cacheable: &cacheable)
        {
            return registered
        }
        if let source {
            return source()
        }
        throw DIError.dependencyNotFound(type: typeName(T.self))
    }

    /// A `withInjectedValues` override of `T` in the current task.
    static func injectedOverride<T>(_ type: T.Type) -> T? {
        OverrideScopes.noneActive ? nil : InjectedValues.task.overriddenValue(ofType: T.self)
    }

    /// The app's WeaveDI registration of `T` (the one behind the bridge,
    /// never the bridge), nil when there is none or it cannot be resolved.
    static func registeredValue<T: Sendable>(_ type: T.Type) -> T? {
        guard let entry = Resolver.entry(T.self, in: nil) else { return nil }
        return registrationKey(T.self, entry: entry).flatMap { registeredValue(T.self, at: $0) }
    }

    /// Where the app's own registration of `T` is, given the entry found at
    /// `T`: `T`'s key, or the key behind the bridge; nil when the bridge
    /// has nothing behind it.
    private static func registrationKey<T: Sendable>(_ type: T.Type, entry: AnyRegistryEntry) -> TypeKey? {
        guard isBridge(entry) else { return typeKey(T.self) }
        let base = TCASyncBase<T>.self
        return Resolver.entry(base, in: DIContainer.live.registry) == nil ? nil : typeKey(base)
    }

    /// The registration at `key`, nil when it cannot be resolved (a cycle).
    private static func registeredValue<T: Sendable>(_ type: T.Type, at key: TypeKey) -> T? {
        var cacheable = false
        return try? Resolver.resolve(T.self, key: key, in: nil, cacheable: &cacheable)
    }

    /// Whether `values` holds a `withDependencies` override of `key`, plain
    /// or synced. swift-dependencies answers a read the same way whether or
    /// not the key is overridden, and keeps the overrides in a private
    /// dictionary, so this reads that dictionary through reflection. When
    /// it cannot (another layout, or reflection metadata stripped) it says
    /// yes: the key's swift-dependencies value then wins, as it does without
    /// sync, and no scoped override is ever hidden by a registration.
    static func overrides(_ key: DependencyKeyType, in values: DependencyValues) -> Bool {
        guard let storage = Mirror(reflecting: values).descendant("storage") as? [ObjectIdentifier: any Sendable] else {
            return true
        }
        return storage[key.identifier] != nil
    }

    /// A synced `DependencyValues` read of `K`.
    static func dependencyRead<K: DependencyKey>(_ key: K.Type, in values: DependencyValues) -> K.Value
    where K.Value: Sendable {
        install(dependencyKey: K.self)
        if let overridden = injectedOverride(K.Value.self) {
            return overridden
        }
        let registration = Resolver.entry(K.Value.self, in: nil).flatMap { registrationKey(K.Value.self, entry: $0) }
        return keyRead(DependencyKeyType(K.self), registration: registration, in: values)
    }

    /// `@Injected(K.self)` once the app uses sync (`TCASyncGate`): the
    /// read of a synced getter for a type that is bridged or while sync is
    /// enabled, else what `@Dependency(K.self)` reads.
    static func dependencyKeyRead<Value: Sendable>(_ key: DependencyKeyType, _: Value.Type) -> Value {
        let entry = Resolver.entry(Value.self, in: nil)
        let bridged = entry.map { isBridge($0) } ?? false
        guard bridged || TCASyncGate.isEnabled else {
            return key.read(Value.self)
        }
        if let overridden = injectedOverride(Value.self) {
            return overridden
        }
        let registration = entry.flatMap { registrationKey(Value.self, entry: $0) }
        return keyRead(key, registration: registration, in: DependencyValues._current)
    }

    /// The rest of a synced read of `key` (see the top of this file), after
    /// a `withInjectedValues` override.
    private static func keyRead<Value: Sendable>(
        _ key: DependencyKeyType, registration: TypeKey?, in values: DependencyValues
    ) -> Value {
        let synced = values[TCASyncOverrideKey<Value>.self].value
        guard synced != nil || registration != nil, !overrides(key, in: values) else {
            return key.read(Value.self, in: values)
        }
        if let synced {
            return synced
        }
        if let registration, let registered = registeredValue(Value.self, at: registration) {
            return registered
        }
        return key.read(Value.self, in: values)
    }

    /// A synced `DependencyValues` write of `K`: the key's own value, and
    /// the override by type WeaveDI reads, both in `values` only.
    static func dependencyWrite<K: DependencyKey>(_ key: K.Type, _ value: K.Value, in values: inout DependencyValues)
    where K.Value: Sendable {
        values[K.self] = value
        values[TCASyncOverrideKey<K.Value>.self] = TCASyncOverride(value: value)
        install(dependencyKey: K.self)
    }

    /// WeaveDI's value of `T`, else a synced swift-dependencies override of
    /// `T` in the current task.
    static func resolve<T: Sendable>(_ type: T.Type) -> T? {
        UnifiedDI.resolve(T.self) ?? DependencyValues._current[TCASyncOverrideKey<T>.self].value
    }
}

// MARK: - DependencyValues

extension DependencyValues {
    /// Reads and writes a swift-dependencies key in sync with WeaveDI.
    ///
    /// ```swift
    /// extension DependencyValues {
    ///     var userServiceSync: any UserService {
    ///         get { self[autoSync: UserServiceKey.self] }
    ///         set { self[autoSync: UserServiceKey.self] = newValue }
    ///     }
    /// }
    ///
    /// withDependencies { $0.userServiceSync = MockUserService() } operation: {
    ///     UnifiedDI.resolve((any UserService).self)   // the mock, in this scope only
    /// }
    /// ```
    ///
    /// A read returns, in order: a `withInjectedValues` override of the
    /// value type, an override set through this subscript, WeaveDI's
    /// registration of the value type, else the key's own value. A write
    /// changes only this `DependencyValues` (so `withDependencies` keeps it
    /// to its scope), and WeaveDI reads of the value type
    /// (`UnifiedDI.resolve`, `@Injected`) see it wherever this
    /// `DependencyValues` is current.
    ///
    /// - Parameter key: The swift-dependencies key.
    public subscript<Key: DependencyKey>(autoSync key: Key.Type) -> Key.Value where Key.Value: Sendable {
        get { TCASyncBridge.dependencyRead(Key.self, in: self) }
        set { TCASyncBridge.dependencyWrite(Key.self, newValue, in: &self) }
    }

    /// Reads and writes an `InjectedKey` through swift-dependencies in sync
    /// with WeaveDI: a write is seen by `@Injected` and `UnifiedDI` reads of
    /// the key's value type wherever this `DependencyValues` is current.
    ///
    /// ```swift
    /// extension DependencyValues {
    ///     var clockSync: any Clock {
    ///         get { self[autoSync: ClockKey.self] }
    ///         set { self[autoSync: ClockKey.self] = newValue }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter key: The WeaveDI key.
    @_disfavoredOverload
    public subscript<Key: InjectedKey>(autoSync key: Key.Type) -> Key.Value {
        get {
            TCASyncBridge.install(injectedKey: Key.self)
            return self[TCASyncOverrideKey<Key.Value>.self].value ?? self[Key.self]
        }
        set {
            self[Key.self] = newValue
            self[TCASyncOverrideKey<Key.Value>.self] = TCASyncOverride(value: newValue)
            TCASyncBridge.install(injectedKey: Key.self)
        }
    }

    /// `self[autoSync: key]`.
    ///
    /// ```swift
    /// let service = DependencyValues._current.autoSyncValue(for: UserServiceKey.self)
    /// ```
    ///
    /// - Parameter key: The swift-dependencies key.
    /// - Returns: The synced value.
    public func autoSyncValue<Key: DependencyKey>(for key: Key.Type) -> Key.Value where Key.Value: Sendable {
        self[autoSync: key]
    }

    /// `self[autoSync: key] = value`.
    ///
    /// ```swift
    /// withDependencies { $0.setAutoSyncValue(for: UserServiceKey.self, value: mock) } operation: { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The swift-dependencies key.
    ///   - value: The value for this `DependencyValues` and its scope.
    public mutating func setAutoSyncValue<Key: DependencyKey>(for key: Key.Type, value: Key.Value)
    where Key.Value: Sendable {
        self[autoSync: key] = value
    }

    /// WeaveDI's value of `type`, else an override of it set through a
    /// synced property in the current task; nil when neither exists.
    ///
    /// ```swift
    /// let service = DependencyValues.autoResolve((any UserService).self)
    /// ```
    ///
    /// - Parameter type: The value type.
    /// - Returns: The value, or nil.
    public static func autoResolve<T: Sendable>(_ type: T.Type) -> T? {
        TCASyncBridge.resolve(type)
    }

    /// Registers `value` in WeaveDI for `type`, read by synced
    /// `DependencyValues` properties of that type. A registration, not an
    /// override: it stays until replaced or released.
    ///
    /// ```swift
    /// DependencyValues.autoRegister((any UserService).self, value: UserServiceImpl())
    /// ```
    ///
    /// - Parameters:
    ///   - type: The value type.
    ///   - value: The value to register.
    public static func autoRegister<T: Sendable>(_ type: T.Type, value: T) {
        TCASyncBridge.register(type, entry: PrebuiltEntry(value, factory: nil))
    }
}

extension DependencyKey where Value: Sendable {
    /// The key's value as a synced `DependencyValues` read gives it in the
    /// current task, after bridging the key to WeaveDI.
    ///
    /// ```swift
    /// let service = UserServiceKey.autoSyncValue()
    /// ```
    ///
    /// - Returns: The value `DependencyValues._current[autoSync: Self.self]` reads.
    @MainActor
    public static func autoSyncValue() -> Value {
        DependencyValues._current[autoSync: Self.self]
    }

    /// The ``TCABridgedKey`` of this key, for WeaveDI reads by key.
    ///
    /// ```swift
    /// let service = InjectedValues.current[UserServiceKey.weaveDIKey]
    /// ```
    public static var weaveDIKey: TCABridgedKey<Self>.Type {
        TCABridgedKey<Self>.self
    }
}

// MARK: - InjectedValues

extension InjectedValues {
    /// Reads and writes an `InjectedKey` in sync with swift-dependencies.
    ///
    /// ```swift
    /// extension InjectedValues {
    ///     var userServiceSync: any UserService {
    ///         get { self[autoSync: UserServiceKey.self] }
    ///         set { self[autoSync: UserServiceKey.self] = newValue }
    ///     }
    /// }
    /// ```
    ///
    /// A read is `self[key]`, and bridges the key's value type so that
    /// `UnifiedDI.resolve` and synced `DependencyValues` properties of that
    /// type see it. A write inside `withInjectedValues` is an override of
    /// that scope, seen there by `@Injected`, `UnifiedDI` and synced
    /// `@Dependency` reads of the value type, and nowhere else.
    ///
    /// - Parameter key: The WeaveDI key.
    public subscript<Key: InjectedKey>(autoSync key: Key.Type) -> Key.Value {
        get {
            TCASyncBridge.install(injectedKey: Key.self)
            return self[key]
        }
        set {
            self[key] = newValue
            TCASyncBridge.install(injectedKey: Key.self)
        }
    }

    /// `self[autoSync: key]`.
    ///
    /// ```swift
    /// let service = InjectedValues.current.autoSyncValue(for: UserServiceKey.self)
    /// ```
    ///
    /// - Parameter key: The WeaveDI key.
    /// - Returns: The synced value.
    public func autoSyncValue<Key: InjectedKey>(for key: Key.Type) -> Key.Value {
        self[autoSync: key]
    }

    /// `self[autoSync: key] = value`.
    ///
    /// ```swift
    /// withInjectedValues { $0.setAutoSyncValue(for: UserServiceKey.self, value: mock) } operation: { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The WeaveDI key.
    ///   - value: The override.
    public mutating func setAutoSyncValue<Key: InjectedKey>(for key: Key.Type, value: Key.Value) {
        self[autoSync: key] = value
    }

    /// The key's value: an override in these values, else WeaveDI's
    /// registration of its value type, else its default for the current
    /// `InjectionContext`.
    ///
    /// ```swift
    /// let service = InjectedValues.current.getWithAutoResolve(UserServiceKey.self)
    /// ```
    ///
    /// - Parameter key: The WeaveDI key.
    /// - Returns: The value.
    public func getWithAutoResolve<Key: InjectedKey>(_ key: Key.Type) -> Key.Value {
        self[key]
    }

    /// Registers `value` in WeaveDI for the key's value type, where synced
    /// `DependencyValues` properties of that type read it. A registration of
    /// the live container (it outlives any scope), as its name says; for a
    /// scoped value use `withInjectedValues` with ``subscript(autoSync:)``.
    ///
    /// ```swift
    /// InjectedValues.current.setWithTCASync(UserServiceKey.self, value: UserServiceImpl())
    /// ```
    ///
    /// - Parameters:
    ///   - key: The WeaveDI key.
    ///   - value: The value to register.
    public func setWithTCASync<Key: InjectedKey>(_ key: Key.Type, value: Key.Value) {
        TCASyncBridge.register(Key.Value.self, entry: PrebuiltEntry(value, factory: nil))
    }

    /// Bridges the key's value type, so synced `DependencyValues`
    /// properties and `UnifiedDI.resolve` of it read the key (its overrides,
    /// registration and default) without a copy being registered.
    ///
    /// ```swift
    /// InjectedValues.current.registerInjectedKeyWithTCA(UserServiceKey.self)
    /// ```
    ///
    /// - Parameter key: The WeaveDI key.
    public func registerInjectedKeyWithTCA<Key: InjectedKey>(_ key: Key.Type) {
        TCASyncBridge.install(injectedKey: Key.self)
    }

    /// WeaveDI's value of `type`, else an override of it set through a
    /// synced `DependencyValues` property in the current task.
    ///
    /// ```swift
    /// let service = InjectedValues.autoResolve((any UserService).self)
    /// ```
    ///
    /// - Parameter type: The value type.
    /// - Returns: The value, or nil.
    public static func autoResolve<T: Sendable>(_ type: T.Type) -> T? {
        TCASyncBridge.resolve(type)
    }

    /// Registers `value` in WeaveDI for `type`, read by synced
    /// `DependencyValues` properties of that type.
    ///
    /// ```swift
    /// InjectedValues.autoRegister((any UserService).self, value: UserServiceImpl())
    /// ```
    ///
    /// - Parameters:
    ///   - type: The value type.
    ///   - value: The value to register.
    public static func autoRegister<T: Sendable>(_ type: T.Type, value: T) {
        TCASyncBridge.register(type, entry: PrebuiltEntry(value, factory: nil))
    }
}

// MARK: - UnifiedDI

extension UnifiedDI {
    /// Eager registration, as `UnifiedDI.register(_:factory:)`, that
    /// synced `DependencyValues` properties of `type` read; a synced
    /// swift-dependencies override of `type` still wins over it in its
    /// scope, for WeaveDI reads too.
    ///
    /// ```swift
    /// let service = UnifiedDI.registerWithAutoSync((any UserService).self) { UserServiceImpl() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult
    public static func registerWithAutoSync<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
        let instance = factory()
        TCASyncBridge.register(type, entry: PrebuiltEntry(instance, factory: factory))
        return instance
    }

    /// ``registerWithAutoSync(_:factory:)`` for async callers.
    ///
    /// ```swift
    /// let service = await UnifiedDI.registerAsyncWithAutoSync((any UserService).self) { UserServiceImpl() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult
    public static func registerAsyncWithAutoSync<T: Sendable>(
        _ type: T.Type,
        factory: @escaping @Sendable () -> T
    ) async -> T {
        registerWithAutoSync(type, factory: factory)
    }

    /// The same as ``registerWithAutoSync(_:factory:)``.
    ///
    /// ```swift
    /// UnifiedDI.registerWithTCASync((any UserService).self) { UserServiceImpl() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult
    public static func registerWithTCASync<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
        registerWithAutoSync(type, factory: factory)
    }

    /// ``registerWithAutoSync(_:factory:)`` under the value type of a
    /// `WeaveDI.Container` property.
    ///
    /// ```swift
    /// extension WeaveDI.Container {
    ///     var userService: (any UserService)? { resolve((any UserService).self) }
    /// }
    /// UnifiedDI.registerKeyPathWithTCASync(\.userService) { UserServiceImpl() }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: The container property; its value type is the key.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult
    public static func registerKeyPathWithTCASync<T: Sendable>(
        _ keyPath: KeyPath<WeaveDI.Container, T?>,
        factory: @escaping @Sendable () -> T
    ) -> T {
        registerWithAutoSync(T.self, factory: factory)
    }

    /// WeaveDI's value of `type` (which, for a synced type, includes
    /// swift-dependencies overrides), else a synced swift-dependencies
    /// override of it in the current task; nil when neither exists.
    ///
    /// ```swift
    /// let service = UnifiedDI.resolveWithAutoFallback((any UserService).self)
    /// ```
    ///
    /// - Parameter type: The value type.
    /// - Returns: The value, or nil.
    public static func resolveWithAutoFallback<T: Sendable>(_ type: T.Type) -> T? {
        TCASyncBridge.resolve(type)
    }
}

// MARK: - Keys and helpers

/// An `InjectedKey` over a swift-dependencies key: a WeaveDI registration
/// of `Key.Value` first, else the key's live, test or preview value for the
/// current `InjectionContext`.
///
/// ```swift
/// let service = InjectedValues.current[TCABridgedKey<UserServiceKey>.self]
/// ```
///
/// Its default is evaluated once, as every key's is; to read
/// `withDependencies` overrides of the key, use `@Injected(UserServiceKey.self)`.
public enum TCABridgedKey<Key: DependencyKey>: InjectedKey where Key.Value: Sendable {
    /// The key's value type.
    public typealias Value = Key.Value

    /// `Key.liveValue`.
    public static var liveValue: Key.Value { Key.liveValue }

    /// `Key.testValue`.
    public static var testValue: Key.Value { Key.testValue }

    /// `Key.previewValue`.
    public static var previewValue: Key.Value { Key.previewValue }
}

/// Upstream's entry point for hand-written synced `DependencyValues`
/// properties.
///
/// ```swift
/// extension DependencyValues {
///     var userService: any UserService {
///         get { self[UserServiceKey.self] }
///         set {
///             self[UserServiceKey.self] = newValue
///             TCAAutoSyncContainer.autoSyncToWeaveDI((any UserService).self, value: newValue)
///         }
///     }
/// }
/// ```
///
/// A static call cannot reach the `DependencyValues` being changed, so it
/// registers the value in WeaveDI (until replaced), where upstream did the
/// same. For a write kept to its `withDependencies` scope, use
/// `self[autoSync: UserServiceKey.self]` or `@AutoSyncExtension`.
public enum TCAAutoSyncContainer {
    /// Registers `value` in WeaveDI for `type`, unless the same object is
    /// registered already.
    ///
    /// ```swift
    /// TCAAutoSyncContainer.autoSyncToWeaveDI((any UserService).self, value: service)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The value type.
    ///   - value: The value to register.
    public static func autoSyncToWeaveDI<T: Sendable>(_ type: T.Type, value: T) {
        TCASyncRegistration.registerUnlessSame(type, value: value)
    }
}

/// Upstream's helpers for hand-written syncs; each registers the value in
/// WeaveDI (see ``TCAAutoSyncContainer``).
///
/// ```swift
/// TCABridgeHelper.autoSyncToWeaveDI((any UserService).self, value: service)
/// ```
public enum TCABridgeHelper {
    /// Registers `value` for `type`, where synced `DependencyValues`
    /// properties of `type` read it.
    ///
    /// ```swift
    /// TCABridgeHelper.autoSyncToTCA((any UserService).self, value: service)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The value type.
    ///   - value: The value to register.
    public static func autoSyncToTCA<T: Sendable>(_ type: T.Type, value: T) {
        TCASyncRegistration.registerUnlessSame(type, value: value)
    }

    /// Registers `value` for `type` in WeaveDI.
    ///
    /// ```swift
    /// TCABridgeHelper.autoSyncToWeaveDI((any UserService).self, value: service)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The value type.
    ///   - value: The value to register.
    public static func autoSyncToWeaveDI<T: Sendable>(_ type: T.Type, value: T) {
        TCASyncRegistration.registerUnlessSame(type, value: value)
    }
}

enum TCASyncRegistration {
    /// Registers `value` behind the bridge of `T`. Skips the write when the
    /// same object is registered already: upstream's pattern calls this from
    /// a getter, and a write per read would empty every cached read of `T`.
    static func registerUnlessSame<T: Sendable>(_: T.Type, value: T) {
        if type(of: value as Any) is AnyClass, let registered = TCASyncBridge.registeredValue(T.self),
            (registered as AnyObject) === (value as AnyObject)
        {
            return
        }
        TCASyncBridge.register(T.self, entry: PrebuiltEntry(value, factory: nil))
    }
}
#endif
