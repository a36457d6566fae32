import CWeaveRegistry
import XCTest

@testable import WeaveDI
@testable import WeaveDICore

private protocol OptionalSlotGreeter: Sendable {
    var name: String { get }
}

private struct OptionalSlotGreeterImpl: OptionalSlotGreeter {
    let name: String
}

/// Six words: kept in a `ValueBox` as a pointer to a heap copy.
private struct OptionalSlotWide: Sendable, Equatable {
    var a = 1, b = 2, c = 3, d = 4, e = 5, f = 6
}

private struct OptionalSlotNilKey: InjectedKey {
    static let liveValue: OptionalSlotGreeterImpl? = nil
}

extension InjectedValues {
    fileprivate var optionalSlotNothing: OptionalSlotGreeterImpl? {
        get { self[OptionalSlotNilKey.self] }
        set { self[OptionalSlotNilKey.self] = newValue }
    }
}

private final class OptionalSlotHolder {
    @Injected var greeter: (any OptionalSlotGreeter)?
    @Injected var count: Int?
    @Injected var wide: OptionalSlotWide?
    @Injected(\.optionalSlotNothing) var nothing
}

/// A cached `@Injected var x: W?` read keeps the `W` it read, not an
/// `Optional<W>`, and reads it back as `.some`: the copy a non-optional read
/// makes (an `Optional` of an existential is copied through the runtime's
/// value witnesses). Whatever the layout of `W`, the value read is the one
/// registered, and a nil stays nil.
final class OptionalSlotBoxTests: DITestCase {
    /// The box cached in the type slot of `Value`, and whether it holds the
    /// wrapped value; nil when nothing is cached.
    private func cachedBox<Value>(of type: Value.Type) -> (holdsUnwrapped: Bool, answersResolve: Bool)? {
        let handle = InjectionSlots.slot(forType: Value.self)._withUnsafeGuaranteedRef { $0.handle }
        defer { weave_slot_read_end() }
        guard let raw = weave_slot_peek(handle) else { return nil }
        return Unmanaged<SlotBox>.fromOpaque(raw)._withUnsafeGuaranteedRef { ($0.holdsUnwrapped, $0.answersResolve) }
    }

    func testAnExistentialIsCachedUnwrappedAndReadBackAsSome() {
        UnifiedDI.register(OptionalSlotGreeter.self) { OptionalSlotGreeterImpl(name: "first") }
        XCTAssertEqual(OptionalSlotHolder().greeter?.name, "first")
        let box = cachedBox(of: (any OptionalSlotGreeter)?.self)
        XCTAssertEqual(box?.holdsUnwrapped, true)
        XCTAssertEqual(box?.answersResolve, false)
        XCTAssertEqual(OptionalSlotHolder().greeter?.name, "first")
        UnifiedDI.register(OptionalSlotGreeter.self) { OptionalSlotGreeterImpl(name: "second") }
        XCTAssertEqual(OptionalSlotHolder().greeter?.name, "second")
        XCTAssertEqual(OptionalSlotHolder().greeter?.name, "second")
        UnifiedDI.release(OptionalSlotGreeter.self)
        XCTAssertNil(OptionalSlotHolder().greeter)
        XCTAssertNil(OptionalSlotHolder().greeter)
    }

    func testAValueWithoutSpareBitsKeepsItsValue() {
        // `Int?` is nine bytes, `Int` eight: reading the box as the optional
        // would read a tag byte the box never wrote.
        UnifiedDI.register(Int.self) { 0 }
        XCTAssertEqual(OptionalSlotHolder().count, 0)
        XCTAssertEqual(cachedBox(of: Int?.self)?.holdsUnwrapped, true)
        XCTAssertEqual(OptionalSlotHolder().count, 0)
        UnifiedDI.register(Int.self) { -1 }
        XCTAssertEqual(OptionalSlotHolder().count, -1)
        XCTAssertEqual(OptionalSlotHolder().count, -1)
    }

    func testAValueWiderThanTheBoxIsReadFromItsHeapCopy() {
        UnifiedDI.register(OptionalSlotWide.self) { OptionalSlotWide(f: 60) }
        XCTAssertEqual(OptionalSlotHolder().wide, OptionalSlotWide(f: 60))
        XCTAssertEqual(cachedBox(of: OptionalSlotWide?.self)?.holdsUnwrapped, true)
        XCTAssertEqual(OptionalSlotHolder().wide, OptionalSlotWide(f: 60))
    }

    func testANilKeyValueStaysNil() {
        XCTAssertNil(OptionalSlotHolder().nothing)
        XCTAssertNil(OptionalSlotHolder().nothing)
        withInjectedValues {
            $0.optionalSlotNothing = OptionalSlotGreeterImpl(name: "override")
        } operation: {
            XCTAssertEqual(OptionalSlotHolder().nothing?.name, "override")
        }
        XCTAssertNil(OptionalSlotHolder().nothing)
    }

    func testTheUnwrappedBoxNeverAnswersAResolveOfTheOptional() {
        UnifiedDI.register(Int.self) { 7 }
        XCTAssertEqual(OptionalSlotHolder().count, 7)
        let optionalRegistration: Int?? = UnifiedDI.resolve(Int?.self)
        XCTAssertTrue(optionalRegistration == nil, "no registration of Optional<Int>")
        XCTAssertEqual(OptionalSlotHolder().count, 7)
    }
}
