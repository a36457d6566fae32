/// The values `@Injected` reads. Extend it with one computed property per
/// key (`var userService: UserService { get { self[UserServiceKey.self] } set { ... } }`).
///
/// Read precedence: a `withInjectedValues` override, then a container
/// registration of the key's value type, then the key's default for the
/// context (`testValue` under tests, `previewValue` in previews, else `liveValue`).
public struct InjectedValues: Sendable {
    struct Override: Sendable {
        let value: any Sendable
        /// Registers the value under its own type, for `InjectedValues.current = ...`.
        let register: @Sendable (DIContainer) -> Void
    }

    private var byKey: [ObjectIdentifier: Override] = [:]
    private var byValueType: [ObjectIdentifier: any Sendable] = [:]
    private var scopeTokens: [OverrideScopeToken] = []

    init() {}

    @TaskLocal static var task = InjectedValues()

    /// The values visible to the current task. Assigning registers every
    /// override it carries into the live container, for code outside any
    /// `withInjectedValues` scope.
    public static var current: InjectedValues {
        get { task }
        set {
            for override in newValue.byKey.values {
                override.register(.live)
            }
        }
    }

    public subscript<K: InjectedKey>(_ key: K.Type) -> K.Value {
        get {
            if let override = byKey[ObjectIdentifier(key)] {
                return override.value as! K.Value
            }
            if let registered = DIContainer.live.resolve(K.Value.self) {
                return registered
            }
            return DefaultValues.value(for: key)
        }
        set {
            byKey[ObjectIdentifier(key)] = Override(value: newValue) { container in
                container.register(K.Value.self, instance: newValue)
            }
            byValueType[ObjectIdentifier(K.Value.self)] = newValue
        }
    }

    /// An override whose value has type `T`, whichever key set it.
    func overriddenValue<T>(ofType type: T.Type) -> T? {
        byValueType[ObjectIdentifier(type)] as? T
    }

    mutating func enterScope() {
        scopeTokens.append(OverrideScopeToken())
    }
}
