import CWeaveRegistry

/// Chooses how every lookup reads the one C table: without a lock inside an
/// epoch read section (optimization on, the default), or under the table's
/// writer lock (the baseline the benchmarks compare against). There is one
/// store either way, so switching at any moment, under load, loses nothing.
/// Despite its name (upstream's), it holds no registrations: it is the read
/// mode's switch; the registrations live in `Registry`.
///
/// ```swift
/// UnifiedRegistry.shared.disableOptimization()   // measure the locked baseline
/// defer { UnifiedRegistry.shared.enableOptimization() }
/// ```
///
/// With optimization off, `@Injected` does not use its shared cache either.
public final class UnifiedRegistry: Sendable {
    /// The one registry object (also reachable as `GlobalUnifiedRegistry`).
    public static let shared = UnifiedRegistry()

    /// Whether reads are lock-free: a bit of the C read-mode word, which
    /// every read loads inline anyway (`weave_read_mode`).
    @inlinable @inline(__always)
    static var optimized: Bool { weave_read_mode() & WEAVE_READ_MODE_BASELINE == 0 }

    private init() {}

    /// Lock-free reads and `@Injected`'s cache: the default.
    public nonisolated func enableOptimization() {
        weave_read_mode_set_baseline(false)
    }

    /// Reads under the table's writer lock, with no `@Injected` cache: the
    /// baseline. Process-wide; takes effect for reads that start after it.
    public nonisolated func disableOptimization() {
        weave_read_mode_set_baseline(true)
    }

    /// Whether reads are lock-free (the default).
    public nonisolated var isOptimizationEnabled: Bool {
        Self.optimized
    }
}
