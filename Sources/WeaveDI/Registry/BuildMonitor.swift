#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Coordinates threads that resolve the same lazy instance at the same
/// moment: one builds, the others wait. It also sees every wait, so a wait
/// that would close a loop (thread 1 builds A and needs B while thread 2
/// builds B and needs A) is reported as a cycle instead of hanging.
/// Only builds come here: the first resolve of a lazy singleton, of a weak
/// instance (and each rebuild after it died), and of a `.task` instance in
/// each task scope.
@usableFromInline
final class BuildMonitor: @unchecked Sendable {
    @usableFromInline static let shared = BuildMonitor()

    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private let condition: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
    /// Which slot each waiting thread waits on; guarded by `mutex`.
    private var waiting: [ObjectIdentifier: SlotBase] = [:]

    private init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    @usableFromInline func lock() { pthread_mutex_lock(mutex) }
    @usableFromInline func unlock() { pthread_mutex_unlock(mutex) }
    @usableFromInline func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits for a change to any slot. Caller holds the lock.
    @usableFromInline func wait(for slot: SlotBase, as waiter: ObjectIdentifier) {
        waiting[waiter] = slot
        pthread_cond_wait(condition, mutex)
        waiting[waiter] = nil
    }

    /// The chain of types if `waiter` waiting on `slot` would never end.
    /// Caller holds the lock.
    @usableFromInline func deadlockChain(waiter: ObjectIdentifier, on slot: SlotBase, waiterStack: [Any.Type]) -> String? {
        var types: [Any.Type] = [slot.type]
        var current = slot
        var steps = 0
        while let owner = current.builder, steps < 1_024 {
            if owner == waiter {
                let lead = waiterStack.last.map { [$0] } ?? []
                return (lead + types).map(typeName).joined(separator: " -> ")
            }
            guard let next = waiting[owner] else { return nil }
            types.append(next.type)
            current = next
            steps += 1
        }
        return nil
    }
}

/// The part of an instance slot the monitor needs, free of the generic type.
@usableFromInline
class SlotBase: @unchecked Sendable {
    @usableFromInline let type: Any.Type
    // Guarded by the monitor, or written once before publication: the
    // dynamic exclusivity checks would only cost time.
    /// The thread context building the instance; guarded by the monitor.
    @exclusivity(unchecked) @usableFromInline var builder: ObjectIdentifier?
    /// Chains a task scope's slots; set before the slot is published there.
    @exclusivity(unchecked) @usableFromInline var scopeKey: TypeKey = 0
    @exclusivity(unchecked) @usableFromInline var scopeNext: UnsafeRawPointer?

    @usableFromInline init(type: Any.Type) { self.type = type }
}
