// Needs the `Macros` trait (on by default): without it this target has no
// dependencies on swift-syntax and nothing to test.
#if Macros
import SwiftSyntaxMacrosTestSupport
import XCTest

final class MacroDiagnosticTests: XCTestCase {
    func testMissingTypeAnnotationIsAnError() {
        assertMacroExpansion(
            """
            @Component
            struct Untyped {
                @Provide var repository = UserRepositoryImpl()
            }
            """,
            expandedSource: """
                struct Untyped {
                    var repository = UserRepositoryImpl()

                    static func registerAll() {
                        registerAll(into: WeaveDI.Container.live)
                    }

                    static func registerAll(into container: WeaveDI.Container) {
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Provide property 'repository' needs an explicit type annotation, such as "
                        + "'var repository: MyService = MyServiceImpl()'; the type is the key it is registered under",
                    line: 3,
                    column: 18
                )
            ],
            macros: weaveDIMacros
        )
    }

    func testMissingInitializerIsAnError() {
        let expansion = Expansion(
            """
            @Component
            struct Uninitialized {
                @Provide var repository: UserRepository
            }
            """
        )
        XCTAssertEqual(
            expansion.diagnostics,
            [
                "@Provide property 'repository' needs an initializer expression; it becomes the registration's factory"
            ])
        XCTAssertEqual(expansion.registrations, [])
    }

    func testTwoProviderCycleIsAnErrorNamingTheChain() {
        assertMacroExpansion(
            """
            @Component
            struct Cyclic {
                @Provide var a: A = A(b: b)
                @Provide var b: B = B(a: a)
            }
            """,
            expandedSource: """
                struct Cyclic {
                    var a: A = A(b: b)
                    var b: B = B(a: a)

                    static var a: A {
                        _weaveDIResolve_a(from: WeaveDI.Container.live)
                    }

                    static var b: B {
                        _weaveDIResolve_b(from: WeaveDI.Container.live)
                    }

                    private static func _weaveDIResolve_a(from container: WeaveDI.Container) -> A {
                        container.resolve(A.self) ?? _weaveDIMake_a(in: container)
                    }

                    private static func _weaveDIMake_a(in container: WeaveDI.Container) -> A {
                        A(b: _weaveDIResolve_b(from: container))
                    }

                    private static func _weaveDIResolve_b(from container: WeaveDI.Container) -> B {
                        container.resolve(B.self) ?? _weaveDIMake_b(in: container)
                    }

                    private static func _weaveDIMake_b(in container: WeaveDI.Container) -> B {
                        B(a: _weaveDIResolve_a(from: container))
                    }

                    static func registerAll() {
                        registerAll(into: WeaveDI.Container.live)
                    }

                    static func registerAll(into container: WeaveDI.Container) {
                        container.register(B.self, scope: .transient) {
                            _weaveDIMake_b(in: container)
                        }
                        container.register(A.self, scope: .transient) {
                            _weaveDIMake_a(in: container)
                        }
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Provide properties depend on each other in a cycle: a -> b -> a", line: 3, column: 18)
            ],
            macros: weaveDIMacros
        )
    }

    func testLongerCycleAndSelfReferenceAreEachReportedOnce() {
        let expansion = Expansion(
            """
            @Component
            struct Cycles {
                @Provide var ok: Ok = Ok()
                @Provide var x: X = X(y: y, ok: ok)
                @Provide var y: Y = Y(z: z)
                @Provide var z: Z = Z(x: x, again: y)
                @Provide var me: Me = Me(me)
            }
            """
        )
        XCTAssertEqual(
            expansion.diagnostics,
            [
                "@Provide properties depend on each other in a cycle: x -> y -> z -> x",
                "@Provide properties depend on each other in a cycle: y -> z -> y",
                "@Provide properties depend on each other in a cycle: me -> me",
            ])
    }

    func testComponentOnEnumIsAnError() {
        assertMacroExpansion(
            """
            @Component
            enum Services {
                case a
            }
            """,
            expandedSource: """
                enum Services {
                    case a
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Component can only be applied to a struct or a class, not to an enum", line: 1, column: 1)
            ],
            macros: weaveDIMacros
        )
    }

    func testComponentOnActorProtocolAndExtensionIsAnError() {
        for (source, kind) in [
            ("@Component actor Services {}", "an actor"),
            ("@Component protocol Services {}", "a protocol"),
            ("@Component extension Services {}", "an extension"),
        ] {
            XCTAssertEqual(
                Expansion(source).diagnostics,
                ["@Component can only be applied to a struct or a class, not to \(kind)"],
                source
            )
        }
    }

    func testInvalidProvideUsesAreErrors() {
        let expansion = Expansion(
            """
            @Component
            struct Misused {
                @Provide(scope: .forever) var a: A = A()
                @Provide(lifetime: .singleton) var b: B = B()
                @Provide static var c: C = C()
                @Provide var d: D = D(), e: E = E()
                @Provide func f() {}
            }
            """
        )
        XCTAssertEqual(
            expansion.diagnostics,
            [
                "'.forever' is not a scope; use .transient, .singleton, .weak, .task or .graph",
                "@Provide does not take an argument labelled 'lifetime'; the arguments are the scope, as '.singleton' or 'scope: .singleton', and 'name:'",
                "@Provide cannot be applied to a static property; @Component generates the static accessor itself",
                // The macro system itself rejects a peer macro on several bindings.
                "peer macro can only be applied to a single variable",
                "@Provide can only be applied to a stored property",
            ])
        XCTAssertEqual(expansion.registrations, [], "invalid providers are not registered")
    }

    /// A name must be a literal: the registration and the generated resolve
    /// both spell it, and an expression would be evaluated twice.
    func testANameThatIsNotAStringLiteralIsAnError() {
        let expansion = Expansion(
            """
            @Component
            struct Misnamed {
                @Provide(name: replicaName) var a: A = A()
                @Provide(name: "db-\\(index)") var b: B = B()
                @Provide(.singleton, name: "kept") var c: C = C()
                @Provide(name: nil) var d: D = D()
            }
            """
        )
        XCTAssertEqual(
            expansion.diagnostics,
            [
                "'replicaName' is not a registration name; write it as a string literal, such as name: \"replica\"",
                "'\"db-\\(index)\"' is not a registration name; write it as a string literal, such as name: \"replica\"",
            ])
        XCTAssertEqual(
            expansion.registrations,
            ["container.register(C.self, name: \"kept\", scope: .singleton)", "container.register(D.self, scope: .transient)"])
    }
}
#endif
