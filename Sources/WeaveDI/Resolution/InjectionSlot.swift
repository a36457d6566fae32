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
final class InjectionSlot<Value>: InjectionSlotHandle, @unchecked Sendable {
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
        if InjectionScopes.sharedCacheUsable {
            if let raw = weave_slot_peek(handle) {
                let (holdsEntry, holdsUnwrapped) = Unmanaged<SlotBox>.fromOpaque(raw)._withUnsafeGuaranteedRef {
                    ($0.holdsEntry, $0.holdsUnwrapped)
                }
                if !holdsEntry {
                    // A constant in code specialised for `Value`.
                    if let optional = Value.self as? any OptionalResolvable.Type, holdsUnwrapped {
                        let value = optional.someValue(inBox: raw, as: Value.self)
                        weave_slot_read_end()
                        return value
                    }
                    let value = ValueBox.value(in: raw, as: Value.self)
                    weave_slot_read_end()
                    return value
                }
                return build(fromEntryIn: raw)
            }
            weave_slot_read_end()
            return refresh()
        }
        return readUncached()
    }

    /// A type slot's kept registration (transient, weak or `.task`): build
    /// from it here, specialised in the caller, instead of the generic
    /// resolution path, which looks up runtime metadata on every read.
    /// Called inside the peek's slot read; ends it.
    @inlinable
    func build(fromEntryIn raw: UnsafeMutableRawPointer) -> Value {
        // Building runs user code: keep the registration past the section.
        if Unmanaged<EntryBox>.fromOpaque(raw)._withUnsafeGuaranteedRef({ $0.buildsWrapped }) {
            let (entry, build) = Unmanaged<WrappedEntryBox<Value>>.fromOpaque(raw)._withUnsafeGuaranteedRef {
                ($0.entry, $0.build)
            }
            weave_slot_read_end()
            return build(entry)
        }
        do {
            return try Resolver.build(keptIn: raw, as: Value.self)
        } catch {
            InjectionSlots.stopReading(Value.self, error)
        }
    }

    @usableFromInline @inline(never)
    func refresh() -> Value {
        let generation = weave_generation()
        let record = ReadRecord(keepingEntryOf: Value.self)
        let value = read(record)
        let box: SlotBox
        if record.cacheable {
            // Only a value of `Value`'s own registration answers
            // `UnifiedDI.resolve` too; a key default, or the unwrapped
            // registration of a `T?` property, answers this route only.
            let answersResolve = record.registeredType == ObjectIdentifier(Value.self)
            if !answersResolve, let optional = Value.self as? any OptionalResolvable.Type,
                let unwrapped = optional.unwrappedBox(of: value)
            {
                box = unwrapped
            } else {
                box = ValueBox(value, answersResolve: answersResolve)
            }
        } else if let entry = record.entry, entry.kind != .prebuilt {
            // A lazy registration, as `build(fromEntryIn:)` expects: of the
            // value's own type, or of the wrapped type of a `T?` property.
            if entry.type == Value.self {
                box = EntryBox(entry)
            } else if let optional = Value.self as? any OptionalResolvable.Type,
                entry.type == optional.wrappedType
            {
                box = wrappedEntryBox(optional, entry)
            } else {
                return value
            }
        } else {
            return value
        }
        box.install(in: handle, readAt: generation)
        return value
    }

    @usableFromInline @inline(never)
    func readUncached() -> Value {
        read(nil)
    }
}

/// An `InjectionSlot` of any value type, for code that needs its C slot only.
protocol InjectionSlotHandle: AnyObject {
    var handle: OpaquePointer { get }
}

