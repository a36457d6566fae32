import CWeaveRegistry

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The registries whose container ever held a registration: where the
/// near-miss search looks for a type registered out of a resolve's reach,
/// and what `childContainerCount()` counts. A registry is noted once, at its
/// container's first registration (`Registry.noteOnce()`), and leaves in its
/// `deinit`; containers made and dropped without registrations cost nothing
/// here.
///
/// The table is split into `shardCount` shards, each a locked dictionary
/// picked by the registry's address, holding unretained references: a
/// per-request child container that registers takes one shard's lock at its
/// first registration and once more in its deinit, which two requests on two
/// threads rarely share, and no weak reference is formed (a weak reference
/// gives its object a side table for good, an allocation, and every retain
/// and release of it then takes the runtime's slow path).
///
/// Why a reader never touches freed memory: a noted registry's `deinit`
/// removes it from its shard, under that shard's lock, as its first
/// statement, before any stored property is destroyed and before its memory
/// is freed (both happen after the deinit's body). So a registry found in a
/// shard while that shard's lock is held is either alive or blocked in its
/// deinit on that lock, its memory intact until the lock is released.
/// `alive()` takes a strong reference to each under the lock with the
/// runtime's `swift_tryRetain`, which fails on an object already deiniting
/// (the release that reached zero marked it so in the same atomic step):
/// such a registry is skipped, a dying container being no longer worth
/// naming. A reference taken is the caller's, valid after the lock. An
/// address is in a shard for one registry at a time: a registry leaves
/// before its memory can be reused.
///
/// Why no deadlock: a shard's lock is held only to insert, to remove, or to
/// try-retain and collect; no code holds two shard locks, and nothing under
/// one releases a reference (a release there could be a registry's last:
/// its deinit would wait on that very lock; this is also why a balanced
/// retain and release under the lock would not do, as another thread may
/// drop its reference in between). The references collected are dropped by
/// the caller after the lock, where a last one runs the deinit.
enum NotedRegistries {
    /// A power of two.
    static let shardCount = 64

    private static let shards = Shards(count: shardCount)

    private static func shard(of id: ObjectIdentifier) -> Int {
        // Allocations are 16-byte aligned: the bits above, mixed.
        let address = UInt(bitPattern: id)
        let mixed = (address >> 4) ^ (address >> 10) ^ (address >> 16)
        return Int(mixed & UInt(shardCount - 1))
    }

    static func insert(_ registry: Registry) {
        let id = ObjectIdentifier(registry)
        let unretained = Unmanaged.passUnretained(registry)
        shards.withLock(shard(of: id)) { $0[id] = unretained }
    }

    /// Called by the registry's deinit only.
    static func remove(_ id: ObjectIdentifier) {
        shards.withLock(shard(of: id)) { $0[id] = nil }
    }

    /// Strong references to every noted registry not already deiniting,
    /// taken under the shard locks; the caller drops them, under no shard
    /// lock. `visit` (tests only) runs under the lock before each try.
    static func alive(visiting visit: ((ObjectIdentifier) -> Void)? = nil) -> [Registry] {
        var alive: [Registry] = []
        for shard in 0..<shardCount {
            shards.withLock(shard) { table in
                for (id, unretained) in table {
                    visit?(id)
                    if swift_tryRetain(unretained.toOpaque()) != nil {
                        alive.append(unretained.takeRetainedValue())
                    }
                }
            }
        }
        return alive
    }
}

/// The shards: `count` pthread mutexes (seen by ThreadSanitizer, as
/// `Locked`'s are) and their tables, in two allocations made once, so the
/// table's first use costs three allocations however many shards there are.
private final class Shards: @unchecked Sendable {
    private let mutexes: UnsafeMutablePointer<pthread_mutex_t>
    private let tables: UnsafeMutablePointer<[ObjectIdentifier: Unmanaged<Registry>]>

    init(count: Int) {
        mutexes = .allocate(capacity: count)
        tables = .allocate(capacity: count)
        for index in 0..<count {
            (mutexes + index).initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutexes + index, nil)
            (tables + index).initialize(to: [:])
        }
    }

    func withLock<R>(_ index: Int, _ body: (inout [ObjectIdentifier: Unmanaged<Registry>]) -> R) -> R {
        pthread_mutex_lock(mutexes + index)
        defer { pthread_mutex_unlock(mutexes + index) }
        return body(&tables[index])
    }
}
