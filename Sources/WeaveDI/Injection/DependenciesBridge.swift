#if SwiftDependencies
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
