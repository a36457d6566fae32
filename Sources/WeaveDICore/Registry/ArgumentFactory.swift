/// A registration that takes arguments at resolve time, stored as the
/// instance of its own type under that type's key. `ArgumentFactory<Int,
/// ItemViewModel>` and `ArgumentFactory<(Int, String), ItemViewModel>` are
/// different types, so the argument types are part of the key by
/// construction: a resolve with other argument types finds no registration
/// (a miss, never a cast of the wrong closure), and a factory of `Value`
/// without arguments is a registration of its own.
@usableFromInline
package final class ArgumentFactory<Arguments, Value>: Sendable {
    @usableFromInline package let make: @Sendable (Arguments) -> Value

    package init(_ make: @escaping @Sendable (Arguments) -> Value) {
        self.make = make
    }

    /// A value built from `arguments` as a transient registration's is: on
    /// the thread's build chain, so a factory that resolves its own type
    /// again is a cycle (not a recursion without end), and `.graph`
    /// instances are shared inside it.
    @inlinable
    package func build(_ arguments: Arguments) throws(DIError) -> Value {
        try InstanceBuilder.run(registration: ObjectIdentifier(self), type: Value.self, kind: .lazy(.transient)) {
            make(arguments)
        }
    }

    /// The same, or nil with the failure (a cycle) logged: for the resolves
    /// that answer nil.
    @inlinable
    package func buildLogging(_ arguments: Arguments) -> Value? {
        do throws(DIError) {
            return try build(arguments)
        } catch {
            DILog.failure(error)
            return nil
        }
    }
}

/// What reports print for an argument registration's key, which is an
/// `ArgumentFactory` type: the value's type and the arguments it takes.
package protocol ArgumentSignature {
    static var valueType: Any.Type { get }
    /// `(Int)`, `(Int, String)`.
    static var argumentsLabel: String { get }
}

extension ArgumentFactory: ArgumentSignature {
    package static var valueType: Any.Type { Value.self }

    package static var argumentsLabel: String {
        let arguments = typeName(Arguments.self)
        // One argument is not a tuple; more are, and print their parentheses.
        return arguments.hasPrefix("(") ? arguments : "(\(arguments))"
    }
}
