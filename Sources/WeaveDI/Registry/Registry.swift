import CWeaveRegistry
import Synchronization

/// One container's storage: the C table and the Swift baseline, always
/// holding the same entries. Reads pick one by the optimization toggle.
@usableFromInline
final class Registry: @unchecked Sendable {
    @usableFromInline let handle: OpaquePointer
    let parent: Registry?
    private let table = Locked<[TypeKey: AnyRegistryEntry]>([:])
    /// Keeps the two backends in step; never held while user code runs.
    private let writeLock = Locked<Void>(())

    init(parent: Registry?) {
        _ = valueCallbacksInstalled
        guard let handle = weave_registry_create(parent?.handle) else {
            fatalError("WeaveDI: out of memory creating a registry")
        }
        self.handle = handle
        self.parent = parent
    }

    deinit {
        weave_registry_destroy(handle)
    }

    /// Resolves `type` here or in a parent, by the selected backend.
    @inlinable @inline(__always)
    func resolve<T>(_ type: T.Type) throws(DIError) -> T {
        if UnifiedRegistry.optimized.load(ordering: .relaxed) {
            switch PeekedEntry<T>(peeked: weave_registry_peek(handle, typeKey(type))) {
            case .value(let value):
                return value
            case .lazy(let entry):
                return try buildInstance(from: entry)
            case .missing:
                throw DIError.missing(type)
            }
        }
        guard let entry = baselineEntry(type) else {
            throw DIError.missing(type)
        }
        return try instance(from: entry, as: type)
    }

    /// The entry for `type` here or in a parent, by the selected backend.
    func entry<T>(_ type: T.Type) -> AnyRegistryEntry? {
        if UnifiedRegistry.optimized.load(ordering: .relaxed) {
            guard let raw = weave_registry_get(handle, typeKey(type)) else { return nil }
            return Unmanaged<AnyRegistryEntry>.fromOpaque(raw).takeRetainedValue()
        }
        return baselineEntry(type)
    }

    /// The Swift path: dictionary lookups under a mutex, parents on a miss.
    @usableFromInline
    func baselineEntry<T>(_ type: T.Type) -> AnyRegistryEntry? {
        let key = typeKey(type)
        var registry: Registry? = self
        while let current = registry {
            if let found = current.table.withLock({ $0[key] }) {
                return found
            }
            registry = current.parent
        }
        return nil
    }

    func set<T>(_ entry: AnyRegistryEntry, for type: T.Type) {
        let key = typeKey(type)
        let previous: AnyRegistryEntry? = writeLock.withLock { _ in
            let previous = table.withLock { $0.updateValue(entry, forKey: key) }
            if !weave_registry_set(handle, key, Unmanaged.passRetained(entry).toOpaque()) {
                Unmanaged.passUnretained(entry).release()
                fatalError("WeaveDI: out of memory registering \(typeName(type))")
            }
            RegistryGeneration.advance()
            return previous
        }
        // The replaced entry's instance may deinit here, outside every lock.
        _ = previous
    }

    /// Swaps a lazy entry for a fixed one once its instance exists, in
    /// whichever registry of the chain holds it, unless a newer registration
    /// has replaced it meanwhile.
    func publish<T>(_ built: T, replacing lazy: LazyEntry<T>) {
        let key = typeKey(T.self)
        guard table.withLock({ $0[key] === lazy }) else {
            parent?.publish(built, replacing: lazy)
            return
        }
        let fixed = FixedEntry<T>(built, factory: lazy.factory)
        writeLock.withLock { _ in
            let stillCurrent = table.withLock { table -> Bool in
                guard table[key] === lazy else { return false }
                table[key] = fixed
                return true
            }
            guard stillCurrent else { return }
            let raw = Unmanaged.passRetained(fixed).toOpaque()
            if !weave_registry_replace_if(handle, key, Unmanaged.passUnretained(lazy).toOpaque(), raw) {
                Unmanaged<FixedEntry<T>>.fromOpaque(raw).release()
            }
        }
    }

    @discardableResult
    func remove(_ key: TypeKey) -> Bool {
        let removed: AnyRegistryEntry? = writeLock.withLock { _ in
            let removed = table.withLock { $0.removeValue(forKey: key) }
            weave_registry_remove(handle, key)
            RegistryGeneration.advance()
            return removed
        }
        return removed != nil
    }

    func removeAll() {
        let removed: [TypeKey: AnyRegistryEntry] = writeLock.withLock { _ in
            let removed = table.withLock { table in
                defer { table = [:] }
                return table
            }
            weave_registry_clear(handle)
            RegistryGeneration.advance()
            return removed
        }
        _ = removed
    }

    var count: Int { table.withLock { $0.count } }

    /// Registered types of this registry and its parents, for diagnostics.
    var registeredTypes: [Any.Type] {
        table.withLock { $0.values.map(\.type) } + (parent?.registeredTypes ?? [])
    }

    func anyEntry(forKey key: TypeKey) -> AnyRegistryEntry? {
        table.withLock { $0[key] } ?? parent?.anyEntry(forKey: key)
    }
}
