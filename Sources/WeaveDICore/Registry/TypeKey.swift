#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// The registry key of a type: the bits of its `ObjectIdentifier`. Used raw
/// (not through `hashValue`, which is seeded per process) so C can hash it.
@usableFromInline
package typealias TypeKey = UInt

/// The key is `T`'s, not the metatype value's: `register(t) { ... }` with
/// `let t: Base.Type = Sub.self` registers a factory of `Base`, which a
/// resolve of `Sub` must never find (it would hand out a `Base` as a `Sub`).
/// An `Any.Type` passed here is opened, so its key is its dynamic type's.
@inlinable @inline(__always)
package func typeKey<T>(_ type: T.Type) -> TypeKey {
    UInt(bitPattern: ObjectIdentifier(T.self))
}

/// A type's short name (`String(describing:)`), the spelling of the names
/// in `DIError`'s and the validation report's payloads (upstream WeaveDI's
/// spelling, which code matches on). Notes the type's qualified name, so a
/// message built later from the short one can print it in full.
@usableFromInline package func typeName(_ type: Any.Type) -> String {
    TypeNames.known(type) ?? TypeNames.add(type)
}

/// A type's name in full, as messages print it: `String(reflecting:)`
/// (module and nesting included, "App.Billing.Cache"), without the
/// "(unknown context at $…)" that spells a private or local type's scope
/// by its address, which reads as noise and differs from run to run.
package func qualifiedTypeName(_ type: Any.Type) -> String {
    var full = String(reflecting: type)
    while let start = full.firstOccurrence(of: "(unknown context at $"),
        let end = full[start.upperBound...].firstOccurrence(of: ").")
    {
        full.removeSubrange(start.lowerBound..<end.upperBound)
    }
    return full
}

/// The types behind each short name taken, for the qualified names
/// (`qualifiedTypeName`: module and nesting included) messages print, so two
/// types read apart while payloads keep the short names. Off the read path:
/// names are taken for registrations' diagnostics, builds and failures.
enum TypeNames {
    /// Short name -> the types seen with it. The qualified names are made
    /// only when a message asks (a miss that no one prints pays a lookup).
    private static let seen = Locked<[String: [Any.Type]]>([:])

    /// One type's short name, in a list of the names taken whose hash
    /// falls in one bucket. Immutable once published and never freed, so a
    /// reader that reached it through any head, old or new, reads it safely.
    private final class Known {
        let type: ObjectIdentifier
        let name: String
        /// The node that was the bucket's head when this one was added, as
        /// bits (0: none).
        let next: UInt

        init(type: ObjectIdentifier, name: String, next: UInt) {
            self.type = type
            self.name = name
            self.next = next
        }
    }

    private final class Bucket: Sendable {
        let head = PlatformAtomic<UInt>(0)
    }

    /// Every miss and every transient async build names its type: read
    /// with no lock once the name is known (a set of types fixed by the
    /// program, so the lists stay short and are never pruned).
    private static let buckets: [Bucket] = (0..<256).map { _ in Bucket() }

    private static func bucket(of type: ObjectIdentifier) -> Bucket {
        let bits = UInt(bitPattern: type)
        return buckets[Int(truncatingIfNeeded: (bits >> 4) ^ (bits >> 12)) & 255]
    }

    /// The short name of a type already named, or nil, without a lock.
    ///
    /// Ordering, in C11 terms: `add` initialises a node (plain stores), then
    /// stores its address into the bucket's head with release; this load is
    /// an acquire, so reading that address synchronizes-with the store and
    /// the node's fields are visible. Nodes further down were published by
    /// earlier release stores that the writer's own acquire of the head (and
    /// the lock ordering writers) placed before its store, so the chain
    /// down from any head is visible too (release sequences and
    /// happens-before are transitive). A reader that loads an older head
    /// only misses the newest names and takes `add`'s lock, which rechecks.
    static func known(_ type: Any.Type) -> String? {
        let id = ObjectIdentifier(type)
        var bits = bucket(of: id).head.load(ordering: .acquiring)
        while let raw = UnsafeRawPointer(bitPattern: bits) {
            let node = Unmanaged<Known>.fromOpaque(raw)
            if let name = node._withUnsafeGuaranteedRef({ $0.type == id ? $0.name : nil }) {
                return name
            }
            bits = node._withUnsafeGuaranteedRef { $0.next }
        }
        return nil
    }

    /// Names a type for the first time: under the lock, which orders
    /// writers and notes the type for its qualified name.
    static func add(_ type: Any.Type) -> String {
        let short = String(describing: type)
        let id = ObjectIdentifier(type)
        let bucket = bucket(of: id)
        return seen.withLock { seen in
            if let name = known(type) { return name }
            if seen[short]?.contains(where: { $0 == type }) != true {
                seen[short, default: []].append(type)
            }
            let head = bucket.head.load(ordering: .acquiring)
            let node = Known(type: id, name: short, next: head)
            // Retained for good: nodes are never freed (see `known`).
            let bits = UInt(bitPattern: Unmanaged.passRetained(node).toOpaque())
            bucket.head.store(bits, ordering: .releasing)
            return short
        }
    }

    /// The qualified name for a short one: the one type seen with that name,
    /// or all of them when several were ("Cache (App.Cache or Billing.Cache)"),
    /// or the short name when none was seen.
    static func qualified(_ short: String) -> String {
        // Private types of one name in one module read alike here: the
        // payload cannot say which was meant, and their contexts' addresses
        // would only add noise. (A near miss, which has the types, tells
        // them apart.)
        let all = Set(seen.withLock { $0[short] ?? [] }.map(qualifiedTypeName)).sorted()
        switch all.count {
        case 0: return short
        case 1: return all[0]
        default: return "\(short) (\(all.joined(separator: " or ")))"
        }
    }

    /// A chain of short names ("A -> B -> A"), each name qualified; the
    /// suffix a too-deep chain ends with (" (deeper than 256)") is kept.
    static func qualifiedChain(_ chain: String) -> String {
        chain.pieces(separatedBy: " -> ").map { link in
            if let range = link.firstOccurrence(of: " (deeper than ") {
                return qualified(String(link[..<range.lowerBound])) + link[range.lowerBound...]
            }
            return qualified(link)
        }.joined(separator: " -> ")
    }

    static func qualified(_ names: [String]) -> [String] { names.map(qualified) }
}
