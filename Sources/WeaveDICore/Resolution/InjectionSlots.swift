import CWeaveRegistry

/// An `InjectionSlot` of any value type, for code that needs its C slot only.
protocol InjectionSlotHandle: AnyObject {
    var handle: OpaquePointer { get }
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
    /// `@Injected(Key.self)`: an `InjectedKey` type; and `@Injected(name:)`:
    /// a `RegistrationName` object (a heap object of ours, so its address is
    /// never a key type's metadata).
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
package enum InjectionSlots {
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

    /// The slot of `@Injected(name:) var x: Value`: the registration of
    /// `Value` (of the wrapped type for an optional) under `name`. Cached as
    /// a type slot is: outside every scope and overlay, until the next
    /// registration or release anywhere, a read is the slot's cached load.
    static func slot<Value>(forType type: Value.Type, named name: String) -> Unmanaged<InjectionSlot<Value>> {
        let optional = Value.self as? any OptionalResolvable.Type
        let resolved = ObjectIdentifier(optional?.wrappedType ?? Value.self)
        let key = RegistrationName.key(resolved, name)
        // The slot is `Value`'s (a `T` and a `T?` property of one name read
        // through slots of different value types): its identity is the name
        // made for `Value` itself, the registry key the one for `T`.
        let identity = RegistrationName.key(ObjectIdentifier(Value.self), name) | SlotKind.injectedKey.rawValue
        if let owner = weave_slot_find(identity) {
            return Unmanaged.fromOpaque(owner)
        }
        let isOptional = optional != nil
        return state.withLock { state in
            findOrMake(identity: identity, in: &state) { record in
                readNamed(Value.self, key: key, name: name, resolved: resolved, optional: isOptional, record: record)
            }
        }
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

    /// The C slot of `identity`, made without a Swift owner if nothing made
    /// it yet (as `typeSlotHandle`); for a named resolve.
    @inlinable @inline(__always)
    static func slotHandle(identity: UInt) -> OpaquePointer {
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
    package static func makeSlot<Value>(
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

    /// The slot of a swift-dependencies key (`key` is its type's identifier),
    /// made on first use; its value is never cached (`body` runs on every
    /// read). The bridge's one way into the slot table.
    package static func uncachedSlot<Value>(
        dependencyKey key: ObjectIdentifier, read body: @escaping @Sendable () -> Value
    ) -> Unmanaged<InjectionSlot<Value>> {
        let identity = identity(key, .dependencyKey)
        if let owner = weave_slot_find(identity) {
            return Unmanaged.fromOpaque(owner)
        }
        return makeSlot(identity: identity, uncached: body)
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
    package static func stopReading<Value>(_ type: Value.Type, _ error: DIError) -> Never {
        DILog.failure(error)
        fatalError("@Injected var: \(qualifiedTypeName(Value.self)): \(error.description)")
    }

    @inline(never)
    package static func stopMissing<Value>(_ type: Value.Type) -> Never {
        fatalError(missingMessage(Value.self))
    }

    /// Why `@Injected(name:) var x: Value` found nothing, and what to do.
    static func namedMissingMessage<Value>(_ type: Value.Type, name: String, registered: [String]) -> String {
        "@Injected(name: \"\(name)\"): no '\(qualifiedTypeName(Value.self))' registered under that name (registered: "
            + RegistrationName.quoted(registered)
            + "). Register it (UnifiedDI.register(\(typeName(Value.self)).self, name: \"\(name)\") { ... }) "
            + "or declare it optional."
    }

    /// A lazy wrapper's first read: its name, and the depth of the thread's
    /// build chain where it reads (a factory that read runs is deeper, and
    /// its own misses are not the wrapper's).
    package struct WrapperRead: Sendable {
        package let name: String
        package let depth: Int
    }

    /// The lazy wrapper whose first read is running on this task, for the
    /// stop message: `@LazyInjected` and `@WeakLazyInjected` read through
    /// the slots `@Injected` reads. A cold path; the cached read never sets it.
    @TaskLocal package static var wrapperRead: WrapperRead?

    /// Runs a lazy wrapper's first read, whose miss names `wrapper`.
    package static func reading<T>(as wrapper: String, _ read: () -> T) -> T {
        $wrapperRead.withValue(WrapperRead(name: wrapper, depth: BuildChain.current.frames.count), operation: read)
    }

    /// The wrapper a stop here names: the lazy wrapper whose read is at this
    /// depth, else `@Injected`.
    package static var readingWrapper: String {
        guard let read = wrapperRead, read.depth == BuildChain.current.frames.count else { return "@Injected" }
        return read.name
    }

    /// Why `@Injected var x: Value` (or the wrapper reading) found nothing,
    /// and what to do.
    static func missingMessage<Value>(_ type: Value.Type) -> String {
        let wrapper = readingWrapper
        let keys = InjectedKeyCatalog.keys(providing: Value.self)
        if keys.count > 1 {
            let named = keys.map { (full: qualifiedTypeName($0), short: typeName($0)) }.sorted { $0.full < $1.full }
            return "\(wrapper) var: '\(qualifiedTypeName(Value.self))' is not registered and \(keys.count) "
                + "InjectedKeys have it as their Value (\(named.map { $0.full }.joined(separator: ", "))), "
                + "so none is picked: name one with "
                + (wrapper == "@WeakLazyInjected" ? "" : "\(wrapper)(\(named[0].short).self) or ") + "\(wrapper)(\\.key)."
        }
        return "\(wrapper) var: no '\(qualifiedTypeName(Value.self))' registered and no InjectedKey whose Value "
            + "is that type. Register it (UnifiedDI.register(\(typeName(Value.self)).self) "
            + "{ ... }), declare it optional, or use \(wrapper)(\\.key)."
    }
}

/// `@Injected(name:) var x: T` and `T?`: the registration under the name,
/// or a stop naming the names registered (nil for an optional, the failure
/// logged). With a record (a refresh of the slot's cache, made outside every
/// overlay) it reads the live container and says whether the value may be
/// kept.
func readNamed<Value>(
    _ type: Value.Type, key: TypeKey, name: String, resolved: ObjectIdentifier, optional: Bool, record: ReadRecord?
) -> Value {
    do throws(DIError) {
        if optional {
            let wrapped: any OptionalResolvable = try (Value.self as! any OptionalResolvable.Type).resolveWrapped(
                key: key, record: record)
            return wrapped as! Value
        }
        var cacheable = false
        let value: Value?
        if let record {
            value = try Resolver.resolve(Value.self, key: key, from: nil, cacheable: &cacheable)
            record.note(cacheable: cacheable && value != nil)
            // The registration of `Value` itself answered: the box answers
            // `UnifiedDI.resolve(_:name:)` too, which reads this slot.
            record.registeredType = ObjectIdentifier(Value.self)
        } else {
            value = try Resolver.resolve(Value.self, key: key, in: nil, cacheable: &cacheable)
        }
        if let value {
            return value
        }
    } catch {
        record?.cacheable = false
        if optional {
            DILog.failure(error)
            return (Optional<Any>.none as Any) as! Value
        }
        InjectionSlots.stopReading(Value.self, error)
    }
    let overlay = ContainerOverlays.noneActive ? nil : ContainerOverlays.currentRegistry()
    let registered = RegistrationName.registeredNames(of: resolved, in: overlay)
    fatalError(InjectionSlots.namedMissingMessage(Value.self, name: name, registered: registered))
}
