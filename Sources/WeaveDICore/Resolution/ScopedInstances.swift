import CWeaveRegistry

#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// The instances one scope owns, one per registration: a request's `.task`
/// instances (`withTaskScope`), or the singleton and weak instances first
/// built inside a `withInjectedValues` scope or a container overlay (see
/// `OverrideScopes`). Bound to a task with a task-local, so child tasks
/// share it and concurrent scopes never do; the instances go away with the
/// last task that can read them.
///
/// Entering a scope allocates this one object (for an override scope or an
/// overlay, the object that already marks the scope is one: `OverrideScopeToken`,
/// `ContainerOverlayBinding`). Its instances hang off a lock-free list (a
/// scope has a handful), pushed with a compare-and-swap and never removed
/// before the scope dies.
@usableFromInline
class ScopedInstances: @unchecked Sendable {
    /// The newest instance, retained; each links to the one before.
    @usableFromInline let head = PlatformAtomic<UnsafeRawPointer?>(nil)
    /// An overlay's own registry: its registrations keep their instances
    /// themselves (and die with it), so they are not kept here.
    let ownRegistry: Registry?
    /// The scope this one is nested in, for an override scope or overlay:
    /// what an enclosing scope built is seen inside this one.
    @usableFromInline let enclosing: ScopedInstances?
    /// For override scopes and overlays, when the scope began: one nested in
    /// another begins after it, so of the two a task is in, the later is
    /// the inner (`OverrideScopes.innermost`). 0 for a request scope, whose
    /// entry should not touch a process-wide counter.
    let order: UInt64

    /// A request scope (`withTaskScope`).
    init() {
        self.ownRegistry = nil
        self.enclosing = nil
        self.order = 0
    }

    /// An override scope's or an overlay's, made before it is bound to the
    /// task: `enclosingOverride` is the task's innermost `withInjectedValues`
    /// scope, the enclosing scope is the later of it and the task's overlay.
    init(owning registry: Registry?, enclosingOverride: ScopedInstances?) {
        self.ownRegistry = registry
        self.enclosing = OverrideScopes.later(ContainerOverlays.current, enclosingOverride)
        self.order = ScopeOrder.counter.add(1, ordering: .relaxed).newValue
    }

    deinit {
        var node = head.load(ordering: .acquiring)
        while let raw = node {
            let instance = Unmanaged<InstanceHolder>.fromOpaque(raw)
            node = instance._withUnsafeGuaranteedRef { $0.scopeNext }
            instance.release()
        }
    }

    /// The `.task` instance (or a singleton's, see `buildOwn`) of one
    /// registration, not of one type: a registration that replaced another
    /// mid-scope, or another container's registration of the same type,
    /// gets its own instance.
    @inlinable
    final func instance(for registration: AnyRegistryEntry) -> ScopedInstance {
        unmanagedInstance(for: registration).takeUnretainedValue()
    }

    /// The same, not retained (`unmanagedHolder`).
    @inlinable
    final func unmanagedInstance(for registration: AnyRegistryEntry) -> Unmanaged<ScopedInstance> {
        unmanagedHolder(for: registration) { ScopedInstance(type: registration.type) }
    }

    /// The holder of `registration` in this scope, made by `make` on first use.
    @inlinable
    final func holder<Holder: InstanceHolder>(for registration: AnyRegistryEntry, make: () -> Holder) -> Holder {
        unmanagedHolder(for: registration, make: make).takeUnretainedValue()
    }

    /// The same, not retained: the scope keeps its holders while it lives,
    /// so a caller that holds the scope may use it without retaining it.
    @inlinable
    final func unmanagedHolder<Holder: InstanceHolder>(
        for registration: AnyRegistryEntry, make: () -> Holder
    ) -> Unmanaged<Holder> {
        let key = UInt(bitPattern: ObjectIdentifier(registration))
        var newest = head.load(ordering: .acquiring)
        var searchedUpTo: UnsafeRawPointer?
        while true {
            if let found = find(key, from: newest, to: searchedUpTo) {
                return Unmanaged<Holder>.fromOpaque(found)
            }
            let holder = Unmanaged.passRetained(make())
            holder._withUnsafeGuaranteedRef {
                $0.scopeKey = key
                $0.scopeRegistration = registration
                $0.scopeNext = newest
            }
            let raw = UnsafeRawPointer(holder.toOpaque())
            let (pushed, found) = head.compareExchange(
                expected: newest, desired: raw, ordering: .acquiringAndReleasing)
            if pushed {
                return holder
            }
            holder.release()
            searchedUpTo = newest
            newest = found
        }
    }

