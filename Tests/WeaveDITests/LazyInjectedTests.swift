import Dispatch
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

// @LazyInjected and @WeakLazyInjected (issue 52, item 4). Each type here is
// read by nothing outside this file.

private final class LazyAnalytics: Sendable {
    let origin: String
    init(origin: String) { self.origin = origin }
}

private struct LazyAnalyticsKey: InjectedKey {
    static var liveValue: LazyAnalytics { LazyAnalytics(origin: "default") }
}

extension InjectedValues {
    fileprivate var lazyAnalytics: LazyAnalytics {
        get { self[LazyAnalyticsKey.self] }
        set { self[LazyAnalyticsKey.self] = newValue }
    }
}

private final class LazyPayments: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private final class CheckoutModel: @unchecked Sendable {
    @LazyInjected(\.lazyAnalytics) var analytics
    @LazyInjected(LazyAnalyticsKey.self) var analyticsByKey
    @LazyInjected var payments: LazyPayments
    @LazyInjected var optionalPayments: LazyPayments?
}

private final class NeverRegistered: Sendable {}

/// Records which wrapper's read built it, and the label a miss inside its
/// own factory would print.
private final class WrapperProbe: Sendable {
    let wrapper: String?
    let ownMissLabel: String
    init() {
        wrapper = InjectionSlots.wrapperRead?.name
        ownMissLabel = InjectionSlots.readingWrapper
    }
}

private final class ProbeReaders: @unchecked Sendable {
    @Injected var eager: WrapperProbe
    @LazyInjected var lazy: WrapperProbe
    @WeakLazyInjected var weak: KeptWrapperProbe?
}

/// A singleton, so the weakly held instance outlives the read.
private final class KeptWrapperProbe: Sendable {
    let wrapper: String?
    init() { wrapper = InjectionSlots.wrapperRead?.name }
}

private final class OptionalOnlyModel: @unchecked Sendable {
    @LazyInjected var missing: NeverRegistered?
}

/// Built by a transient registration whose first two builds wait for each
/// other: two first accesses of one property are then inside their reads
/// at the same time.
private final class RacedService: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private final class RacedModel: @unchecked Sendable {
    @LazyInjected var service: RacedService
}

private final class Parent: Sendable {}

private final class Child: @unchecked Sendable {
    @WeakLazyInjected var parent: Parent?
}

final class LazyInjectedTests: XCTestCase {
    func testAnObjectMadeBeforeTheRegistrationReadsItOnFirstAccess() {
        withContainerOverlay {
            let model = CheckoutModel()
            XCTAssertFalse(model.$payments.isResolved)
            UnifiedDI.register(LazyPayments.self, scope: .transient) { LazyPayments(serial: 7) }
            XCTAssertEqual(model.payments.serial, 7)
            XCTAssertTrue(model.$payments.isResolved)
            XCTAssertEqual(model.optionalPayments?.serial, 7)
        }
    }

    func testEveryAccessAnswersTheFirstReadsValue() {
        withContainerOverlay {
            let built = TestAtomic<Int>(0)
            UnifiedDI.register(LazyPayments.self, scope: .transient) {
                LazyPayments(serial: built.add(1, ordering: .sequentiallyConsistent).newValue)
            }
            let model = CheckoutModel()
            let first = model.payments
            XCTAssertTrue(model.payments === first)
            XCTAssertTrue(model.payments === first)
            XCTAssertEqual(built.load(ordering: .sequentiallyConsistent), 1, "a transient is built once per property")

            UnifiedDI.register(LazyPayments.self, scope: .transient) { LazyPayments(serial: 100) }
            XCTAssertTrue(model.payments === first, "a later registration does not change a read property")
            XCTAssertEqual(CheckoutModel().payments.serial, 100, "a new object reads the new registration")
        }
    }

    func testKeyFormsReadOverridesAndDefaultsAtFirstAccess() {
        let outside = CheckoutModel()
        withInjectedValues {
            $0.lazyAnalytics = LazyAnalytics(origin: "override")
        } operation: {
            let model = CheckoutModel()
            XCTAssertEqual(model.analytics.origin, "override")
            XCTAssertEqual(model.analyticsByKey.origin, "override")
            // Made outside the scope, first read inside it: the read is what counts.
            XCTAssertEqual(outside.analytics.origin, "override")
        }
        XCTAssertEqual(outside.analytics.origin, "override", "kept after the scope ended")
        XCTAssertEqual(CheckoutModel().analytics.origin, "default")
    }

