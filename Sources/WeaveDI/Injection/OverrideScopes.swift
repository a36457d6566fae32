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

/// Held by every `InjectedValues` made inside `withInjectedValues`, so the
/// count stays up as long as any task (child or unstructured) can still read
/// those overrides, not just until the scope's closure returns.
final class OverrideScopeToken: Sendable {
    init() { OverrideScopes.alive.add(1, ordering: .sequentiallyConsistent) }
    deinit { OverrideScopes.alive.subtract(1, ordering: .sequentiallyConsistent) }
}
