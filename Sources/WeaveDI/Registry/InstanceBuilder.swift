/// Runs factories with cycle detection. A cycle is the same *registration*
/// being built again on one chain (a child's factory for `T` may decorate
/// its parent's registration of `T`). A cycle found at any depth is
/// remembered on the thread until the outermost factory returns, so the
/// outermost resolve reports it even when an inner `resolve` swallowed it
/// as nil, and nothing built on the missing piece is cached.
@usableFromInline
enum InstanceBuilder {
    @inlinable
    static func run<T>(registration: ObjectIdentifier, type: T.Type, _ factory: () -> T) throws(DIError) -> T {
        let context = ResolutionContext.current
        if let chain = context.chainIfCycle(registration: registration, type: type) {
            if context.cycle == nil { context.cycle = chain }
            throw .circularDependency(chain: chain)
        }
        context.push(registration: registration, type: type)
        let value = factory()
        context.pop()
        if let chain = context.cycle {
            if context.isEmpty { context.cycle = nil }
            throw .circularDependency(chain: chain)
        }
        return value
    }
}
