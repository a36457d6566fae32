import CWeaveRegistry

/// One property's way to read its value and its last resolved value,
/// stamped with the registry generation it was read at. The value lives in a
/// C cell read inside an epoch section, so many threads can read and refresh
/// it without a lock. One object per property, so copying the wrapper costs
/// a single reference-count round trip.
@usableFromInline
final class InjectionCache<Value>: @unchecked Sendable {
    @usableFromInline let cell: OpaquePointer
    @usableFromInline let read: @Sendable () -> Value

    init(read: @escaping @Sendable () -> Value) {
        self.read = read
        _ = valueCallbacksInstalled
        guard let cell = weave_cell_create() else {
            fatalError("WeaveDI: out of memory creating an injection cache")
        }
        self.cell = cell
    }

    deinit {
        weave_cell_destroy(cell)
    }

    @inlinable @inline(__always)
    func load(generation: UInt64) -> Value? {
        let raw = weave_cell_peek(cell, generation)
        defer { weave_read_end() }
        guard let raw else { return nil }
        return Unmanaged<ValueBox<Value>>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.value }
    }

    /// The slow path: reads the value and caches it, unless what it came
    /// from gives a new instance per resolve or per scope (transient, weak,
    /// task), which a cache would wrongly pin.
    @usableFromInline
    func refresh(generation: UInt64) -> Value {
        let context = ResolutionContext.current
        let before = context.uncacheableResolutions
        let value = read()
        if context.uncacheableResolutions == before {
            weave_cell_store(cell, generation, Unmanaged.passRetained(ValueBox(value)).toOpaque())
        }
        return value
    }
}

@usableFromInline
final class ValueBox<Value> {
    @usableFromInline let value: Value

    init(_ value: Value) { self.value = value }
}
