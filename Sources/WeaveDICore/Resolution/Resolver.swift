import CWeaveRegistry

/// The read route to registrations. `UnifiedDI`, `WeaveDI.Container`,
/// `@Inject`, `@SafeInject`, `@Factory`, every `@Injected` form and the
/// `InjectedValues` subscript come here; besides, writers, `validate()`,
/// `shutdown()` and the diagnostics enumerate the table, and a request
/// scope asks its own registry whether it owns an entry
/// (`ScopedInstances.owns`).
///
/// With optimization on (the default) a read is one epoch-protected lookup
/// in the C table: no lock, and the entry is never retained when it already
/// holds its instance. With it off, the same table is read under its writer
/// lock (the baseline the benchmarks compare against). Either way no read
/// waits for a grace period.
///
/// A resolve returns the instance, and with `cacheable` says whether a
/// cache may keep it: an eager registration or a built singleton may be
/// cached until the next write; a transient, weak or task-scoped instance
/// may not (a cache would pin it). (An out parameter, not a generic struct
/// of both (architecture: No generic metadata per type).)
@usableFromInline
package enum Resolver {
    /// Resolves `type` from `registry` (and its parents), or from the live
    /// container when `registry` is nil. Nil when nothing is registered;
    /// throws for a cycle or a `.task` registration outside any scope.
    @inlinable @inline(__always)
    static func resolve<T>(_ type: T.Type, in registry: Registry?) throws(DIError) -> T? {
        var cacheable = false
        return try resolve(type, key: typeKey(type), in: registry, cacheable: &cacheable)
    }

    @inlinable @inline(__always)
    static func resolve<T>(_ type: T.Type, in registry: Registry?, cacheable: inout Bool) throws(DIError) -> T? {
        try resolve(type, key: typeKey(type), in: registry, cacheable: &cacheable)
    }

    /// A read of the live container (`UnifiedDI`, `@Inject`). A task outside
    /// every overlay and override scope reads what every such task reads, so
    /// it reads through the type's slot, the one `@Injected var x: T` reads
    /// through too (`SlotCache` states the cache's rule): a cached value is a
    /// tag check and a copy; a kept lazy registration is built from without
    /// a table probe. A read inside a scope, or with optimization off, goes
    /// straight to the table.
    /// With `notingMiss`, a miss is logged and reported to `validate()` as
    /// `DIError.missing` does (for callers that return nil instead).
    @inlinable @inline(__always)
    static func resolveLive<T>(_ type: T.Type, notingMiss: Bool = false) throws(DIError) -> T? {
        if SlotCache.usable {
            let slot = InjectionSlots.typeSlotHandle(for: T.self)
            if let raw = SlotCache.peek(slot, for: .resolve) {
                if SlotCache.holdsEntry(raw) {
                    return try SlotCache.buildOutlined(keptIn: raw, as: T.self, for: .resolve)
                }
                return SlotCache.value(in: raw, as: T.self, for: .resolve)
            }
            return try resolveLive(type, filling: slot, notingMiss: notingMiss)
        }
        return try resolveLiveUncached(type, notingMiss: notingMiss)
    }

    /// A named read of the live container (`UnifiedDI.resolve(_:name:)`):
    /// as `resolveLive`, through the slot of `key`'s name, the one
    /// `@Injected(name:) var x: T` reads through (both fill it only from
    /// the registration under `key`).
    @inlinable @inline(__always)
    package static func resolveLive<T>(_ type: T.Type, named key: TypeKey) throws(DIError) -> T? {
        if SlotCache.usable {
            let slot = InjectionSlots.slotHandle(identity: key | SlotKind.injectedKey.rawValue)
            if let raw = SlotCache.peek(slot, for: .resolve) {
                if SlotCache.holdsEntry(raw) {
                    return try SlotCache.buildOutlined(keptIn: raw, as: T.self, for: .resolve)
                }
                return SlotCache.value(in: raw, as: T.self, for: .resolve)
            }
            return try resolveLive(type, key: key, filling: slot, notingMiss: false)
        }
        var cacheable = false
        return try resolve(type, key: key, in: nil, cacheable: &cacheable)
    }

    /// A read inside a scope, or with optimization off.
    @inlinable
    static func resolveLiveUncached<T>(_ type: T.Type, notingMiss: Bool) throws(DIError) -> T? {
        var cacheable = false
        let value = try resolve(type, key: typeKey(type), in: nil, cacheable: &cacheable)
        if notingMiss && value == nil {
            DIError.noteMissing(type)
        }
        return value
    }

    /// A slot miss: one table read, and what the slot may keep of it. The
    /// task is outside every overlay here, so the live container is the
    /// registry to read.
    @inlinable @inline(never)
    static func resolveLive<T>(_ type: T.Type, filling slot: OpaquePointer, notingMiss: Bool) throws(DIError) -> T? {
        try resolveLive(type, key: typeKey(type), filling: slot, notingMiss: notingMiss)
    }

    /// The same for the registration under `key` (`T`'s own, or a name's).
    @inlinable @inline(__always)
    static func resolveLive<T>(
        _ type: T.Type, key: TypeKey, filling slot: OpaquePointer, notingMiss: Bool
    ) throws(DIError) -> T? {
        let generation = weave_generation()
        var cacheable = false
        var kept: LazyEntry?
        guard
            let value = try resolve(
                type, key: key, from: nil, keepingEntry: true, cacheable: &cacheable, kept: &kept)
        else {
            if notingMiss {
                DIError.noteMissing(type)
            }
            return nil
        }
        // A `T?` slot is `@Injected var x: T?`'s, which answers with the
        // wrapped type's registration: a box of `Optional`'s own registration
        // would answer that route wrongly.
        if !_isOptional(T.self) {
            SlotCache.fill(
                slot, readAt: generation, with: value, cacheable: cacheable,
                registeredType: ObjectIdentifier(T.self), entry: kept)
        }
        return value
    }

    /// The same, under a key other than `T`'s own (a key's default is stored
    /// under the key type and holds a `T`). A live read (`registry` nil) made
    /// inside `withContainerOverlay` goes to the overlay.
    @inlinable @inline(__always)
    package static func resolve<T>(
        _ type: T.Type, key: TypeKey, in registry: Registry?, cacheable: inout Bool
    ) throws(DIError) -> T? {
        // `registry` goes to the body as it came: a copy of it in a local
        // (to swap in the overlay's) cost a retain and a release per read.
        if registry == nil && !OverrideScopes.noneActive {
            return try resolveInScopes(type, key: key, cacheable: &cacheable)
        }
        return try resolve(type, key: key, from: registry, cacheable: &cacheable)
    }

    /// A live read while an override scope or overlay is open somewhere:
    /// the task's overlay, if it has one, is the registry to read. Not
    /// inlined, so the body below is inlined once in the read above.
    @inlinable @inline(never)
    static func resolveInScopes<T>(_ type: T.Type, key: TypeKey, cacheable: inout Bool) throws(DIError) -> T? {
        let registry = ContainerOverlays.noneActive ? nil : ContainerOverlays.currentRegistry()
        // Counted here, off the shared cache: while the word is 0 this
        // costs nothing more than the check above.
        if weave_read_mode() & WEAVE_READ_MODE_COUNTING != 0 {
            ResolveStatistics.count(T.self)
        }
        return try resolve(type, key: key, from: registry, cacheable: &cacheable)
    }

    /// Reads `registry`, or the live container itself when it is nil (no
    /// overlay lookup: for callers that already know the task's overlay).
    @inlinable @inline(__always)
    static func resolve<T>(
        _ type: T.Type, key: TypeKey, from registry: Registry?, cacheable: inout Bool
    ) throws(DIError) -> T? {
        var kept: LazyEntry?
        return try resolve(type, key: key, from: registry, keepingEntry: false, cacheable: &cacheable, kept: &kept)
    }

    /// The same, and with `keepingEntry` the lazy registration it built from
    /// (or whose live weak instance it found), retained, for a cache to
    /// keep: one table probe for both. `keepingEntry` is a constant at every
    /// call, so the hot path keeps nothing.
    @inlinable @inline(__always)
    static func resolve<T>(
        _ type: T.Type, key: TypeKey, from registry: Registry?, keepingEntry: Bool,
        cacheable: inout Bool, kept: inout LazyEntry?
    ) throws(DIError) -> T? {
        if UnifiedRegistry.optimized {
            let raw: UnsafeMutableRawPointer?
            if let registry {
                raw = weave_registry_peek(registry.handle, key)
            } else {
                raw = weave_live_peek(key)
            }
            // Inside the read section: copy the instance out, no user code.
            guard let raw else {
                weave_read_end()
                return nil
            }
            let kind = Unmanaged<AnyRegistryEntry>.fromOpaque(raw)._withUnsafeGuaranteedRef({ $0.kind })
            switch kind {
            case .prebuilt:
                let value = PrebuiltEntry.value(in: raw, as: T.self)
                weave_read_end()
                cacheable = true
                return value
            // A task inside a scope asks its scope first (`build`): what the
            // scope built must not give way to a live instance built since.
            case .lazy(.singleton), .lazy(.weak):
                // A weak instance may go at any time: the cache keeps the
                // registration, never the instance.
                let weak = kind == .lazy(.weak)
                let lazy = Unmanaged<LazyEntry>.fromOpaque(raw)
                if let value = lazy._withUnsafeGuaranteedRef({ weak ? $0.aliveWeak(as: T.self) : $0.built(as: T.self) }),
                    OverrideScopes.taskIsUnscoped
                {
                    if weak && keepingEntry {
                        kept = lazy.takeUnretainedValue()
                    }
                    weave_read_end()
                    cacheable = !weak
                    return value
                }
            case .lazy(.transient), .lazy(.task), .lazy(.graph):
                break
            }
            // Building runs user code: keep the entry alive past the section.
            let lazy = Unmanaged<LazyEntry>.fromOpaque(raw).takeUnretainedValue()
            weave_read_end()
            if keepingEntry {
                kept = lazy
            }
            return try build(lazy, as: T.self, cacheable: &cacheable)
        }
        return try resolveBaseline(
            type, key: key, in: registry, keepingEntry: keepingEntry, cacheable: &cacheable, kept: &kept)
    }

    /// The baseline: a locked read of the same table, then the same steps.
    @usableFromInline
    static func resolveBaseline<T>(
        _ type: T.Type, key: TypeKey, in registry: Registry?, keepingEntry: Bool,
        cacheable: inout Bool, kept: inout LazyEntry?
    ) throws(DIError) -> T? {
        guard let entry = lockedEntry(key, in: registry) else { return nil }
        if case .prebuilt = entry.kind {
            cacheable = true
            return entry.prebuilt.value(as: T.self)
        }
        let lazy = entry.lazy
        if keepingEntry {
            kept = lazy
        }
        return try build(lazy, as: T.self, cacheable: &cacheable)
    }

    /// Turns a lazy entry into an instance according to its scope. Inlinable
    /// (architecture: No generic metadata per type).
    @inlinable
    static func build<T>(_ entry: LazyEntry, as type: T.Type, cacheable: inout Bool) throws(DIError) -> T {
        cacheable = false
        switch entry.kind {
        // Inside a scope, an instance not built yet is the scope's own
        // (`OverrideScopes`, the rule).
        case .lazy(.singleton):
            if !OverrideScopes.noneActive, let scope = OverrideScopes.keeper(of: entry) {
                return try build(entry, as: T.self, keptBy: scope)
            }
            let value = try entry.getOrBuild { () throws(DIError) in try entry.produceFresh(as: T.self) }
            cacheable = true
            return value
        case .lazy(.weak):
            if !OverrideScopes.noneActive, let scope = OverrideScopes.keeper(of: entry) {
                return try build(entry, as: T.self, keptBy: scope)
            }
            return try entry.getOrBuild { () throws(DIError) in try entry.produceFresh(as: T.self) }
        case .lazy(.task):
            return try TaskScope.instance(for: entry, as: T.self)
        case .lazy(.graph):
            return try buildInGraph(entry, as: T.self)
        case .lazy(.transient), .prebuilt:
            return try entry.produceFresh(as: T.self)
        }
    }

    /// A `.graph` instance: the one this thread's build already made for
    /// the registration, else a fresh one kept for the rest of the build.
    @usableFromInline @inline(never)
    static func buildInGraph<T>(_ entry: LazyEntry, as type: T.Type) throws(DIError) -> T {
        let context = BuildChain.current
        if let kept = context.graphInstance(of: entry) {
            return kept as! T  // the entry's own instance: of the type it builds
        }
        let value = try entry.produceFresh(as: T.self)
        context.keepGraphInstance(value, of: entry)
        return value
    }

    /// The same, for callers that keep nothing.
    @inlinable
    static func build<T>(_ entry: LazyEntry, as type: T.Type) throws(DIError) -> T {
        var cacheable = false
        return try build(entry, as: T.self, cacheable: &cacheable)
    }

    /// A singleton or weak instance reached inside an override scope or
    /// overlay: the one the scope (or a scope it is nested in) holds, else
    /// the registration's own if it is built (outside every scope), else one
    /// built for the scope. The scope's comes first: a live instance built
    /// by another task meanwhile must not replace it mid-scope. Out of line:
    /// the common build paths stay small.
    @usableFromInline @inline(never)
    static func build<T>(_ entry: LazyEntry, as type: T.Type, keptBy scope: ScopedInstances) throws(DIError) -> T {
        if let value = scope.existing(entry, as: T.self) {
            return value
        }
        if let value = entry.current(as: T.self) {
            return value
        }
        return try scope.buildOwn(entry, as: T.self)
    }

    /// The entry itself, retained, by the selected read: for `@Factory`,
    /// which needs the factory rather than the instance.
    @usableFromInline
    package static func entry<T>(_ type: T.Type, in registry: Registry?) -> AnyRegistryEntry? {
        let key = typeKey(type)
        let registry = registry ?? (ContainerOverlays.noneActive ? nil : ContainerOverlays.currentRegistry())
        guard UnifiedRegistry.optimized else {
            return lockedEntry(key, in: registry)
        }
        let raw = registry.map { weave_registry_get($0.handle, key) } ?? weave_live_get(key)
        return raw.map { Unmanaged<AnyRegistryEntry>.fromOpaque($0).takeRetainedValue() }
    }

    private static func lockedEntry(_ key: TypeKey, in registry: Registry?) -> AnyRegistryEntry? {
        let raw = registry.map { weave_registry_get_locked($0.handle, key) } ?? weave_live_get_locked(key)
        return raw.map { Unmanaged<AnyRegistryEntry>.fromOpaque($0).takeRetainedValue() }
    }
}

