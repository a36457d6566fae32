import CWeaveRegistry

/// What `@Injected` reads through: one slot per injection key (a key path,
/// an `InjectedKey` type, a swift-dependencies `DependencyKey` type, or a
/// value type), made on the key's first use, shared by every property of
/// that key and never freed. A property stores one pointer and nothing else,
/// so declaring, copying and destroying an object with `@Injected`
/// properties allocates nothing and waits for nothing.
///
/// The slot caches the last value read for its key, stamped with the
/// registry generation (the C side's `weave_slot_*`). A cached read is a
/// read section around a tag check and a copy. A type slot whose type has a
/// transient, weak or `.task` registration keeps that registration instead,
/// and a read builds from it. Writes release stale cached values before
/// they return, so a released instance never outlives its registration
/// because some slot once read it.
@usableFromInline
package final class InjectionSlot<Value>: InjectionSlotHandle, @unchecked Sendable {
    @usableFromInline let handle: OpaquePointer
    /// The full read (overrides, the container, defaults), reporting into
    /// the record whether its result may be cached, and the registration it
    /// was built from when the record asks for one.
    let read: @Sendable (ReadRecord?) -> Value

    init(handle: OpaquePointer, read: @escaping @Sendable (ReadRecord?) -> Value) {
        self.handle = handle
        self.read = read
    }

    @inlinable @inline(__always)
    func value() -> Value {
        if SlotCache.usable {
            if let raw = SlotCache.peek(handle, for: .injected) {
                if SlotCache.holdsEntry(raw) {
                    return build(fromEntryIn: raw)
                }
                return SlotCache.value(in: raw, as: Value.self, for: .injected)
            }
            return refresh()
        }
        return readUncached()
    }

    /// The instance the slot's kept registration builds; called inside the
    /// peek's slot read, ends it. Apart, so the cached read stays small;
    /// inlinable, so it is specialised for `Value` in the caller.
    @inlinable @inline(never)
    func build(fromEntryIn raw: UnsafeMutableRawPointer) -> Value {
        do throws(DIError) {
            return try SlotCache.build(keptIn: raw, as: Value.self, for: .injected)
        } catch {
            InjectionSlots.stopReading(Value.self, error)
        }
    }

    /// A miss: the full read, and what the slot may keep of it.
    @usableFromInline @inline(never)
    func refresh() -> Value {
        let generation = weave_generation()
        let record = ReadRecord(keepingEntryOf: Value.self)
        let value = read(record)
        SlotCache.fill(
            handle, readAt: generation, with: value, cacheable: record.cacheable,
            registeredType: record.registeredType, entry: record.entry)
        return value
    }

    @usableFromInline @inline(never)
    func readUncached() -> Value {
        read(nil)
    }
}

