import CWeaveRegistry
import Synchronization

/// Where a lazy singleton, weak or task-scoped instance lives once built.
/// Reads take no lock: a strong instance is written once, then published by
/// `state`; a weak one sits in an immutable box that a rebuild replaces.
/// Only building (the first resolve, or a weak rebuild) goes through
/// `BuildMonitor`, which makes concurrent first resolves build once.
@usableFromInline
final class InstanceSlot<T>: SlotBase, @unchecked Sendable {
    @usableFromInline let holdsWeakly: Bool
    /// 0 empty, 2 while `strong` is written, 1 once it holds the instance;
    /// moves forward only, so `strong` is written at most once.
    @usableFromInline let state = Atomic<UInt8>(0)
    @exclusivity(unchecked) @usableFromInline var strong: T?
    /// A retained `WeakBox`; read inside a read section only, since a
    /// rebuild replaces it and releases the old one after a grace period.
    @usableFromInline let weakBox = Atomic<UnsafeRawPointer?>(nil)
    /// When the strong instance was built (`BuildOrder`), for shutdown
    /// order; written before `state` publishes the instance.
    @exclusivity(unchecked) @usableFromInline var builtOrder: UInt64 = 0

    @usableFromInline init(weak: Bool) {
        self.holdsWeakly = weak
        super.init(type: T.self)
    }

    deinit {
        if let raw = weakBox.load(ordering: .acquiring) {
            Unmanaged<WeakBox>.fromOpaque(raw).release()
        }
    }

    /// The built strong instance, if any.
    @inlinable @inline(__always)
    var built: T? {
        state.load(ordering: .acquiring) == 1 ? strong : nil
    }

    /// The weak instance while it is alive. Call inside a read section.
    @usableFromInline
    func aliveWeak() -> T? {
        guard let raw = weakBox.load(ordering: .acquiring) else { return nil }
        return Unmanaged<WeakBox>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.object } as? T
    }

    @inlinable
    func current() -> T? {
        guard holdsWeakly else { return built }
        weave_read_begin()
        defer { weave_read_end() }
        return aliveWeak()
    }

    /// Returns the shared instance, building it exactly once even when many
    /// threads ask at the same moment. The factory runs with no lock held.
    @inlinable
    func getOrBuild(_ build: () throws(DIError) -> T) throws(DIError) -> T {
        try buildOnce(self, current: current, publish: publish, build: build)
    }

    /// Publishes `value`, or, if an instance is published already, keeps
    /// that one: a strong instance is published once (`state` 0 -> 2 -> 1),
    /// so one that other threads read is never overwritten. Returns the
    /// instance now published, and the weak box this replaced, for release
    /// after a grace period (a weak rebuild replaces the dead instance's box).
    @inlinable
    func publish(_ value: T) -> (T, UnsafeRawPointer?) {
        if holdsWeakly {
            let box = UnsafeRawPointer(Unmanaged.passRetained(WeakBox(value as AnyObject)).toOpaque())
            return (value, weakBox.exchange(box, ordering: .acquiringAndReleasing))
        }
        guard state.compareExchange(expected: 0, desired: 2, ordering: .acquiring).exchanged else {
            return (publishedByAnother(), nil)
        }
        strong = value
        builtOrder = BuildOrder.next()
        state.store(1, ordering: .releasing)
        return (value, nil)
    }

    /// The instance another publish wrote (or is writing: it is two stores away).
    @usableFromInline
    func publishedByAnother() -> T {
        while state.load(ordering: .acquiring) != 1 {}
        return strong!
    }
}

/// A scope's instance of one registration (a `.task` instance, or a
/// singleton first built inside an override scope or overlay). Not generic,
/// so making and destroying one per request costs no runtime
/// generic-metadata lookup (a generic class's allocation and deinit do);
/// reading it back pays a cast.
@usableFromInline
final class ScopedInstance: SlotBase, @unchecked Sendable {
    /// 0 empty, 2 while `value` is written, 1 once it holds the instance;
    /// moves forward only, so `value` is written at most once.
    @usableFromInline let state = Atomic<UInt8>(0)
    @exclusivity(unchecked) @usableFromInline var value: Any?

    /// The instance, if built.
    @inlinable
    func built<T>(as type: T.Type) -> T? {
        state.load(ordering: .acquiring) == 1 ? (value as! T) : nil
    }

    @inlinable
    func getOrBuild<T>(_ build: () throws(DIError) -> T) throws(DIError) -> T {
        try buildOnce(
            self,
            current: { state.load(ordering: .acquiring) == 1 ? (value as! T) : nil },
            publish: { built in
                guard state.compareExchange(expected: 0, desired: 2, ordering: .acquiring).exchanged else {
                    while state.load(ordering: .acquiring) != 1 {}
                    return (value as! T, nil)
                }
                value = built
                state.store(1, ordering: .releasing)
                return (built, nil)
            },
            build: build)
    }
}

