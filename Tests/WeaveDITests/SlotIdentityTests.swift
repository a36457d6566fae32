import XCTest

@testable import WeaveDI
@testable import WeaveDICore

/// Every kind of slot of one key gets an identity of its own.
final class SlotKindTests: XCTestCase {
    func testTheKindsOfOneKeyHaveDistinctIdentitiesThatKeepTheKeysAddress() {
        let key = ObjectIdentifier(SlotKindTests.self)
        let identities = SlotKind.allCases.map { InjectionSlots.identity(key, $0) }
        XCTAssertEqual(Set(identities).count, SlotKind.allCases.count)
        for identity in identities {
            XCTAssertEqual(identity & ~SlotKind.bits, UInt(bitPattern: key))
        }
        XCTAssertEqual(UInt(bitPattern: key) & SlotKind.bits, 0, "metadata is pointer-aligned")
    }
}

// The dependency-key form needs the `SwiftDependencies` trait (on by default).
#if SwiftDependencies
import Dependencies

/// swift-dependencies documents a type that is its own key
/// (`extension APIClient: DependencyKey`). Read through the bridge's
/// `@Injected(APIClient.self)` and through `UnifiedDI.resolve(APIClient.self)`,
/// one type has two slots of different kinds; each route must read its own.
private final class SelfKeyedClient: DependencyKey, @unchecked Sendable {
    let name: String
    init(_ name: String) { self.name = name }
    static let liveValue = SelfKeyedClient("live")
    static let testValue = SelfKeyedClient("test")
}

private final class SelfKeyedModel {
    @Injected(SelfKeyedClient.self) var client
}

private final class SelfKeyedTypeModel {
    @Injected var client: SelfKeyedClient
}

final class SlotIdentityTests: DITestCase {
    func testADependencyKeyThatIsItsOwnTypeReadsItsKeyAfterAResolveOfTheType() {
        UnifiedDI.register(SelfKeyedClient.self) { SelfKeyedClient("registered") }
        XCTAssertEqual(UnifiedDI.resolve(SelfKeyedClient.self)?.name, "registered")
        // The bridge reads what @Dependency would: the key's test value.
        XCTAssertEqual(SelfKeyedModel().client.name, "test")
        XCTAssertEqual(UnifiedDI.resolve(SelfKeyedClient.self)?.name, "registered")
    }

    func testAResolveOfTheTypeAfterADependencyKeyReadReadsTheRegistration() {
        UnifiedDI.register(SelfKeyedClient.self) { SelfKeyedClient("registered") }
        XCTAssertEqual(SelfKeyedModel().client.name, "test")
        XCTAssertEqual(UnifiedDI.resolve(SelfKeyedClient.self)?.name, "registered")
        XCTAssertEqual(SelfKeyedModel().client.name, "test")
        XCTAssertEqual(SelfKeyedTypeModel().client.name, "registered")
        XCTAssertEqual(SelfKeyedModel().client.name, "test")
    }
}
#endif
