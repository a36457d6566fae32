#if SwiftDependencies
// Re-exported, as upstream 3.4.0 does: code written against it uses
// `@Dependency` and `DependencyValues` with `import WeaveDI` alone. Without
// the trait nothing of swift-dependencies is built or visible.
@_exported import Dependencies

extension DependencyValues {
    /// Reads an `InjectedKey` through swift-dependencies (the
    /// `SwiftDependencies` trait, on by default).
    ///
    /// ```swift
    /// extension DependencyValues {
    ///     var userService: any UserService {
    ///         get { self[UserServiceKey.self] }
    ///         set { self[UserServiceKey.self] = newValue }
    ///     }
    /// }
    ///
    /// @Dependency(\.userService) var userService
    /// ```
    ///
    /// `@Dependency(\.userService)` then sees what `@Injected(\.userService)`
    /// sees (a `withInjectedValues` override, a container registration, else
    /// the key's live, test or preview value), and
    /// `withDependencies { $0.userService = mock }` overrides it for
    /// swift-dependencies readers. Such an override is not seen by
    /// `Injected` reads of the key.
    ///
    /// - Parameter key: The key type.
    public subscript<K: InjectedKey>(_ key: K.Type) -> K.Value {
        get { self[InjectedKeyDependency<K>.self].override ?? InjectedValues.current[key] }
        set { self[InjectedKeyDependency<K>.self] = InjectedOverride(override: newValue) }
    }
}

extension Injected {
    /// `@Injected(APIClientKey.self)` for a swift-dependencies `DependencyKey`:
    /// reads what `@Dependency(APIClientKey.self)` would read at that moment
    /// (a `withDependencies` override, else the key's live, test or preview
    /// value), so code moving between the two libraries sees one value.
    /// Once the app turns TCA sync on (`enableBidirectionalTCASync()`), or
    /// for a value type synced through a sync registration or a synced
    /// property, a WeaveDI registration of the key's value type comes before
    /// the key's own value, and a `withInjectedValues` or `withDependencies`
    /// override still comes before both, in its scope only.
    ///
    /// ```swift
    /// enum APIClientKey: DependencyKey {
    ///     static let liveValue: any APIClient = LiveAPIClient()
    /// }
    ///
    /// final class FeedModel {
    ///     @Injected(APIClientKey.self) var api
    /// }
    /// ```
    ///
    /// Never cached: swift-dependencies' overrides are task-local state
    /// WeaveDI cannot observe. A key that is also an `InjectedKey` is read
    /// as an `InjectedKey`. Needs the `SwiftDependencies` trait.
    ///
    /// - Parameter key: The swift-dependencies key type.
    @_disfavoredOverload
    public init<K: DependencyKey>(_ key: K.Type) where K.Value == Value {
        self.init(slot: InjectionSlots.slot(forDependencyKey: DependencyKeyType(K.self), value: Value.self))
    }
}

/// A swift-dependencies key type, carried into the slot's read closure.
/// Not `SendableMetatype`-constrained because a module with default
/// main-actor isolation infers an isolated conformance for its keys, and
/// upstream's `@Injected(SomeDependencyKey.self)` accepts those; the key's
/// values are then read wherever the property is read, as
/// `DependencyValues` itself reads them.
struct DependencyKeyType: @unchecked Sendable {
    let key: any TestDependencyKey.Type

    init<K: TestDependencyKey>(_ key: K.Type) {
        self.key = key
    }

    var identifier: ObjectIdentifier { ObjectIdentifier(key) }

    func read<Value>(_: Value.Type) -> Value {
        func open<K: TestDependencyKey>(_ key: K.Type) -> Value {
            // The cast always succeeds: the initialiser's K.Value is Value.
            DependencyValues._current[key] as! Value
        }
        return open(key)
    }

    /// The key's value in `values`, for a caller that has read them already.
    func read<Value>(_: Value.Type, in values: DependencyValues) -> Value {
        func open<K: TestDependencyKey>(_ key: K.Type) -> Value {
            values[key] as! Value
        }
        return open(key)
    }
}

extension InjectionSlots {
    static func slot<Value: Sendable>(
        forDependencyKey key: DependencyKeyType, value: Value.Type
    ) -> Unmanaged<InjectionSlot<Value>> {
        uncachedSlot(
            dependencyKey: key.identifier,
            read: {
                // An app that never uses TCA sync pays this one load.
                TCASyncGate.isActive ? TCASyncBridge.dependencyKeyRead(key, Value.self) : key.read(Value.self)
            })
    }
}

/// What swift-dependencies stores for an `InjectedKey` read through
/// `DependencyValues`: only a `withDependencies` override, if any.
///
/// Public only because the bridge's subscript needs it; code never creates
/// or reads one. Its default is empty, so swift-dependencies' caching of
/// defaults never freezes a value WeaveDI would later resolve differently.
///
/// ```swift
/// withDependencies { $0.userService = MockUserService() } operation: {
///     // stored as an InjectedOverride<any UserService> holding the mock
/// }
/// ```
public struct InjectedOverride<Value: Sendable>: Sendable {
    let override: Value?
}

enum InjectedKeyDependency<K: InjectedKey>: DependencyKey {
    static var liveValue: InjectedOverride<K.Value> { InjectedOverride(override: nil) }
    static var testValue: InjectedOverride<K.Value> { InjectedOverride(override: nil) }
    static var previewValue: InjectedOverride<K.Value> { InjectedOverride(override: nil) }
}
#endif
