/// The registry key of a type: the bits of its `ObjectIdentifier`. Used raw
/// (not through `hashValue`, which is seeded per process) so C can hash it.
@usableFromInline
typealias TypeKey = UInt

/// The key is `T`'s, not the metatype value's: `register(t) { ... }` with
/// `let t: Base.Type = Sub.self` registers a factory of `Base`, which a
/// resolve of `Sub` must never find (it would hand out a `Base` as a `Sub`).
/// An `Any.Type` passed here is opened, so its key is its dynamic type's.
@inlinable @inline(__always)
func typeKey<T>(_ type: T.Type) -> TypeKey {
    UInt(bitPattern: ObjectIdentifier(T.self))
}

/// A type's short name (`String(describing:)`), the spelling of the names
/// in `DIError`'s and the validation report's payloads (upstream WeaveDI's
/// spelling, which code matches on). Notes the type's qualified name, so a
/// message built later from the short one can print it in full.
@usableFromInline func typeName(_ type: Any.Type) -> String {
    let short = String(describing: type)
    TypeNames.note(type, short: short)
    return short
}

/// A type's name in full, as messages print it: `String(reflecting:)`
/// (module and nesting included, "App.Billing.Cache"), without the
/// "(unknown context at $…)" that spells a private or local type's scope
/// by its address, which reads as noise and differs from run to run.
func qualifiedTypeName(_ type: Any.Type) -> String {
    var full = String(reflecting: type)
    while let start = full.firstOccurrence(of: "(unknown context at $"),
        let end = full[start.upperBound...].firstOccurrence(of: ").")
    {
        full.removeSubrange(start.lowerBound..<end.upperBound)
    }
    return full
}

/// The types behind each short name taken, for the qualified names
/// (`qualifiedTypeName`: module and nesting included) messages print, so two
/// types read apart while payloads keep the short names. Off the read path:
/// names are taken for registrations' diagnostics, builds and failures.
enum TypeNames {
    /// Short name -> the types seen with it. The qualified names are made
    /// only when a message asks (a miss that no one prints pays a lookup).
    private static let seen = Locked<[String: [Any.Type]]>([:])

    static func note(_ type: Any.Type, short: String) {
        seen.withLock { seen in
            if seen[short]?.contains(where: { $0 == type }) == true { return }
            seen[short, default: []].append(type)
        }
    }

    /// The qualified name for a short one: the one type seen with that name,
    /// or all of them when several were ("Cache (App.Cache or Billing.Cache)"),
    /// or the short name when none was seen.
    static func qualified(_ short: String) -> String {
        // Private types of one name in one module read alike here: the
        // payload cannot say which was meant, and their contexts' addresses
        // would only add noise. (A near miss, which has the types, tells
        // them apart.)
        let all = Set(seen.withLock { $0[short] ?? [] }.map(qualifiedTypeName)).sorted()
        switch all.count {
        case 0: return short
        case 1: return all[0]
        default: return "\(short) (\(all.joined(separator: " or ")))"
        }
    }

    /// A chain of short names ("A -> B -> A"), each name qualified; the
    /// suffix a too-deep chain ends with (" (deeper than 256)") is kept.
    static func qualifiedChain(_ chain: String) -> String {
        chain.pieces(separatedBy: " -> ").map { link in
            if let range = link.firstOccurrence(of: " (deeper than ") {
                return qualified(String(link[..<range.lowerBound])) + link[range.lowerBound...]
            }
            return qualified(link)
        }.joined(separator: " -> ")
    }

    static func qualified(_ names: [String]) -> [String] { names.map(qualified) }
}