    /// The holder of `key` between `newest` and `end`, as its list node.
    /// The list keeps every node alive while the scope is: nodes are read
    /// without retaining them.
    @inlinable
    final func find(_ key: UInt, from newest: UnsafeRawPointer?, to end: UnsafeRawPointer? = nil) -> UnsafeRawPointer? {
        var node = newest
        while let raw = node, raw != end {
            let (nodeKey, next) = Unmanaged<InstanceHolder>.fromOpaque(raw)._withUnsafeGuaranteedRef {
                ($0.scopeKey, $0.scopeNext)
            }
            if nodeKey == key {
                return raw
            }
            node = next
        }
        return nil
    }

    /// What this scope, or a scope it is nested in, holds of `entry` (a
    /// singleton's instance, or a weak one while it is alive); this scope
    /// first, so a scope never answers with two objects.
    @inlinable
    final func existing<T>(_ entry: LazyEntry, as type: T.Type) -> T? {
        let key = UInt(bitPattern: ObjectIdentifier(entry))
        var scope: ScopedInstances? = self
        while let current = scope {
            if let found = current.find(key, from: current.head.load(ordering: .acquiring)) {
                if case .lazy(.weak) = entry.kind {
                    if let value = Unmanaged<SharedInstanceHolder>.fromOpaque(found)._withUnsafeGuaranteedRef({
                        $0.current(as: T.self)
                    }) {
                        return value
                    }
                } else if let value = Unmanaged<ScopedInstance>.fromOpaque(found)._withUnsafeGuaranteedRef({
                    $0.built(as: T.self)
                }) {
                    return value
                }
            }
            scope = current.enclosing
        }
        return nil
    }

    /// This scope's own instance of a singleton or weak `entry`, built once
    /// (a weak one held weakly, as its registration would).
    @inlinable
    final func buildOwn<T>(_ entry: LazyEntry, as type: T.Type) throws(DIError) -> T {
        if case .lazy(.weak) = entry.kind {
            return try holder(for: entry) { SharedInstanceHolder(type: T.self, weak: true) }
                .getOrBuild { () throws(DIError) in try entry.produceFresh(as: T.self) }
        }
        return try instance(for: entry).getOrBuild { () throws(DIError) in try entry.produceFresh(as: T.self) }
    }

    /// Whether `entry` is a registration of this scope's own registry.
    final func owns(_ entry: AnyRegistryEntry) -> Bool {
        guard let ownRegistry, let raw = weave_registry_get_local(ownRegistry.handle, typeKey(entry.type)) else {
            return false
        }
        let found = Unmanaged<AnyRegistryEntry>.fromOpaque(raw).takeRetainedValue()
        return found === entry
    }
}

/// A scope's instance of one registration (a `.task` instance, or a
/// singleton first built inside an override scope or overlay). Not generic
/// (architecture: No generic metadata per type); the instance sits in the holder's inline storage, read without a cast.
@usableFromInline
final class ScopedInstance: InstanceHolder, @unchecked Sendable {
    deinit {
        if isPublished {
            destroyInstance()
        }
    }

    /// The instance, if built.
    @inlinable
    func built<T>(as type: T.Type) -> T? {
        isPublished ? InlineValue.read(storageAddress, as: T.self) : nil
    }

    @inlinable
    func getOrBuild<T>(_ build: () throws(DIError) -> T) throws(DIError) -> T {
        try buildOnce(self, current: { built(as: T.self) }, publish: { (publishBuilt($0), nil) }, build: build)
    }

    /// Publishes `built` unless an instance is published already; returns
    /// the instance now published.
    @inlinable
    func publish<T>(_ built: T) -> T {
        publishBuilt(built) ? built : InlineValue.read(storageAddress, as: T.self)
    }

    /// The same, saying whether `built` is the instance now published.
    @inlinable
    func publishBuilt<T>(_ built: T) -> Bool {
        guard beginPublishing() else {
            return false
        }
        initializeInstance(built)
        endPublishing()
        return true
    }
}