/// What a slot caches: a value (`ValueBox`), or, in a type's slot (read by
/// `@Injected var x: T` and `Resolver.resolveLive`), the registration of a
/// type whose instances may not be cached (`EntryBox`), which saves the
/// next read the resolution path and the table probe.
///
/// The cache's one rule, for every kind of slot:
/// - a box is made only by a task outside every override scope and
///   overlay, with optimization on (`InjectionScopes.sharedCacheUsable`),
///   so it holds what every such task would read; and it is read only by
///   such a task;
/// - it is stamped with the generation loaded before the read that made it
///   (`weave_generation`), and installed only if no write began since
///   (`weave_slot_install`);
/// - it is served only while its stamp is the current generation and no
///   write is in progress (`weave_slot_peek`); every write that can change
///   an answer advances the generation and, before it returns, releases the
///   boxes it made stale (`finish_write` in weave_registry.c);
/// - a kept registration (`EntryBox`) is never a prebuilt one, and is of
///   the slot's own type (a `T?` slot's, of `T`: `WrappedEntryBox`).
/// The generation protocol is model-checked in
/// IntegrationTests/Models/slot_cache.pml. Stored properties added here
/// move `ValueBox`'s inline storage (`InlineValue`): its precondition then
/// stops every cached read.
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
private func wrappedEntryBox<Optional: OptionalResolvable>(
    _ type: Optional.Type, _ entry: AnyRegistryEntry
) -> SlotBox {
    WrappedEntryBox<Optional>(entry, build: Optional.buildFromWrappedEntry)
}

/// The kinds of slot, one identity each per key: the one place slot tags
/// are defined, so two kinds cannot share one (Swift rejects an enum with
/// two equal raw values) and a route never reads another kind's slot as its
/// own. Key path objects are heap objects (16-byte aligned) and type
/// metadata is pointer-aligned (4 bytes on 32-bit platforms), so the low 2
/// bits of a key's address are free for the kind.
@usableFromInline
enum SlotKind: UInt, CaseIterable {
    /// `@Injected(\.key)`: a key path object.
    case keyPath = 0
    /// `@Injected(Key.self)`: an `InjectedKey` type.
    case injectedKey = 1
    /// A type: `@Injected var x: T` (optionals unwrapped, key defaults found
    /// by type) and `UnifiedDI.resolve(T.self)` share it; its boxes say
    /// which route they answer (`SlotBox.answersResolve`).
    case valueType = 2
    /// `@Injected(Key.self)` for a swift-dependencies `DependencyKey`, never cached.
    case dependencyKey = 3

    /// The bits a kind may use.
    static let bits: UInt = 0b11
}

/// Finds or makes the slot of a key. The fast path is an index probe in C
/// (no lock); a slot is made once per key, under a lock.
@usableFromInline
enum InjectionSlots {
    private struct State {
        var byIdentity: [UInt: AnyObject] = [:]
        var byKeyPath: [AnyKeyPath: AnyObject] = [:]
        /// The C slots of key path objects indexed as aliases of an equal
        /// key path's slot (`makeSlot(forKeyPath:identity:)`), by identity;
        /// how many each slot has; and the objects, kept.
        var keyPathAliases: [UInt: OpaquePointer] = [:]
        var aliasCount: [ObjectIdentifier: Int] = [:]
        var aliasedKeyPaths: [AnyKeyPath] = []
    }

    /// Equal key path objects indexed per slot besides its own: one per
    /// module that names the key path, with room to spare.
    static let aliasesPerKeyPath = 32

    private static let state = Locked(State())

    /// The slot's identity in the index: the key object's address with the
    /// kind in its low bits.
    @inlinable @inline(__always)
    static func identity(_ key: ObjectIdentifier, _ kind: SlotKind) -> UInt {
        UInt(bitPattern: key) | kind.rawValue
    }

    @inlinable @inline(__always)
    static func slot<Value>(forKeyPath keyPath: KeyPath<InjectedValues, Value>) -> Unmanaged<InjectionSlot<Value>> {
        let identity = identity(ObjectIdentifier(keyPath), .keyPath)
        if let owner = weave_slot_find(identity) {
            return Unmanaged.fromOpaque(owner)
        }
        return makeSlot(forKeyPath: keyPath, identity: identity)
    }

