import WeaveDI
import XCTest

private final class SCycleA: Sendable {
    let b: SCycleB?
    init(b: SCycleB?) { self.b = b }
}
private final class SCycleB: Sendable {
    let a: SCycleA?
    init(a: SCycleA?) { self.a = a }
}
private final class SSingleton: Sendable {}
private final class STransient: Sendable {}
private final class SUser: Sendable {
    let singleton: SSingleton?
    init(singleton: SSingleton?) { self.singleton = singleton }
}

/// Upstream's statistics and health family, with the meaning each has here.
final class UpstreamStatisticsTests: DITestCase {
    override func tearDown() {
        UnifiedDI.setAutoOptimization(false)
        UnifiedDI.resetStats()
        UnifiedRegistry.shared.enableOptimization()
        super.tearDown()
    }

    func testStatsCountResolvesOnlyWhileCounting() {
        UnifiedDI.register(SSingleton.self, scope: .singleton) { SSingleton() }
        UnifiedDI.register(STransient.self, scope: .transient) { STransient() }
        UnifiedDI.resetStats()
        _ = UnifiedDI.resolve(SSingleton.self)
        _ = UnifiedDI.resolve(STransient.self)
        XCTAssertTrue(UnifiedDI.stats().isEmpty, "counted while counting was off: \(UnifiedDI.stats())")

        UnifiedDI.setAutoOptimization(true)
        for _ in 0..<5 {
            _ = UnifiedDI.resolve(SSingleton.self)  // built and cached already: still counted
            _ = UnifiedDI.resolve(STransient.self)
        }
        XCTAssertEqual(UnifiedDI.stats()["SSingleton"], 5)
        XCTAssertEqual(UnifiedDI.stats()["STransient"], 5)

        UnifiedDI.setAutoOptimization(false)
        _ = UnifiedDI.resolve(SSingleton.self)
        XCTAssertEqual(UnifiedDI.stats()["SSingleton"], 5, "counted after counting was turned off")
        UnifiedDI.resetStats()
        XCTAssertTrue(UnifiedDI.stats().isEmpty)
    }

    func testOptimizedMeansRegisteredAndReadLockFree() {
        UnifiedDI.register(SSingleton.self) { SSingleton() }
        XCTAssertTrue(UnifiedDI.isOptimized(SSingleton.self))
        XCTAssertFalse(UnifiedDI.isOptimized(STransient.self), "not registered")
        XCTAssertTrue(UnifiedDI.optimizedTypes().contains("SSingleton"))
        UnifiedRegistry.shared.disableOptimization()
        XCTAssertFalse(UnifiedDI.isOptimized(SSingleton.self))
        XCTAssertTrue(UnifiedDI.optimizedTypes().isEmpty)
    }

    func testGraphCyclesAndIssuesComeFromTheLastValidation() async {
        UnifiedDI.register(SSingleton.self, scope: .singleton) { SSingleton() }
        UnifiedDI.register(SUser.self, scope: .transient) { SUser(singleton: UnifiedDI.resolve(SSingleton.self)) }
        UnifiedDI.register(SCycleA.self, scope: .transient) { SCycleA(b: UnifiedDI.resolve(SCycleB.self)) }
        UnifiedDI.register(SCycleB.self, scope: .transient) { SCycleB(a: UnifiedDI.resolve(SCycleA.self)) }
        XCTAssertTrue(UnifiedDI.autoGraph().contains("\"SUser\""), UnifiedDI.autoGraph())
        XCTAssertFalse(UnifiedDI.autoGraph().contains("->"), "edges before any validate()")
        XCTAssertTrue(UnifiedDI.circularDependencies().isEmpty)

        _ = UnifiedDI.validate()
        XCTAssertTrue(UnifiedDI.autoGraph().contains("\"SUser\" -> \"SSingleton\""), UnifiedDI.autoGraph())
        XCTAssertEqual(UnifiedDI.circularDependencies(), ["SCycleA -> SCycleB -> SCycleA"])
        let issues = await UnifiedDI.typeSafetyIssues
        XCTAssertEqual(issues["SCycleA"]?.issue, "cycle: WeaveDITests.SCycleA -> WeaveDITests.SCycleB -> WeaveDITests.SCycleA")
    }

    func testRegistryHealthCountsTheOneStore() async {
        UnifiedDI.register(SSingleton.self) { SSingleton() }
        UnifiedDI.register(STransient.self, scope: .transient) { STransient() }
        let unvalidated = await UnifiedDI.verifyRegistryHealth()
        XCTAssertEqual(unvalidated.totalRegistrations, 2)
        XCTAssertEqual(unvalidated.totalTypes, 2)
        XCTAssertFalse(unvalidated.isValidated)
        XCTAssertEqual(unvalidated.healthScore, 0)
        XCTAssertTrue(unvalidated.summary.contains("not validated"), unvalidated.summary)
        XCTAssertEqual(unvalidated.optimizationStats.optimizedTypes, 2)

        _ = UnifiedDI.validate()
        let report = await UnifiedDI.verifyRegistryHealth()
        XCTAssertTrue(report.isValidated)
        XCTAssertEqual(report.validatedRegistrations, 2)
        XCTAssertEqual(report.healthScore, 100)
        XCTAssertTrue(report.factoryInconsistencies.isEmpty)
        let score = await UnifiedDI.getRegistryHealthScore()
        XCTAssertEqual(score, 100)
        UnifiedRegistry.shared.disableOptimization()
        let fix = await UnifiedDI.autoFixRegistry()
        XCTAssertTrue(fix.suggestedOptimizationEnabled)
        XCTAssertEqual(fix.improvement, 0)
        XCTAssertEqual(fix.originalHealthScore, 100)
    }

    func testRegistryHealthScoreCountsTheProblemsValidationFound() async {
        UnifiedDI.register(SSingleton.self) { SSingleton() }
        UnifiedDI.register(STransient.self, scope: .transient) { STransient() }
        UnifiedDI.register(SCycleA.self, scope: .transient) { SCycleA(b: UnifiedDI.resolve(SCycleB.self)) }
        UnifiedDI.register(SCycleB.self, scope: .transient) { SCycleB(a: UnifiedDI.resolve(SCycleA.self)) }
        let problems = UnifiedDI.validate().problems
        XCTAssertFalse(problems.isEmpty)
        let report = await UnifiedDI.verifyRegistryHealth()
        XCTAssertEqual(report.factoryInconsistencies, problems.map(\.description))
        XCTAssertLessThan(report.healthScore, 100)
        XCTAssertGreaterThanOrEqual(report.healthScore, 0)
        let expected = (max(0, 1 - Double(problems.count) / Double(report.validatedRegistrations)) * 1000).rounded() / 10
        XCTAssertEqual(report.healthScore, expected)
    }
}
