/// The registry key of a type: the bits of its `ObjectIdentifier`. Used raw
/// (not through `hashValue`, which is seeded per process) so C can hash it.
@usableFromInline
typealias TypeKey = UInt

@inlinable @inline(__always)
func typeKey<T>(_ type: T.Type) -> TypeKey {
    UInt(bitPattern: ObjectIdentifier(type))
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
    let full = String(reflecting: type)
    guard full.contains("(unknown context at ") else { return full }
    return full.replacing(/\(unknown context at \$[0-9a-fA-F]+\)\./, with: "")
}

/// The qualified name (`qualifiedTypeName`: module and nesting included)
/// of every type whose short name was taken, so messages print names two
/// types cannot share while payloads keep the short ones. Off the read path:
/// names are taken for registrations' diagnostics, builds and failures.
enum TypeNames {
    private struct Seen {
        var types = Set<ObjectIdentifier>()
        var qualified: [String: [String]] = [:]
    }

    private static let seen = Locked(Seen())

    static func note(_ type: Any.Type, short: String) {
        seen.withLock { seen in
            guard seen.types.insert(ObjectIdentifier(type)).inserted else { return }
            let full = qualifiedTypeName(type)
            if !seen.qualified[short, default: []].contains(full) {
                seen.qualified[short, default: []].append(full)
            }
        }
    }

    /// The qualified name for a short one: the one type seen with that name,
    /// or all of them when several were ("Cache (App.Cache or Billing.Cache)"),
    /// or the short name when none was seen.
    static func qualified(_ short: String) -> String {
        let all = seen.withLock { $0.qualified[short] ?? [] }.sorted()
        switch all.count {
        case 0: return short
        case 1: return all[0]
        default: return "\(short) (\(all.joined(separator: " or ")))"
        }
    }

    /// A chain of short names ("A -> B -> A"), each name qualified; a
    /// suffix after the last name (" (deeper than 256)") is kept.
    static func qualifiedChain(_ chain: String) -> String {
        chain.components(separatedBy: " -> ").map { link in
            if let range = link.range(of: " (") {
                return qualified(String(link[..<range.lowerBound])) + link[range.lowerBound...]
            }
            return qualified(link)
        }.joined(separator: " -> ")
    }

    static func qualified(_ names: [String]) -> [String] { names.map(qualified) }
}
