#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

extension DIContainer {
    /// Builds every registration of this container (and its parents) once,
    /// in a throwaway container, and reports every problem found at once:
    /// missing dependencies with the path that needs them, cycles, captive
    /// dependencies, and `.task` registrations reached outside a scope. The
    /// report also carries the dependency graph seen while building.
    ///
    /// ```swift
    /// let report = WeaveDI.Container.live.validate()
    /// guard report.isValid else { fatalError("\(report)") }
    /// ```
    ///
    /// Nothing is published and no live instance is touched: each
    /// registration is copied into a container of its own, and every live
    /// read made while building (`UnifiedDI`, `WeaveDI.Container.live`,
    /// `@Inject`, `@Injected`, `@Factory`) goes to that copy. Factories do
    /// run, once per registration, so a factory with side effects has them
    /// again. What this cannot see:
    /// - a factory that reads a container object it captured (not the live
    ///   one) reads that container's own registrations: its edges, captives,
    ///   cycles and missing dependencies are reported as for a live read
    ///   (the build counts as the copy's), but a singleton of that
    ///   container reached this way keeps the instance built here, and an
    ///   eager registration (`instance:`, or a factory run at registration)
    ///   read this way is no edge of the graph, since nothing is built;
    /// - a missing dependency read through a route that traps
    ///   (`requireResolve`, a force unwrap, a non-optional `@Injected var`
    ///   with nothing registered and no key default) stops the program as
    ///   it would at run time; the routes that return nil or throw
    ///   (`resolve`, `resolveThrowing`, optional properties) are reported;
    /// - an instance `registerAsync` awaited is validated like any other;
    ///   a lazy async registration (`register(_:scope:factory:)` with an
    ///   `async` closure) is not built here, and a synchronous factory that
    ///   reads one sees nil: ``validateAsync()`` builds those too; a value
    ///   registered later, after startup, is not there yet.
    ///
    /// Singletons (and eager registrations) are built first, outside any
    /// scope, as a process builds them once; then every transient, weak and
    /// `.task` registration inside a fresh `withTaskScope`, as a request
    /// builds them. So a transient that needs a `.task` service is fine, and
    /// a singleton that needs one is reported twice: it cannot be built
    /// outside a request, and inside one it would keep the first request's
    /// instance (a captive dependency).
    ///
    /// - Returns: The problems found and the dependency graph.
    public func validate() -> ValidationReport {
        let sources = reachableEntries

        let run = ValidationRun()
        let throwaway = DIContainer()
        var roots: [ValidationRoot] = []
        Self.copy(sources, into: throwaway, with: { $0.validationClone() }) { root, entry in
            run.nodes[ObjectIdentifier(root.clone)] = ValidationRun.Node(name: root.name, scope: root.scope)
            run.copies[ObjectIdentifier(entry)] = ObjectIdentifier(root.clone)
            roots.append(root)
        }
        roots.sortForValidation()

        let context = BuildChain.current
        let outer = context.recorder
        context.recorder = run
        BuildRecording.running.add(1, ordering: .sequentiallyConsistent)
        defer {
            BuildRecording.running.subtract(1, ordering: .sequentiallyConsistent)
            context.recorder = outer
        }
        let binding = ContainerOverlay(throwaway)
        ContainerOverlays.$current.withValue(binding) {
            OverrideScopes.$active.withValue(true) {
                for root in roots {
                    do {
                        if root.scope != .singleton {
                            try withTaskScope { try root.clone.buildForValidation() }
                        } else {
                            try root.clone.buildForValidation()
                        }
                    } catch let error as DIError {
                        run.note(error)
                    } catch {}
                }
            }
        }
        let report = run.report(registrations: roots.count)
        LastValidation.record(report, for: self)
        return report
    }
}

extension UnifiedDI {
    /// ``DIContainer/validate()`` of the live container (or of the task's
    /// overlay): builds every registration once in a throwaway copy and
    /// reports every problem at once. Run it at startup or in a test.
    ///
    /// ```swift
    /// let report = UnifiedDI.validate()
    /// guard report.isValid else { fatalError("\(report)") }
    /// print(report.graph.mermaid())
    /// ```
    ///
    /// - Returns: The problems found and the dependency graph.
    public static func validate() -> ValidationReport {
        DIContainer.live.validate()
    }
}

