import WeaveDI
import XCTest

/// The deprecated wrappers are exercised through a protocol witness, so the
/// test target stays free of deprecation warnings while still using them
/// exactly as an app would.
private final class LegacyConsumer {
    @available(*, deprecated) @Inject var service: Service?
    @available(*, deprecated) @Inject(ServiceImpl.self) var concrete
    @available(*, deprecated) @SafeInject var safe: Service?
    @Factory var fresh: ServiceImpl
    @Factory(factory: { ServiceImpl(id: 99) }) var custom: ServiceImpl
}

private protocol LegacyScenarios {
    func injectResolvesOnEveryAccess()
    func safeInjectThrowsNamingTheType()
}

private struct DeprecatedWrapperScenarios: LegacyScenarios {
    @available(*, deprecated)
    func injectResolvesOnEveryAccess() {
        let consumer = LegacyConsumer()
        XCTAssertNil(consumer.service)
        UnifiedDI.register(Service.self) { ServiceImpl(id: 1) }
        XCTAssertEqual(consumer.service?.id, 1)
        UnifiedDI.register(Service.self) { ServiceImpl(id: 2) }
        XCTAssertEqual(consumer.service?.id, 2)
        UnifiedDI.register(ServiceImpl.self) { ServiceImpl(id: 3) }
        XCTAssertEqual(consumer.concrete?.id, 3)
    }

    @available(*, deprecated)
    func safeInjectThrowsNamingTheType() {
        let consumer = LegacyConsumer()
        XCTAssertNil(consumer.safe)
        XCTAssertThrowsError(try consumer.$safe.getValue()) { error in
            XCTAssertEqual(error as? DIError, .dependencyNotFound(type: "Service"))
        }
        UnifiedDI.register(Service.self) { ServiceImpl(id: 4) }
        XCTAssertEqual(try consumer.$safe.getValue().id, 4)
        XCTAssertEqual(consumer.safe?.id, 4)
    }
}

final class LegacyWrapperTests: DITestCase {
    private let scenarios: any LegacyScenarios = DeprecatedWrapperScenarios()

    func testInjectResolvesOnEveryAccess() {
        forEachBackend { _ in scenarios.injectResolvesOnEveryAccess() }
    }

    func testSafeInjectThrowsNamingTheType() {
        forEachBackend { _ in scenarios.safeInjectThrowsNamingTheType() }
    }

    func testFactoryGivesANewInstancePerAccessFromTheRegisteredFactory() {
        let counter = Counter()
        UnifiedDI.register(ServiceImpl.self) { ServiceImpl(id: counter.increment()) }
        let consumer = LegacyConsumer()
        let a = consumer.fresh
        let b = consumer.fresh
        XCTAssertFalse(a === b)
        XCTAssertEqual([a.id, b.id], [2, 3], "eager registration ran once, then once per access")
        XCTAssertEqual(consumer.custom.id, 99)
        XCTAssertFalse(consumer.custom === consumer.custom)
    }

    func testFactoryOnALazyRegistrationAndAProtocolType() {
        UnifiedDI.register(Service.self, scope: .singleton) { ServiceImpl(id: 8) }
        let holder = FactoryHolder()
        XCTAssertEqual(holder.service.id, 8)
        XCTAssertFalse((holder.service as? ServiceImpl) === (holder.service as? ServiceImpl))
    }
}

private final class FactoryHolder {
    @Factory var service: Service
}
