#if canImport(Darwin) || PortableAtomics
import Atomics  // Registry/PlatformAtomic.swift
#else
import Synchronization
#endif

extension DIContainer {
    /// ``validate()``, and then every async registration built once too,
    /// in a throwaway copy, with the same report: what an async factory
    /// needs and nothing registers, cycles across awaits, captive
    /// dependencies, `.task` registrations needed outside a scope, and
    /// factories that threw.
    ///
    /// ```swift
    /// let report = await WeaveDI.Container.live.validateAsync()
    /// guard report.isValid else { fatalError("\(report)") }
    /// ```
    ///
    /// As with ``validate()``, no live instance is touched and factories do
    /// run (once per registration), so one that connects to a server does
    /// so; what the copy built is shut down (``AsyncShutdown``) before the
    /// report returns. The async part records what async factories resolve with
    /// `resolveAsyncThrowing` / `resolveAsync`; what they read
    /// synchronously is reported by the synchronous part when it is itself
    /// a synchronous registration.
    ///
    /// - Returns: The problems found and the dependency graph.
    public func validateAsync() async -> ValidationReport {
        let synchronous = validate()
        let sources = reachableEntries
        let throwaway = DIContainer()
        let run = AsyncValidationRun()
        var roots: [ValidationRoot] = []
        Self.copy(sources, into: throwaway, with: { $0.asyncValidationClone() }) { root, entry in
            run.scopes.withLock { $0[root.name] = root.scope }
            if entry.isAsync {
                roots.append(root)
            }
        }
        guard !roots.isEmpty else { return synchronous }
        roots.sortForValidation()

        let binding = ContainerOverlay(throwaway)
        Resolver.asyncValidations.add(1, ordering: .sequentiallyConsistent)
        defer { Resolver.asyncValidations.subtract(1, ordering: .sequentiallyConsistent) }
        await BuildRecording.$asyncRecorder.withValue(run) {
            await ContainerOverlays.$current.withValue(binding) {
                await OverrideScopes.$active.withValue(true) {
                    for root in roots {
                        do {
                            if root.scope == .singleton {
                                try await root.clone.buildForStart()
                            } else {
                                try await withTaskScope { try await root.clone.buildForStart() }
                            }
                        } catch let error as DIError {
                            run.note(error, building: root.name)
                        } catch {}
                    }
                }
            }
        }
        // What the copies built is real (a pool that connected to its
        // server): shut it down, newest first, as the live container's
        // shutdown would, so a validation leaves nothing running.
        await throwaway.shutdown()
        return run.merged(into: synchronous, registrations: sources.count)
    }
}

extension UnifiedDI {
    /// ``DIContainer/validateAsync()`` of the live container (or of the
    /// task's overlay): ``validate()``, and every async registration built
    /// once too, with the same report.
    ///
    /// ```swift
    /// let report = await UnifiedDI.validateAsync()
    /// guard report.isValid else { fatalError("\(report)") }
    /// ```
    ///
    /// - Returns: The problems found and the dependency graph.
    public static func validateAsync() async -> ValidationReport {
        await DIContainer.live.validateAsync()
    }
}

/// What `validateAsync()` records while it builds async registrations: the
/// edges between registrations (by name: an async factory may hop threads,
/// so the thread's `ValidationRun` cannot follow it), misses, and the
/// failures its roots end with. Shared by the tasks of one run.
final class AsyncValidationRun: AsyncBuildRecorder {
    struct Records {
        var edges: [(from: String, to: String)] = []
        /// Each miss: the dependent, and the type it found no registration for.
        var missing: [(from: String, to: String)] = []
        var cycles: [[String]] = []
        var failures: [ValidationReport.Problem] = []
    }

    let scopes = Locked<[String: ProvideScope]>([:])
    private let records = Locked(Records())

    /// Records, once, that the factory named `from` resolved `to`, or
    /// found nothing for it.
    @usableFromInline func noteResolve(from: String, to: String, missing: Bool) {
        let list: WritableKeyPath<Records, [(from: String, to: String)]> = missing ? \.missing : \.edges
        records.withLock { records in
            if !records[keyPath: list].contains(where: { $0.from == from && $0.to == to }) {
                records[keyPath: list].append((from, to))
            }
        }
    }

    @usableFromInline func noteCycle(_ error: DIError) {
        note(error, building: "")
    }

    /// How a root's build ended.
    func note(_ error: DIError, building root: String) {
        records.withLock { records in
            switch error {
            case .circularDependency(let chain):
                let cycle = ValidationRun.normalizedCycle(chain)
                if !records.cycles.contains(cycle) { records.cycles.append(cycle) }
            case .factoryFailed(let type, let chain, let failure):
                let problem = ValidationReport.Problem.failed(
                    type: type, path: chain.pieces(separatedBy: " -> "), reason: failure.description)
                if !records.failures.contains(problem) { records.failures.append(problem) }
            case .noActiveScope(let type):
                let problem = ValidationReport.Problem.taskScopeOutsideScope(type: type, path: [root])
                if !records.failures.contains(problem) { records.failures.append(problem) }
            default:
                break
            }
        }
    }

    func merged(into synchronous: ValidationReport, registrations: Int) -> ValidationReport {
        let scopes = scopes.withLock { $0 }
        let records = records.withLock { $0 }
        var problems = synchronous.problems
        func add(_ problem: ValidationReport.Problem) {
            if !problems.contains(problem) { problems.append(problem) }
        }
        for item in records.missing.sorted(by: { ($0.from, $0.to) < ($1.from, $1.to) }) {
            add(.missing(type: item.to, path: [item.from]))
        }
        for cycle in records.cycles.sorted(by: { $0.joined() < $1.joined() }) {
            add(.cycle(chain: cycle))
        }
        for edge in records.edges.sorted(by: { ($0.from, $0.to) < ($1.from, $1.to) }) {
            if scopes[edge.from] == .singleton, let scope = scopes[edge.to], scope != .singleton {
                add(.captive(path: [edge.from], dependency: edge.to, scope: scope))
            }
        }
        for failure in records.failures.sorted(by: { $0.description < $1.description }) {
            add(failure)
        }
        var nodes = Set(synchronous.graph.nodes)
        var edges = Set(synchronous.graph.edges)
        for edge in records.edges {
            nodes.insert(DependencyGraph.Node(name: edge.to, scope: scopes[edge.to]))
            edges.insert(DependencyGraph.Edge(from: edge.from, to: edge.to))
        }
        for item in records.missing {
            nodes.insert(DependencyGraph.Node(name: item.to, scope: nil))
            edges.insert(DependencyGraph.Edge(from: item.from, to: item.to))
        }
        let graph = DependencyGraph(
            nodes: nodes.sorted { ($0.name, $0.scope == nil ? 1 : 0) < ($1.name, $1.scope == nil ? 1 : 0) },
            edges: edges.sorted { ($0.from, $0.to) < ($1.from, $1.to) })
        return ValidationReport(problems: problems, graph: graph, registrationCount: registrations)
    }
}
