#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

#if WEAVE_STRESS_HOOKS

/// The points of the build protocol (`buildOnce`) where another thread's
/// step changes the outcome. Debug builds only (`WEAVE_STRESS_HOOKS`, set
/// for the debug configuration in Package.swift): a test installs a hook,
/// stops one thread at a window, runs another, and asserts the result, so
/// each interleaving is forced instead of sampled.
@usableFromInline
enum BuildWindow: CaseIterable, Sendable {
    /// `current()` said "not built"; the claim is not tried yet.
    case afterFirstLook
    /// The claim was taken by another thread; the monitor is not taken yet.
    case afterLostClaim
    /// In the monitor loop, `current()` said "not built"; the claim word is
    /// not loaded yet. The monitor is held.
    case afterMonitorRecheck
    /// About to wait on the monitor for the builder. The monitor is held.
    case beforeWait
    /// The claim is won, by either route; the re-check is next.
    case afterClaimWon
    /// Built; not published yet. The claim is held.
    case beforePublish
    /// Published; the claim is not given back yet.
    case afterPublish
}

/// The hook a test installs. Called with the window and the holder's type.
@usableFromInline
enum BuildHooks {
    private static let installed = Locked<(@Sendable (BuildWindow, Any.Type) -> Void)?>(nil)
    /// Spares every other build of the debug run the lock.
    private static let any = PlatformAtomic<Bool>(false)

    static func install(_ hook: (@Sendable (BuildWindow, Any.Type) -> Void)?) {
        installed.withLock { $0 = hook }
        any.store(hook != nil, ordering: .sequentiallyConsistent)
    }

    @usableFromInline
    static func reached(_ window: BuildWindow, _ holder: InstanceHolder) {
        if any.load(ordering: .sequentiallyConsistent), let hook = installed.withLock({ $0 }) {
            hook(window, holder.type)
        }
    }
}
#endif
