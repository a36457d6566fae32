import CWeaveRegistry

/// Counts the override scopes (and container overlays) alive anywhere in
/// the process, in the C read-mode word (`weave_read_mode`): one inline load
/// on every read instead of a Swift global's accessor call. While the count
/// is zero, a read can skip the task-local lookup entirely.
@usableFromInline
package enum OverrideScopes {
    @inlinable @inline(__always)
    package static var noneActive: Bool { weave_read_mode() < WEAVE_READ_MODE_ONE_SCOPE }

    /// The scopes alive now (overlays included).
    static var count: Int { Int((weave_read_mode() % WEAVE_READ_MODE_ONE_OVERLAY) / WEAVE_READ_MODE_ONE_SCOPE) }

    static func began() { weave_read_mode_scope_began() }
    static func ended() { weave_read_mode_scope_ended() }
}

/// The current task's innermost `withInjectedValues` scope or container
/// overlay, if any.
///
/// While scopes exist elsewhere but not here, a read may still use
/// `@Injected`'s shared cache: what it reads is what every task without a
/// scope reads.
///
/// The rule for what is built inside a scope: a singleton or weak instance
/// that is not built yet when a task inside a scope reaches it is built
/// for that scope and kept by it (`ScopedInstances`), not by its
/// registration: its factory may read the scope's overrides or the
/// overlay's registrations, and such an instance must not outlive the scope
/// or reach another one. It is shared inside the scope (and its child
/// tasks) and released with it. An instance built before, outside every
/// scope, is the one read inside, unless the scope has one of its own: then
/// the scope's stays, even once another task builds the live one. An
/// overlay's own registrations keep their instances themselves (they die
/// with the overlay anyway), except one first reached inside a scope nested
/// in the overlay, which that inner scope keeps.
extension OverrideScopes {
    @TaskLocal static var active = false

    @usableFromInline @inline(never)
    static func currentTaskIsScoped() -> Bool {
        active
    }

    /// The current task's innermost override scope or overlay: of its
    /// innermost overlay and its innermost `withInjectedValues` scope, the
    /// one that began later (`ScopedInstances.order`).
    static var innermost: ScopedInstances? {
        later(ContainerOverlays.current, InjectedValues.task.innermostScope)
    }

    /// Of two scopes a task is in, the inner: the one that began later.
    static func later(_ overlay: ScopedInstances?, _ override: ScopedInstances?) -> ScopedInstances? {
        if let overlay, let override {
            return overlay.order > override.order ? overlay : override
        }
        return overlay ?? override
    }

    /// Whether the current task is outside every override scope and
    /// overlay; the task-local is asked only while some scope exists.
    @inlinable @inline(__always)
    static var taskIsUnscoped: Bool {
        OverrideScopes.noneActive || !currentTaskIsScoped()
    }

    /// The scope that keeps what `entry` builds now: the task's innermost
    /// scope, unless `entry` is that overlay's own registration. Nil outside
    /// every scope.
    @usableFromInline @inline(never)
    static func keeper(of entry: AnyRegistryEntry) -> ScopedInstances? {
        guard let scope = innermost, !scope.owns(entry) else { return nil }
        return scope
    }
}

/// Held by every `InjectedValues` made inside `withInjectedValues`, so the
/// count stays up as long as any task (child or unstructured) can still read
/// those overrides, not just until the scope's closure returns. It keeps the
/// instances built inside the scope.
final class OverrideScopeToken: ScopedInstances, @unchecked Sendable {
    init(enclosing: OverrideScopeToken?) {
        super.init(owning: nil, enclosingOverride: enclosing)
        OverrideScopes.began()
    }

    deinit { OverrideScopes.ended() }
}
