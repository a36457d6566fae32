/// The message `requireResolve` stops with: what was asked, why it failed,
/// what is registered that looks close, and how to register it.
struct MissingDependencyReport {
    let type: Any.Type
    let error: DIError
    let container: DIContainer

    var message: String {
        let name = typeName(type)
        guard case .dependencyNotFound = error else {
            return "WeaveDI.requireResolve(\(name).self): \(error.description)"
        }
        var lines = ["WeaveDI.requireResolve(\(name).self): no registration for '\(name)'."]
        let close = closeMatches(to: name)
        if !close.isEmpty {
            lines.append("Registered types that look close: \(close.joined(separator: ", ")).")
        }
        lines.append(
            "Register it before resolving, e.g. UnifiedDI.register(\(name).self) { ... } "
                + "or WeaveDI.Container.live.register(\(name).self, scope: .singleton) { ... }.")
        return lines.joined(separator: " ")
    }

    private func closeMatches(to name: String) -> [String] {
        let wanted = name.lowercased()
        return container.registry.registeredTypes.map(typeName).filter { candidate in
            let other = candidate.lowercased()
            return other.contains(wanted) || wanted.contains(other)
                || editDistance(other, wanted) <= max(2, wanted.count / 4)
        }.sorted()
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