/// What ``DIContainer/validate()`` found: every problem, and the graph of
/// who resolved whom.
///
/// ```swift
/// let report = UnifiedDI.validate()
/// for problem in report.problems {
///     print(problem)
/// }
/// XCTAssertTrue(report.isValid, "\(report)")
/// ```
public struct ValidationReport: Sendable, CustomStringConvertible {
    /// One problem, with the chain of registrations that leads to it,
    /// outermost first.
    ///
    /// ```swift
    /// if case .missing(let type, let path) = problem {
    ///     print("\(path.joined(separator: " -> ")) needs \(type)")
    /// }
    /// ```
    public enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// `path` needs `type`, which nothing registers:
        /// `OrderService -> PaymentService -> <missing> StripeClient`.
        case missing(type: String, path: [String])
        /// A registration that needs itself: `chain` starts and ends with it.
        case cycle(chain: [String])
        /// A singleton (last in `path`) whose factory resolves a shorter-lived
        /// registration; the singleton keeps that one instance forever.
        case captive(path: [String], dependency: String, scope: ProvideScope)
        /// A `.task` registration needed outside any `withTaskScope`.
        case taskScopeOutsideScope(type: String, path: [String])
        /// A factory that threw while `validateAsync()` built it: `path`
        /// is the resolution chain that reached `type`, ending with it.
        case failed(type: String, path: [String], reason: String)

        /// One line: the kind of problem and its chain, names in full
        /// (`String(reflecting:)`), e.g.
        /// `missing: App.OrderService -> <missing> App.StripeClient`.
        /// The payloads keep the short names the graph uses.
        public var description: String {
            let q = TypeNames.qualified as (String) -> String
            switch self {
            case .missing(let type, let path):
                return "missing: " + (path.map(q) + ["<missing> \(q(type))"]).joined(separator: " -> ")
            case .cycle(let chain):
                return "cycle: " + chain.map(q).joined(separator: " -> ")
            case .captive(let path, let dependency, let scope):
                return "captive dependency: " + (path.map(q) + ["\(q(dependency)) (\(scope))"]).joined(separator: " -> ")
                    + ": the singleton keeps one instance of a \(scope)-scoped service"
            case .taskScopeOutsideScope(let type, let path):
                return "task-scoped outside a scope: " + (path.map(q) + ["\(q(type)) (task)"]).joined(separator: " -> ")
                    + ": can only be built inside withTaskScope"
            case .failed(_, let path, let reason):
                return "failed: " + path.map(q).joined(separator: " -> ") + ": the factory threw \(reason)"
            }
        }
    }

    /// Every problem, missing dependencies first, then cycles, captive
    /// dependencies and scope problems.
    public let problems: [Problem]
    /// The registrations and who resolved whom while building them.
    public let graph: DependencyGraph
    /// How many registrations were built.
    public let registrationCount: Int

    /// Whether no problem was found.
    public var isValid: Bool { problems.isEmpty }

    /// A summary line, then one indented line per problem.
    public var description: String {
        if problems.isEmpty {
            return "WeaveDI validation: \(registrationCount) registrations, no problems"
        }
        return "WeaveDI validation: \(registrationCount) registrations, \(problems.count) problems\n"
            + problems.map { "  " + $0.description }.joined(separator: "\n")
    }
}

/// Registrations and the edges seen while building them (who resolved whom),
/// printable as Graphviz DOT or Mermaid. Part of a ``ValidationReport``.
///
/// ```swift
/// print(UnifiedDI.validate().graph.dot())
/// ```
public struct DependencyGraph: Sendable, Equatable {
    /// One registration, or a dependency nothing registers.
    ///
    /// ```swift
    /// let node = DependencyGraph.Node(name: "Database", scope: .singleton)
    /// ```
    public struct Node: Sendable, Hashable {
        /// The type's name, as `String(describing:)` spells it.
        public let name: String
        /// Nil for a dependency nothing registers.
        public let scope: ProvideScope?
        /// A node, e.g. to compare with a report's ``DependencyGraph/nodes``.
        ///
        /// - Parameters:
        ///   - name: The type's name.
        ///   - scope: Its scope, or nil when nothing registers it.
        public init(name: String, scope: ProvideScope?) {
            self.name = name
            self.scope = scope
        }
    }

