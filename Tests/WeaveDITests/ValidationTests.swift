import InMemoryLogging
import Logging
import WeaveDI
import XCTest

// A small application graph with two missing dependencies, a cycle and a
// captive dependency. Factories read the live container, as application
// code does; validate() points those reads at its throwaway copy.
private final class VStripeClient: Sendable {}
private final class VPaymentService: Sendable {
    let client: VStripeClient?
    init(client: VStripeClient?) { self.client = client }
}
private final class VOrderService: Sendable {
    let payment: VPaymentService?
    init(payment: VPaymentService?) { self.payment = payment }
}
private final class VTemplates: Sendable {}
private final class VMailer: Sendable {
    let templates: VTemplates?
    init(templates: VTemplates?) { self.templates = templates }
}
private final class VCycleA: Sendable {
    let b: VCycleB?
    init(b: VCycleB?) { self.b = b }
}
private final class VCycleB: Sendable {
    let a: VCycleA?
    init(a: VCycleA?) { self.a = a }
}
private final class VRequestID: Sendable {}
private final class VCache: Sendable {
    let id: VRequestID?
    init(id: VRequestID?) { self.id = id }
}
private final class VRequestContext: Sendable {}
private final class VHandler: Sendable {
    let context: VRequestContext?
    init(context: VRequestContext?) { self.context = context }
}
private final class VAudit: Sendable {
    let context: VRequestContext?
    init(context: VRequestContext?) { self.context = context }
}
private final class VBuildCounter: Sendable {
    static let builds = TestAtomic<Int>(0)
    init() { Self.builds.add(1, ordering: .sequentiallyConsistent) }
}

final class ValidationTests: XCTestCase {
    private func brokenGraph() -> DIContainer {
        let container = DIContainer()
        container.register(VOrderService.self, scope: .transient) {
            VOrderService(payment: UnifiedDI.resolve(VPaymentService.self))
        }
        container.register(VPaymentService.self, scope: .singleton) {
            VPaymentService(client: UnifiedDI.resolve(VStripeClient.self))
        }
        container.register(VMailer.self, scope: .singleton) {
            VMailer(templates: try? UnifiedDI.resolveThrowing(VTemplates.self))
        }
        container.register(VCycleA.self, scope: .transient) { VCycleA(b: UnifiedDI.resolve(VCycleB.self)) }
        container.register(VCycleB.self, scope: .transient) { VCycleB(a: UnifiedDI.resolve(VCycleA.self)) }
        container.register(VRequestID.self, scope: .transient) { VRequestID() }
        container.register(VCache.self, scope: .singleton) { VCache(id: UnifiedDI.resolve(VRequestID.self)) }
        return container
    }

    func testReportsEveryProblemOfAGraphInOneCallWithTheirPaths() {
        let report = brokenGraph().validate()
        XCTAssertEqual(report.registrationCount, 7)
        XCTAssertEqual(
            Set(report.problems),
            [
                .missing(type: "VStripeClient", path: ["VOrderService", "VPaymentService"]),
                .missing(type: "VTemplates", path: ["VMailer"]),
                .cycle(chain: ["VCycleA", "VCycleB", "VCycleA"]),
                .captive(path: ["VCache"], dependency: "VRequestID", scope: .transient),
            ],
            "\(report)")
        XCTAssertEqual(report.problems.count, 4, "\(report)")
        XCTAssertFalse(report.isValid)
        XCTAssertTrue(
            "\(report)".contains(
                "missing: WeaveDITests.VOrderService -> WeaveDITests.VPaymentService -> <missing> WeaveDITests.VStripeClient"), "\(report)")
    }

