import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where threads that resolve the same lazy instance at the same moment
/// wait while another builds it (`buildOnce`: the builder claims the slot
/// without coming here). It sees every wait, so a wait that would close a
/// loop (thread 1 builds A and needs B while thread 2 builds B and needs A)
/// is reported as a cycle instead of hanging.
@usableFromInline
final class BuildMonitor: @unchecked Sendable {
    @usableFromInline static let shared = BuildMonitor()

    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private let condition: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
    /// Which slot each waiting thread (by claim word) waits on; guarded by `mutex`.
    private var waiting: [UInt: SlotBase] = [:]

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
    @usableFromInline func wait(for slot: SlotBase, as waiter: UInt) {
        waiting[waiter] = slot
        pthread_cond_wait(condition, mutex)
        waiting[waiter] = nil
    }

    /// The chain of types if `waiter` waiting on `slot` would never end.
    /// Caller holds the lock.
    @usableFromInline func deadlockChain(waiter: UInt, on slot: SlotBase, waiterStack: [Any.Type]) -> String? {
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
    /// 0, or the claim word of the thread building the instance
    /// (`ResolutionContext.claimWord`), with `waitersFlag` set once a
    /// thread waits for it on the monitor.
    @usableFromInline let claim = Atomic<UInt>(0)
    @usableFromInline static let waitersFlag: UInt = 1
    // Written once before publication: the dynamic exclusivity checks
    // would only cost time.
    /// Chain a scope's instances (`ScopedInstances`); set before the slot is
    /// published there. The slot is found by its registration's address:
    /// holding the registration for the scope's lifetime keeps a later one
    /// from being allocated at that address and finding this instance.
    @exclusivity(unchecked) @usableFromInline var scopeKey: TypeKey = 0
    @exclusivity(unchecked) @usableFromInline var scopeNext: UnsafeRawPointer?
    @exclusivity(unchecked) @usableFromInline var scopeRegistration: AnyRegistryEntry?

    @usableFromInline init(type: Any.Type) { self.type = type }

    /// The claim word of the thread building the instance, if any.
    @usableFromInline var builder: UInt? {
        let word = claim.load(ordering: .acquiring) & ~Self.waitersFlag
        return word == 0 ? nil : word
    }

    /// Ends `owner`'s build: waiters, if any flagged the claim, are woken
    /// under the monitor, where they cannot miss it.
    @inlinable
    func releaseClaim(_ owner: UInt) {
        if claim.compareExchange(expected: owner, desired: 0, ordering: .acquiringAndReleasing).exchanged {
            return
        }
        let monitor = BuildMonitor.shared
        monitor.lock()
        claim.store(0, ordering: .releasing)
        monitor.broadcast()
        monitor.unlock()
    }
}