/// The slot cache: what `@Injected` (`InjectionSlot.value`) and
/// `UnifiedDI.resolve` (`Resolver.resolveLive`) read first: one `peek`, one
/// read of what it found (`value`, or `build` from a kept registration) and
/// one `fill`, for both.
///
/// Its one rule, for every kind of slot and both routes:
/// - a box is made only by a task outside every override scope and
///   overlay, with optimization on (`usable`), so it holds what every such
///   task would read; and it is read only by such a task;
/// - it is stamped with the generation loaded before the read that made it
///   (`weave_generation`), and installed only if no write began since
///   (`weave_slot_install`);
/// - it is served only while its stamp is the current generation and no
///   write is in progress (`weave_slot_peek`); every write that can change
///   an answer advances the generation and, before it returns, releases the
///   boxes it made stale (`finish_write` in weave_registry.c);
/// - a kept registration (`EntryBox`) is never a prebuilt one, and is of
///   the slot's own type (a `T?` slot's, of `T`: `WrappedEntryBox`);
/// - a route reads only what it may answer with: `UnifiedDI.resolve` only
///   a box of the type's own registration (`SlotBox.answersResolve`).
/// The generation protocol is model-checked in
/// IntegrationTests/Models/slot_cache.pml and slot_reads.pml.
@usableFromInline
package enum SlotCache {
    /// Makes every cached read stale: the next read of each slot takes the
    /// table and caches again. A write's own step (advancing the generation,
    /// then releasing the stale boxes after a grace period), taken with no
    /// registration changed; upstream's `UnifiedDI.clearCache()`.
    package static func dropAll() {
        weave_generation_advance()
    }

    /// Who reads a slot.
    @usableFromInline
    enum Route {
        /// `@Injected`: any box of its slot.
        case injected
        /// `UnifiedDI.resolve(T.self)` through the type's slot: only a box
        /// that answers resolve.
        case resolve
    }

    /// Whether this read may use the cache (the rule's first point): the task is outside
    /// every override scope and overlay (so it reads what every such task
    /// reads), optimization is on, and resolves are not being counted
    /// (`UnifiedDI.setAutoOptimization`). The task-local is asked only while
    /// some scope exists somewhere.
    @inlinable @inline(__always)
    static var usable: Bool {
        let mode = weave_read_mode()
        return mode == 0
            || (mode & (WEAVE_READ_MODE_BASELINE | WEAVE_READ_MODE_COUNTING) == 0 && !OverrideScopes.currentTaskIsScoped())
    }

    /// The box in `slot` that `route` may answer with, inside an open slot
    /// read; nil, with the read ended, when there is none (a miss: read the
    /// table, then `fill`). `value(in:as:for:)` or `build(keptIn:as:for:)`
    /// then ends the read.
    @inlinable @inline(__always)
    static func peek(_ slot: OpaquePointer, for route: Route) -> UnsafeMutableRawPointer? {
        guard let raw = weave_slot_peek(slot) else {
            weave_slot_read_end()
            return nil
        }
        // `@Injected`'s own answers (a key default, an unwrapped optional)
        // are not the resolve's.
        if route == .resolve, !Unmanaged<SlotBox>.fromOpaque(raw)._withUnsafeGuaranteedRef({ $0.answersResolve }) {
            weave_slot_read_end()
            return nil
        }
        return raw
    }

    /// Whether the box `peek` returned keeps a registration
    /// (`build(keptIn:as:for:)`) rather than a value (`value(in:as:for:)`).
    @inlinable @inline(__always)
    static func holdsEntry(_ raw: UnsafeMutableRawPointer) -> Bool {
        Unmanaged<SlotBox>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.holdsEntry }
    }

    /// The value in the box `peek` returned, which holds one. Ends the slot
    /// read. (`peek` does not return a `T?` instead: wrapping and unwrapping
    /// the value costs a copy through its value witnesses when `T` is an
    /// existential.)
    @inlinable @inline(__always)
    static func value<T>(in raw: UnsafeMutableRawPointer, as type: T.Type, for route: Route) -> T {
        // A constant in code specialised for `T`.
        if route == .injected, let optional = T.self as? any OptionalResolvable.Type,
            Unmanaged<SlotBox>.fromOpaque(raw)._withUnsafeGuaranteedRef({ $0.holdsUnwrapped })
        {
            let value = optional.someValue(inBox: raw, as: T.self)
            weave_slot_read_end()
            return value
        }
        let value = ValueBox.value(in: raw, as: T.self)
        weave_slot_read_end()
        return value
    }

    /// Builds from the registration an `EntryBox` keeps, specialised in the
    /// caller instead of the generic resolution path, which looks up runtime
    /// metadata on every read. Called inside the peek's slot read; ends it.
    @inlinable @inline(__always)
    static func build<T>(keptIn raw: UnsafeMutableRawPointer, as type: T.Type, for route: Route) throws(DIError) -> T {
        let kept = Unmanaged<EntryBox>.fromOpaque(raw)._withUnsafeGuaranteedRef { Unmanaged.passUnretained($0) }
        // Building runs user code: keep the registration past the section.
        if route == .injected, kept._withUnsafeGuaranteedRef({ $0.buildsWrapped }) {
            let (entry, build) = Unmanaged<WrappedEntryBox<T>>.fromOpaque(raw)._withUnsafeGuaranteedRef {
                ($0.entry, $0.build)
            }
            weave_slot_read_end()
            return build(entry)
        }
        let registration = kept._withUnsafeGuaranteedRef { Unmanaged.passUnretained($0.entry) }
        if case .lazy(.task) = registration._withUnsafeGuaranteedRef({ $0.kind }) {
            return try TaskScope.instance(keptIn: registration, as: T.self)
        }
        let entry = registration.takeUnretainedValue().lazy
        weave_slot_read_end()
        // A slot read protects its box only; the weak instance is read in a
        // section of its own.
        if case .lazy(.weak) = entry.kind, let value = entry.current(as: T.self) {
            return value
        }
        return try Resolver.build(entry, as: T.self)
    }

    /// `build(keptIn:as:for:)` in a function of its own, specialised for `T`:
    /// inlined into `UnifiedDI.resolve`'s callers, the build path made every
    /// cached read slower.
    @inlinable @inline(never)
    static func buildOutlined<T>(keptIn raw: UnsafeMutableRawPointer, as type: T.Type, for route: Route) throws(DIError) -> T {
        try build(keptIn: raw, as: T.self, for: route)
    }

    /// After a miss: caches what the read found, as the rule allows. A value
    /// `cacheable` says every task outside the scopes would read answers
    /// `UnifiedDI.resolve` too when `registeredType` is `T`'s own; a `T?`
    /// slot's value of `T`'s registration is kept unwrapped. Else the lazy
    /// registration the value was built from (`entry`), when it is `T`'s
    /// (or, in a `T?` slot, `T`'s): the next read builds from it without a
    /// table probe. `generation` was loaded before the read.
    @inlinable
    static func fill<T>(
        _ slot: OpaquePointer, readAt generation: UInt64, with value: T, cacheable: Bool,
        registeredType: ObjectIdentifier?, entry: AnyRegistryEntry?
    ) {
        let box: SlotBox
        if cacheable {
            let answersResolve = registeredType == ObjectIdentifier(T.self)
            if !answersResolve, let optional = T.self as? any OptionalResolvable.Type,
                let unwrapped = optional.unwrappedBox(of: value)
            {
                box = unwrapped
            } else {
                box = ValueBox(value, answersResolve: answersResolve)
            }
        } else if let entry, case .lazy = entry.kind {
            if entry.type == T.self {
                box = EntryBox(entry)
            } else if let optional = T.self as? any OptionalResolvable.Type, entry.type == optional.wrappedType {
                box = wrappedEntryBox(optional, entry)
            } else {
                return
            }
        } else {
            return
        }
        box.install(in: slot, readAt: generation)
    }
}

