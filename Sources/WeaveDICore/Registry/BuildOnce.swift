import CWeaveRegistry

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// Where threads that resolve the same lazy instance at the same moment
/// wait while another builds it (`buildOnce`: the builder claims the holder
/// without coming here). It sees every wait, so a wait that would close a
/// loop (thread 1 builds A and needs B while thread 2 builds B and needs A)
/// is reported as a cycle instead of hanging.
@usableFromInline
final class BuildMonitor: @unchecked Sendable {
    @usableFromInline static let shared = BuildMonitor()

    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private let condition: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
    /// Which holder each waiting thread (by claim word) waits on; guarded by `mutex`.
    private var waiting: [UInt: InstanceHolder] = [:]

    private init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    @usableFromInline func lock() { pthread_mutex_lock(mutex) }
    @usableFromInline func unlock() { pthread_mutex_unlock(mutex) }
    @usableFromInline func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits for a change to any holder. Caller holds the lock.
    @usableFromInline func wait(for holder: InstanceHolder, as waiter: UInt) {
        waiting[waiter] = holder
        pthread_cond_wait(condition, mutex)
        waiting[waiter] = nil
    }

    /// The chain of types if `waiter` waiting on `holder` would never end.
    /// Caller holds the lock.
    @usableFromInline func deadlockChain(waiter: UInt, on holder: InstanceHolder, waiterStack: [Any.Type]) -> String? {
        var types: [Any.Type] = [holder.type]
        var current = holder
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

/// What every instance holder has: the instance's inline storage, its
/// type, and what the build protocol and the monitor need.
@usableFromInline
package class InstanceHolder: @unchecked Sendable {
    /// The instance, as `type` (`InlineValue`), for the holders that keep a
    /// strong one: written once, before `state` publishes it (a
    /// `PrebuiltEntry` writes its value here in `init` and never publishes
    /// it). First, so it sits two words into the object whatever else a
    /// holder keeps.
    @exclusivity(unchecked) @usableFromInline var storage = InlineValue.zero
    @usableFromInline package let type: Any.Type
    /// 0, or the claim word of the thread building the instance
    /// (`BuildChain.claimWord(of:)`), with `waitersFlag` set once a
    /// thread waits for it on the monitor.
    @usableFromInline let claim = PlatformAtomic<UInt>(0)
    @usableFromInline static let waitersFlag: UInt = 1
    /// A strong instance's publication: 0 empty, 2 while it is written, 1
    /// once it is there. Moves forward only, so an instance is written at
    /// most once (`beginPublishing`, `endPublishing`).
    @usableFromInline let state = PlatformAtomic<UInt8>(0)
    // Written once before publication: the dynamic exclusivity checks
    // would only cost time.
    /// Chain a scope's instances (`ScopedInstances`); set before the holder is
    /// published there. The holder is found by its registration's address:
    /// holding the registration for the scope's lifetime keeps a later one
    /// from being allocated at that address and finding this instance.
    @exclusivity(unchecked) @usableFromInline var scopeKey: TypeKey = 0
    @exclusivity(unchecked) @usableFromInline var scopeNext: UnsafeRawPointer?
    @exclusivity(unchecked) @usableFromInline var scopeRegistration: AnyRegistryEntry?
    /// Whether the instance in `storage` is one class reference, which
    /// `destroyInstance` releases directly instead of opening `type` for
    /// its value witnesses (a request scope destroys its instances on every
    /// request). Written with the instance, before `state` publishes it.
    @exclusivity(unchecked) @usableFromInline var holdsObject = false

    @usableFromInline init(type: Any.Type) {
        self.type = type
        // In release builds too: a field added before `storage` must stop
        // every build, not corrupt memory. The comparison is of two
        // addresses computed at compile time, so it costs next to nothing.
        precondition(storageAddress == withUnsafeMutablePointer(to: &storage) { UnsafeMutableRawPointer($0) })
    }

    /// How many words into the object `storage` is.
    @inlinable static var storageWord: Int { 2 }

    @inlinable @inline(__always)
    final var storageAddress: UnsafeMutableRawPointer {
        InlineValue.address(in: Unmanaged.passUnretained(self).toOpaque(), atWord: InstanceHolder.storageWord)
    }

    @inlinable @inline(__always)
    var isPublished: Bool { state.load(ordering: .acquiring) == 1 }

    /// Writes the instance into `storage`; between `beginPublishing` and
    /// `endPublishing`.
    @inlinable
    func initializeInstance<T>(_ value: T) {
        InlineValue.initialize(storageAddress, to: value)
        holdsObject = T.self is AnyObject.Type
    }

    /// Destroys the published instance; from a holder's `deinit`.
    final func destroyInstance() {
        if holdsObject {
            Unmanaged<AnyObject>.fromOpaque(storageAddress.load(as: UnsafeRawPointer.self)).release()
        } else {
            InlineValue.destroy(storageAddress, of: type)
        }
    }

    /// Whether the caller may write the instance: true for the first caller
    /// only. Another gets false once the first has finished writing, so it
    /// can read the published instance instead.
    @inlinable
    func beginPublishing() -> Bool {
        if state.compareExchange(expected: 0, desired: 2, ordering: .acquiring).exchanged {
            return true
        }
        while state.load(ordering: .acquiring) != 1 {}
        return false
    }

    @inlinable
    func endPublishing() {
        state.store(1, ordering: .releasing)
    }

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

/// The build protocol shared by every holder: the first caller claims the
/// holder with one compare-and-swap and builds, with no lock held, then
/// publishes and gives the claim back. Only a caller that finds the holder
/// claimed by another thread takes the monitor: it waits there, and the
/// monitor reports a wait that would close a loop as a cycle. A builder
/// takes the monitor only when a waiter flagged the claim, to wake it.
///
/// The rule that makes a build happen once: whoever wins the claim, by
/// either route, looks for a published instance again before building. A
/// thread that saw "not built" may find the claim free only because the
/// builder has just published and let go. `publish` itself refuses a second
/// instance (the holder's state moves 0 -> 2 -> 1 once), so even a protocol
/// fault could not overwrite an instance other threads are reading. The
/// protocol is modelled in IntegrationTests/Models/build_once.pml and each
/// of its windows is forced by a test (`BuildWindow`, BuildWindowTests).
///
/// Why a claim and not the monitor for every build: a `.task` instance is
/// built in every request, and a process-wide mutex taken twice per build
/// was paid by every request and contended between request threads, while
/// two threads building one holder at once is rare (a singleton's first
/// resolve, a request's child tasks).
///
/// `publish` says whether it published the instance built (false when
/// one was published first, which `current` then reads) and returns a weak
/// box it replaced, released here after a grace period.
@inlinable
func buildOnce<T>(
    _ holder: InstanceHolder,
    current: () -> T?,
    publish: (T) -> (mine: Bool, replaced: UnsafeRawPointer?),
    build: () throws(DIError) -> T
) throws(DIError) -> T {
    if let value = current() {
        return value
    }
    #if WEAVE_STRESS_HOOKS
    BuildHooks.reached(.afterFirstLook, holder)
    #endif
    // The thread keeps its context alive: read it without retaining it.
    let context = BuildChain.currentUnmanaged
    let me = BuildChain.claimWord(of: context)
    var claimed = holder.claim.compareExchange(expected: 0, desired: me, ordering: .acquiringAndReleasing).exchanged
    if !claimed {
        #if WEAVE_STRESS_HOOKS
        BuildHooks.reached(.afterLostClaim, holder)
        #endif
        let monitor = BuildMonitor.shared
        monitor.lock()
        while true {
            if let value = current() {
                monitor.unlock()
                return value
            }
            #if WEAVE_STRESS_HOOKS
            BuildHooks.reached(.afterMonitorRecheck, holder)
            #endif
            let word = holder.claim.load(ordering: .acquiring)
            if word == 0 {
                if holder.claim.compareExchange(expected: 0, desired: me, ordering: .acquiringAndReleasing).exchanged {
                    claimed = true
                    break
                }
                continue
            }
            if word & ~InstanceHolder.waitersFlag == me {
                break  // this thread's own build, re-entered: build without publishing
            }
            let stack = context._withUnsafeGuaranteedRef { $0.types }
            if let chain = monitor.deadlockChain(waiter: me, on: holder, waiterStack: stack) {
                monitor.unlock()
                context._withUnsafeGuaranteedRef { if $0.cycle == nil { $0.cycle = chain } }
                throw .circularDependency(chain: chain)
            }
            // Flag the claim before waiting: the builder then takes the
            // monitor to wake us, which it cannot do before we wait.
            if word & InstanceHolder.waitersFlag == 0
                && !holder.claim.compareExchange(
                    expected: word, desired: word | InstanceHolder.waitersFlag, ordering: .acquiringAndReleasing
                ).exchanged
            {
                continue
            }
            #if WEAVE_STRESS_HOOKS
            BuildHooks.reached(.beforeWait, holder)
            #endif
            monitor.wait(for: holder, as: me)
        }
        monitor.unlock()
    }
    if claimed {
        #if WEAVE_STRESS_HOOKS
        BuildHooks.reached(.afterClaimWon, holder)
        #endif
        // Published between this thread's last look and its claim.
        if let value = current() {
            holder.releaseClaim(me)
            return value
        }
    }

    // No `Result` here (architecture: No generic metadata per type).
    let value: T
    do throws(DIError) {
        value = try build()
    } catch {
        if claimed {
            #if WEAVE_STRESS_HOOKS
            BuildHooks.reached(.beforePublish, holder)
            BuildHooks.reached(.afterPublish, holder)
            #endif
            holder.releaseClaim(me)
        }
        throw error
    }

    guard claimed else { return value }
    #if WEAVE_STRESS_HOOKS
    BuildHooks.reached(.beforePublish, holder)
    #endif
    let (mine, replaced) = publish(value)
    #if WEAVE_STRESS_HOOKS
    BuildHooks.reached(.afterPublish, holder)
    #endif
    holder.releaseClaim(me)
    if let replaced {
        weave_defer_release(UnsafeMutableRawPointer(mutating: replaced))
    }
    // The value built, returned as it is (the holder stored a copy), unless
    // `publish` refused it for one published first.
    return mine ? value : current().unsafelyUnwrapped
}
