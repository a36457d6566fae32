// Needs the `Macros` trait (on by default): without it this target has no
// dependencies on swift-syntax and nothing to test.
#if Macros
import SwiftSyntaxMacrosTestSupport
import XCTest

/// `@DependencyGraph` as upstream's README writes it.
final class DependencyGraphMacroTests: XCTestCase {
    func testAnAcyclicGraphGetsAValidatorOfItsTypes() {
        assertMacroExpansion(
            """
            @DependencyGraph([
                UserService.self: [UserRepository.self, Logger.self],
                UserRepository.self: [App.Database.self],
                Logger.self: [],
            ])
            final class ApplicationDependencyGraph {}
            """,
            expandedSource: """
                final class ApplicationDependencyGraph {}

                /// The types of the `@DependencyGraph` the live container has no
                /// registration for, in the order the graph names them.
                @discardableResult
                private func validateDependencyGraph() -> [String] {
                    var missing: [String] = []
                    if !WeaveDI.Container.live.isRegistered(UserService.self) {
                        missing.append("UserService")
                    }
                    if !WeaveDI.Container.live.isRegistered(UserRepository.self) {
                        missing.append("UserRepository")
                    }
                    if !WeaveDI.Container.live.isRegistered(Logger.self) {
                        missing.append("Logger")
                    }
                    if !WeaveDI.Container.live.isRegistered(App.Database.self) {
                        missing.append("App.Database")
                    }
                    return missing
                }
                """,
            macros: weaveDIMacros
        )
    }

    func testACycleIsACompileErrorNamingIt() {
        assertMacroExpansion(
            """
            @DependencyGraph([A.self: [B.self], B.self: [C.self], C.self: [A.self]])
            extension WeaveDI {}
            """,
            expandedSource: """
                extension WeaveDI {}
                """,
            diagnostics: [
                DiagnosticSpec(message: "@DependencyGraph has a circular dependency: A -> B -> C -> A", line: 1, column: 18)
            ],
            macros: weaveDIMacros
        )
    }

    func testATypeDependingOnItselfIsACycle() {
        let expansion = Expansion("@DependencyGraph([Logger.self: [Logger.self]])\nstruct Graph {}")
        XCTAssertEqual(expansion.diagnostics, ["@DependencyGraph has a circular dependency: Logger -> Logger"])
    }

    func testAGraphThatIsNotALiteralIsAnErrorInsteadOfPassingUnchecked() {
        let expansion = Expansion("@DependencyGraph(ApplicationDependencies.graph)\nstruct Graph {}")
        XCTAssertEqual(expansion.diagnostics.count, 1)
        XCTAssertTrue(expansion.diagnostics[0].hasPrefix("@DependencyGraph needs a dictionary literal"), "\(expansion.diagnostics)")
    }

    func testAnEntryThatIsNotATypeIsNamed() {
        let expansion = Expansion("@DependencyGraph([A.self: [makeB()]])\nstruct Graph {}")
        XCTAssertEqual(
            expansion.diagnostics, ["'makeB()' is not a type in @DependencyGraph; name each type as 'SomeType.self'"])
    }
}
#endif
