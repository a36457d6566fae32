import Synchronization

/// What the registry stores for one type. The C table and the Swift baseline
/// hold the same entry objects; the entry for key `typeKey(T.self)` is always
/// a `RegistryEntry<T>`, so a lookup needs no dynamic cast.
@usableFromInline
class AnyRegistryEntry: @unchecked Sendable {
    let type: Any.Type
    let scope: ProvideScope

    init(type: Any.Type, scope: ProvideScope) {
        self.type = type
        self.scope = scope
    }

    /// A fresh instance from the registered factory, type-erased for callers
    /// that only know the key (diagnostics, `@Factory` through a protocol).
    func makeFresh() throws(DIError) -> Any { fatalError("abstract") }
}

@usableFromInline
final class RegistryEntry<T>: AnyRegistryEntry, @unchecked Sendable {
    /// Set when the value is fixed: an eager registration or a singleton
    /// that has been built. This is the whole hot path.
    @usableFromInline let ready: T?
    let factory: (@Sendable () -> T)?
    /// Built-instance storage for lazy scopes, guarded by `InstanceBuilder`.
    let slot: InstanceSlot<T>

    init(type: T.Type, scope: ProvideScope, ready: T?, factory: (@Sendable () -> T)?) {
        self.ready = ready
        self.factory = factory
        self.slot = InstanceSlot(weak: scope == .weak)
        super.init(type: type, scope: scope)
    }

    static func fixed(_ value: T, factory: (@Sendable () -> T)?) -> RegistryEntry<T> {
        RegistryEntry(type: T.self, scope: .singleton, ready: value, factory: factory)
    }

    static func lazy(scope: ProvideScope, factory: @escaping @Sendable () -> T) -> RegistryEntry<T> {
        RegistryEntry(type: T.self, scope: scope, ready: nil, factory: factory)
    }

    override func makeFresh() throws(DIError) -> Any {
        try produceFresh()
    }

    /// Runs the factory under cycle detection; never holds a lock.
    func produceFresh() throws(DIError) -> T {
        guard let factory else {
            if let ready { return ready }
            throw .registrationFailed(type: typeName(T.self), reason: "no factory")
        }
        return try InstanceBuilder.run(key: typeKey(T.self), type: T.self, factory)
    }
}