/// What a slot caches: a value (`ValueBox`), or, in a type's slot (read by
/// `@Injected var x: T` and `Resolver.resolveLive`), the registration of a
/// type whose instances may not be cached (`EntryBox`), which saves the
/// next read the resolution path and the table probe.
///
/// Stored properties added here move `ValueBox`'s inline storage
/// (`InlineValue`): its precondition then stops every cached read.
@usableFromInline
class SlotBox {
    /// An `EntryBox`: a kept lazy registration to build from, not a value.
    @usableFromInline let holdsEntry: Bool
    /// Whether `UnifiedDI.resolve(T.self)` may use it too: a type's slot is
    /// shared by `@Injected var x: T` and the resolve (`Resolver.resolveLive`),
    /// one cache per registration. True for what the slot type's own
    /// registration gave (a value, or the lazy registration itself); false
    /// for what only `@Injected` may see (a key's or key path's read, a key
    /// default found by type, a `T?` property's unwrapped registration).
    @usableFromInline let answersResolve: Bool
    /// A `ValueBox` in the slot of an `Optional<W>` value that holds the
    /// `W` inside, which the slot reads as `.some` of it
    /// (`OptionalResolvable.someValue`). Never a box that answers resolve:
    /// that route reads the box as its own type.
    @usableFromInline let holdsUnwrapped: Bool

    @usableFromInline init(holdsEntry: Bool, answersResolve: Bool, holdsUnwrapped: Bool = false) {
        precondition(!(holdsUnwrapped && answersResolve))
        self.holdsEntry = holdsEntry
        self.answersResolve = answersResolve
        self.holdsUnwrapped = holdsUnwrapped
    }

    /// Caches this box in `slot` as read at `generation`. The slot keeps it
    /// unless a write came in between or a newer box is there already; then
    /// it is released here.
    @usableFromInline
    final func install(in slot: OpaquePointer, readAt generation: UInt64) {
        let retained = Unmanaged.passRetained(self)
        if !weave_slot_install(slot, generation, retained.toOpaque()) {
            retained.release()
        }
    }
}

/// A cached value. Not generic (`InlineValue` says why): the value sits in
/// `storage`, read with one load at a fixed offset from the box.
@usableFromInline
final class ValueBox: SlotBox {
    /// For `deinit`, which destroys the value.
    let valueType: Any.Type
    /// Written once, in `init`; read through `InlineValue` only.
    @exclusivity(unchecked) var storage = InlineValue.zero

    @usableFromInline init<T>(_ value: T, answersResolve: Bool, holdsUnwrapped: Bool = false) {
        valueType = T.self
        super.init(holdsEntry: false, answersResolve: answersResolve, holdsUnwrapped: holdsUnwrapped)
        InlineValue.initialize(value, in: self, storage: &storage)
    }

    deinit {
        InlineValue.destroy(in: self, of: valueType)
    }

    /// The value in the box at `raw`, as the type it was made with.
    @inlinable @inline(__always)
    static func value<T>(in raw: UnsafeMutableRawPointer, as type: T.Type) -> T {
        InlineValue.read(InlineValue.address(in: raw), as: T.self)
    }
}

@usableFromInline
class EntryBox: SlotBox {
    @usableFromInline let entry: AnyRegistryEntry
    /// A `WrappedEntryBox`: the slot's value is the registered type's
    /// optional, built by the box's function.
    @usableFromInline let buildsWrapped: Bool

    @usableFromInline init(_ entry: AnyRegistryEntry, buildsWrapped: Bool = false) {
        self.entry = entry
        self.buildsWrapped = buildsWrapped
        super.init(holdsEntry: true, answersResolve: !buildsWrapped)
    }
}

/// The kept registration of `W` in the slot of a `W?` property. The slot's
/// code is generic over `W?` and cannot name `W`, so the box carries the
/// build for it, made where `W` is known (`Optional.buildFromWrappedEntry`).
@usableFromInline
final class WrappedEntryBox<Value>: EntryBox {
    @usableFromInline let build: @Sendable (AnyRegistryEntry) -> Value

    init(_ entry: AnyRegistryEntry, build: @escaping @Sendable (AnyRegistryEntry) -> Value) {
        self.build = build
        super.init(entry, buildsWrapped: true)
    }
}

/// Opens the optional type, so the box's value type is the slot's own.
@usableFromInline
func wrappedEntryBox<Optional: OptionalResolvable>(
    _ type: Optional.Type, _ entry: AnyRegistryEntry
) -> SlotBox {
    WrappedEntryBox<Optional>(entry, build: Optional.buildFromWrappedEntry)
}