private enum ScopeOrder {
    static let counter = PlatformAtomic<UInt64>(0)
}

/// The request scope of `withTaskScope`.
@usableFromInline
enum TaskScope {
    /// The task-local binding (what `@TaskLocal` would declare as `$current`,
    /// declared here so that inlinable code may name it).
    @usableFromInline static let binding = TaskLocal<ScopedInstances?>(wrappedValue: nil)

    /// The task's scope, retained.
    static var current: ScopedInstances? { binding.get() }

    /// The task's scope, not retained: its binding keeps it alive while
    /// the task runs inside `withTaskScope`, which it does for as long as
    /// it can resolve. `current`'s getter copies the value out through
    /// `TaskLocal.get`, unspecialised (the `Optional`'s value witnesses and
    /// a retain and release); this reads the binding's storage in place
    /// with the runtime call `TaskLocal.get` makes.
    @inlinable @inline(__always)
    static var currentUnretained: Unmanaged<ScopedInstances>? {
        let key = UnsafeRawPointer(Unmanaged.passUnretained(binding).toOpaque())
        guard let storage = weaveTaskLocalValueGet(key) else {
            return nil
        }
        return storage.load(as: Unmanaged<ScopedInstances>?.self)
    }

    /// The `.task` instance of the registration a type slot's `EntryBox`
    /// keeps, called inside the slot read that found the box; ends it. The
    /// holder is found or made inside the read, while the box holds the
    /// registration, and holds it from then on: the build needs no retain
    /// of its own. Nothing here runs user code before the read ends.
    @inlinable
    static func instance<T>(keptIn entry: Unmanaged<AnyRegistryEntry>, as type: T.Type) throws(DIError) -> T {
        guard let scope = currentUnretained else {
            weave_slot_read_end()
            throw noScope(T.self)
        }
        let holder = entry._withUnsafeGuaranteedRef { registration in
            scope._withUnsafeGuaranteedRef { $0.unmanagedInstance(for: registration) }
        }
        weave_slot_read_end()
        return try holder.withGuaranteedRef { (instance) throws(DIError) -> T in
            try instance.getOrBuild { () throws(DIError) in
                try entry.withGuaranteedRef { (registration) throws(DIError) -> T in
                    try registration.lazy.produceFresh(as: T.self)
                }
            }
        }
    }

    /// The same from a registration the caller holds. Its build is not
    /// shared with the one above through a helper: the one tried (the
    /// registration passed unmanaged) cost two retains per request.
    @inlinable
    static func instance<T>(for entry: LazyEntry, as type: T.Type) throws(DIError) -> T {
        guard let scope = currentUnretained else {
            throw noScope(T.self)
        }
        // The scope keeps the holder; the task's binding keeps the scope.
        let holder = scope._withUnsafeGuaranteedRef { $0.unmanagedInstance(for: entry) }
        return try holder.withGuaranteedRef { (instance) throws(DIError) -> T in
            try instance.getOrBuild { () throws(DIError) in try entry.produceFresh(as: T.self) }
        }
    }

    /// A `.task` registration resolved outside every `withTaskScope`.
    @usableFromInline @inline(never)
    static func noScope<T>(_ type: T.Type) -> DIError {
        DILog.scopeLeak(T.self)
        return .noActiveScope(type: typeName(T.self))
    }
}

/// The Concurrency runtime's read of the current task's binding of a task
/// local (the task's, or the thread's outside any task), keyed by the
/// `TaskLocal` object: the address of the bound value, or nil when it is
/// unbound. Exported by every Swift runtime since 5.5, as `TaskLocal.get`
/// calls it.
@usableFromInline @_silgen_name("swift_task_localValueGet")
func weaveTaskLocalValueGet(_ key: UnsafeRawPointer) -> UnsafeMutableRawPointer?

extension Unmanaged {
    /// `_withUnsafeGuaranteedRef` for a body that throws `DIError` (the
    /// standard one rethrows untyped errors).
    @inlinable @inline(__always)
    func withGuaranteedRef<Result>(_ body: (Instance) throws(DIError) -> Result) throws(DIError) -> Result {
        do {
            return try _withUnsafeGuaranteedRef(body)
        } catch {
            throw error as! DIError
        }
    }
}