    @inlinable @inline(__always)
    static func slot<K: InjectedKey>(forKey key: K.Type) -> Unmanaged<InjectionSlot<K.Value>> {
        let identity = identity(ObjectIdentifier(K.self), .injectedKey)
        if let owner = weave_slot_find(identity) {
            return Unmanaged.fromOpaque(owner)
        }
        return makeSlot(identity: identity) { values in values[K.self] }
    }

    @inlinable @inline(__always)
    static func slot<Value>(forType type: Value.Type) -> Unmanaged<InjectionSlot<Value>> {
        let identity = identity(ObjectIdentifier(Value.self), .valueType)
        if let owner = weave_slot_find(identity) {
            return Unmanaged.fromOpaque(owner)
        }
        return makeTypeSlot(Value.self, identity: identity)
    }

    /// The C slot of type `T`, which `UnifiedDI.resolve` reads through
    /// (`Resolver.resolveLive`), shared with `@Injected var x: T`.
    @inlinable @inline(__always)
    static func typeSlotHandle<T>(for type: T.Type) -> OpaquePointer {
        let identity = identity(ObjectIdentifier(T.self), .valueType)
        if let handle = weave_slot_find_slot(identity) {
            return handle
        }
        return makeTypeSlotHandle(identity: identity)
    }

    /// A type slot made by `UnifiedDI.resolve` before any `@Injected var`
    /// of the type: a resolve needs the C slot only, so it is published
    /// without a Swift owner (a generic class: architecture, No generic
    /// metadata per type); the first
    /// `@Injected var x: T` gives it one (`findOrMake`). Every publish runs
    /// under this lock, so the index read here is current.
    @usableFromInline @inline(never)
    static func makeTypeSlotHandle(identity: UInt) -> OpaquePointer {
        state.withLock { _ in
            if let handle = weave_slot_find_slot(identity) {
                return handle
            }
            let handle: OpaquePointer = weave_slot_create(identity)
            weave_slot_publish(handle, nil)
            return handle
        }
    }

    @usableFromInline @inline(never)
    static func makeSlot<Value>(
        forKeyPath keyPath: KeyPath<InjectedValues, Value>, identity: UInt
    ) -> Unmanaged<InjectionSlot<Value>> {
        // A key path is immutable. It is not Sendable when it names a
        // main-actor isolated property (an app module with default
        // isolation); its getter, `self[SomeKey.self]`, then runs wherever
        // the slot is read, as upstream's does. Cast here, on the slow path
        // only: at the call site the cast cost a retain and release per
        // @Injected property.
        let keyPath = unsafeBitCast(keyPath, to: (KeyPath<InjectedValues, Value> & Sendable).self)
        return state.withLock { state in
            // An equal key path object of another module (each module has
            // its own object for a `\\.key` literal), or one made at run
            // time: it shares its slot, and up to `aliasesPerKeyPath` of them
            // are indexed too, so each module's properties find the slot
            // without this lock. An indexed object is kept for good (its
            // address is its identity); the bound keeps key paths made at
            // run time, a new object each, from growing the index.
            if state.byIdentity[identity] == nil, let equal = state.byKeyPath[keyPath] {
                let owner = Unmanaged.passUnretained(unsafeDowncast(equal, to: InjectionSlot<Value>.self))
                if let alias = state.keyPathAliases[identity] {
                    weave_slot_publish(alias, owner.toOpaque())
                } else if state.aliasCount[ObjectIdentifier(equal), default: 0] < aliasesPerKeyPath {
                    let alias = weave_slot_create(identity)!
                    state.keyPathAliases[identity] = alias
                    state.aliasCount[ObjectIdentifier(equal), default: 0] += 1
                    state.aliasedKeyPaths.append(keyPath)
                    ImmortalObjects.keepForever(keyPath)
                    weave_slot_publish(alias, owner.toOpaque())
                }
                return owner
            }
            let slot = findOrMake(identity: identity, in: &state) { record in
                var values = InjectedValues.task
                values.readRecord = record
                return values[keyPath: keyPath]
            }
            state.byKeyPath[keyPath] = slot.takeUnretainedValue()
            // Kept by `byKeyPath` for good: every `\\.key` evaluation
            // retains it, which must not write to it (`ImmortalObjects`).
            ImmortalObjects.keepForever(keyPath)
            return slot
        }
    }

