/// The message `requireResolve` stops with: what was asked, why it failed,
/// what is registered that looks close and why it did not answer, and how
/// to register it.
package struct MissingDependencyReport {
    let type: Any.Type
    let error: DIError
    let container: DIContainer

    package init(type: Any.Type, error: DIError, container: DIContainer) {
        self.type = type
        self.error = error
        self.container = container
    }

    package var message: String {
        let name = typeName(type)
        guard case .dependencyNotFound = error else {
            return "WeaveDI.requireResolve(\(name).self): \(error.description)"
        }
        var lines = ["WeaveDI.requireResolve(\(name).self): no registration for '\(qualifiedTypeName(type))'."]
        let close = NearMiss.suggestions(for: type, in: container)
        if !close.isEmpty {
            lines.append("Registered types that look close: \(close.joined(separator: "; ")).")
        }
        lines.append(
            "Register it before resolving, e.g. UnifiedDI.register(\(name).self) { ... } "
                + "or WeaveDI.Container.live.register(\(name).self, scope: .singleton) { ... }.")
        return lines.joined(separator: " ")
    }
}

/// What is registered that looks like a type a resolve did not find, each
/// with why it did not answer. Runs on the failure path only.
enum NearMiss {
    /// At most this many suggestions.
    static let limit = 5

    private static let installed: Void = MissSuggestions.install(
        .init(forName: { suggestions(forName: $0) }, forType: { suggestions(for: $0, in: .live) }))

    /// Makes the search the one a miss's message uses (`MissSuggestions`);
    /// called as each root container is made.
    static func installOnce() {
        installed
    }

    /// Suggestions for `asked`, from `container` and its parents: the same
    /// type wrapped or unwrapped in an Optional, a registration whose built
    /// instance is an `asked` (a protocol registered, its concrete type
    /// asked for, or the other way round), a different type of the same
    /// name, and similar names; then `asked` itself registered in a
    /// container the resolve cannot reach (a child, a sibling, another tree).
    static func suggestions(for asked: Any.Type, in container: DIContainer) -> [String] {
        let askedName = typeName(asked)
        var found: [(rank: Int, text: String)] = []
        for (registered, name, entry) in registrations(in: container) where registered != asked {
            var full: String { qualifiedTypeName(registered) }
            if let reason = optionalReason(asked: asked, registered: registered) {
                found.append((0, "'\(full)' (\(reason))"))
            } else if let instance = entry.heldInstance?.value, isInstance(instance, of: asked) {
                found.append(
                    (
                        1,
                        "'\(full)' (its instance is a '\(qualifiedTypeName(asked))': resolve \(name).self, "
                            + "or register \(askedName) itself)"
                    ))
            } else if name == askedName {
                var (registeredName, askedFull) = (full, qualifiedTypeName(asked))
                if registeredName == askedFull {
                    // Private types of one name in one module: their contexts tell them apart.
                    (registeredName, askedFull) = (String(reflecting: registered), String(reflecting: asked))
                }
                found.append(
                    (
                        2,
                        "'\(registeredName)' (a different type with the same name as the one asked for, "
                            + "'\(askedFull)')"
                    ))
            } else if looksSimilar(name, askedName) {
                found.append((3, "'\(full)' (a similar name)"))
            }
        }
        for (other, relation) in KnownContainers.unreachable(from: container)
        where other.has(typeKey(asked)) {
            found.append(
                (
                    0,
                    "'\(qualifiedTypeName(asked))' (registered in \(relation), which a resolve from this container "
                        + "never reads: it reads the container and its parents only; register it here or in a "
                        + "parent, or resolve from that container)"
                ))
        }
        return ranked(found)
    }

    /// The same, from a type's name only (what an error carries): wrapped
    /// or unwrapped Optionals, the same name, similar names, in the live
    /// container and its parents; then the name registered in a container
    /// `live` cannot reach.
    static func suggestions(forName askedName: String) -> [String] {
        var found: [(rank: Int, text: String)] = []
        for (registered, name, _) in registrations(in: .live) {
            var full: String { qualifiedTypeName(registered) }
            if name == "Optional<\(askedName)>" {
                found.append((0, "'\(full)' (registered as an Optional: register \(askedName) itself)"))
            } else if askedName == "Optional<\(name)>" {
                found.append((0, "'\(full)' (the Optional's wrapped type: resolve \(name).self)"))
            } else if name == askedName {
                // The error carries a name only: this may be the very type,
                // registered in the live container while another was asked.
                found.append((2, "'\(full)' (registered under this name in the live container)"))
            } else if looksSimilar(name, askedName) {
                found.append((3, "'\(full)' (a similar name)"))
            }
        }
        for (other, relation) in KnownContainers.unreachable(from: .live) {
            for (registered, name, _) in registrations(inOnly: other) where name == askedName {
                found.append(
                    (
                        1,
                        "'\(qualifiedTypeName(registered))' (registered under this name in \(relation), "
                            + "which a resolve from the live container never reads)"
                    ))
            }
        }
        return ranked(found)
    }

