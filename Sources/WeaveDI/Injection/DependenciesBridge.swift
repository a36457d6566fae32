#if SwiftDependencies
import CWeaveRegistry
// Re-exported, as upstream 3.4.0 does: code written against it uses
// `@Dependency` and `DependencyValues` with `import WeaveDI` alone. Without
// the trait nothing of swift-dependencies is built or visible.
@_exported import Dependencies

extension DependencyValues {
    /// Reads an ``InjectedKey`` through swift-dependencies (the
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
    /// ``Injected`` reads of the key.
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
    /// WeaveDI cannot observe. A key that is also an ``InjectedKey`` is read
    /// as an ``InjectedKey``. Needs the `SwiftDependencies` trait.
    ///
    /// - Parameter key: The swift-dependencies key type.
    @_disfavoredOverload
    public init<K: DependencyKey & SendableMetatype>(_ key: K.Type) where K.Value == Value {
        self.slot = InjectionSlots.slot(forDependencyKey: K.self)
    }
}

extension InjectionSlots {
    static func slot<K: DependencyKey & SendableMetatype>(forDependencyKey key: K.Type) -> Unmanaged<InjectionSlot<K.Value>> {
        let identity = identity(ObjectIdentifier(K.self), .dependencyKey)
        if let owner = weave_slot_find(identity) {
            return Unmanaged.fromOpaque(owner)
        }
        return makeSlot(identity: identity, uncached: { DependencyValues._current[K.self] })
    }
}

/// What swift-dependencies stores for an ``InjectedKey`` read through
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
