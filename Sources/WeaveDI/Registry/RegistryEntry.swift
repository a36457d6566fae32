/// What the registry stores for one type. The entry under key
/// `typeKey(T.self)` is always a `PrebuiltEntry<T>` or a `LazyEntry<T>`, so a
/// lookup needs no dynamic cast: `kind` says which.
@usableFromInline
class AnyRegistryEntry: @unchecked Sendable {
    @usableFromInline
    enum Kind: UInt8 {
        case prebuilt, singleton, transient, weak, task
    }

    @usableFromInline let kind: Kind
    @usableFromInline let type: Any.Type

    init(type: Any.Type, kind: Kind) {
        self.type = type
        self.kind = kind
    }

    var scope: ProvideScope {
        switch kind {
        case .prebuilt, .singleton: return .singleton
        case .transient: return .transient
        case .weak: return .weak
        case .task: return .task
        }
    }

    /// Typed views, for callers that know `T` by the key.
    @inlinable @inline(__always)
    func prebuilt<T>(_ type: T.Type) -> PrebuiltEntry<T> {
        unsafeDowncast(self, to: PrebuiltEntry<T>.self)
    }

    @inlinable @inline(__always)
    func lazy<T>(_ type: T.Type) -> LazyEntry<T> {
        unsafeDowncast(self, to: LazyEntry<T>.self)
    }

    /// A stand-in for `validate()`: the same factory, built on every
    /// resolve (the validation run shares one instance per registration).
    func validationClone() -> AnyRegistryEntry { self }

    /// A stand-in for `validateAsync()`: the same factories and scope (a
    /// weak one kept as a singleton, so the run shares one instance).
    func asyncValidationClone() -> AnyRegistryEntry { self }

    /// Builds the clone once, for `validate()`.
    func buildForValidation() throws(DIError) {}

    /// The instance this registration holds and when it was built, for
    /// `shutdown()`: an eager value or a built singleton.
    var heldInstance: (order: UInt64, value: Any)? { nil }

    /// Whether the factory is async (`asyncFactory`).
    var isAsync: Bool { false }

    /// The holder a singleton's instance is published in, for
    /// `start(timeout:)`'s report of what a build waits on.
    var startHolder: InstanceHolder? { nil }

    /// Builds a singleton's instance for `start(timeout:)`, in a build no
    /// waiter owns, so that a wait that times out can stop waiting.
    func buildForStart() async throws {}

    /// A fresh instance from the registered factory, for `@Factory`.
    func fresh<T>(_ type: T.Type) throws(DIError) -> T {
        if kind == .prebuilt {
            let entry = prebuilt(type)
            guard let factory = entry.factory else { return entry.value }
            return try InstanceBuilder.run(registration: ObjectIdentifier(self), type: T.self, kind: .prebuilt, factory)
        }
        return try lazy(type).produceFresh()
    }
}

/// A value that is already there: an eager registration, an instance, or a
/// key's default. Reading it is the whole hot path. The value is stored
/// non-optionally because copying an `Optional` existential costs more.
@usableFromInline
final class PrebuiltEntry<T>: AnyRegistryEntry, @unchecked Sendable {
    @usableFromInline let value: T
    /// Kept for `@Factory`, which builds a new instance on every access.
    let factory: (@Sendable () -> T)?

    /// When it was registered, for shutdown order.
    let order = BuildOrder.next()

    init(_ value: T, factory: (@Sendable () -> T)?) {
        self.value = value
        self.factory = factory
        super.init(type: T.self, kind: .prebuilt)
    }

    override func validationClone() -> AnyRegistryEntry {
        LazyEntry<T>(scope: .transient, factory: factory ?? { self.value })
    }

    override var heldInstance: (order: UInt64, value: Any)? { (order, value) }
}

/// A registration whose instance is built on resolve, according to its scope.
/// A singleton's instance lives in `instance` once built and is read from
/// there without a lock and without replacing the entry (which would be a
/// write, and a grace-period wait, on a read).
@usableFromInline
final class LazyEntry<T>: AnyRegistryEntry, @unchecked Sendable {
    /// The synchronous factory. For an async registration, one that throws
    /// ``DIError/asyncRegistration(type:)``: a synchronous resolve returns
    /// an instance the async build published, and never builds one.
    @usableFromInline let factory: @Sendable () throws -> T
    /// An async registration's factory, run by the async resolves and
    /// `start` (AsyncBuilds.swift); nil for a synchronous registration.
    let asyncFactory: (@Sendable () async throws -> T)?
    /// The singleton's or weak instance's storage; unused by other scopes.
    @usableFromInline let instance: RegisteredInstance

    convenience init(scope: ProvideScope, factory: @escaping @Sendable () throws -> T) {
        self.init(scope: scope, factory: factory, asyncFactory: nil)
    }

    convenience init(scope: ProvideScope, asyncFactory: @escaping @Sendable () async throws -> T) {
        let name = typeName(T.self)
        self.init(scope: scope, factory: { throw DIError.asyncRegistration(type: name) }, asyncFactory: asyncFactory)
    }

    private init(
        scope: ProvideScope, factory: @escaping @Sendable () throws -> T,
        asyncFactory: (@Sendable () async throws -> T)?
    ) {
        self.factory = factory
        self.asyncFactory = asyncFactory
        self.instance = RegisteredInstance(type: T.self, weak: scope == .weak)
        let kind: Kind
        switch scope {
        case .singleton: kind = .singleton
        case .transient: kind = .transient
        case .weak: kind = .weak
        case .task: kind = .task
        }
        super.init(type: T.self, kind: kind)
    }

    override func validationClone() -> AnyRegistryEntry {
        LazyEntry<T>(scope: .transient, factory: factory, asyncFactory: asyncFactory)
    }

    override func buildForValidation() throws(DIError) {
        _ = try produceFresh()
    }

    override func asyncValidationClone() -> AnyRegistryEntry {
        LazyEntry<T>(scope: kind == .weak ? .singleton : scope, factory: factory, asyncFactory: asyncFactory)
    }

    override var isAsync: Bool { asyncFactory != nil }

    override var startHolder: InstanceHolder? { instance }

    override func buildForStart() async throws {
        if asyncFactory != nil {
            _ = try await Resolver.buildAsync(self)
            return
        }
        // Inside an override scope or overlay the scope keeps what is built
        // (`InjectionScopes`), so it must not reach the registration's holder.
        if !OverrideScopes.noneActive, InjectionScopes.keeper(of: self) != nil {
            _ = try Resolver.build(self)
            return
        }
        // A synchronous factory, run in a flight: its build goes through the
        // holder's claim as any resolve's does, so it still runs once. The
        // flight's own link leaves the chain first: the synchronous build
        // names this registration itself.
        _ = try await instance.valueOfAsyncBuild(registration: ObjectIdentifier(self)) {
            try AsyncChain.$links.withValue(AsyncChain.links.dropLast()) { try Resolver.build(self).value }
        }
    }

    override var heldInstance: (order: UInt64, value: Any)? {
        guard kind == .singleton, let value = instance.built(as: T.self) else { return nil }
        return (instance.builtOrder, value)
    }

    /// Runs the factory under cycle detection; never holds a lock.
    @inlinable
    func produceFresh() throws(DIError) -> T {
        try InstanceBuilder.run(registration: ObjectIdentifier(self), type: T.self, kind: kind, factory)
    }
}