    @usableFromInline @inline(never)
    static func makeSlot<Value>(
        identity: UInt, read body: @escaping @Sendable (InjectedValues) -> Value
    ) -> Unmanaged<InjectionSlot<Value>> {
        state.withLock { state in
            findOrMake(identity: identity, in: &state) { record in
                var values = InjectedValues.task
                values.readRecord = record
                return body(values)
            }
        }
    }

    /// A slot whose value is never cached: `body` runs on every read.
    static func makeSlot<Value>(
        identity: UInt, uncached body: @escaping @Sendable () -> Value
    ) -> Unmanaged<InjectionSlot<Value>> {
        state.withLock { state in
            findOrMake(identity: identity, in: &state) { record in
                record?.cacheable = false
                return body()
            }
        }
    }

    @usableFromInline @inline(never)
    static func makeTypeSlot<Value>(_ type: Value.Type, identity: UInt) -> Unmanaged<InjectionSlot<Value>> {
        state.withLock { state in
            findOrMake(identity: identity, in: &state) { record in readByType(Value.self, record: record) }
        }
    }

    /// The slot for `identity`, made (and kept forever) on first use, or
    /// given its owner when a resolve made it. Its first publish is its
    /// last: the index never drops a slot (a find that missed it while the
    /// index grew gets here, where it is found). Called under the lock.
    private static func findOrMake<Value>(
        identity: UInt, in state: inout State, read: @escaping @Sendable (ReadRecord?) -> Value
    ) -> Unmanaged<InjectionSlot<Value>> {
        let slot: InjectionSlot<Value>
        if let known = state.byIdentity[identity] {
            slot = unsafeDowncast(known, to: InjectionSlot<Value>.self)
        } else {
            let handle: OpaquePointer = weave_slot_find_slot(identity) ?? weave_slot_create(identity)!
            slot = InjectionSlot<Value>(handle: handle, read: read)
            state.byIdentity[identity] = slot
        }
        let owner = Unmanaged.passUnretained(slot)
        weave_slot_publish(slot.handle, owner.toOpaque())
        return owner
    }
}

extension InjectionSlots {
    /// `@Injected var x: T` whose registration failed to build (a cycle, or
    /// a `.task` registration read outside `withTaskScope`).
    @usableFromInline @inline(never)
    static func stopReading<Value>(_ type: Value.Type, _ error: DIError) -> Never {
        DILog.failure(error)
        fatalError("@Injected var: \(qualifiedTypeName(Value.self)): \(error.description)")
    }

    @inline(never)
    static func stopMissing<Value>(_ type: Value.Type) -> Never {
        fatalError(missingMessage(Value.self))
    }

    /// Why `@Injected var x: Value` found nothing, and what to do.
    static func missingMessage<Value>(_ type: Value.Type) -> String {
        let keys = InjectedKeyCatalog.keys(providing: Value.self)
        if keys.count > 1 {
            let named = keys.map { (full: qualifiedTypeName($0), short: typeName($0)) }.sorted { $0.full < $1.full }
            return "@Injected var: '\(qualifiedTypeName(Value.self))' is not registered and \(keys.count) "
                + "InjectedKeys have it as their Value (\(named.map { $0.full }.joined(separator: ", "))), "
                + "so none is picked: name one with @Injected(\(named[0].short).self) or @Injected(\\.key)."
        }
        return "@Injected var: no '\(qualifiedTypeName(Value.self))' registered and no InjectedKey whose Value "
            + "is that type. Register it (UnifiedDI.register(\(typeName(Value.self)).self) "
            + "{ ... }), declare it optional, or use @Injected(\\.key)."
    }
}
