// Needs the `Macros` trait (on by default): without it this target has no
// dependencies on swift-syntax and nothing to test.
#if Macros
import XCTest

final class ProvideScopeExpansionTests: XCTestCase {
    func testScopeDefaultsToTransient() {
        let expansion = Expansion(
            """
            @Component
            struct Defaults {
                @Provide var plain: Plain = Plain()
                @Provide() var emptyParentheses: Empty = Empty()
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(Plain.self, scope: .transient)",
                "container.register(Empty.self, scope: .transient)",
            ])
    }

    func testAnUnlabelledScopeIsUpstreamsSpelling() {
        let expansion = Expansion(
            """
            @Component
            struct Upstream {
                @Provide(.singleton) var s: S = S()
                @Provide(.weak) var w: W = W()
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(S.self, scope: .singleton)",
                "container.register(W.self, scope: .weak)",
            ])
    }

    func testEachScopeMapsToTheSameProvideScopeCase() {
        let expansion = Expansion(
            """
            @Component
            struct Scopes {
                @Provide(scope: .transient) var t: T = T()
                @Provide(scope: .singleton) var s: S = S()
                @Provide(scope: .weak) var w: W = W()
                @Provide(scope: .task) var k: K = K()
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(T.self, scope: .transient)",
                "container.register(S.self, scope: .singleton)",
                "container.register(W.self, scope: .weak)",
                "container.register(K.self, scope: .task)",
            ])
    }

    func testQualifiedScopeNamesAreAccepted() {
        let expansion = Expansion(
            """
            @Component
            struct Qualified {
                @Provide(scope: ProvideScope.singleton) var s: S = S()
                @Provide(scope: WeaveDI.ProvideScope.weak) var w: W = W()
                @WeaveDI.Provide(scope: .task) var k: K = K()
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(S.self, scope: .singleton)",
                "container.register(W.self, scope: .weak)",
                "container.register(K.self, scope: .task)",
            ])
    }
}
#endif
