import CWeaveRegistry

/// Counts the override scopes (and container overlays) alive anywhere in
/// the process, in the C read-mode word (`weave_read_mode`): one inline load
/// on every read instead of a Swift global's accessor call. While the count
/// is zero, a read can skip the task-local lookup entirely.
@usableFromInline
enum OverrideScopes {
    @inlinable @inline(__always)
    static var noneActive: Bool { weave_read_mode() < WEAVE_READ_MODE_ONE_SCOPE }

    /// The scopes alive now.
    static var count: Int { Int(weave_read_mode() / WEAVE_READ_MODE_ONE_SCOPE) }

    static func began() { weave_read_mode_scope_began() }
    static func ended() { weave_read_mode_scope_ended() }
}

/// Whether the current task is inside a `withInjectedValues` scope or a
/// container overlay. While scopes exist elsewhere but not here, a read may
/// still use `@Injected`'s shared cache: what it reads is what every task
/// without a scope reads.
@usableFromInline
enum InjectionScopes {
    @TaskLocal static var active = false

    @usableFromInline @inline(never)
    static func currentTaskIsScoped() -> Bool {
        active
    }

    /// Whether a read may use the shared slot cache: the task is outside
    /// every override scope and overlay (so it reads what every such task
    /// reads), and optimization is on. The task-local is asked only while
    /// some scope exists somewhere.
    @inlinable @inline(__always)
    static var sharedCacheUsable: Bool {
        let mode = weave_read_mode()
        return mode == 0 || (mode & WEAVE_READ_MODE_BASELINE == 0 && !currentTaskIsScoped())
    }
}

/// Held by every `InjectedValues` made inside `withInjectedValues`, so the
/// count stays up as long as any task (child or unstructured) can still read
/// those overrides, not just until the scope's closure returns.
final class OverrideScopeToken: Sendable {
    init() { OverrideScopes.began() }
    deinit { OverrideScopes.ended() }
}
