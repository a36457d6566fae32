import XCTest

@testable import WeaveDI
@testable import WeaveDICore

// `@Injected var x: T` finds the InjectedKey whose Value is T before anything
// has read that key (issue 25, item 4). Each key here is read by nothing
// else in the test process, so a default found by type was found through
// the catalog of conformances, not through an earlier read.

private struct NeverReadService: Sendable { let context: String }

private struct NeverReadKey: InjectedKey {
    static var liveValue: NeverReadService { NeverReadService(context: "live") }
    static var testValue: NeverReadService { NeverReadService(context: "test") }
}

private final class NeverReadOptionalService: Sendable {}

private enum NeverReadOptionalKey: InjectedKey {
    static let liveValue = NeverReadOptionalService()
}

/// A class key, in an extension: a conformance record of another shape.
private final class ClassKeyService: Sendable {}

private final class ClassKeyHolder: Sendable {}

extension ClassKeyHolder: InjectedKey {
    static let liveValue = ClassKeyService()
}

private struct SharedValue: Sendable { let from: String }

private struct FirstSharedKey: InjectedKey {
    static var liveValue: SharedValue { SharedValue(from: "first") }
}

private struct SecondSharedKey: InjectedKey {
    static var liveValue: SharedValue { SharedValue(from: "second") }
}

private struct GenericValue: Sendable { let name: String }

private struct GenericKey<Tag>: InjectedKey {
    static var liveValue: GenericValue { GenericValue(name: "generic") }
}

private final class ByTypeReader: @unchecked Sendable {
    @Injected var service: NeverReadService
    @Injected var optionalService: NeverReadOptionalService?
    @Injected var classKeyService: ClassKeyService
    @Injected var shared: SharedValue?
    @Injected var generic: GenericValue?
}

final class InjectedKeyByTypeTests: DITestCase {
    func testATypeIsFoundThroughItsKeyBeforeTheKeyIsRead() {
        let reader = ByTypeReader()
        XCTAssertEqual(reader.service.context, "test", "the test context's default, on the first read")
        XCTAssertIdentical(reader.optionalService, NeverReadOptionalKey.liveValue)
        XCTAssertIdentical(reader.classKeyService, ClassKeyHolder.liveValue)
    }

    func testTheDefaultFoundByTypeIsTheOneTheKeyReads() {
        let byType = ByTypeReader().optionalService
        XCTAssertIdentical(byType, InjectedValues.current[NeverReadOptionalKey.self])
    }

    func testARegistrationStillWinsOverTheKeyFoundByType() {
        UnifiedDI.register(NeverReadService.self) { NeverReadService(context: "registered") }
        XCTAssertEqual(ByTypeReader().service.context, "registered")
    }

    func testTwoKeysWithOneValueTypeArePickedByNeither() {
        XCTAssertNil(ByTypeReader().shared, "ambiguous: neither key answers")
        // Reading one key does not make it the answer either: the result
        // does not depend on which key something read first.
        XCTAssertEqual(InjectedValues.current[SecondSharedKey.self].from, "second")
        XCTAssertNil(ByTypeReader().shared)
        let message = InjectionSlots.missingMessage(SharedValue.self)
        XCTAssertTrue(message.includes("2 InjectedKeys"), message)
        XCTAssertTrue(message.includes("(WeaveDITests.FirstSharedKey, WeaveDITests.SecondSharedKey)"), message)
        XCTAssertTrue(message.includes("@Injected(FirstSharedKey.self)"), message)
    }

    func testTheCatalogListsKeysByValueTypeOnly() {
        XCTAssertEqual(
            InjectedKeyCatalog.keys(providing: NeverReadService.self).map(ObjectIdentifier.init),
            [ObjectIdentifier(NeverReadKey.self)])
        XCTAssertTrue(InjectedKeyCatalog.keys(providing: NeverReadKey.self).isEmpty, "a key is not its own value")
        XCTAssertEqual(InjectedKeyCatalog.keys(providing: SharedValue.self).count, 2)
        let missing = InjectionSlots.missingMessage(Int8.self)
        XCTAssertTrue(missing.includes("no InjectedKey whose Value is that type"), missing)
    }

    /// The limit, documented: a generic key has no single type to list, so
    /// it is found by type only after a read of it.
    func testAGenericKeyIsFoundByTypeOnlyAfterItIsRead() {
        XCTAssertTrue(InjectedKeyCatalog.keys(providing: GenericValue.self).isEmpty)
        XCTAssertNil(ByTypeReader().generic)
        XCTAssertEqual(InjectedValues.current[GenericKey<Int>.self].name, "generic")
        XCTAssertEqual(ByTypeReader().generic?.name, "generic")
    }
}
