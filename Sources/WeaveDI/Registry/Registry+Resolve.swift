extension Registry {
    /// Turns an entry for `T` into an instance according to its scope.
    @inlinable @inline(__always)
    func instance<T>(from entry: AnyRegistryEntry, as type: T.Type) throws(DIError) -> T {
        if entry.isFixed {
            return entry.fixed(type).value
        }
        return try buildInstance(from: entry.lazy(type))
    }

    @usableFromInline
    func buildInstance<T>(from entry: LazyEntry<T>) throws(DIError) -> T {
        if entry.scope != .singleton {
            ResolutionContext.current.noteUncacheable()
        }
        switch entry.scope {
        case .transient:
            return try entry.produceFresh()
        case .singleton:
            let value = try entry.slot.getOrBuild { () throws(DIError) in try entry.produceFresh() }
            publish(value, replacing: entry)
            return value
        case .weak:
            return try entry.slot.getOrBuild { () throws(DIError) in try entry.produceFresh() }
        case .task:
            return try TaskScope.instance(for: entry)
        }
    }
}