    /// The closest kinds first, then by text, each text once (many
    /// per-request children holding the type say the same); at most `limit`.
    private static func ranked(_ found: [(rank: Int, text: String)]) -> [String] {
        var seen = Set<String>()
        return found.sorted { ($0.rank, $0.text) < ($1.rank, $1.text) }.map(\.text)
            .filter { seen.insert($0).inserted }.prefix(limit).map { $0 }
    }

    /// The registrations a resolve from `container` can reach, with their names.
    private static func registrations(in container: DIContainer) -> [(Any.Type, String, AnyRegistryEntry)] {
        container.reachableEntries.map { ($0.entry.type, typeName($0.entry.type), $0.entry) }
    }

    /// `container`'s own registrations, not its parents'.
    private static func registrations(inOnly registry: Registry) -> [(Any.Type, String, AnyRegistryEntry)] {
        registry.keyedEntries.map { ($0.entry.type, typeName($0.entry.type), $0.entry) }
    }

    private static func optionalReason(asked: Any.Type, registered: Any.Type) -> String? {
        if let wrapped = (registered as? any OptionalResolvable.Type)?.wrappedType, wrapped == asked {
            return "registered as an Optional, which answers only resolve(Optional<\(typeName(asked))>.self): "
                + "register \(typeName(asked)) itself"
        }
        if let wrapped = (asked as? any OptionalResolvable.Type)?.wrappedType, wrapped == registered {
            return "the Optional's wrapped type: resolve \(typeName(registered)).self, which is nil when missing"
        }
        return nil
    }

    private static func isInstance(_ instance: Any, of asked: Any.Type) -> Bool {
        func check<T>(_: T.Type) -> Bool { instance is T }
        return _openExistential(asked, do: check)
    }

    private static func looksSimilar(_ a: String, _ b: String) -> Bool {
        let a = a.lowercased()
        let b = b.lowercased()
        return a.includes(b) || b.includes(a) || editDistance(a, b) <= max(2, b.count / 4)
    }
}

/// The containers that ever held a registration, as the near-miss search
/// reads them: the registries in `NotedRegistries` (noted at a container's
/// first registration with no global lock and no weak reference, gone with
/// it; its comment says how), each with how its container relates to the
/// one a resolve asked.
package enum KnownContainers {
    /// The registries of the live known containers a resolve from
    /// `container` does not read (neither it nor a parent), each with how
    /// its container relates to `container`.
    package static func unreachable(from container: DIContainer) -> [(Registry, String)] {
        let asked = container.registry
        var chain: [ObjectIdentifier] = []
        var current: Registry? = asked
        while let item = current {
            chain.append(ObjectIdentifier(item))
            current = item.parent
        }
        // Strong references taken under the shard locks, dropped by the
        // caller after them.
        let others = NotedRegistries.alive()
        let live = DIContainer.live.registry
        return others.filter { !chain.contains(ObjectIdentifier($0)) }.map {
            ($0, relation(of: $0, to: asked, live: live, chain: chain))
        }
    }

    private static func relation(
        of other: Registry, to asked: Registry, live: Registry, chain: [ObjectIdentifier]
    ) -> String {
        let askedName = asked === live ? "the live container" : "the container asked"
        var depth = 1
        var ancestor = other.parent
        while let item = ancestor {
            if item === asked {
                return depth == 1 ? "a child of \(askedName)" : "a descendant of \(askedName) (\(depth) levels down)"
            }
            if chain.contains(ObjectIdentifier(item)) {
                let shared = item === live ? "the live container" : "a parent of \(askedName)"
                return "a sibling branch of \(askedName) (both descend from \(shared))"
            }
            depth += 1
            ancestor = item.parent
        }
        return "another container (not a parent or child of \(askedName))"
    }
}

func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        previous = current
    }
    return previous[b.count]
}
