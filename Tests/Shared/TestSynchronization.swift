// The test targets' atomics and lock, taken from where the library takes its
// own (Sources/WeaveDICore/Registry/PlatformAtomic.swift): Synchronization on
// Linux; on Apple platforms, where Synchronization needs macOS 15 / iOS 18,
// above the package's minimums, swift-atomics and a pthread mutex, as with
// the PortableAtomics trait on Linux (which CI builds these tests with).
// Symlinked into each test target that needs it; a plain file, so the
// upstream-API target keeps its plain `import WeaveDI`.

#if canImport(Darwin) || PortableAtomics
import Atomics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// swift-atomics' `ManagedAtomic` with `Synchronization.Atomic`'s spelling;
/// transparent, so each ordering stays a constant at the call site as
/// swift-atomics requires.
struct TestAtomic<Value: AtomicValue>: @unchecked Sendable where Value.AtomicRepresentation.Value == Value {
    let cell: ManagedAtomic<Value>

    init(_ initial: Value) {
        cell = ManagedAtomic(initial)
    }

    @_semantics("atomics.requires_constant_orderings") @_transparent
    func load(ordering: AtomicLoadOrdering) -> Value {
        cell.load(ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_transparent
    func store(_ desired: Value, ordering: AtomicStoreOrdering) {
        cell.store(desired, ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_transparent @discardableResult
    func exchange(_ desired: Value, ordering: AtomicUpdateOrdering) -> Value {
        cell.exchange(desired, ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_transparent
    func compareExchange(
        expected: Value, desired: Value, ordering: AtomicUpdateOrdering
    ) -> (exchanged: Bool, original: Value) {
        cell.compareExchange(expected: expected, desired: desired, ordering: ordering)
    }
}

extension TestAtomic where Value: AtomicInteger {
    @_semantics("atomics.requires_constant_orderings") @_transparent @discardableResult
    func add(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        let old = cell.loadThenWrappingIncrement(by: operand, ordering: ordering)
        return (old, old &+ operand)
    }

    @_semantics("atomics.requires_constant_orderings") @_transparent @discardableResult
    func wrappingAdd(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        add(operand, ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings") @_transparent @discardableResult
    func subtract(_ operand: Value, ordering: AtomicUpdateOrdering) -> (oldValue: Value, newValue: Value) {
        let old = cell.loadThenWrappingDecrement(by: operand, ordering: ordering)
        return (old, old &- operand)
    }
}

/// A value behind a pthread mutex, with `Synchronization.Mutex`'s withLock.
final class TestMutex<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
#else
import Synchronization

typealias TestAtomic<Value: AtomicRepresentable> = Synchronization.Atomic<Value>
typealias TestMutex<Value: ~Copyable> = Synchronization.Mutex<Value>
#endif