    /// The same graph, its factories reading the container they captured
    /// instead of the live one.
    private func brokenGraphThroughACapturedContainer() -> DIContainer {
        let c = DIContainer()
        c.register(VOrderService.self, scope: .transient) { VOrderService(payment: c.resolve(VPaymentService.self)) }
        c.register(VPaymentService.self, scope: .singleton) { VPaymentService(client: c.resolve(VStripeClient.self)) }
        c.register(VMailer.self, scope: .singleton) { VMailer(templates: try? c.resolveThrowing(VTemplates.self)) }
        c.register(VCycleA.self, scope: .transient) { VCycleA(b: c.resolve(VCycleB.self)) }
        c.register(VCycleB.self, scope: .transient) { VCycleB(a: c.resolve(VCycleA.self)) }
        c.register(VRequestID.self, scope: .transient) { VRequestID() }
        c.register(VCache.self, scope: .singleton) { VCache(id: c.resolve(VRequestID.self)) }
        return c
    }

    func testFactoriesReadingACapturedContainerAreValidatedTheSame() {
        let report = brokenGraphThroughACapturedContainer().validate()
        XCTAssertEqual(
            Set(report.problems),
            [
                .missing(type: "VStripeClient", path: ["VOrderService", "VPaymentService"]),
                .missing(type: "VTemplates", path: ["VMailer"]),
                .cycle(chain: ["VCycleA", "VCycleB", "VCycleA"]),
                .captive(path: ["VCache"], dependency: "VRequestID", scope: .transient),
            ],
            "\(report)")
    }

    func testAValidGraphHasNoProblemsAndItsEdges() {
        let container = DIContainer()
        container.register(VStripeClient.self) { VStripeClient() }
        container.register(VPaymentService.self, scope: .singleton) {
            VPaymentService(client: UnifiedDI.resolve(VStripeClient.self))
        }
        container.register(VOrderService.self, scope: .transient) {
            VOrderService(payment: UnifiedDI.resolve(VPaymentService.self))
        }
        let report = container.validate()
        XCTAssertTrue(report.isValid, "\(report)")
        XCTAssertEqual(
            report.graph.edges,
            [
                DependencyGraph.Edge(from: "VOrderService", to: "VPaymentService"),
                DependencyGraph.Edge(from: "VPaymentService", to: "VStripeClient"),
            ])
        XCTAssertEqual(
            report.graph.nodes.map(\.scope), [.transient, .singleton, .singleton],
            "\(report.graph.nodes)")
    }

    func testEveryDependentOfASharedSingletonIsAnEdge() {
        // The second dependent finds the singleton built already: still an edge.
        let container = DIContainer()
        container.register(VStripeClient.self, scope: .singleton) { VStripeClient() }
        container.register(VPaymentService.self, scope: .transient) {
            VPaymentService(client: UnifiedDI.resolve(VStripeClient.self))
        }
        container.register(VMailer.self, scope: .transient) {
            _ = UnifiedDI.resolve(VStripeClient.self)
            return VMailer(templates: nil)
        }
        let edges = container.validate().graph.edges
        XCTAssertTrue(edges.contains(.init(from: "VPaymentService", to: "VStripeClient")), "\(edges)")
        XCTAssertTrue(edges.contains(.init(from: "VMailer", to: "VStripeClient")), "\(edges)")
    }

    func testTransientsAndTaskScopedServicesAreBuiltAsARequestBuildsThem() {
        let container = DIContainer()
        container.register(VRequestContext.self, scope: .task) { VRequestContext() }
        // Built inside a scope, as in a request: its .task dependency is there.
        container.register(VHandler.self, scope: .transient) {
            VHandler(context: UnifiedDI.resolve(VRequestContext.self))
        }
        container.register(VAudit.self, scope: .task) { VAudit(context: UnifiedDI.resolve(VRequestContext.self)) }
        let report = container.validate()
        XCTAssertTrue(report.isValid, "\(report)")
        XCTAssertEqual(
            report.graph.edges,
            [.init(from: "VAudit", to: "VRequestContext"), .init(from: "VHandler", to: "VRequestContext")])
    }

