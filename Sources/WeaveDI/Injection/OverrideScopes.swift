import Synchronization

/// Counts the override scopes alive anywhere in the process. While it is
/// zero, a read can skip the task-local lookup entirely.
@usableFromInline
enum OverrideScopes {
    @usableFromInline
    static let alive = Atomic<Int>(0)

    @inlinable @inline(__always)
    static var noneActive: Bool { alive.load(ordering: .acquiring) == 0 }
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
        (OverrideScopes.noneActive || !currentTaskIsScoped()) && UnifiedRegistry.optimized.load(ordering: .relaxed)
    }
}

/// Held by every `InjectedValues` made inside `withInjectedValues`, so the
/// count stays up as long as any task (child or unstructured) can still read
/// those overrides, not just until the scope's closure returns.
final class OverrideScopeToken: Sendable {
    init() { OverrideScopes.alive.add(1, ordering: .sequentiallyConsistent) }
    deinit { OverrideScopes.alive.subtract(1, ordering: .sequentiallyConsistent) }
}
