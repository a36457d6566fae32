import Foundation
import WeaveDI
import XCTest

// A lazy registration keeps its factory type-erased: each build writes the
// instance into memory laid out for the registered type, on the stack when
// it fits a small buffer, else on the heap. These types take each route.

private final class Counted: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

/// 112 bytes: larger than the inline storage and the stack buffer.
private struct Wide: Sendable, Equatable {
    var a: (Int, Int, Int, Int, Int, Int) = (1, 2, 3, 4, 5, 6)
    var b: (Int, Int, Int, Int, Int, Int) = (7, 8, 9, 10, 11, 12)
    var tag: String

    static func == (lhs: Wide, rhs: Wide) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.tag == rhs.tag
    }
}

private enum Failure: Error { case once }

private struct WideKey: InjectedKey {
    static var liveValue: Wide { Wide(tag: "default") }
}

private final class WideReader: @unchecked Sendable {
    @Injected(WideKey.self) var byKey
    @Injected var byType: Wide
}

/// A class reference inside a small struct (cached in the box itself) and
/// inside a wide one (cached in a heap copy).
private struct SmallHolder: Sendable { let object: Counted }
/// A class-bound existential (a reference and a witness table) and a
/// plain one, beside a class: the holders destroy a lone class reference
/// by releasing it, anything else through its type.
private protocol CountedService: AnyObject, Sendable { var id: Int { get } }
private protocol PlainService: Sendable { var id: Int { get } }
private final class CountedImpl: CountedService, PlainService {
    let id: Int
    init(id: Int) { self.id = id }
}
private struct WideHolder: Sendable {
    let object: Counted
    var padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
}

final class FactoryStorageTests: DITestCase {
    func testEveryLayoutIsBuiltWhole() {
        XCTAssertGreaterThan(MemoryLayout<Wide>.size, 48)
        XCTAssertGreaterThan(MemoryLayout<SIMD4<Double>>.alignment, 8)
        let container = WeaveDI.Container()
        container.register(Counted.self, scope: .transient) { Counted(id: 7) }
        container.register(Wide.self, scope: .transient) { Wide(tag: "wide") }
        container.register(SIMD4<Double>.self, scope: .transient) { SIMD4(1.5, 2.5, 3.5, 4.5) }
        container.register(String.self, scope: .singleton) { String(repeating: "s", count: 100) }
        for _ in 0..<3 {
            XCTAssertEqual(container.resolve(Counted.self)?.id, 7)
            XCTAssertEqual(container.resolve(Wide.self), Wide(tag: "wide"))
            XCTAssertEqual(container.resolve(SIMD4<Double>.self), SIMD4(1.5, 2.5, 3.5, 4.5))
            XCTAssertEqual(container.resolve(String.self)?.count, 100)
        }
    }

    /// The live container's reads are cached in a box per type: every
    /// layout reads back whole from it, and what the box held is released
    /// with the registrations.
    func testCachedValuesOfEveryLayoutAreReadWholeAndReleased() {
        XCTAssertGreaterThan(MemoryLayout<WideHolder>.size, 40)
        UnifiedDI.register(SmallHolder.self, scope: .singleton) { SmallHolder(object: Counted(id: 1)) }
        UnifiedDI.register(WideHolder.self, scope: .singleton) { WideHolder(object: Counted(id: 2)) }
        UnifiedDI.register(SIMD4<Double>.self, scope: .singleton) { SIMD4(1, 2, 3, 4) }
        UnifiedDI.register(Wide.self, scope: .singleton) { Wide(tag: "cached") }
        weak var small: Counted?
        weak var wide: Counted?
        do {
            for _ in 0..<3 {
                XCTAssertEqual(UnifiedDI.resolve(SmallHolder.self)?.object.id, 1)
                XCTAssertEqual(UnifiedDI.resolve(WideHolder.self)?.object.id, 2)
                XCTAssertEqual(UnifiedDI.resolve(SIMD4<Double>.self), SIMD4(1, 2, 3, 4))
                XCTAssertEqual(UnifiedDI.resolve(Wide.self), Wide(tag: "cached"))
            }
            small = UnifiedDI.resolve(SmallHolder.self)?.object
            wide = UnifiedDI.resolve(WideHolder.self)?.object
        }
        XCTAssertNotNil(small)
        XCTAssertNotNil(wide)
        UnifiedDI.releaseAll()
        XCTAssertNil(small, "the cached small struct was not destroyed")
        XCTAssertNil(wide, "the cached wide struct's heap copy was not destroyed")
    }

