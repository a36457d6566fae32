import CWeaveRegistry

/// How a resolve of one type would be answered now, found without building
/// anything: which container holds the registration, its scope and state,
/// and what its factory resolved the last time ``DIContainer/validate()``
/// built it. Printable.
///
/// ```swift
/// print(UnifiedDI.explain(OrderService.self))
/// // OrderService (App.OrderService)
/// //   answered by: the live container
/// //   registration: lazy, singleton, built
/// //   dependencies (last validate()): OrderService -> PaymentService -> StripeClient
/// ```
public struct ResolutionExplanation: Sendable, CustomStringConvertible {
    /// The type asked for, in full (`String(reflecting:)`).
    public let type: String
    /// The registration name asked for (``DIContainer/explain(_:name:)``);
    /// nil for the type's own registration.
    public let name: String?
    /// Which container holds the registration that answers, e.g. "the live
    /// container" or "parent 1 of the container asked"; nil when none does.
    public let answeredBy: String?
    /// The registration's scope; nil when none answers.
    public let scope: ProvideScope?
    /// Whether the registration holds an instance given at registration
    /// (`register(_:factory:)` that builds at once, or `instance:`).
    public let isEager: Bool
    /// Whether the factory is async (built by `resolveAsyncThrowing` or `start`).
    public let isAsync: Bool
    /// For a lazy singleton: whether it is built. Nil for the other scopes,
    /// which build per resolve, per scope or while someone holds the
    /// instance, and when nothing answers.
    public let isBuilt: Bool?
    /// Each path of dependencies from this type, as `validate()` last saw
    /// them built for this container; nil when it has not validated it.
    public let dependencyPaths: [[String]]?
    /// When nothing answers: what is registered that looks close, and why.
    public let nearMisses: [String]

    public var description: String {
        let short = type.split(separator: Character(".")).last.map(String.init) ?? type
        var lines = [name.map { "\(short) named \"\($0)\" (\(type))" } ?? "\(short) (\(type))"]
        guard let answeredBy, let scope else {
            lines.append("  answered by: nothing (a resolve returns nil; resolveThrowing throws dependencyNotFound)")
            for miss in nearMisses { lines.append("  looks close: \(miss)") }
            return lines.joined(separator: "\n")
        }
        lines.append("  answered by: \(answeredBy)")
        var registration = [isEager ? "eager instance" : (isAsync ? "lazy, async factory" : "lazy"), "\(scope)"]
        if let isBuilt { registration.append(isBuilt ? "built" : "not built yet") }
        lines.append("  registration: " + registration.joined(separator: ", "))
        if let dependencyPaths {
            if dependencyPaths.isEmpty {
                lines.append("  dependencies (last validate()): none")
            } else {
                for path in dependencyPaths {
                    lines.append("  dependencies (last validate()): " + path.joined(separator: " -> "))
                }
            }
        } else {
            lines.append("  dependencies: not known (run validate() on this container to record them)")
        }
        return lines.joined(separator: "\n")
    }
}

extension DIContainer {
    /// How a resolve of `type` from this container would be answered now,
    /// without building anything. See ``ResolutionExplanation``.
    ///
    /// ```swift
    /// print(container.explain(OrderService.self))
    /// ```
    ///
    /// - Parameter type: The type to explain.
    /// - Returns: The explanation, printable.
    public func explain<T>(_ type: T.Type) -> ResolutionExplanation {
        explain(type, asked: self === DIContainer.live ? liveName : "the container asked")
    }

    /// How a resolve of `type` named `name` from this container would be
    /// answered now, without building anything; when nothing answers, the
    /// names `type` is registered under are what looks close.
    ///
    /// ```swift
    /// print(container.explain(Database.self, name: "replica"))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to explain.
    ///   - name: The registration's name.
    /// - Returns: The explanation, printable.
    public func explain<T>(_ type: T.Type, name: String) -> ResolutionExplanation {
        explain(type, name: name, asked: self === DIContainer.live ? liveName : "the container asked")
    }

    func explain<T>(_ type: T.Type, name: String, asked: String) -> ResolutionExplanation {
        let registered = registeredNames(of: ObjectIdentifier(type)).map { "\(typeName(type)) named \"\($0)\"" }
        guard let key = RegistrationName.existingKey(type, name) else {
            return .nothing(type, name: name, nearMisses: registered)
        }
        return explain(type, key: key, name: name, asked: asked, nearMisses: registered)
    }

    private var liveName: String {
        ContainerOverlays.noneActive || ContainerOverlays.current == nil
            ? "the live container" : "the task's container overlay (withContainerOverlay)"
    }

    func explain<T>(_ type: T.Type, asked name: String) -> ResolutionExplanation {
        explain(type, key: typeKey(type), name: nil, asked: name, nearMisses: nil)
    }

