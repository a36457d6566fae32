/// A value of any type kept in a non-generic object: in five words of the
/// object itself, laid out as its own type when it fits there (a class
/// reference, an existential, a small struct), else as a pointer to a heap
/// copy. A generic class would cost the Swift runtime a metadata
/// instantiation for every type it holds; this costs nothing per type, and
/// reading it is a load at a fixed offset from the object, as a generic
/// class's field would be (whether it fits is a constant in code
/// specialised for the type).
///
/// The objects that use it (`ValueBox`, `PrebuiltEntry`) declare `Storage`
/// as their first own stored property, after exactly two words of their
/// superclasses' properties, so it sits four words into the object (after
/// the two-word object header); each checks that in debug builds.
@usableFromInline
enum InlineValue {
    @usableFromInline typealias Storage = (UInt, UInt, UInt, UInt, UInt)

    @inlinable static var zero: Storage { (0, 0, 0, 0, 0) }

    /// Where `Storage` is in the object at `object`.
    @inlinable @inline(__always)
    static func address(in object: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        object + 4 * MemoryLayout<UInt>.stride
    }

    @inlinable @inline(__always)
    static func fits<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size <= MemoryLayout<Storage>.size && MemoryLayout<T>.alignment <= MemoryLayout<Storage>.alignment
    }

    @inlinable
    static func initialize<T>(_ address: UnsafeMutableRawPointer, to value: T) {
        if fits(T.self) {
            address.initializeMemory(as: T.self, to: value)
        } else {
            let heap = UnsafeMutablePointer<T>.allocate(capacity: 1)
            heap.initialize(to: value)
            address.storeBytes(of: UnsafeMutableRawPointer(heap), as: UnsafeMutableRawPointer.self)
        }
    }

    @inlinable @inline(__always)
    static func read<T>(_ address: UnsafeMutableRawPointer, as type: T.Type) -> T {
        if fits(T.self) {
            return address.assumingMemoryBound(to: T.self).pointee
        }
        return address.load(as: UnsafeMutableRawPointer.self).assumingMemoryBound(to: T.self).pointee
    }

    /// Destroys the value of type `type` at `address` (and frees its heap copy).
    static func destroy(_ address: UnsafeMutableRawPointer, of type: Any.Type) {
        _openExistential(type, do: destroyer)(address)
    }

    /// A copy of the value of type `type` at `address`, as `Any`.
    static func copy(_ address: UnsafeMutableRawPointer, of type: Any.Type) -> Any {
        _openExistential(type, do: copier)(address)
    }
}

private func destroyer<V>(_ type: V.Type) -> (UnsafeMutableRawPointer) -> Void {
    { address in
        if InlineValue.fits(V.self) {
            address.assumingMemoryBound(to: V.self).deinitialize(count: 1)
        } else {
            let heap = address.load(as: UnsafeMutableRawPointer.self).assumingMemoryBound(to: V.self)
            heap.deinitialize(count: 1)
            heap.deallocate()
        }
    }
}

private func copier<V>(_ type: V.Type) -> (UnsafeMutableRawPointer) -> Any {
    { address in InlineValue.read(address, as: V.self) }
}
