import Synchronization

/// Chooses the storage every lookup reads: the C lock-free table
/// (optimization on, the default) or the plain Swift baseline, a dictionary
/// under a mutex. Writes always go to both, so switching at any moment,
/// under load, loses nothing.
public final class UnifiedRegistry: Sendable {
    public static let shared = UnifiedRegistry()

    @usableFromInline
    static let optimized = Atomic<Bool>(true)

    private init() {}

    public nonisolated func enableOptimization() {
        Self.optimized.store(true, ordering: .sequentiallyConsistent)
    }

    public nonisolated func disableOptimization() {
        Self.optimized.store(false, ordering: .sequentiallyConsistent)
    }

    public nonisolated var isOptimizationEnabled: Bool {
        Self.optimized.load(ordering: .relaxed)
    }
}
