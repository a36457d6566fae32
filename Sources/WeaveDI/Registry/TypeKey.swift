/// The registry key of a type: the bits of its `ObjectIdentifier`. Used raw
/// (not through `hashValue`, which is seeded per process) so C can hash it.
@usableFromInline
typealias TypeKey = UInt

@inlinable @inline(__always)
func typeKey<T>(_ type: T.Type) -> TypeKey {
    UInt(bitPattern: ObjectIdentifier(type))
}

@usableFromInline func typeName(_ type: Any.Type) -> String {
    String(describing: type)
}
