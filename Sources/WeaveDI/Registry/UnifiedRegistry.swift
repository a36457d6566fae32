import Synchronization

/// Chooses how every lookup reads the one C table: without a lock inside an
/// epoch read section (optimization on, the default), or under the table's
/// writer lock (the baseline). There is one store either way, so switching
/// at any moment, under load, loses nothing.
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
