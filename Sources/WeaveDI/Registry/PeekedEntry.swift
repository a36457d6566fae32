import CWeaveRegistry

/// What a lock-free read found: the fixed value itself (the hot case, copied
/// out while still inside the read section, so the entry is never retained),
/// an entry that still has to build its instance, or nothing.
@usableFromInline
enum PeekedEntry<T> {
    case value(T)
    case lazy(LazyEntry<T>)
    case missing

    /// Consumes the result of a `weave_*_peek` call and ends its read section.
    @inlinable @inline(__always)
    init(peeked raw: UnsafeMutableRawPointer?) {
        defer { weave_read_end() }
        guard let raw else {
            self = .missing
            return
        }
        let entry = Unmanaged<AnyRegistryEntry>.fromOpaque(raw)
        if entry._withUnsafeGuaranteedRef({ $0.isFixed }) {
            self = .value(Unmanaged<FixedEntry<T>>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.value })
        } else {
            self = .lazy(Unmanaged<LazyEntry<T>>.fromOpaque(raw).takeUnretainedValue())
        }
    }
}
