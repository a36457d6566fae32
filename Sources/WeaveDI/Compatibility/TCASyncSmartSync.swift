#if SwiftDependencies
import Dependencies

/// Which default a sync prefers, as upstream configured it.
///
/// ```swift
/// TCASmartSync.configure(policy: .livePriority)
/// ```
///
/// Recorded and reported only: a synced read falls back on what
/// swift-dependencies itself gives for the key in the reading task, which
/// picks the live, test or preview value by its own context.
public enum TCABridgePolicy: String, CaseIterable, Sendable {
    /// Prefer `testValue`.
    case testPriority = "test_priority"
    /// Prefer `liveValue`.
    case livePriority = "live_priority"
    /// Decide by context.
    case contextual = "contextual"
}

/// Upstream's switchboard for syncing swift-dependencies keys with WeaveDI.
///
/// ```swift
/// enableBidirectionalTCASync()
/// TCASmartSync.syncAll([UserServiceKey.self])
/// ```
///
/// Syncing a key bridges its value type: WeaveDI reads of that type
/// (`UnifiedDI.resolve`, `@Injected`) read through to what
/// swift-dependencies has for the key in the reading task, including
/// `withDependencies` overrides made through synced properties, and no
/// value is copied. The bridge works whether or not ``isEnabled`` is set.
public enum TCASmartSync {
    /// Whether ``enableGlobalAutoSync()`` (or ``ensureAutoInitialized()``)
    /// has run. While it is set, `@Injected(SomeDependencyKey.self)` reads a
    /// WeaveDI registration of the key's value type before the key's own
    /// value (a scoped override still comes first); clearing it restores
    /// the plain swift-dependencies read for types no sync call bridged.
    @MainActor public static var isEnabled = false {
        didSet { TCASyncGate.setEnabled(isEnabled) }
    }

    /// The policy last configured (see ``TCABridgePolicy``).
    @available(
        *, deprecated,
        message:
            "recorded, not applied: the bridge reads what swift-dependencies gives the reading task's context (test, preview or live), as .contextual would"
    )
    @MainActor public static var currentPolicy: TCABridgePolicy {
        get { recordedPolicy }
        set { recordedPolicy = newValue }
    }

    @MainActor private static var recordedPolicy: TCABridgePolicy = .testPriority

    @MainActor private static var isAutoInitialized = false

    /// Enables sync once; later calls do nothing.
    ///
    /// ```swift
    /// TCASmartSync.ensureAutoInitialized()
    /// ```
    @MainActor
    public static func ensureAutoInitialized() {
        guard !isAutoInitialized else { return }
        enableGlobalAutoSync()
        isAutoInitialized = true
    }

    /// Sets ``isEnabled``. Each synced property, key or registration
    /// bridges its own type, so nothing else needs turning on.
    ///
    /// ```swift
    /// TCASmartSync.enableGlobalAutoSync()
    /// ```
    @MainActor
    public static func enableGlobalAutoSync() {
        isEnabled = true
        DILog.logger.debug("TCA sync enabled")
    }

    /// Records `policy` as ``currentPolicy``.
    ///
    /// ```swift
    /// TCASmartSync.configure(policy: .contextual)
    /// ```
    ///
    /// - Parameter policy: The policy to record.
    @available(
        *, deprecated,
        message:
            "recorded, not applied: the bridge reads what swift-dependencies gives the reading task's context (test, preview or live), as .contextual would"
    )
    @MainActor
    public static func configure(policy: TCABridgePolicy) {
        recordedPolicy = policy
    }

    /// ``currentPolicy``.
    ///
    /// ```swift
    /// let policy = TCASmartSync.getCurrentPolicy()
    /// ```
    ///
    /// - Returns: The policy last configured.
    @available(
        *, deprecated,
        message:
            "recorded, not applied: the bridge reads what swift-dependencies gives the reading task's context (test, preview or live), as .contextual would"
    )
    @MainActor
    public static func getCurrentPolicy() -> TCABridgePolicy {
        recordedPolicy
    }

    /// Syncs each key (``syncSingle(_:)``).
    ///
    /// ```swift
    /// TCASmartSync.syncAll([UserServiceKey.self, AnalyticsKey.self])
    /// ```
    ///
    /// - Parameter keys: The swift-dependencies keys.
    @MainActor
    public static func syncAll<T: DependencyKey>(_ keys: [T.Type]) where T.Value: Sendable {
        for key in keys {
            syncSingle(key)
        }
    }

    /// Bridges the key's value type to WeaveDI: `UnifiedDI.resolve` of it
    /// reads the key's swift-dependencies value in the reading task unless
    /// WeaveDI has a registration or override of its own.
    ///
    /// ```swift
    /// TCASmartSync.syncSingle(UserServiceKey.self)
    /// ```
    ///
    /// - Parameter keyType: The swift-dependencies key.
    @MainActor
    public static func syncSingle<T: DependencyKey>(_ keyType: T.Type) where T.Value: Sendable {
        TCASyncBridge.install(dependencyKey: keyType)
    }

    /// Bridges the key as ``syncSingle(_:)`` does, from any isolation.
    /// `value` is not stored: WeaveDI reads the key's current value, so an
    /// override made later is seen and none outlives its scope.
    ///
    /// ```swift
    /// TCASmartSync.autoDetectAndSync(UserServiceKey.self, value: service)
    /// ```
    ///
    /// - Parameters:
    ///   - keyType: The swift-dependencies key.
    ///   - value: The key's value where the caller read it.
    public static func autoDetectAndSync<T: DependencyKey>(_ keyType: T.Type, value: T.Value) where T.Value: Sendable {
        TCASyncBridge.install(dependencyKey: keyType)
    }