/// The build protocol shared by every slot: the first caller claims the
/// slot with one compare-and-swap and builds, with no lock held, then
/// publishes and gives the claim back. Only a caller that finds the slot
/// claimed by another thread takes the monitor: it waits there, and the
/// monitor reports a wait that would close a loop as a cycle. A builder
/// takes the monitor only when a waiter flagged the claim, to wake it.
///
/// The rule that makes a build happen once: whoever wins the claim, by
/// either route, looks for a published instance again before building. A
/// thread that saw "not built" may find the claim free only because the
/// builder has just published and let go. `publish` itself refuses a second
/// instance (the slot's state moves 0 -> 2 -> 1 once), so even a protocol
/// fault could not overwrite an instance other threads are reading. The
/// protocol is modelled in IntegrationTests/Models/build_once.pml and each
/// of its windows is forced by a test (`BuildWindow`, BuildWindowTests).
///
/// Why a claim and not the monitor for every build: a `.task` instance is
/// built in every request, and a process-wide mutex taken twice per build
/// was paid by every request and contended between request threads, while
/// two threads building one slot at once is rare (a singleton's first
/// resolve, a request's child tasks).
///
/// `publish` returns the instance now published (the one built, or one
/// published first) and a weak box it replaced, released here after a
/// grace period.
@inlinable
func buildOnce<T>(
    _ slot: SlotBase,
    current: () -> T?,
    publish: (T) -> (T, UnsafeRawPointer?),
    build: () throws(DIError) -> T
) throws(DIError) -> T {
    if let value = current() {
        return value
    }
    #if WEAVE_STRESS_HOOKS
    BuildHooks.reached(.afterFirstLook, slot)
    #endif
    let context = ResolutionContext.current
    let me = context.claimWord
    var claimed = slot.claim.compareExchange(expected: 0, desired: me, ordering: .acquiringAndReleasing).exchanged
    if !claimed {
        #if WEAVE_STRESS_HOOKS
        BuildHooks.reached(.afterLostClaim, slot)
        #endif
        let monitor = BuildMonitor.shared
        monitor.lock()
        while true {
            if let value = current() {
                monitor.unlock()
                return value
            }
            #if WEAVE_STRESS_HOOKS
            BuildHooks.reached(.afterMonitorRecheck, slot)
            #endif
            let word = slot.claim.load(ordering: .acquiring)
            if word == 0 {
                if slot.claim.compareExchange(expected: 0, desired: me, ordering: .acquiringAndReleasing).exchanged {
                    claimed = true
                    break
                }
                continue
            }
            if word & ~SlotBase.waitersFlag == me {
                break  // this thread's own build, re-entered: build without publishing
            }
            if let chain = monitor.deadlockChain(waiter: me, on: slot, waiterStack: context.types) {
                monitor.unlock()
                if context.cycle == nil { context.cycle = chain }
                throw .circularDependency(chain: chain)
            }
            // Flag the claim before waiting: the builder then takes the
            // monitor to wake us, which it cannot do before we wait.
            if word & SlotBase.waitersFlag == 0
                && !slot.claim.compareExchange(
                    expected: word, desired: word | SlotBase.waitersFlag, ordering: .acquiringAndReleasing
                ).exchanged
            {
                continue
            }
            #if WEAVE_STRESS_HOOKS
            BuildHooks.reached(.beforeWait, slot)
            #endif
            monitor.wait(for: slot, as: me)
        }
        monitor.unlock()
    }
    if claimed {
        #if WEAVE_STRESS_HOOKS
        BuildHooks.reached(.afterClaimWon, slot)
        #endif
        // Published between this thread's last look and its claim.
        if let value = current() {
            slot.releaseClaim(me)
            return value
        }
    }

    let result: Result<T, DIError>
    do throws(DIError) {
        result = .success(try build())
    } catch {
        result = .failure(error)
    }

    guard claimed else { return try result.get() }
    #if WEAVE_STRESS_HOOKS
    BuildHooks.reached(.beforePublish, slot)
    #endif
    var outcome = result
    var replaced: UnsafeRawPointer?
    if case .success(let value) = result {
        let (published, previous) = publish(value)
        outcome = .success(published)
        replaced = previous
    }
    #if WEAVE_STRESS_HOOKS
    BuildHooks.reached(.afterPublish, slot)
    #endif
    slot.releaseClaim(me)
    if let replaced {
        weave_defer_release(UnsafeMutableRawPointer(mutating: replaced))
    }
    return try outcome.get()
}

/// A process-wide sequence: an instance built later gets a larger number.
/// A singleton's dependencies finish building before it does, so shutting
/// down in descending order is reverse dependency order.
@usableFromInline
enum BuildOrder {
    @usableFromInline static let counter = Atomic<UInt64>(0)

    @inlinable
    static func next() -> UInt64 {
        counter.add(1, ordering: .relaxed).newValue
    }
}

/// A weak reference that never changes once made.
@usableFromInline
final class WeakBox: @unchecked Sendable {
    @usableFromInline weak var object: AnyObject?

    @usableFromInline init(_ object: AnyObject) { self.object = object }
}
