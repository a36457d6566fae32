import WeaveDI
import XCTest

private final class XStripeClient: Sendable {}
private final class XPaymentService: Sendable {
    let client: XStripeClient?
    init(client: XStripeClient?) { self.client = client }
}
private final class XOrderService: Sendable {
    let payment: XPaymentService?
    init(payment: XPaymentService?) { self.payment = payment }
}
private final class XUnregistered: Sendable {}

final class ExplainTests: DITestCase {
    func testALazySingletonIsExplainedWithoutBeingBuilt() {
        let builds = TestAtomic<Int>(0)
        UnifiedDI.register(XStripeClient.self, scope: .singleton) {
            builds.add(1, ordering: .sequentiallyConsistent)
            return XStripeClient()
        }
        let before = UnifiedDI.explain(XStripeClient.self)
        XCTAssertEqual(builds.load(ordering: .sequentiallyConsistent), 0, "explain built the singleton")
        XCTAssertEqual(before.answeredBy, "the live container")
        XCTAssertEqual(before.scope, .singleton)
        XCTAssertEqual(before.isBuilt, false)
        XCTAssertFalse(before.isEager)
        XCTAssertTrue(before.description.contains("registration: lazy, singleton, not built yet"), before.description)
        XCTAssertTrue(before.type.hasSuffix("XStripeClient"), before.type)

        _ = UnifiedDI.resolve(XStripeClient.self)
        XCTAssertEqual(UnifiedDI.explain(XStripeClient.self).isBuilt, true)
    }

    func testAParentsRegistrationIsNamedAsTheParents() {
        let parent = DIContainer()
        parent.register(XStripeClient.self, instance: XStripeClient())
        let child = DIContainer(parent: parent)
        let explanation = child.explain(XStripeClient.self)
        XCTAssertEqual(explanation.answeredBy, "parent 1 of the container asked")
        XCTAssertTrue(explanation.isEager)
        XCTAssertNil(explanation.isBuilt)
    }

    func testNothingRegisteredSaysSoWithNearMisses() {
        UnifiedDI.register(XStripeClient?.self) { XStripeClient() }
        let explanation = UnifiedDI.explain(XStripeClient.self)
        XCTAssertNil(explanation.answeredBy)
        XCTAssertTrue(explanation.description.contains("answered by: nothing"), explanation.description)
        XCTAssertTrue(
            explanation.nearMisses.contains { $0.contains("registered as an Optional") }, "\(explanation.nearMisses)")
        XCTAssertNil(UnifiedDI.explain(XUnregistered.self).answeredBy)
    }

    func testDependenciesComeFromTheLastValidation() {
        let container = DIContainer()
        container.register(XStripeClient.self, scope: .singleton) { XStripeClient() }
        container.register(XPaymentService.self, scope: .singleton) {
            XPaymentService(client: container.resolve(XStripeClient.self))
        }
        container.register(XOrderService.self, scope: .transient) {
            XOrderService(payment: container.resolve(XPaymentService.self))
        }
        XCTAssertNil(container.explain(XOrderService.self).dependencyPaths, "no validate() yet")
        XCTAssertTrue(container.validate().isValid)
        let explanation = container.explain(XOrderService.self)
        XCTAssertEqual(explanation.dependencyPaths, [["XOrderService", "XPaymentService", "XStripeClient"]])
        XCTAssertTrue(
            explanation.description.contains(
                "dependencies (last validate()): XOrderService -> XPaymentService -> XStripeClient"),
            explanation.description)
        XCTAssertEqual(explanation.scope, .transient)
        XCTAssertNil(explanation.isBuilt)
        XCTAssertEqual(container.explain(XStripeClient.self).dependencyPaths, [])
    }
}
