#if SwiftDependencies
import CWeaveRegistry
import Dependencies

/// Lets an `InjectedKey` be read through swift-dependencies:
///
///     extension DependencyValues {
///         var userService: UserService {
///             get { self[UserServiceKey.self] }
///             set { self[UserServiceKey.self] = newValue }
///         }
///     }
///
/// `@Dependency(\.userService)` then sees what `@Injected(\.userService)`
/// sees (a container registration, else the key's live/test/preview value),
/// and `withDependencies { $0.userService = mock }` overrides it.
extension DependencyValues {
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
    /// Never cached: swift-dependencies' overrides are task-local state
    /// WeaveDI cannot observe. A key that is also an `InjectedKey` is read
    /// as an `InjectedKey`.
    @_disfavoredOverload
    public init<K: DependencyKey & SendableMetatype>(_ key: K.Type) where K.Value == Value {
        self.slot = InjectionSlots.slot(forDependencyKey: K.self)
    }
}

extension InjectionSlots {
    static let dependencyKeyTag: UInt = 3

    static func slot<K: DependencyKey & SendableMetatype>(forDependencyKey key: K.Type) -> Unmanaged<InjectionSlot<K.Value>> {
        let identity = UInt(bitPattern: ObjectIdentifier(K.self)) | dependencyKeyTag
        if let owner = weave_slot_find(identity) {
            return Unmanaged.fromOpaque(owner)
        }
        return makeSlot(identity: identity, uncached: { DependencyValues._current[K.self] })
    }
}

/// What swift-dependencies stores for an `InjectedKey`: only an override.
/// The default is empty, so swift-dependencies' caching of defaults never
/// freezes a value WeaveDI would later resolve differently.
public struct InjectedOverride<Value: Sendable>: Sendable {
    let override: Value?
}

enum InjectedKeyDependency<K: InjectedKey>: DependencyKey {
    static var liveValue: InjectedOverride<K.Value> { InjectedOverride(override: nil) }
    static var testValue: InjectedOverride<K.Value> { InjectedOverride(override: nil) }
    static var previewValue: InjectedOverride<K.Value> { InjectedOverride(override: nil) }
}
#endif
