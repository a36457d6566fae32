/// A value of any type kept in a non-generic object: in five words of the
/// object itself, laid out as its own type when it fits there (a class
/// reference, an existential, a small struct), else as a pointer to a heap
/// copy, so the object need not be generic (architecture: No generic metadata per type). Reading it is a load at a fixed offset from the object, as a generic
/// class's field would be (whether it fits is a constant in code
/// specialised for the type).
///
/// The objects that use it keep `Storage` at a fixed number of words into
/// the object, after the two-word object header: four words in for
/// `ValueBox` (after `SlotBox`'s three flags and its own `valueType`), two
/// words in for `InstanceHolder`, which declares it first (registry entries
/// among them, `PrebuiltEntry`'s value included). Each checks its
/// offset with a precondition when it is made, so a stored property added
/// before `storage` stops the program instead of corrupting memory.
@usableFromInline
enum InlineValue {
    @usableFromInline typealias Storage = (UInt, UInt, UInt, UInt, UInt)

    @inlinable static var zero: Storage { (0, 0, 0, 0, 0) }

    /// Where `Storage` is in the object at `object`, `word` words in.
    @inlinable @inline(__always)
    static func address(in object: UnsafeMutableRawPointer, atWord word: Int = 4) -> UnsafeMutableRawPointer {
        object + word * MemoryLayout<UInt>.stride
    }

    @inlinable @inline(__always)
    static func fits<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size <= MemoryLayout<Storage>.size && MemoryLayout<T>.alignment <= MemoryLayout<Storage>.alignment
    }

    /// Writes `value` into `storage`, a stored property of `object` that
    /// must sit four words in; checks that it does.
    @inlinable
    static func initialize<T>(_ value: T, in object: AnyObject, storage: inout Storage) {
        let address = address(in: Unmanaged.passUnretained(object).toOpaque())
        precondition(address == withUnsafeMutablePointer(to: &storage) { UnsafeMutableRawPointer($0) })
        initialize(address, to: value)
    }

    /// Destroys the `type` value in the storage four words into `object`.
    @inlinable
    static func destroy(in object: AnyObject, of type: Any.Type) {
        destroy(address(in: Unmanaged.passUnretained(object).toOpaque()), of: type)
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

    /// Destroys the value of type `type` at `address` (and frees its heap
    /// copy). The type is opened by a local function, so nothing is
    /// allocated: a returned closure would be, once per value destroyed.
    @usableFromInline
    static func destroy(_ address: UnsafeMutableRawPointer, of type: Any.Type) {
        func destroy<V>(_ type: V.Type) {
            if fits(V.self) {
                address.assumingMemoryBound(to: V.self).deinitialize(count: 1)
            } else {
                let heap = address.load(as: UnsafeMutableRawPointer.self).assumingMemoryBound(to: V.self)
                heap.deinitialize(count: 1)
                heap.deallocate()
            }
        }
        _openExistential(type, do: destroy)
    }

    /// A copy of the value of type `type` at `address`, as `Any`.
    static func copy(_ address: UnsafeMutableRawPointer, of type: Any.Type) -> Any {
        func copy<V>(_ type: V.Type) -> Any { read(address, as: V.self) }
        return _openExistential(type, do: copy)
    }
}
