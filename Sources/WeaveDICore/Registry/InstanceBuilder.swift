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
        // The thread keeps its context alive: read it without retaining it.
        let context = BuildChain.currentUnmanaged
        if context._withUnsafeGuaranteedRef({ $0.recorder != nil }) {
            // Out of line: no `Optional<T>` here (architecture: No generic metadata per type).
            let context = context.takeUnretainedValue()
            return try context.recorder.unsafelyUnwrapped.run(
                registration: registration, type: type, context: context, factory)
        }
        if let chain = context._withUnsafeGuaranteedRef({ $0.chainIfCycle(registration: registration, type: type) }) {
            context._withUnsafeGuaranteedRef { if $0.cycle == nil { $0.cycle = chain } }
            throw .circularDependency(chain: chain)
        }
        // A singleton that builds a shorter-lived service keeps that one
        // instance for good: the captive dependency validate() reports.
        let parentKind = context._withUnsafeGuaranteedRef { $0.buildingKind }
        if case .lazy(.singleton)? = parentKind, case .lazy(let lifetime) = kind, lifetime != .singleton {
            DILog.captive(
                singleton: context._withUnsafeGuaranteedRef { $0.frames.last?.type }, dependency: type, lifetime: lifetime)
        }
        context._withUnsafeGuaranteedRef {
            $0.push(registration: registration, type: type)
            $0.buildingKind = kind
        }
        let value: T
        do {
            value = try factory()
        } catch {
            context._withUnsafeGuaranteedRef {
                $0.pop()
                $0.buildingKind = parentKind
            }
            throw failure(error, type: type, context: context.takeUnretainedValue())
        }
        let cycle = context._withUnsafeGuaranteedRef {
            $0.pop()
            $0.buildingKind = parentKind
            return $0.cycle
        }
        if let chain = cycle {
            context._withUnsafeGuaranteedRef { if $0.isEmpty { $0.cycle = nil } }
            throw .circularDependency(chain: chain)
        }
        return value
    }

    /// What a factory that threw reports: a cycle met below it first (the
    /// error it threw may only be that cycle's consequence), else its error
    /// (`DIError.factoryError`), with the chain of the factories running on
    /// this thread, and of the async ones that led here.
    @usableFromInline @inline(never)
    static func failure(_ error: any Error, type: Any.Type, context: BuildChain) -> DIError {
        if let chain = context.cycle {
            if context.isEmpty { context.cycle = nil }
            return .circularDependency(chain: chain)
        }
        return DIError.factoryError(error, building: type, chain: AsyncChain.names + context.types.map(typeName))
    }
}