    /// An eager registration keeps its instance the same way, and its
    /// factory for `@Factory`.
    func testEagerRegistrationsOfEveryLayoutAreReadWholeAndReleased() {
        let container = WeaveDI.Container()
        weak var small: Counted?
        weak var wide: Counted?
        do {
            small = container.register(SmallHolder.self) { SmallHolder(object: Counted(id: 3)) }.object
            wide = container.register(WideHolder.self) { WideHolder(object: Counted(id: 4)) }.object
            container.register(Wide.self, instance: Wide(tag: "instance"))
            XCTAssertTrue(container.resolve(SmallHolder.self)?.object === small)
            XCTAssertTrue(container.resolve(WideHolder.self)?.object === wide)
            XCTAssertEqual(container.resolve(Wide.self), Wide(tag: "instance"))
        }
        XCTAssertNotNil(small)
        XCTAssertNotNil(wide)
        container.releaseAll()
        XCTAssertNil(small, "the eager small struct was not destroyed")
        XCTAssertNil(wide, "the eager wide struct's heap copy was not destroyed")
    }

    func testFactoryBuildsFreshInstancesFromAnEagerRegistration() {
        let serials = CallCounter()
        UnifiedDI.register(WideHolder.self) { WideHolder(object: Counted(id: serials.increment())) }
        @Factory var first: WideHolder
        @Factory var second: WideHolder
        XCTAssertEqual(first.object.id, 2)
        XCTAssertEqual(second.object.id, 3)
        XCTAssertEqual(UnifiedDI.resolve(WideHolder.self)?.object.id, 1)
    }

    /// A scope's instances live in the scope's holders, inline or on the
    /// heap by size, and are released when the scope ends.
    func testScopedInstancesOfEveryLayoutAreSharedAndReleasedWithTheScope() throws {
        UnifiedDI.register(WideHolder.self, scope: .task) { WideHolder(object: Counted(id: 6)) }
        UnifiedDI.register(SmallHolder.self, scope: .task) { SmallHolder(object: Counted(id: 7)) }
        weak var wide: Counted?
        weak var small: Counted?
        try withTaskScope {
            let first = try UnifiedDI.resolveThrowing(WideHolder.self)
            XCTAssertTrue(try UnifiedDI.resolveThrowing(WideHolder.self).object === first.object)
            XCTAssertEqual(first.object.id, 6)
            wide = first.object
            small = try UnifiedDI.resolveThrowing(SmallHolder.self).object
            XCTAssertTrue(try UnifiedDI.resolveThrowing(SmallHolder.self).object === small)
        }
        XCTAssertNil(wide, "the scope's wide instance outlived the scope")
        XCTAssertNil(small, "the scope's small instance outlived the scope")
    }