    func testASingletonNeedingATaskScopedServiceIsCaptive() {
        let container = DIContainer()
        container.register(VRequestContext.self, scope: .task) { VRequestContext() }
        container.register(VAudit.self, scope: .singleton) { VAudit(context: UnifiedDI.resolve(VRequestContext.self)) }
        let problems = container.validate().problems
        XCTAssertTrue(
            problems.contains(.captive(path: ["VAudit"], dependency: "VRequestContext", scope: .task)), "\(problems)")
        XCTAssertTrue(
            problems.contains(.taskScopeOutsideScope(type: "VRequestContext", path: ["VAudit"])), "\(problems)")
    }

    func testLeavesTheContainersSingletonsUntouched() {
        let container = DIContainer()
        container.register(VBuildCounter.self, scope: .singleton) { VBuildCounter() }
        container.register(VCache.self, scope: .singleton) { VCache(id: nil) }
        let cache = container.resolve(VCache.self)
        let before = VBuildCounter.builds.load(ordering: .sequentiallyConsistent)

        XCTAssertTrue(container.validate().isValid)

        // validate() built its own copy...
        XCTAssertEqual(VBuildCounter.builds.load(ordering: .sequentiallyConsistent), before + 1)
        // ...and the container's singleton is still unbuilt: resolving builds it now.
        _ = container.resolve(VBuildCounter.self)
        XCTAssertEqual(VBuildCounter.builds.load(ordering: .sequentiallyConsistent), before + 2)
        _ = container.resolve(VBuildCounter.self)
        XCTAssertEqual(VBuildCounter.builds.load(ordering: .sequentiallyConsistent), before + 2)
        // A built one is the same instance as before.
        XCTAssertTrue(container.resolve(VCache.self) === cache)
    }

    func testLiveValidationInsideAnOverlaySeesTheOverlaysRegistrations() {
        let report = withContainerOverlay { container in
            container.register(VPaymentService.self, scope: .singleton) {
                VPaymentService(client: UnifiedDI.resolve(VStripeClient.self))
            }
        } operation: {
            UnifiedDI.validate()
        }
        XCTAssertTrue(report.problems.contains(.missing(type: "VStripeClient", path: ["VPaymentService"])), "\(report)")
    }

    func testDOTAndMermaidOutput() throws {
        let graph = brokenGraph().validate().graph
        let dot = graph.dot()
        XCTAssertTrue(dot.hasPrefix("digraph WeaveDI {"))
        XCTAssertTrue(dot.contains("\"VOrderService\" -> \"VPaymentService\";"), dot)
        XCTAssertTrue(dot.contains("\"VStripeClient\" [label=\"VStripeClient\\nmissing\", style=dashed, color=red];"), dot)
        let mermaid = graph.mermaid()
        XCTAssertTrue(mermaid.hasPrefix("flowchart LR\n"), mermaid)
        XCTAssertEqual(mermaid.components(separatedBy: " --> ").count - 1, graph.edges.count, mermaid)

        // Graphviz parses it (scripts/test.sh installs graphviz).
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dot") else {
            throw XCTSkip("graphviz is not installed (scripts/test.sh installs it)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dot")
        process.arguments = ["-Tsvg", "-o", "/dev/null"]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(dot.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, message)
        XCTAssertEqual(message, "")
    }

    func testACaptiveDependencyIsLoggedWhenItHappens() {
        let handler = InMemoryLogHandler()
        let saved = DILog.logger
        defer { DILog.logger = saved }
        var logger = Logging.Logger(label: "WeaveDI") { _ in handler }
        logger.logLevel = .debug
        DILog.logger = logger

        let container = DIContainer()
        container.register(VRequestID.self, scope: .transient) { VRequestID() }
        container.register(VCache.self, scope: .singleton) { VCache(id: container.resolve(VRequestID.self)) }
        _ = container.resolve(VCache.self)
        XCTAssertTrue(
            handler.entries.contains {
                $0.level == .debug && "\($0.message)".contains("captive dependency: singleton WeaveDITests.VCache")
                    && "\($0.message)".contains("transient-scoped WeaveDITests.VRequestID")
            },
            "\(handler.entries)")
    }
}
