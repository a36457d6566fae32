import WeaveDI
import XCTest

@available(*, deprecated, message: "exercises the deprecated wrappers on purpose")
final class LegacyConsumer: Sendable {
    @Inject var service: Service?
    @Inject(ServiceImpl.self) var concrete
    @SafeInject var safe: Service?
    @Factory var fresh: ServiceImpl
    @Factory(factory: { ServiceImpl(id: 99) }) var custom: ServiceImpl
}

@available(*, deprecated, message: "exercises the deprecated wrappers on purpose")
final class LegacyWrapperTests: DITestCase {
    func testInjectResolvesOnEveryAccess() {
        let consumer = LegacyConsumer()
        XCTAssertNil(consumer.service)
        UnifiedDI.register(Service.self) { ServiceImpl(id: 1) }
        XCTAssertEqual(consumer.service?.id, 1)
        UnifiedDI.register(Service.self) { ServiceImpl(id: 2) }
        XCTAssertEqual(consumer.service?.id, 2)
        UnifiedDI.register(ServiceImpl.self) { ServiceImpl(id: 3) }
        XCTAssertEqual(consumer.concrete?.id, 3)
    }

    func testSafeInjectThrowsNamingTheType() {
        let consumer = LegacyConsumer()
        XCTAssertNil(consumer.safe)
        XCTAssertThrowsError(try consumer.$safe.getValue()) { error in
            XCTAssertEqual(error as? DIError, .dependencyNotFound(type: "Service"))
        }
        UnifiedDI.register(Service.self) { ServiceImpl(id: 4) }
        XCTAssertEqual(try consumer.$safe.getValue().id, 4)
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
}
