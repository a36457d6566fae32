import CWeaveRegistry

#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// The identity of one named registration: a type and a name. Its address is
/// the registration's key in the registry, so a name is part of the key and
/// lives in the one table (no second dictionary of named registrations).
///
/// One object per (type, name), made on first use and never freed: its
/// address can never be taken by another object, and it cannot equal a
/// type's key (a type's metadata is not a heap object of ours). So named
/// and unnamed registrations of one type, and two names of one type, never
/// share a key by construction.
@usableFromInline
package final class RegistrationName: Sendable {
    package let type: ObjectIdentifier
    package let name: String
    /// The node that was its bucket's head when this one was added, as bits
    /// (0: none). Immutable, so a reader that reached a node from any head,
    /// old or new, reads the chain below it safely.
    let next: UInt

    private init(type: ObjectIdentifier, name: String, next: UInt) {
        self.type = type
        self.name = name
        self.next = next
    }

    /// This name's key in the registry.
    package var key: TypeKey { UInt(bitPattern: ObjectIdentifier(self)) }

    private final class Bucket: Sendable {
        let head = PlatformAtomic<UInt>(0)
    }

    /// Buckets by type: a named resolve walks the names of its bucket and
    /// compares the type's identity and the name (a short string compares
    /// by its bits), without hashing the name.
    private static let buckets: [Bucket] = (0..<64).map { _ in Bucket() }

    /// Orders writers; readers take no lock.
    private static let adding = Locked(())

    private static func bucket(of type: ObjectIdentifier) -> Bucket {
        let bits = UInt(bitPattern: type)
        return buckets[Int(truncatingIfNeeded: (bits >> 4) ^ (bits >> 10)) & 63]
    }

    /// The key of `name` for `T`, made on first use.
    package static func key<T>(_ type: T.Type, _ name: String) -> TypeKey {
        key(ObjectIdentifier(T.self), name)
    }

    /// The key of `name` for the type `type` identifies, made on first use.
    package static func key(_ type: ObjectIdentifier, _ name: String) -> TypeKey {
        (find(type, name) ?? add(type, name)).key
    }

    /// The key of `name` for `T` if any registration ever used it: a
    /// resolve of a name never registered makes nothing.
    @inlinable @inline(__always)
    package static func existingKey<T>(_ type: T.Type, _ name: String) -> TypeKey? {
        existingKey(ObjectIdentifier(T.self), name)
    }

    @usableFromInline
    package static func existingKey(_ type: ObjectIdentifier, _ name: String) -> TypeKey? {
        findKey(type, name)
    }

    /// Ordering, in C11 terms: `add` initialises a node with plain stores,
    /// then stores its address into the bucket's head with release. This
    /// load is an acquire, so reading that address synchronizes-with the
    /// store and the node's fields are visible; nodes further down were
    /// published by earlier release stores that the writer's own acquire of
    /// the head (under the lock that orders writers) placed before its
    /// store, so the chain from any head is visible (happens-before is
    /// transitive). A reader that loads an older head misses only the newest
    /// names, and `add` rechecks under the lock.
    private static func find(_ type: ObjectIdentifier, _ name: String) -> RegistrationName? {
        findKey(type, name).map { Unmanaged<RegistrationName>.fromOpaque(UnsafeRawPointer(bitPattern: $0)!).takeUnretainedValue() }
    }

    /// The key alone: the walk retains no node.
    private static func findKey(_ type: ObjectIdentifier, _ name: String) -> TypeKey? {
        var bits = bucket(of: type).head.load(ordering: .acquiring)
        while let raw = UnsafeRawPointer(bitPattern: bits) {
            let node = Unmanaged<RegistrationName>.fromOpaque(raw)
            let matches = node._withUnsafeGuaranteedRef { $0.type == type && $0.name == name }
            if matches { return bits }
            bits = node._withUnsafeGuaranteedRef { $0.next }
        }
        return nil
    }

    /// Runs between a lookup that missed and `add` taking its lock: a test
    /// holds the window open to make another thread add the name first.
    package static let afterMissForTesting = Locked<(@Sendable () -> Void)?>(nil)

    private static func add(_ type: ObjectIdentifier, _ name: String) -> RegistrationName {
        afterMissForTesting.withLock { $0 }?()
        return adding.withLock { _ in
            if let known = find(type, name) { return known }
            let bucket = bucket(of: type)
            let node = RegistrationName(type: type, name: name, next: bucket.head.load(ordering: .acquiring))
            // Retained for good: a key's object is never freed (see the type).
            _ = Unmanaged.passRetained(node)
            bucket.head.store(UInt(bitPattern: ObjectIdentifier(node)), ordering: .releasing)
            return node
        }
    }

    /// Every name ever used with `T`, oldest first; for messages.
    package static func all(of id: ObjectIdentifier) -> [RegistrationName] {
        var found: [RegistrationName] = []
        var bits = bucket(of: id).head.load(ordering: .acquiring)
        while let raw = UnsafeRawPointer(bitPattern: bits) {
            let node = Unmanaged<RegistrationName>.fromOpaque(raw).takeUnretainedValue()
            if node.type == id { found.append(node) }
            bits = node.next
        }
        return found.reversed()
    }

    /// The names of the type `id` identifies that a resolve from `registry`
    /// would find (from the live container when nil), sorted; for messages.
    package static func registeredNames(of id: ObjectIdentifier, in registry: Registry?) -> [String] {
        all(of: id).filter { node in
            if let registry { return registry.reaches(node.key) }
            guard let raw = weave_live_get(node.key) else { return false }
            Unmanaged<AnyRegistryEntry>.fromOpaque(raw).release()
            return true
        }.map(\.name).sorted()
    }

    /// How messages list names: `"primary", "replica"`, or `none`.
    package static func quoted(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// The registration name behind `key`, if it is a named key; for
    /// diagnostics that list a registry's keys.
    package static func named(_ key: TypeKey, type: Any.Type) -> RegistrationName? {
        let id = ObjectIdentifier(type)
        var bits = bucket(of: id).head.load(ordering: .acquiring)
        while let raw = UnsafeRawPointer(bitPattern: bits) {
            let node = Unmanaged<RegistrationName>.fromOpaque(raw).takeUnretainedValue()
            if node.key == key { return node }
            bits = node.next
        }
        return nil
    }

    /// How reports name the registration under `key` of `type`: the type's
    /// short name, and its name when it has one (`Database named "replica"`).
    /// An argument registration reads as `ItemViewModel taking (Int)`.
    package static func label(_ key: TypeKey, type: Any.Type) -> String {
        if let signature = type as? any ArgumentSignature.Type {
            return "\(typeName(signature.valueType)) taking \(signature.argumentsLabel)"
        }
        guard let named = named(key, type: type) else { return typeName(type) }
        return "\(typeName(type)) named \"\(named.name)\""
    }
}
