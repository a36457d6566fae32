extension Registry {
    /// Turns an entry into an instance according to its scope.
    @inlinable @inline(__always)
    func instance<T>(from entry: RegistryEntry<T>) throws(DIError) -> T {
        if let value = entry.ready {
            return value
        }
        return try buildInstance(from: entry)
    }

    @usableFromInline
    func buildInstance<T>(from entry: RegistryEntry<T>) throws(DIError) -> T {
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

    func resolve<T>(_ type: T.Type) throws(DIError) -> T {
        guard let entry = entry(type) else {
            throw .dependencyNotFound(type: typeName(type))
        }
        return try instance(from: entry)
    }
}