    /// The registration under `key` (`type`'s own, or a name's), here or in
    /// a parent; `nearMisses` when nothing answers (nil: the near-miss search).
    private func explain<T>(
        _ type: T.Type, key: TypeKey, name registrationName: String?, asked name: String, nearMisses: [String]?
    ) -> ResolutionExplanation {
        var level = 0
        var current: DIContainer? = self
        while let container = current {
            if let raw = weave_registry_get_local(container.registry.handle, key) {
                let entry = Unmanaged<AnyRegistryEntry>.fromOpaque(raw).takeRetainedValue()
                let isBuilt: Bool? = entry.kind == .lazy(.singleton) ? entry.heldInstance != nil : nil
                return ResolutionExplanation(
                    type: qualifiedTypeName(type), name: registrationName,
                    answeredBy: level == 0 ? name : "parent \(level) of \(name)",
                    scope: entry.scope, isEager: entry.kind == .prebuilt, isAsync: entry.isAsync, isBuilt: isBuilt,
                    dependencyPaths: LastValidation.paths(from: RegistrationName.label(key, type: type), for: self),
                    nearMisses: [])
            }
            level += 1
            current = container.parent
        }
        return .nothing(type, name: registrationName, nearMisses: nearMisses ?? NearMiss.suggestions(for: type, in: self))
    }
}

extension ResolutionExplanation {
    /// Nothing answers.
    fileprivate static func nothing<T>(_ type: T.Type, name: String?, nearMisses: [String]) -> ResolutionExplanation {
        ResolutionExplanation(
            type: qualifiedTypeName(type), name: name, answeredBy: nil, scope: nil, isEager: false, isAsync: false,
            isBuilt: nil, dependencyPaths: nil, nearMisses: nearMisses)
    }
}

extension UnifiedDI {
    /// How `UnifiedDI.resolve(type)` would be answered now (from the live
    /// container, or the task's overlay), without building anything.
    ///
    /// ```swift
    /// print(UnifiedDI.explain(OrderService.self))
    /// ```
    ///
    /// - Parameter type: The type to explain.
    /// - Returns: The explanation, printable.
    public static func explain<T>(_ type: T.Type) -> ResolutionExplanation {
        DIContainer.live.explain(type)
    }

    /// How `UnifiedDI.resolve(type, name: name)` would be answered now,
    /// without building anything.
    ///
    /// ```swift
    /// print(UnifiedDI.explain(Database.self, name: "replica"))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to explain.
    ///   - name: The registration's name.
    /// - Returns: The explanation, printable.
    public static func explain<T>(_ type: T.Type, name: String) -> ResolutionExplanation {
        DIContainer.live.explain(type, name: name)
    }
}

/// The dependency graph of the last `validate()` of each container, for
/// `explain`. Validations are rare; the graphs are small.
package enum LastValidation {
    /// Held weakly: a container's address may be reused by a new one after
    /// it is gone, and the new one must not inherit its graph. Through its
    /// registry, which lives as long as it does: a weak reference gives its
    /// object a side table for good, and every retain and release of it
    /// then takes the runtime's slow path, which on the container would slow
    /// every registration.
    private struct Recorded {
        weak var registry: Registry?
        let graph: DependencyGraph
        let problems: [ValidationReport.Problem]
    }
    private static let graphs = Locked<[ObjectIdentifier: Recorded]>([:])

    static func record(_ report: ValidationReport, for container: DIContainer) {
        graphs.withLock { graphs in
            graphs = graphs.filter { $0.value.registry != nil }
            graphs[ObjectIdentifier(container)] = Recorded(
                registry: container.registry, graph: report.graph, problems: report.problems)
        }
    }

    private static func recorded(for container: DIContainer) -> Recorded? {
        graphs.withLock { graphs in
            guard let recorded = graphs[ObjectIdentifier(container)], recorded.registry === container.registry else { return nil }
            return recorded
        }
    }

    package static func graph(for container: DIContainer) -> DependencyGraph? { recorded(for: container)?.graph }

    package static func problems(for container: DIContainer) -> [ValidationReport.Problem] {
        recorded(for: container)?.problems ?? []
    }

    /// At most this many paths: a graph with many shared dependencies has
    /// exponentially many.
    static let pathLimit = 32

    /// The paths from `name` through the recorded edges (depth-first, a
    /// node never twice on one path, at most `pathLimit`); nil when
    /// `container` was not validated or `name` is not in its graph.
    static func paths(from name: String, for container: DIContainer) -> [[String]]? {
        guard let graph = graph(for: container), graph.nodes.contains(where: { $0.name == name })
        else { return nil }
        var next: [String: [String]] = [:]
        for edge in graph.edges { next[edge.from, default: []].append(edge.to) }
        var paths: [[String]] = []
        func walk(_ path: [String]) {
            guard paths.count < pathLimit else { return }
            let children = (next[path.last!] ?? []).filter { !path.contains($0) }
            if children.isEmpty {
                if path.count > 1 { paths.append(path) }
                return
            }
            for child in children where paths.count < pathLimit { walk(path + [child]) }
        }
        walk([name])
        return paths
    }
}