    /// Class instances, and class and plain existentials of one, in a
    /// singleton's holder and in a request scope's: each released with its
    /// holder, exactly once (an over-release would crash here or under ASan).
    func testClassInstancesInHoldersAreReleasedWithThem() throws {
        weak var singleton: Counted?
        weak var classBound: CountedImpl?
        weak var plain: CountedImpl?
        do {
            UnifiedDI.register(Counted.self, scope: .singleton) { Counted(id: 9) }
            UnifiedDI.register((any CountedService).self, scope: .singleton) { CountedImpl(id: 10) }
            UnifiedDI.register((any PlainService).self, scope: .singleton) { CountedImpl(id: 11) }
            singleton = UnifiedDI.resolve(Counted.self)
            classBound = UnifiedDI.resolve((any CountedService).self) as? CountedImpl
            plain = UnifiedDI.resolve((any PlainService).self) as? CountedImpl
            XCTAssertTrue(UnifiedDI.resolve(Counted.self) === singleton)
            XCTAssertEqual(UnifiedDI.resolve((any CountedService).self)?.id, 10)
            XCTAssertEqual(UnifiedDI.resolve((any PlainService).self)?.id, 11)
        }
        XCTAssertNotNil(singleton)
        XCTAssertNotNil(classBound)
        XCTAssertNotNil(plain)
        UnifiedDI.releaseAll()
        XCTAssertNil(singleton, "a singleton class instance outlived its registration")
        XCTAssertNil(classBound, "a class-bound existential outlived its registration")
        XCTAssertNil(plain, "a plain existential outlived its registration")

        UnifiedDI.register(Counted.self, scope: .task) { Counted(id: 12) }
        UnifiedDI.register((any CountedService).self, scope: .task) { CountedImpl(id: 13) }
        weak var scoped: Counted?
        weak var scopedService: CountedImpl?
        try withTaskScope {
            let first = try UnifiedDI.resolveThrowing(Counted.self)
            XCTAssertTrue(try UnifiedDI.resolveThrowing(Counted.self) === first)
            scoped = first
            scopedService = try UnifiedDI.resolveThrowing((any CountedService).self) as? CountedImpl
            XCTAssertEqual(scopedService?.id, 13)
        }
        XCTAssertNil(scoped, "a request scope's class instance outlived the scope")
        XCTAssertNil(scopedService, "a request scope's class-bound existential outlived the scope")
    }

    /// A singleton first built inside an override scope belongs to that
    /// scope (see OverrideScopes): kept in its holder, released with it.
    func testASingletonBuiltInsideAnOverrideScopeIsKeptByItAndReleased() {
        UnifiedDI.register(WideHolder.self, scope: .singleton) { WideHolder(object: Counted(id: 8)) }
        weak var inScope: Counted?
        withInjectedValues { _ in
        } operation: {
            let first = UnifiedDI.resolve(WideHolder.self)
            XCTAssertTrue(UnifiedDI.resolve(WideHolder.self)?.object === first?.object)
            inScope = first?.object
        }
        XCTAssertNil(inScope, "the scope's own singleton outlived the scope")
        XCTAssertEqual(UnifiedDI.resolve(WideHolder.self)?.object.id, 8)
    }

    /// A key default wider than the inline storage, read by key and by type.
    func testAWideKeyDefaultIsReadWhole() {
        XCTAssertEqual(InjectedValues.current[WideKey.self], Wide(tag: "default"))
        let reader = WideReader()
        XCTAssertEqual(reader.byKey, Wide(tag: "default"))
        XCTAssertEqual(reader.byType, Wide(tag: "default"))
    }

    func testAFactoryThatThrowsLeavesNothingBehindAndIsRetried() throws {
        let container = WeaveDI.Container()
        let calls = CallCounter()
        container.register(Wide.self, scope: .singleton) { () throws -> Wide in
            if calls.increment() == 1 { throw Failure.once }
            return Wide(tag: "second")
        }
        XCTAssertThrowsError(try container.resolveThrowing(Wide.self))
        XCTAssertEqual(try container.resolveThrowing(Wide.self), Wide(tag: "second"))
        XCTAssertEqual(try container.resolveThrowing(Wide.self), Wide(tag: "second"))
        XCTAssertEqual(calls.value, 2)
    }

    func testAsyncFactoriesOfEveryLayout() async throws {
        let container = WeaveDI.Container()
        container.register(Wide.self, scope: .transient) { () async throws -> Wide in Wide(tag: "async") }
        container.register(Counted.self, scope: .singleton) { () async throws -> Counted in Counted(id: 9) }
        let wide = try await container.resolveAsyncThrowing(Wide.self)
        XCTAssertEqual(wide, Wide(tag: "async"))
        let first = try await container.resolveAsyncThrowing(Counted.self)
        let second = try await container.resolveAsyncThrowing(Counted.self)
        XCTAssertTrue(first === second)
        XCTAssertEqual(first.id, 9)
    }
}

private final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
