/// Runs factories with cycle detection. A cycle is the same *registration*
/// being built again on one chain (a child's factory for `T` may decorate
/// its parent's registration of `T`). A cycle found at any depth is
/// remembered on the thread until the outermost factory returns, so the
/// outermost resolve reports it even when an inner `resolve` swallowed it
/// as nil, and nothing built on the missing piece is cached.
@usableFromInline
enum InstanceBuilder {
    @inlinable
    static func run<T>(
        registration: ObjectIdentifier,
        type: T.Type,
        kind: AnyRegistryEntry.Kind,
        _ factory: () throws -> T
    ) throws(DIError) -> T {
        let context = ResolutionContext.current
        if let validation = context.validation {
            // Out of line: an `Optional<T>` here would cost unspecialised
            // callers (@Factory) a metadata lookup on every build.
            return try validation.run(registration: registration, type: type, context: context, factory)
        }
        if let chain = context.chainIfCycle(registration: registration, type: type) {
            if context.cycle == nil { context.cycle = chain }
            throw .circularDependency(chain: chain)
        }
        // A singleton that builds a shorter-lived service keeps that one
        // instance for good: the captive dependency validate() reports.
        let parentKind = context.buildingKind
        if parentKind == .singleton && kind != .singleton && kind != .prebuilt {
            DILog.captive(singleton: context.frames.last?.type, dependency: type, kind: kind)
        }
        context.push(registration: registration, type: type)
        context.buildingKind = kind
        let value: T
        do {
            value = try factory()
        } catch {
            context.pop()
            context.buildingKind = parentKind
            throw failure(error, type: type, context: context)
        }
        context.pop()
        context.buildingKind = parentKind
        if let chain = context.cycle {
            if context.isEmpty { context.cycle = nil }
            throw .circularDependency(chain: chain)
        }
        return value
    }

    /// What a factory that threw reports: a cycle met below it first (the
    /// error it threw may only be that cycle's consequence), else its error
    /// (`DIError.factoryError`), with the chain of the factories running on
    /// this thread, and of the async ones that led here.
    @usableFromInline @inline(never)
    static func failure(_ error: any Error, type: Any.Type, context: ResolutionContext) -> DIError {
        if let chain = context.cycle {
            if context.isEmpty { context.cycle = nil }
            return .circularDependency(chain: chain)
        }
        return DIError.factoryError(error, building: type, chain: AsyncChain.names + context.types.map(typeName))
    }
}