    /// Registers a WeaveDI instance where synced `DependencyValues`
    /// properties of its type read it (unless that object is registered
    /// already).
    ///
    /// ```swift
    /// TCASmartSync.reverseSyncFromWeaveDI((any UserService).self, injectedInstance: service)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The value type.
    ///   - injectedInstance: The instance.
    @MainActor
    public static func reverseSyncFromWeaveDI<T: Sendable>(_ type: T.Type, injectedInstance: T) {
        TCASyncRegistration.registerUnlessSame(type, value: injectedInstance)
    }

    /// ``reverseSyncFromWeaveDI(_:injectedInstance:)`` from any isolation.
    ///
    /// ```swift
    /// TCASmartSync.autoDetectWeaveDIRegistration((any UserService).self, value: service)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The value type.
    ///   - value: The instance.
    public static func autoDetectWeaveDIRegistration<T: Sendable>(_ type: T.Type, value: T) {
        TCASyncRegistration.registerUnlessSame(type, value: value)
    }

    /// WeaveDI's value of `type`, else a synced swift-dependencies override
    /// of it in the current task.
    ///
    /// ```swift
    /// let service = TCASmartSync.retrieveTCACompatibleValue((any UserService).self)
    /// ```
    ///
    /// - Parameter type: The value type.
    /// - Returns: The value, or nil.
    public static func retrieveTCACompatibleValue<T: Sendable>(_ type: T.Type) -> T? {
        TCASyncBridge.resolve(type)
    }

    /// ``retrieveTCACompatibleValue(_:)`` on the main actor.
    ///
    /// ```swift
    /// let service = TCASmartSync.getUnifiedValue((any UserService).self)
    /// ```
    ///
    /// - Parameter type: The value type.
    /// - Returns: The value, or nil.
    @MainActor
    public static func getUnifiedValue<T: Sendable>(_ type: T.Type) -> T? {
        TCASyncBridge.resolve(type)
    }

    /// ``retrieveTCACompatibleValue(_:)``.
    ///
    /// ```swift
    /// let service = TCASmartSync.getUnifiedValueSync((any UserService).self)
    /// ```
    ///
    /// - Parameter type: The value type.
    /// - Returns: The value, or nil.
    public static func getUnifiedValueSync<T: Sendable>(_ type: T.Type) -> T? {
        TCASyncBridge.resolve(type)
    }

    /// ``retrieveTCACompatibleValue(_:)``.
    ///
    /// ```swift
    /// let service = TCASmartSync.getUnifiedValueSafe((any UserService).self)
    /// ```
    ///
    /// - Parameter type: The value type.
    /// - Returns: The value, or nil.
    public static func getUnifiedValueSafe<T: Sendable>(_ type: T.Type) -> T? {
        TCASyncBridge.resolve(type)
    }

    /// Clears ``isEnabled`` and the policy, for tests. Registrations stay:
    /// release them with `UnifiedDI.releaseAll()`.
    ///
    /// ```swift
    /// TCASmartSync.resetForTesting()
    /// ```
    @MainActor
    public static func resetForTesting() {
        isEnabled = false
        isAutoInitialized = false
        recordedPolicy = .testPriority
    }
}

/// Upstream's other name for ``TCASmartSync``.
public typealias TCAAutoSync = TCASmartSync

/// ``TCASmartSync/enableGlobalAutoSync()``.
///
/// ```swift
/// enableTCAAutoSync()
/// ```
@MainActor
public func enableTCAAutoSync() {
    TCASmartSync.enableGlobalAutoSync()
}

/// ``TCASmartSync/enableGlobalAutoSync()``: synced properties and keys work
/// both ways, WeaveDI to swift-dependencies and back.
///
/// ```swift
/// @main struct MyApp: App {
///     init() { enableBidirectionalTCASync() }
/// }
/// ```
@MainActor
public func enableBidirectionalTCASync() {
    TCASmartSync.enableGlobalAutoSync()
}

/// ``TCASmartSync/syncAll(_:)``.
///
/// ```swift
/// syncTCAKeys(UserServiceKey.self, AnalyticsKey.self)
/// ```
///
/// - Parameter keys: The swift-dependencies keys.
@MainActor
public func syncTCAKeys<T: DependencyKey>(_ keys: T.Type...) where T.Value: Sendable {
    TCASmartSync.syncAll(keys)
}

/// ``TCASmartSync/reverseSyncFromWeaveDI(_:injectedInstance:)``.
///
/// ```swift
/// syncWeaveDIToTCA((any UserService).self, value: service)
/// ```
///
/// - Parameters:
///   - type: The value type.
///   - value: The instance.
@MainActor
public func syncWeaveDIToTCA<T: Sendable>(_ type: T.Type, value: T) {
    TCASmartSync.reverseSyncFromWeaveDI(type, injectedInstance: value)
}

/// ``TCASmartSync/autoDetectWeaveDIRegistration(_:value:)``.
///
/// ```swift
/// autoSyncWeaveDIToTCA((any UserService).self, value: service)
/// ```
///
/// - Parameters:
///   - type: The value type.
///   - value: The instance.
@MainActor
public func autoSyncWeaveDIToTCA<T: Sendable>(_ type: T.Type, value: T) {
    TCASmartSync.autoDetectWeaveDIRegistration(type, value: value)
}
#endif
