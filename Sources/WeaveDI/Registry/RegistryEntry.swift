/// What the registry stores for one type. The entry under key
/// `typeKey(T.self)` is always a `PrebuiltEntry<T>` or a `LazyEntry` made
/// for `T`, so a lookup needs no dynamic cast: `kind` says which.
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
    var lazy: LazyEntry {
        unsafeDowncast(self, to: LazyEntry.self)
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
        return try lazy.produceFresh(as: T.self)
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
        LazyEntry(scope: .transient, factory: factory ?? { self.value })
    }

    override var heldInstance: (order: UInt64, value: Any)? { (order, value) }
}

/// A registration whose instance is built on resolve, according to its scope.
/// A singleton's instance lives in `instance` once built and is read from
/// there without a lock and without replacing the entry (which would be a
/// write, and a grace-period wait, on a read).
///
/// Not generic, for the reason ``RegisteredInstance`` is not: a generic
/// class costs the runtime a metadata instantiation per registered type.
/// The factory is kept as a function that writes an instance into memory
/// laid out for `type`; the generic methods, given that type, read it back.
@usableFromInline
final class LazyEntry: AnyRegistryEntry, @unchecked Sendable {
    /// The synchronous factory, writing a `type` instance to its argument
    /// (left uninitialized when it throws). For an async registration, one
    /// that throws ``DIError/asyncRegistration(type:)``: a synchronous
    /// resolve returns an instance the async build published, and never
    /// builds one.
    @usableFromInline let make: @Sendable (UnsafeMutableRawPointer) throws -> Void
    /// An async registration's factory, in the same form, run by the async
    /// resolves and `start` (AsyncBuilds.swift); nil for a synchronous
    /// registration.
    @usableFromInline let makeAsync: (@Sendable (UnsafeMutableRawPointer) async throws -> Void)?
    /// The singleton's or weak instance's storage; unused by other scopes.
    @usableFromInline let instance: RegisteredInstance

    @inlinable
    convenience init<T>(scope: ProvideScope, factory: @escaping @Sendable () throws -> T) {
        self.init(
            type: T.self, scope: scope,
            make: { storage in storage.initializeMemory(as: T.self, to: try factory()) },
            makeAsync: nil)
    }

    @inlinable
    convenience init<T>(scope: ProvideScope, asyncFactory: @escaping @Sendable () async throws -> T) {
        let name = typeName(T.self)
        self.init(
            type: T.self, scope: scope,
            make: { _ in throw DIError.asyncRegistration(type: name) },
            makeAsync: { storage in storage.initializeMemory(as: T.self, to: try await asyncFactory()) })
    }

    @usableFromInline
    init(
        type: Any.Type, scope: ProvideScope, make: @escaping @Sendable (UnsafeMutableRawPointer) throws -> Void,
        makeAsync: (@Sendable (UnsafeMutableRawPointer) async throws -> Void)?
    ) {
        self.make = make
        self.makeAsync = makeAsync
        self.instance = RegisteredInstance(type: type, weak: scope == .weak)
        let kind: Kind
        switch scope {
        case .singleton: kind = .singleton
        case .transient: kind = .transient
        case .weak: kind = .weak
        case .task: kind = .task
        }
        super.init(type: type, kind: kind)
    }

    override func validationClone() -> AnyRegistryEntry {
        LazyEntry(type: type, scope: .transient, make: make, makeAsync: makeAsync)
    }

    override func buildForValidation() throws(DIError) {
        try _openExistential(type, do: discardingBuild)(self).get()
    }

    override func asyncValidationClone() -> AnyRegistryEntry {
        LazyEntry(type: type, scope: kind == .weak ? .singleton : scope, make: make, makeAsync: makeAsync)
    }

    override var isAsync: Bool { makeAsync != nil }

    override var startHolder: InstanceHolder? { instance }

    override func buildForStart() async throws {
        try await _openExistential(type, do: startBuild)(self)
    }

    func buildForStart<T>(as type: T.Type) async throws {
        if makeAsync != nil {
            _ = try await Resolver.buildAsync(self, as: T.self)
            return
        }
        // Inside an override scope or overlay the scope keeps what is built
        // (`InjectionScopes`), so it must not reach the registration's holder.
        if !OverrideScopes.noneActive, InjectionScopes.keeper(of: self) != nil {
            _ = try Resolver.build(self, as: T.self)
            return
        }
        // A synchronous factory, run in a flight: its build goes through the
        // holder's claim as any resolve's does, so it still runs once. The
        // flight's own link leaves the chain first: the synchronous build
        // names this registration itself.
        _ = try await instance.valueOfAsyncBuild(registration: ObjectIdentifier(self)) {
            try AsyncChain.$links.withValue(AsyncChain.links.dropLast()) { try Resolver.build(self, as: T.self) }
        }
    }

    override var heldInstance: (order: UInt64, value: Any)? {
        guard kind == .singleton, let value = instance.builtValue else { return nil }
        return (instance.builtOrder, value)
    }

    /// Runs the factory under cycle detection; never holds a lock.
    @inlinable
    func produceFresh<T>(as type: T.Type) throws(DIError) -> T {
        try InstanceBuilder.run(registration: ObjectIdentifier(self), type: T.self, kind: kind) {
            try self.makeValue(as: T.self)
        }
    }

    /// One instance from the synchronous factory, with no cycle detection:
    /// built in a buffer on the stack when the type fits one, else on the
    /// heap. (Not `withUnsafeTemporaryAllocation`, which goes through a
    /// `Result` of the type: a metadata instantiation per type in
    /// unspecialised code.)
    @inlinable
    func makeValue<T>(as type: T.Type) throws -> T {
        if MemoryLayout<T>.size <= MemoryLayout<StackStorage>.size
            && MemoryLayout<T>.alignment <= MemoryLayout<StackStorage>.alignment
        {
            var buffer: StackStorage = (0, 0, 0, 0, 0, 0)
            return try withUnsafeMutableBytes(of: &buffer) { raw in
                let storage = raw.baseAddress.unsafelyUnwrapped
                try make(storage)
                return storage.assumingMemoryBound(to: T.self).move()
            }
        }
        let storage = UnsafeMutablePointer<T>.allocate(capacity: 1)
        defer { storage.deallocate() }
        try make(UnsafeMutableRawPointer(storage))
        return storage.move()
    }

    /// Room for an instance of most types: a class reference, an existential
    /// (40 bytes), a small struct.
    @usableFromInline typealias StackStorage = (UInt, UInt, UInt, UInt, UInt, UInt)

    /// One instance from the async factory (which must exist).
    func makeValueAsync<T>(as type: T.Type) async throws -> T {
        let storage = UnsafeMutablePointer<T>.allocate(capacity: 1)
        defer { storage.deallocate() }
        try await makeAsync.unsafelyUnwrapped(UnsafeMutableRawPointer(storage))
        return storage.move()
    }
}

/// A build whose instance is dropped, for a registration that knows its
/// type only as `Any.Type` (`buildForValidation`).
private func discardingBuild<V>(_ type: V.Type) -> (LazyEntry) -> Result<Void, DIError> {
    { entry in Result { () throws(DIError) in _ = try entry.produceFresh(as: V.self) } }
}

private func startBuild<V>(_ type: V.Type) -> (LazyEntry) async throws -> Void {
    { entry in try await entry.buildForStart(as: V.self) }
}
