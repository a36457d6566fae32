// Needs the `Macros` trait (on by default): without it this target has no
// dependencies on swift-syntax and nothing to test.
#if Macros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosTestSupport
import WeaveDIMacroExpansions
import XCTest

/// `@Component` declares the `ComponentProtocol` conformance the compiler
/// reports missing, as upstream's macro does, and nothing when the type
/// declares it itself.
final class ComponentConformanceTests: XCTestCase {
    private let specs = ["Component": MacroSpec(type: ComponentMacro.self, conformances: ["ComponentProtocol"])]

    func testAddsTheMissingConformance() {
        assertMacroExpansion(
            """
            @Component
            struct EmptyComponent {
            }
            """,
            expandedSource: """
                struct EmptyComponent {

                    static func registerAll() {
                        registerAll(into: WeaveDI.Container.live)
                    }

                    static func registerAll(into container: WeaveDI.Container) {
                    }
                }

                extension EmptyComponent: ComponentProtocol {
                }
                """,
            macroSpecs: specs,
            indentationWidth: .spaces(4)
        )
    }

    func testAddsNothingOnAnEnum() {
        assertMacroExpansion(
            """
            @Component
            enum NotAComponent {
            }
            """,
            expandedSource: """
                enum NotAComponent {
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Component can only be applied to a struct or a class, not to an enum", line: 1, column: 1)
            ],
            macroSpecs: specs,
            indentationWidth: .spaces(4)
        )
    }
}
#endif
