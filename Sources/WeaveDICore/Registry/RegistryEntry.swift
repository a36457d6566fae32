/// What the registry stores for one type. The entry under key
/// `typeKey(T.self)` is always a `PrebuiltEntry` or a `LazyEntry` made for
/// `T`, so a lookup needs no dynamic cast: `kind` says which.
///
/// A lazy singleton or weak instance lives in the entry, and a prebuilt
/// value in the same inline storage (`InstanceHolder.storage`, two words
/// in): architecture, An entry is its own holder.
@usableFromInline
package class AnyRegistryEntry: SharedInstanceHolder, @unchecked Sendable {
    /// How the registration makes its instance: it has it already
    /// (`PrebuiltEntry`), or a factory makes it for the registration's
    /// lifetime (`LazyEntry`). One byte: `prebuilt` takes a value
    /// `ProvideScope` leaves free.
    @usableFromInline
    enum Kind: Equatable {
        case prebuilt
        case lazy(ProvideScope)
    }

    @usableFromInline let kind: Kind

    @usableFromInline init(type: Any.Type, kind: Kind) {
        self.kind = kind
        super.init(type: type, weak: kind == .lazy(.weak))
    }

    /// The lifetime: a prebuilt value is shared, as a singleton is.
    package var scope: ProvideScope {
        switch kind {
        case .prebuilt: return .singleton
        case .lazy(let scope): return scope
        }
    }

    /// Whether this entry only forwards a read to others
    /// (`LazyEntry.forwards`): bookkeeping, not an app's registration.
    package var isForwarder: Bool {
        if case .lazy = kind {
            return lazy.forwards
        }
        return false
    }

    /// What the registration owns beside its factory (`LazyEntry.owned`).
    package var companion: (any AnyObject & Sendable)? {
        if case .lazy = kind {
            return lazy.owned
        }
        return nil
    }

    /// Typed views, for callers that know `T` by the key.
    @inlinable @inline(__always)
    var prebuilt: PrebuiltEntry {
        unsafeDowncast(self, to: PrebuiltEntry.self)
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
    package var heldInstance: (order: UInt64, value: Any)? { nil }

    /// Whether the factory is async (`LazyEntry.makeAsync`).
    var isAsync: Bool { false }

    /// The holder a singleton's instance is published in, for
    /// `start(timeout:)`'s report of what a build waits on.
    var startHolder: InstanceHolder? { nil }

    /// A fresh instance from the registered factory, for `@Factory`;
    /// inlinable, so the build is specialised where `T` is known.
    @inlinable
    final func fresh<T>(_ type: T.Type) throws(DIError) -> T {
        if case .prebuilt = kind {
            let entry = prebuilt
            guard let make = entry.make else { return entry.value(as: T.self) }
            return try InstanceBuilder.run(registration: ObjectIdentifier(self), type: T.self, kind: .prebuilt) {
                try makeInstance(with: make, as: T.self)
            }
        }
        return try lazy.produceFresh(as: T.self)
    }
}

/// A value that is already there: an eager registration, an instance, or a
/// key's default. Reading it is the whole hot path. Not generic
/// (`InlineValue` says why): the value sits in the holder's `storage`,
/// written once in `init` and read with one load at a fixed offset from the
/// entry, stored non-optionally because copying an `Optional` existential
/// costs more. Its `state` stays 0: the holder's `deinit` leaves the value
/// to this one's.
@usableFromInline
package final class PrebuiltEntry: AnyRegistryEntry, @unchecked Sendable {
    /// Kept for `@Factory`, which builds a new instance on every access:
    /// writes one as `LazyEntry.make` does.
    @usableFromInline let make: (@Sendable (UnsafeMutableRawPointer) throws -> Void)?

    /// When it was registered, for shutdown order. Not the holder's
    /// `builtOrder`: set after `super.init`, that cost a registration about
    /// 60-110 instructions more (`register.eager.new@10`).
    let order = BuildOrder.next()

    @inlinable
    package init<T>(_ value: T, factory: (@Sendable () -> T)?) {
        if let factory {
            make = { storage in storage.initializeMemory(as: T.self, to: factory()) }
        } else {
            make = nil
        }
        super.init(type: T.self, kind: .prebuilt)
        InlineValue.initialize(storageAddress, to: value)
    }

    deinit {
        InlineValue.destroy(storageAddress, of: type)
    }

    /// The value, as the type it was registered with.
    @inlinable @inline(__always)
    func value<T>(as type: T.Type) -> T {
        Self.value(in: Unmanaged.passUnretained(self).toOpaque(), as: T.self)
    }

    /// The value of the entry at `raw`, as the type it was registered with.
    @inlinable @inline(__always)
    static func value<T>(in raw: UnsafeMutableRawPointer, as type: T.Type) -> T {
        InlineValue.read(InlineValue.address(in: raw, atWord: InstanceHolder.storageWord), as: T.self)
    }

    override func validationClone() -> AnyRegistryEntry {
        if let make {
            return LazyEntry(type: type, scope: .transient, make: make, makeAsync: nil)
        }
        return _openExistential(type, do: valueReturningClone)(self)
    }

    override package var heldInstance: (order: UInt64, value: Any)? {
        (order, InlineValue.copy(storageAddress, of: type))
    }
}

/// A transient stand-in that returns an entry's value, for an instance
/// registered without a factory (`validationClone`).
private func valueReturningClone<V>(_ type: V.Type) -> (PrebuiltEntry) -> AnyRegistryEntry {
    { entry in LazyEntry(scope: .transient, factory: { entry.value(as: V.self) }) }
}

/// A registration whose instance is built on resolve, according to its scope.
/// A singleton's instance lives in the entry itself once built (it is its
/// own `SharedInstanceHolder`) and is read from there without a lock and
/// without replacing the entry (which would be a write, and a grace-period
/// wait, on a read).
///
/// Not generic (architecture: No generic metadata per type). The factory is kept as a function that writes an instance into memory
/// laid out for `type`; the generic methods, given that type, read it back.
@usableFromInline
package final class LazyEntry: AnyRegistryEntry, @unchecked Sendable {
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
    /// Whether this registration only forwards a read to others (the
    /// swift-dependencies bridge, Compatibility/TCASync.swift) and is never
    /// an app's own. Fixed at creation, so a forwarder is known as one in
    /// whichever container it is found, without a list kept beside the
    /// registry.
    let forwards: Bool
    /// What the registration owns beside its factory (upstream's named
    /// scopes keep their per-id instances here, Compatibility/ScopeIDInstances.swift):
    /// released with the registration, found by walking the registry, and
    /// shut down with it when it is an `AsyncShutdown`. Nil for nearly all.
    let owned: (any AnyObject & Sendable)?

    @inlinable
    package convenience init<T>(scope: ProvideScope, factory: @escaping @Sendable () throws -> T) {
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

    /// A transient registration of `T` that owns `companion` (see there).
    package convenience init<T>(
        transientOwning companion: any AnyObject & Sendable, factory: @escaping @Sendable () throws -> T
    ) {
        self.init(
            type: T.self, scope: .transient,
            make: { storage in storage.initializeMemory(as: T.self, to: try factory()) },
            makeAsync: nil, companion: companion)
    }

    /// The same, for an async factory.
    package convenience init<T>(
        transientOwning companion: any AnyObject & Sendable, asyncFactory: @escaping @Sendable () async throws -> T
    ) {
        let name = typeName(T.self)
        self.init(
            type: T.self, scope: .transient,
            make: { _ in throw DIError.asyncRegistration(type: name) },
            makeAsync: { storage in storage.initializeMemory(as: T.self, to: try await asyncFactory()) },
            companion: companion)
    }

    /// A transient forwarder of `T`: `read` builds every resolve.
    package convenience init<T>(forwarding read: @escaping @Sendable () throws -> T) {
        self.init(
            type: T.self, scope: .transient,
            make: { storage in storage.initializeMemory(as: T.self, to: try read()) },
            makeAsync: nil, isForwarder: true)
    }

    @usableFromInline
    init(
        type: Any.Type, scope: ProvideScope, make: @escaping @Sendable (UnsafeMutableRawPointer) throws -> Void,
        makeAsync: (@Sendable (UnsafeMutableRawPointer) async throws -> Void)?, isForwarder: Bool = false,
        companion: (any AnyObject & Sendable)? = nil
    ) {
        self.make = make
        self.makeAsync = makeAsync
        self.forwards = isForwarder
        self.owned = companion
        super.init(type: type, kind: .lazy(scope))
    }

    override func validationClone() -> AnyRegistryEntry {
        LazyEntry(type: type, scope: .transient, make: make, makeAsync: makeAsync)
    }

    override func buildForValidation() throws(DIError) {
        try _openExistential(type, do: discardingBuild)(self).get()
    }

    override func asyncValidationClone() -> AnyRegistryEntry {
        LazyEntry(type: type, scope: scope == .weak ? .singleton : scope, make: make, makeAsync: makeAsync)
    }

    override var isAsync: Bool { makeAsync != nil }

    override var startHolder: InstanceHolder? { self }

    override package var heldInstance: (order: UInt64, value: Any)? {
        guard kind == .lazy(.singleton), let value = builtValue else { return nil }
        return (builtOrder, value)
    }

    /// Runs the factory under cycle detection; never holds a lock.
    @inlinable
    func produceFresh<T>(as type: T.Type) throws(DIError) -> T {
        try InstanceBuilder.run(registration: ObjectIdentifier(self), type: T.self, kind: kind) {
            try self.makeValue(as: T.self)
        }
    }

    /// One instance from the synchronous factory, with no cycle detection.
    @inlinable
    func makeValue<T>(as type: T.Type) throws -> T {
        try makeInstance(with: make, as: T.self)
    }

    /// One instance from the async factory (which must exist).
    func makeValueAsync<T>(as type: T.Type) async throws -> T {
        let storage = UnsafeMutablePointer<T>.allocate(capacity: 1)
        defer { storage.deallocate() }
        try await makeAsync.unsafelyUnwrapped(UnsafeMutableRawPointer(storage))
        return storage.move()
    }
}

/// An instance from a factory kept as a function that writes one into
/// memory laid out for `T` (`LazyEntry.make`, `PrebuiltEntry.make`): built in
/// a buffer on the stack when the type fits one, else on the heap. (Not
/// `withUnsafeTemporaryAllocation`, which goes through a `Result` of the
/// type (architecture: No generic metadata per type).)
@inlinable
func makeInstance<T>(with make: (UnsafeMutableRawPointer) throws -> Void, as type: T.Type) throws -> T {
    if InlineValue.fits(T.self) {
        var buffer = InlineValue.zero
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

/// A build whose instance is dropped, for a registration that knows its
/// type only as `Any.Type` (`buildForValidation`).
private func discardingBuild<V>(_ type: V.Type) -> (LazyEntry) -> Result<Void, DIError> {
    { entry in Result { () throws(DIError) in _ = try entry.produceFresh(as: V.self) } }
}
