// The atomics the library uses, from one of two places. On Linux, the
// standard library's Synchronization.Atomic, stored inline in its owner.
// On Apple platforms Synchronization needs iOS 18 / macOS 15, above the
// minimums this package declares, so there `PlatformAtomic` is swift-atomics'
// ManagedAtomic behind the same API (one allocation per atomic; no lock).
// The PortableAtomics trait selects the second on Linux too: CI builds and
// tests it that way (scripts/test.sh), since Apple builds cannot run there.

#if canImport(Darwin) || PortableAtomics
import Atomics

/// swift-atomics' `ManagedAtomic`, spelled as `Synchronization.Atomic`.
/// Its operations are transparent and keep swift-atomics' rule that an
/// ordering is a constant at the call site. Sendable as `ManagedAtomic` is:
/// every access to the value is atomic.
@usableFromInline
package struct PlatformAtomic<Value: AtomicValue>: @unchecked Sendable where Value.AtomicRepresentation.Value == Value {
    @usableFromInline let cell: ManagedAtomic<Value>

    @inlinable package init(_ initial: Value) {
        cell = ManagedAtomic(initial)
    }

    @usableFromInline @_semantics("atomics.requires_constant_orderings") @_transparent
    package func load(ordering: AtomicLoadOrdering) -> Value {
        cell.load(ordering: ordering)
    }

    @usableFromInline @_semantics("atomics.requires_constant_orderings") @_transparent
    package func store(_ desired: Value, ordering: AtomicStoreOrdering) {
        cell.store(desired, ordering: ordering)
    }

    @usableFromInline @_semantics("atomics.requires_constant_orderings") @_transparent @discardableResult
    package func exchange(_ desired: Value, ordering: AtomicUpdateOrdering) -> Value {
        cell.exchange(desired, ordering: ordering)
    }

    @usableFromInline @_semantics("atomics.requires_constant_orderings") @_transparent
    package func compareExchange(
        expected: Value, desired: Value, ordering: AtomicUpdateOrdering
    ) -> (exchanged: Bool, original: Value) {
        cell.compareExchange(expected: expected, desired: desired, ordering: ordering)
    }
}

extension PlatformAtomic where Value: AtomicInteger {
    @usableFromInline @_semantics("atomics.requires_constant_orderings") @_transparent @discardableResult
    package func add(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        let old = cell.loadThenWrappingIncrement(by: operand, ordering: ordering)
        return (old, old &+ operand)
    }

    @usableFromInline @_semantics("atomics.requires_constant_orderings") @_transparent @discardableResult
    package func wrappingAdd(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        add(operand, ordering: ordering)
    }

    @usableFromInline @_semantics("atomics.requires_constant_orderings") @_transparent @discardableResult
    package func subtract(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        let old = cell.loadThenWrappingDecrement(by: operand, ordering: ordering)
        return (old, old &- operand)
    }
}
#else
import Synchronization

@usableFromInline
package typealias PlatformAtomic<Value: AtomicRepresentable> = Synchronization.Atomic<Value>
#endif
