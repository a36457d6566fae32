import Synchronization

/// Chooses how every lookup reads the one C table: without a lock inside an
/// epoch read section (optimization on, the default), or under the table's
/// writer lock (the baseline the benchmarks compare against). There is one
/// store either way, so switching at any moment, under load, loses nothing.
///
/// ```swift
/// UnifiedRegistry.shared.disableOptimization()   // measure the locked baseline
/// defer { UnifiedRegistry.shared.enableOptimization() }
/// ```
///
/// With optimization off, `@Injected` does not use its shared cache either.
public final class UnifiedRegistry: Sendable {
    /// The one registry object (also reachable as ``GlobalUnifiedRegistry``).
    public static let shared = UnifiedRegistry()

    @usableFromInline
    static let optimized = Atomic<Bool>(true)

    private init() {}

    /// Lock-free reads and `@Injected`'s cache: the default.
    public nonisolated func enableOptimization() {
        Self.optimized.store(true, ordering: .sequentiallyConsistent)
    }

    /// Reads under the table's writer lock, with no `@Injected` cache: the
    /// baseline. Process-wide; takes effect for reads that start after it.
    public nonisolated func disableOptimization() {
        Self.optimized.store(false, ordering: .sequentiallyConsistent)
    }

    /// Whether reads are lock-free (the default).
    public nonisolated var isOptimizationEnabled: Bool {
        Self.optimized.load(ordering: .relaxed)
    }
}
