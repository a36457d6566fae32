import CWeaveRegistry

#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

/// The holder of a shared instance: a singleton's, kept strongly, or a
/// `.weak` registration's, kept weakly. A registration is its own
/// (`AnyRegistryEntry` derives from this); a request or override scope
/// makes one for its own weak instance (`ScopedInstances.buildOwn`), and a
/// `ScopedInstance` for the rest. Reads take no lock: a strong instance is
/// written once, then published by `state`; a weak one sits in an immutable
/// box that a rebuild replaces. Only building (the first resolve, or a weak
/// rebuild) goes through `buildOnce`.
///
/// Not generic (architecture: No generic metadata per type): the strong
/// instance is kept in the holder's inline storage (`InlineValue`), read and
/// written by generic methods that take its type. Its members are final: a
/// registration only adds what a registration is (architecture: An entry is
/// its own holder).
@usableFromInline
package class SharedInstanceHolder: InstanceHolder, @unchecked Sendable {
    @usableFromInline final let holdsWeakly: Bool
    /// A retained `WeakBox`; read inside a read section only, since a
    /// rebuild replaces it and releases the old one after a grace period.
    @usableFromInline final let weakBox = PlatformAtomic<UnsafeRawPointer?>(nil)
    /// When the strong instance was built (`BuildOrder`), for shutdown
    /// order; written before `state` publishes the instance.
    @exclusivity(unchecked) @usableFromInline final var builtOrder: UInt64 = 0

    @usableFromInline init(type: Any.Type, weak: Bool) {
        self.holdsWeakly = weak
        super.init(type: type)
    }

    deinit {
        if let raw = weakBox.load(ordering: .acquiring) {
            Unmanaged<WeakBox>.fromOpaque(raw).release()
        }
        if isPublished {
            destroyInstance()
        }
    }

    /// The built strong instance, untyped, for `shutdown()`.
    final var builtValue: Any? {
        isPublished ? InlineValue.copy(storageAddress, of: type) : nil
    }

    /// The built strong instance, if any, as the type the holder was made for.
    @inlinable @inline(__always)
    final func built<T>(as type: T.Type) -> T? {
        isPublished ? InlineValue.read(storageAddress, as: T.self) : nil
    }

    /// The weak instance while it is alive. Call inside a read section.
    @inlinable
    final func aliveWeak<T>(as type: T.Type) -> T? {
        guard let raw = weakBox.load(ordering: .acquiring) else { return nil }
        return Unmanaged<WeakBox>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0.object } as? T
    }

    @inlinable
    final func current<T>(as type: T.Type) -> T? {
        guard holdsWeakly else { return built(as: T.self) }
        weave_read_begin()
        defer { weave_read_end() }
        return aliveWeak(as: T.self)
    }

    /// Returns the shared instance, building it exactly once even when many
    /// threads ask at the same moment. The factory runs with no lock held.
    @inlinable
    final func getOrBuild<T>(_ build: () throws(DIError) -> T) throws(DIError) -> T {
        // A closure, not the method itself: a method reference was a heap
        // context on every build in unspecialised callers.
        try buildOnce(self, current: { current(as: T.self) }, publish: { publishBuilt($0) }, build: build)
    }

    /// Publishes `value`, or, if an instance is published already, keeps
    /// that one: a strong instance is published once (`state` 0 -> 2 -> 1),
    /// so one that other threads read is never overwritten. Returns the
    /// instance now published, and the weak box this replaced, for release
    /// after a grace period (a weak rebuild replaces the dead instance's box).
    @inlinable
    final func publish<T>(_ value: T) -> (T, UnsafeRawPointer?) {
        let (mine, replaced) = publishBuilt(value)
        return (mine ? value : built(as: T.self).unsafelyUnwrapped, replaced)
    }

    /// The same, saying whether `value` is the instance now published
    /// (`buildOnce` then returns the value it built, not a copy of it).
    @inlinable
    final func publishBuilt<T>(_ value: T) -> (mine: Bool, replaced: UnsafeRawPointer?) {
        if holdsWeakly {
            let box = UnsafeRawPointer(Unmanaged.passRetained(WeakBox(value as AnyObject)).toOpaque())
            return (true, weakBox.exchange(box, ordering: .acquiringAndReleasing))
        }
        guard beginPublishing() else {
            return (false, nil)
        }
        initializeInstance(value)
        builtOrder = BuildOrder.next()
        endPublishing()
        return (true, nil)
    }
}

/// A process-wide sequence: an instance built later gets a larger number.
/// A singleton's dependencies finish building before it does, so shutting
/// down in descending order is reverse dependency order.
@usableFromInline
enum BuildOrder {
    @usableFromInline static let counter = PlatformAtomic<UInt64>(0)

    @inlinable
    static func next() -> UInt64 {
        counter.add(1, ordering: .relaxed).newValue
    }
}

/// A weak reference that never changes once made.
@usableFromInline
final class WeakBox: @unchecked Sendable {
    @usableFromInline weak var object: AnyObject?

    @usableFromInline init(_ object: AnyObject) { self.object = object }
}
