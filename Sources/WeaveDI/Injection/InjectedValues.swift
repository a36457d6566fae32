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
    /// Set only on the copy that a cached `@Injected` read evaluates: the
    /// reads made through it say there whether their results may be cached.
    var readRecord: ReadRecord?

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
            if !byKey.isEmpty, let override = byKey[ObjectIdentifier(key)] {
                readRecord?.cacheable = false
                return override.value as! K.Value
            }
            do {
                if let resolution = try Resolver.resolve(K.Value.self, in: nil) {
                    readRecord?.note(resolution)
                    return resolution.value
                }
            } catch {
                // A cycle or a task-scoped registration outside a scope: the
                // registration cannot serve this read; the default does.
                DILog.failure(error)
                readRecord?.cacheable = false
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
        byValueType.isEmpty ? nil : byValueType[ObjectIdentifier(type)] as? T
    }

    mutating func enterScope() {
        scopeTokens.append(OverrideScopeToken())
    }
}

/// Whether everything one read resolved may be cached (see `Resolution`).
@usableFromInline
final class ReadRecord: @unchecked Sendable {
    var cacheable = true

    @usableFromInline init() {}

    func note<T>(_ resolution: Resolution<T>) {
        if !resolution.cacheable { cacheable = false }
    }
}
