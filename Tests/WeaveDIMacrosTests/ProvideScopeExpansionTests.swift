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

    /// Two providers of one type, told apart by name: each registers and
    /// resolves under its own (type, name).
    func testANamedProviderRegistersAndResolvesUnderItsName() {
        let expansion = Expansion(
            """
            @Component
            struct Databases {
                @Provide(scope: .singleton, name: "primary") var primary: Database = Primary()
                @Provide(.singleton, name: "replica") var replica: Database = Replica()
                @Provide(name: "audit") var audit: Database = Audit(primary: primary)
                @Provide var plain: Database = Plain()
            }
            """
        )
        XCTAssertEqual(expansion.diagnostics, [])
        XCTAssertEqual(
            expansion.registrations,
            [
                "container.register(Database.self, name: \"primary\", scope: .singleton)",
                "container.register(Database.self, name: \"replica\", scope: .singleton)",
                "container.register(Database.self, name: \"audit\", scope: .transient)",
                "container.register(Database.self, scope: .transient)",
            ])
        XCTAssertTrue(
            expansion.source.contains(
                "container.resolve(Database.self, name: \"primary\") ?? _weaveDIMake_primary(in: container)"),
            expansion.source)
        XCTAssertEqual(expansion.factoryBody(of: "audit"), "Audit(primary: _weaveDIResolve_primary(from: container))")
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
                @Provide(scope: .graph) var g: G = G()
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
                "container.register(G.self, scope: .graph)",
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
