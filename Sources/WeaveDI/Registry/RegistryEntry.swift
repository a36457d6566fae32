/// What the registry stores for one type. The C table and the Swift baseline
/// hold the same entry objects, and the entry for key `typeKey(T.self)` is
/// always a `FixedEntry<T>` or a `LazyEntry<T>`, so a lookup needs no
/// dynamic cast: `isFixed` says which.
@usableFromInline
class AnyRegistryEntry: @unchecked Sendable {
    @usableFromInline let isFixed: Bool
    let type: Any.Type
    let scope: ProvideScope

    init(type: Any.Type, scope: ProvideScope, isFixed: Bool) {
        self.type = type
        self.scope = scope
        self.isFixed = isFixed
    }

    /// Typed view of this entry, for callers that know `T` by the key.
    @inlinable @inline(__always)
    func fixed<T>(_ type: T.Type) -> FixedEntry<T> {
        unsafeDowncast(self, to: FixedEntry<T>.self)
    }

    @inlinable @inline(__always)
    func lazy<T>(_ type: T.Type) -> LazyEntry<T> {
        unsafeDowncast(self, to: LazyEntry<T>.self)
    }

    /// A fresh instance from the registered factory, for `@Factory`.
    func fresh<T>(_ type: T.Type) throws(DIError) -> T {
        if isFixed {
            let entry = fixed(type)
            guard let factory = entry.factory else { return entry.value }
            return try InstanceBuilder.run(key: typeKey(T.self), type: T.self, factory)
        }
        return try lazy(type).produceFresh()
    }
}

/// A value that is already there: an eager registration or a built
/// singleton. Reading it is the whole hot path. The value is stored
/// non-optionally because copying an `Optional` existential costs more.
@usableFromInline
final class FixedEntry<T>: AnyRegistryEntry, @unchecked Sendable {
    @usableFromInline let value: T
    /// Kept for `@Factory`, which builds a new instance on every access.
    let factory: (@Sendable () -> T)?

    init(_ value: T, factory: (@Sendable () -> T)?) {
        self.value = value
        self.factory = factory
        super.init(type: T.self, scope: .singleton, isFixed: true)
    }
}

/// A registration whose instance is built on resolve, according to its scope.
@usableFromInline
final class LazyEntry<T>: AnyRegistryEntry, @unchecked Sendable {
    let factory: @Sendable () -> T
    /// Built-instance storage for `.singleton` and `.weak`.
    let slot: InstanceSlot<T>

    init(scope: ProvideScope, factory: @escaping @Sendable () -> T) {
        self.factory = factory
        self.slot = InstanceSlot(weak: scope == .weak)
        super.init(type: T.self, scope: scope, isFixed: false)
    }

    /// Runs the factory under cycle detection; never holds a lock.
    func produceFresh() throws(DIError) -> T {
        try InstanceBuilder.run(key: typeKey(T.self), type: T.self, factory)
    }
}
