import XCTest

@testable import WeaveDI
@testable import WeaveDICore

// A registration made through a metatype variable whose static type is a
// superclass (`let t: Base.Type = Sub.self`) registers a factory of the
// superclass. It must be found by the superclass, the type the factory
// returns, and never by the subclass: read as the subclass, the superclass
// instance the factory built (here another subclass) would be a value of the
// wrong type.

class MetatypeBase: @unchecked Sendable {
    init() {}
}

final class MetatypeSub: MetatypeBase, @unchecked Sendable {
    let subOnly = 42
}

final class MetatypeOther: MetatypeBase, @unchecked Sendable {}

final class MetatypeKeyTests: XCTestCase {
    private let subclassMetatype: MetatypeBase.Type = MetatypeSub.self

    func testAnEagerRegistrationIsKeyedByTheMetatypesStaticType() {
        let container = WeaveDI.Container()
        _ = container.register(subclassMetatype) { MetatypeOther() }
        XCTAssertNil(container.resolve(MetatypeSub.self), "a MetatypeOther was handed out as a MetatypeSub")
        XCTAssertTrue(container.resolve(MetatypeBase.self) is MetatypeOther)
    }

    func testALazyRegistrationIsKeyedByTheMetatypesStaticType() {
        let container = WeaveDI.Container()
        container.register(subclassMetatype, scope: .singleton) { MetatypeOther() }
        XCTAssertNil(container.resolve(MetatypeSub.self), "a MetatypeOther was handed out as a MetatypeSub")
        XCTAssertTrue(container.resolve(MetatypeBase.self) is MetatypeOther)
        XCTAssertTrue(container.isRegistered(MetatypeBase.self))
        XCTAssertFalse(container.isRegistered(MetatypeSub.self))
    }

    func testAnInstanceRegistrationAndItsReleaseUseTheSameKey() {
        let container = WeaveDI.Container()
        container.register(subclassMetatype, instance: MetatypeOther())
        XCTAssertNil(container.resolve(MetatypeSub.self))
        XCTAssertTrue(container.resolve(MetatypeBase.self) is MetatypeOther)
        container.release(subclassMetatype)
        XCTAssertNil(container.resolve(MetatypeBase.self), "release through the same metatype left the registration")
    }

    func testTheLiveContainerAndItsCachedReadsUseTheStaticType() {
        let previous = WeaveDI.Container.live
        WeaveDI.Container.live = WeaveDI.Container()
        defer { WeaveDI.Container.live = previous }
        UnifiedDI.register(subclassMetatype, scope: .singleton) { MetatypeOther() }
        // Twice each: the first read fills the type's slot, the second reads it.
        for _ in 0..<2 {
            XCTAssertNil(UnifiedDI.resolve(MetatypeSub.self))
            XCTAssertTrue(UnifiedDI.resolve(MetatypeBase.self) is MetatypeOther)
        }
    }

    func testRegistrationsOfTheSubclassItselfAreUnaffected() {
        let container = WeaveDI.Container()
        _ = container.register(MetatypeSub.self) { MetatypeSub() }
        XCTAssertEqual(container.resolve(MetatypeSub.self)?.subOnly, 42)
        XCTAssertNil(container.resolve(MetatypeBase.self))
    }
}
