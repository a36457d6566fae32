import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private final class SharedSlotService: Sendable {
    let name: String
    init(_ name: String) { self.name = name }
}

private struct SharedSlotDefaultKey: InjectedKey {
    static let liveValue = SharedSlotService("default")
    static let testValue = SharedSlotService("default")
}

extension InjectedValues {
    fileprivate var sharedSlotService: SharedSlotService {
        get { self[SharedSlotDefaultKey.self] }
        set { self[SharedSlotDefaultKey.self] = newValue }
    }
}

private final class SharedSlotHolder {
    @Injected var byType: SharedSlotService
    @Injected var optional: SharedSlotService?
}

/// `@Injected var x: T` and `UnifiedDI.resolve(T.self)` read through one
/// slot per type. A box answers both only when it holds `T`'s own
/// registration; what only `@Injected` may see (a key default found by
/// type, a `T?` property's unwrapped registration) never reaches a resolve.
final class SharedTypeSlotTests: DITestCase {
    func testAKeyDefaultCachedForInjectedIsNotAResolvesAnswer() {
        XCTAssertEqual(InjectedValues.current.sharedSlotService.name, "default")
        XCTAssertEqual(SharedSlotHolder().byType.name, "default")
        XCTAssertEqual(SharedSlotHolder().byType.name, "default")
        XCTAssertNil(UnifiedDI.resolve(SharedSlotService.self))
        XCTAssertNil(UnifiedDI.resolve(SharedSlotService.self))
        XCTAssertEqual(SharedSlotHolder().byType.name, "default")
    }

    func testARegistrationCachedByEitherRouteAnswersTheOther() {
        let live = SharedSlotService("live")
        WeaveDI.Container.live.register(SharedSlotService.self, instance: live)
        XCTAssertTrue(UnifiedDI.resolve(SharedSlotService.self) === live)
        XCTAssertTrue(SharedSlotHolder().byType === live)
        UnifiedDI.register(SharedSlotService.self) { SharedSlotService("again") }
        XCTAssertEqual(SharedSlotHolder().byType.name, "again")
        XCTAssertEqual(UnifiedDI.resolve(SharedSlotService.self)?.name, "again")
    }

    func testAnOptionalPropertysUnwrappedRegistrationIsNotAnOptionalRegistration() {
        UnifiedDI.register(SharedSlotService.self) { SharedSlotService("wrapped") }
        XCTAssertEqual(SharedSlotHolder().optional?.name, "wrapped")
        XCTAssertEqual(SharedSlotHolder().optional?.name, "wrapped")
        let optionalRegistration: SharedSlotService?? = UnifiedDI.resolve(Optional<SharedSlotService>.self)
        XCTAssertTrue(optionalRegistration == nil, "no registration of Optional<SharedSlotService>")
        XCTAssertEqual(SharedSlotHolder().optional?.name, "wrapped")
    }

    func testATransientRegistrationKeptByEitherRouteBuildsForBoth() {
        let built = Counter()
        UnifiedDI.register(SharedSlotService.self, scope: .transient) {
            built.increment()
            return SharedSlotService("fresh")
        }
        let first = UnifiedDI.resolve(SharedSlotService.self)
        let second = SharedSlotHolder().byType
        let third = UnifiedDI.resolve(SharedSlotService.self)
        XCTAssertEqual(built.count, 3)
        XCTAssertFalse(first === second || second === third || first === third)
    }
}
