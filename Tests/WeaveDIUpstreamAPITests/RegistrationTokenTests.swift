import WeaveDI
import XCTest

private protocol Analytics: Sendable {
    var name: String { get }
}

private final class ConsoleAnalytics: Analytics {
    let name = "console"
}

private final class RemoteAnalytics: Analytics {
    let name = "remote"
}

/// Upstream 3.3's registration tokens: the registration lasts as long as
/// the token, and cancelling removes that registration only.
final class RegistrationTokenTests: UpstreamTestCase {
    func testTheRegistrationLastsUntilCancelled() {
        let token = UnifiedDI.registerWithToken(Analytics.self) { ConsoleAnalytics() }
        XCTAssertEqual(token.registeredTypeName, "Analytics")
        XCTAssertTrue(token.isValid)
        let first = UnifiedDI.resolve(Analytics.self)
        XCTAssertEqual(first?.name, "console")
        XCTAssertFalse(first as AnyObject === UnifiedDI.resolve(Analytics.self) as AnyObject, "a new instance per resolve")

        token.cancel()
        XCTAssertFalse(token.isValid)
        XCTAssertNil(UnifiedDI.resolve(Analytics.self))
        token.cancel()
        XCTAssertNil(UnifiedDI.resolve(Analytics.self), "a second cancel does nothing")
    }

    func testReleasingTheTokenRemovesTheRegistration() {
        var token: RegistrationToken? = WeaveDI.registerWithToken(Analytics.self) { ConsoleAnalytics() }
        XCTAssertNotNil(UnifiedDI.resolve(Analytics.self))
        XCTAssertNotNil(token)
        token = nil
        XCTAssertNil(UnifiedDI.resolve(Analytics.self))
    }

    func testCancellingKeepsALaterRegistrationOfTheType() {
        let token = UnifiedDI.registerWithToken(Analytics.self) { ConsoleAnalytics() }
        UnifiedDI.register(Analytics.self) { RemoteAnalytics() }
        XCTAssertFalse(token.isValid, "replaced")
        token.cancel()
        XCTAssertEqual(UnifiedDI.resolve(Analytics.self)?.name, "remote")
    }

    func testAReleaseElsewhereShowsInIsValid() {
        let token = UnifiedDI.registerWithToken(Analytics.self) { ConsoleAnalytics() }
        UnifiedDI.release(Analytics.self)
        XCTAssertFalse(token.isValid)
        UnifiedDI.register(Analytics.self) { RemoteAnalytics() }
        withExtendedLifetime(token) {}
        XCTAssertEqual(UnifiedDI.resolve(Analytics.self)?.name, "remote", "the token's release left the new one")
    }

    func testATokenInsideAnOverlayRegistersThere() {
        withContainerOverlay {
            let token = UnifiedDI.registerWithToken(Analytics.self) { ConsoleAnalytics() }
            XCTAssertEqual(UnifiedDI.resolve(Analytics.self)?.name, "console")
            withExtendedLifetime(token) {}
        }
        XCTAssertNil(UnifiedDI.resolve(Analytics.self), "the overlay's registration stayed there")
    }
}