/// Resolves of the live container per type while counting is on
/// (``UnifiedDI/setAutoOptimization(_:)``). Counting sets a bit of the read
/// mode word, which sends reads off the shared cache to the table read where
/// they are counted; while it is off that word is 0 and reads pay nothing.
/// The same counting read tells a resolve callback (`RegistryObservers`)
/// while one is installed.
@usableFromInline
package enum ResolveStatistics {
    private static let counts = Locked<[ObjectIdentifier: (type: Any.Type, count: Int)]>([:])
    /// Whether resolves are counted (`setAutoOptimization`); the read mode's
    /// counting bit is this or an installed resolve callback.
    private static let counting = Locked(false)

    @usableFromInline @inline(never)
    static func count(_ type: Any.Type) {
        if counting.withLock({ $0 }) {
            counts.withLock { counts in
                counts[ObjectIdentifier(type), default: (type, 0)].count += 1
            }
        }
        let observers = RegistryObservers.current
        if observers.tracking {
            observers.resolved?(type)
        }
    }

    /// Whether resolves are counted for `stats()`.
    package static var isCounting: Bool { counting.withLock { $0 } }

    /// Turns counting on or off; the read takes the counting route while
    /// counting is on or a resolve callback is installed.
    package static func setCounting(_ on: Bool) {
        counting.withLock { counting in
            counting = on
            refreshReadMode(counting: on)
        }
    }

    /// After a resolve callback was installed or removed.
    package static func refreshReadMode() {
        counting.withLock { refreshReadMode(counting: $0) }
    }

    private static func refreshReadMode(counting: Bool) {
        weave_read_mode_set_counting(counting || RegistryObservers.current.hearsResolves)
    }

    package static var snapshot: [String: Int] {
        counts.withLock { counts in
            var byName: [String: Int] = [:]
            for (_, value) in counts { byName[typeName(value.type), default: 0] += value.count }
            return byName
        }
    }

    package static func reset() { counts.withLock { $0 = [:] } }
}