    /// `from`'s factory resolved `to` while it was being built.
    ///
    /// ```swift
    /// let edge = DependencyGraph.Edge(from: "OrderService", to: "Database")
    /// ```
    public struct Edge: Sendable, Hashable {
        /// The registration whose factory resolved `to`.
        public let from: String
        /// The dependency it resolved.
        public let to: String
        /// An edge, e.g. to compare with a report's ``DependencyGraph/edges``.
        ///
        /// - Parameters:
        ///   - from: The dependent's name.
        ///   - to: The dependency's name.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// Sorted by name.
    public let nodes: [Node]
    /// Sorted by `from`, then `to`.
    public let edges: [Edge]

    package init(nodes: [Node], edges: [Edge]) {
        self.nodes = nodes
        self.edges = edges
    }

    /// Graphviz DOT: one box per registration labelled with its scope,
    /// missing dependencies dashed and red.
    ///
    /// ```swift
    /// let graph = UnifiedDI.validate().graph
    /// print(graph.dot())   // pipe into `dot -Tsvg`
    /// ```
    ///
    /// - Returns: A `digraph` ending in a newline.
    public func dot() -> String {
        var lines = ["digraph WeaveDI {", "  rankdir=LR;", "  node [shape=box, fontname=\"Helvetica\"];"]
        for node in nodes {
            if let scope = node.scope {
                lines.append("  \(Self.dotQuoted(node.name)) [label=\(Self.dotQuoted("\(node.name)\n\(scope)"))];")
            } else {
                lines.append(
                    "  \(Self.dotQuoted(node.name)) [label=\(Self.dotQuoted("\(node.name)\nmissing")), style=dashed, color=red];")
            }
        }
        for edge in edges {
            lines.append("  \(Self.dotQuoted(edge.from)) -> \(Self.dotQuoted(edge.to));")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A Mermaid flowchart (renders in GitHub Markdown inside a `mermaid`
    /// block); missing dependencies are drawn dashed and red.
    ///
    /// ```swift
    /// let graph = UnifiedDI.validate().graph
    /// print(graph.mermaid())
    /// ```
    ///
    /// - Returns: A `flowchart LR` ending in a newline.
    public func mermaid() -> String {
        var ids: [String: String] = [:]
        for (index, node) in nodes.enumerated() { ids[node.name] = "n\(index)" }
        var lines = ["flowchart LR"]
        for node in nodes {
            let label = Self.mermaidEscaped(node.name) + "<br/>" + (node.scope.map { "\($0)" } ?? "missing")
            lines.append("  \(ids[node.name]!)[\"\(label)\"]")
        }
        for edge in edges {
            lines.append("  \(ids[edge.from]!) --> \(ids[edge.to]!)")
        }
        for node in nodes where node.scope == nil {
            lines.append("  style \(ids[node.name]!) stroke:#d00,stroke-dasharray: 5 5")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func dotQuoted(_ text: String) -> String {
        "\""
            + text.replacingEvery("\\", with: "\\\\").replacingEvery("\"", with: "\\\"")
            .replacingEvery("\n", with: "\\n") + "\""
    }

    static func mermaidEscaped(_ text: String) -> String {
        text.replacingEvery("\"", with: "#quot;").replacingEvery("<", with: "#lt;")
            .replacingEvery(">", with: "#gt;")
    }
}

/// The state of one `validate()` call, reached from the validating thread's
/// `BuildChain`. Only that thread touches it.
@usableFromInline
final class ValidationRun: BuildRecorder {
    struct Node {
        let name: String
        let scope: ProvideScope
    }

    /// The copies being validated, by identity.
    var nodes: [ObjectIdentifier: Node] = [:]
    /// Each validated registration's copy. A factory that resolves through
    /// a container it captured (`{ Cache(c.resolve(PerRequest.self)) }`)
    /// reaches the registration itself, not the copy the overlay of `live`
    /// would give: the build is counted as the copy's, so its edges, scope
    /// and captives are seen whichever container object the read went through.
    var copies: [ObjectIdentifier: ObjectIdentifier] = [:]
    /// One instance per copy, shared by everything that needs it.
    private var instances: [ObjectIdentifier: Any] = [:]
    private var edges: [(from: ObjectIdentifier, to: ObjectIdentifier)] = []
    private var edgeSet = Set<[ObjectIdentifier]>()
    private var missing: [(from: ObjectIdentifier, type: String)] = []
    private var missingSet = Set<String>()
    private var outsideScope: [(from: ObjectIdentifier?, to: ObjectIdentifier)] = []
    private var outsideSet = Set<String>()
    private var cycles: [[String]] = []

    /// Called before a copy is built: records the edge from the copy being
    /// built on this thread, stops a `.task` copy outside a scope, and
    /// returns the copy's instance when it was built already.
    private func enter<T>(_ registration: ObjectIdentifier, _ type: T.Type, context: BuildChain) throws(DIError) -> T? {
        guard let node = nodes[registration] else { return nil }
        let parent = (context.frames.last?.key).flatMap { nodes[$0] == nil ? nil : $0 }
        if let parent, edgeSet.insert([parent, registration]).inserted {
            edges.append((parent, registration))
        }
        if node.scope == .task && TaskScope.current == nil {
            if outsideSet.insert("\(parent.map { "\($0)" } ?? "")|\(registration)").inserted {
                outsideScope.append((parent, registration))
            }
            throw .noActiveScope(type: node.name)
        }
        return instances[registration].map { $0 as! T }
    }

    /// `InstanceBuilder.run` while validating: the same build, once per copy.
    @usableFromInline @inline(never)
    func run<T>(
        registration: ObjectIdentifier,
        type: T.Type,
        context: BuildChain,
        _ factory: () throws -> T
    ) throws(DIError) -> T {
        let registration = copies[registration] ?? registration
        if let built = try enter(registration, type, context: context) {
            return built
        }
        if let chain = context.chainIfCycle(registration: registration, type: type) {
            if context.cycle == nil { context.cycle = chain }
            throw .circularDependency(chain: chain)
        }
        context.push(registration: registration, type: type)
        let value: T
        do {
            value = try factory()
        } catch {
            context.pop()
            throw InstanceBuilder.failure(error, type: type, context: context)
        }
        context.pop()
        if let chain = context.cycle {
            if context.isEmpty { context.cycle = nil }
            throw .circularDependency(chain: chain)
        }
        if nodes[registration] != nil {
            instances[registration] = value
        }
        return value
    }

    /// A resolve that found nothing, recorded against the copy being built
    /// on this thread.
    @usableFromInline func noteMissing(named name: String, context: BuildChain) {
        guard let from = context.frames.last?.key, nodes[from] != nil else { return }
        if missingSet.insert("\(from)|\(name)").inserted {
            missing.append((from, name))
        }
    }

    func note(_ error: DIError) {
        guard case .circularDependency(let chain) = error else { return }
        let names = Self.normalizedCycle(chain)
        if !cycles.contains(names) {
            cycles.append(names)
        }
    }

    /// A cycle's chain as names, rotated to start at its smallest name, so
    /// the same loop found from different starting points is one problem.
    static func normalizedCycle(_ chain: String) -> [String] {
        var names = chain.pieces(separatedBy: " -> ")
        if let last = names.last, let range = last.firstOccurrence(of: " (deeper than") {
            names[names.count - 1] = String(last[..<range.lowerBound])
        }
        // The same loop found from different starting points: rotate it to
        // start at its smallest name.
        if names.count > 1, names.first == names.last {
            names.removeLast()
            let start = names.indices.min { names[$0] < names[$1] }!
            names = Array(names[start...] + names[..<start])
            names.append(names[0])
        }
        return names
    }

    /// The chain from a registration nothing else needed down to `target`,
    /// following the first recorded dependent at each step.
    private func path(to target: ObjectIdentifier, dependents: [ObjectIdentifier: [ObjectIdentifier]]) -> [String] {
        var chain = [target]
        var visited: Set<ObjectIdentifier> = [target]
        var current = target
        while let next = dependents[current]?.first(where: { !visited.contains($0) }) {
            chain.append(next)
            visited.insert(next)
            current = next
        }
        return chain.reversed().map { nodes[$0]!.name }
    }

    func report(registrations: Int) -> ValidationReport {
        var dependents: [ObjectIdentifier: [ObjectIdentifier]] = [:]
        for edge in edges {
            dependents[edge.to, default: []].append(edge.from)
        }
        for key in dependents.keys {
            dependents[key]!.sort { nodes[$0]!.name < nodes[$1]!.name }
        }

        var problems: [ValidationReport.Problem] = []
        problems += missing.map { .missing(type: $0.type, path: path(to: $0.from, dependents: dependents)) }
            .sorted { $0.description < $1.description }
        problems += cycles.map { .cycle(chain: $0) }.sorted { $0.description < $1.description }
        var captive: [ValidationReport.Problem] = []
        for edge in edges {
            let owner = nodes[edge.from]!
            let dependency = nodes[edge.to]!
            if owner.scope == .singleton && dependency.scope != .singleton {
                captive.append(
                    .captive(
                        path: path(to: edge.from, dependents: dependents), dependency: dependency.name,
                        scope: dependency.scope))
            }
        }
        problems += captive.sorted { $0.description < $1.description }
        problems += outsideScope.map {
            .taskScopeOutsideScope(
                type: nodes[$0.to]!.name, path: $0.from.map { path(to: $0, dependents: dependents) } ?? [])
        }.sorted { $0.description < $1.description }

        var graphNodes = Set(nodes.values.map { DependencyGraph.Node(name: $0.name, scope: $0.scope) })
        var graphEdges = Set(edges.map { DependencyGraph.Edge(from: nodes[$0.from]!.name, to: nodes[$0.to]!.name) })
        for item in missing {
            graphNodes.insert(DependencyGraph.Node(name: item.type, scope: nil))
            graphEdges.insert(DependencyGraph.Edge(from: nodes[item.from]!.name, to: item.type))
        }
        let graph = DependencyGraph(
            nodes: graphNodes.sorted { ($0.name, $0.scope == nil ? 1 : 0) < ($1.name, $1.scope == nil ? 1 : 0) },
            edges: graphEdges.sorted { ($0.from, $0.to) < ($1.from, $1.to) })
        return ValidationReport(problems: problems, graph: graph, registrationCount: registrations)
    }
}

/// A registration's copy that a validation builds, with its name and lifetime.
typealias ValidationRoot = (name: String, scope: ProvideScope, clone: AnyRegistryEntry)

extension DIContainer {
    /// Registers a copy of each of `sources` (made by `copy`) in `throwaway`,
    /// under the same key, and passes each copy and its original to `body`.
    static func copy(
        _ sources: [(key: TypeKey, entry: AnyRegistryEntry)],
        into throwaway: DIContainer,
        with copy: (AnyRegistryEntry) -> AnyRegistryEntry,
        _ body: (ValidationRoot, AnyRegistryEntry) -> Void
    ) {
        for (key, entry) in sources {
            let clone = copy(entry)
            throwaway.registry.set(clone, forKey: key)
            body((RegistrationName.label(key, type: entry.type), entry.scope, clone), entry)
        }
    }
}

extension Array where Element == ValidationRoot {
    /// Singletons first, then the rest, each group by name.
    mutating func sortForValidation() {
        sort { ($0.scope == .singleton ? 0 : 1, $0.name) < ($1.scope == .singleton ? 0 : 1, $1.name) }
    }
}
