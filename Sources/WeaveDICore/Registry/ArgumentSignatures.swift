/// The argument signatures registered for each value type, for the message
/// of a resolve with other arguments ("registered: (Int)"). Types only, kept
/// for the process as `RegistrationName` is: whether a signature is
/// registered in a container is the registry's answer, asked each time.
package enum ArgumentSignatures {
    private static let byValue = Locked<[ObjectIdentifier: [any ArgumentSignature.Type]]>([:])

    /// The key of `factory`'s type, noting its signature for messages.
    package static func key<Arguments, Value>(_ factory: ArgumentFactory<Arguments, Value>.Type) -> TypeKey {
        let signature: any ArgumentSignature.Type = ArgumentFactory<Arguments, Value>.self
        byValue.withLock { known in
            let noted = known[ObjectIdentifier(Value.self), default: []]
            if !noted.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(signature) }) {
                known[ObjectIdentifier(Value.self)] = noted + [signature]
            }
        }
        return typeKey(factory)
    }

    /// The signatures of `value` a resolve from `registry` would find,
    /// sorted: `["(Int)", "(Int, String)"]`.
    package static func registered(of value: Any.Type, in registry: Registry) -> [String] {
        let noted = byValue.withLock { $0[ObjectIdentifier(value)] ?? [] }
        var labels: [String] = []
        for signature in noted where registry.reaches(UInt(bitPattern: ObjectIdentifier(signature))) {
            labels.append(signature.argumentsLabel)
        }
        return labels.sorted()
    }

    /// How messages list signatures: `(Int), (Int, String)`, or `none`.
    package static func listed(_ signatures: [String]) -> String {
        signatures.isEmpty ? "none" : signatures.joined(separator: ", ")
    }
}