    func testAnOptionalPropertyIsNilWhenNothingProvidesTheType() {
        let model = OptionalOnlyModel()
        XCTAssertNil(model.missing)
        XCTAssertTrue(model.$missing.isResolved)
    }

    /// The window: two threads make the first access of one property at once,
    /// both inside their reads (forced by the factory's barrier). One value
    /// is kept; both accesses and every later one answer it.
    func testTwoFirstAccessesAtOnceKeepOneValue() {
        let built = TestAtomic<Int>(0)
        let arrived = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        UnifiedDI.register(RacedService.self, scope: .transient) {
            let serial = built.add(1, ordering: .sequentiallyConsistent).newValue
            if serial <= 2 {
                arrived.signal()
                _ = proceed.wait(timeout: .now() + 10)
            }
            return RacedService(serial: serial)
        }
        defer { UnifiedDI.release(RacedService.self) }

        let model = RacedModel()
        let answers = Locked<[Int: RacedService]>([:])
        let done = DispatchGroup()
        for thread in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                let service = model.service
                answers.withLock { $0[thread] = service }
                done.leave()
            }
        }
        let bothInside =
            arrived.wait(timeout: .now() + 10) == .success && arrived.wait(timeout: .now() + 10) == .success
        proceed.signal()
        proceed.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)

        XCTAssertTrue(bothInside, "the window was not forced: both first reads must be inside the factory")
        XCTAssertEqual(built.load(ordering: .sequentiallyConsistent), 2)
        let seen = answers.withLock { $0 }
        guard let first = seen[0], let second = seen[1] else {
            return XCTFail("a thread did not answer")
        }
        XCTAssertTrue(first === second, "two first accesses answered different values: \(first.serial), \(second.serial)")
        XCTAssertTrue(model.service === first)
    }

    func testWeakLazyInjectedDoesNotKeepWhatItRead() {
        withContainerOverlay {
            UnifiedDI.register(Parent.self, scope: .transient) { Parent() }
            let child = Child()
            XCTAssertFalse(child.$parent.isResolved)
            // Nothing but the property refers to a transient instance once
            // the first read returns, so a weak property is nil at once.
            XCTAssertNil(child.parent)
            XCTAssertTrue(child.$parent.isResolved)
        }
    }

    func testWeakLazyInjectedIsNilOnceTheInstanceIsGone() {
        final class Box: @unchecked Sendable { var parent: Parent? = Parent() }
        let box = Box()
        let child = Child()
        withContainerOverlay {
            UnifiedDI.register(Parent.self, scope: .weak) { box.parent ?? Parent() }
            XCTAssertTrue(child.parent === box.parent)
        }
        box.parent = nil
        XCTAssertNil(child.parent, "the property did not keep the instance alive")
        XCTAssertNil(child.parent, "and it is not read again")
    }

    /// A miss on a lazy wrapper's first read names that wrapper, not
    /// `@Injected`: the read runs under the wrapper's name, which a factory
    /// on that read sees; a miss inside that factory (one level deeper) is
    /// the factory's own and names `@Injected`.
    func testAFirstReadRunsUnderItsWrappersNameForTheMissMessage() {
        UnifiedDI.register(WrapperProbe.self, scope: .transient) { WrapperProbe() }
        UnifiedDI.register(KeptWrapperProbe.self, scope: .singleton) { KeptWrapperProbe() }
        let readers = ProbeReaders()
        XCTAssertNil(readers.eager.wrapper)
        XCTAssertEqual(readers.lazy.wrapper, "@LazyInjected")
        XCTAssertEqual(readers.lazy.ownMissLabel, "@Injected", "a factory's own miss is not the wrapper's")
        XCTAssertEqual(readers.weak?.wrapper, "@WeakLazyInjected")
        XCTAssertNil(InjectionSlots.wrapperRead, "the name ends with the read")

        let message = InjectionSlots.reading(as: "@LazyInjected") {
            InjectionSlots.missingMessage(NeverRegistered.self)
        }
        XCTAssertTrue(message.hasPrefix("@LazyInjected var: no '"), message)
        XCTAssertTrue(message.hasSuffix("declare it optional, or use @LazyInjected(\\.key)."), message)
        XCTAssertFalse(message.contains("@Injected"), message)
    }
}
