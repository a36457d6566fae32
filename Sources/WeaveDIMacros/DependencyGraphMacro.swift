import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@DependencyGraph([A.self: [B.self], B.self: []])`, upstream's
/// compile-time graph check: a cycle in the literal is a compile error
/// naming it, and the peer `validateDependencyGraph()` returns the types of
/// the graph the live container has no registration for.
public struct DependencyGraphMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first?.expression else {
            throw DiagnosticsError(diagnostics: [Diagnostic(node: node, message: MacroDiagnostic.dependencyGraphNotALiteral)])
        }
        let graph = try Graph(argument)
        let order = ProviderDependencyOrder(names: graph.names, dependencies: graph.edges)
        if let cycle = order.cycles.first {
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: argument, message: MacroDiagnostic.dependencyGraphCycle(chain: cycle))
            ])
        }
        let checks = graph.names.map { name in
            "if !WeaveDI.Container.live.isRegistered(\(name).self) { missing.append(\"\(name)\") }"
        }
        let body = (["var missing: [String] = []"] + checks + ["return missing"]).joined(separator: "\n")
        return [
            """
            /// The types of the `@DependencyGraph` the live container has no
            /// registration for, in the order the graph names them.
            @discardableResult
            private func validateDependencyGraph() -> [String] {
            \(raw: body)
            }
            """
        ]
    }

    /// The literal's types, each named once in order of first mention, and
    /// for each the indices of the types it depends on.
    struct Graph {
        var names: [String] = []
        var edges: [[Int]] = []

        init(_ argument: ExprSyntax) throws {
            guard let dictionary = argument.as(DictionaryExprSyntax.self) else {
                throw DiagnosticsError(diagnostics: [
                    Diagnostic(node: argument, message: MacroDiagnostic.dependencyGraphNotALiteral)
                ])
            }
            guard case .elements(let elements) = dictionary.content else { return }
            for element in elements {
                let from = try index(of: element.key)
                guard let array = element.value.as(ArrayExprSyntax.self) else {
                    throw DiagnosticsError(diagnostics: [
                        Diagnostic(node: element.value, message: MacroDiagnostic.dependencyGraphNotALiteral)
                    ])
                }
                for dependency in array.elements {
                    let to = try index(of: dependency.expression)
                    edges[from].append(to)
                }
            }
        }

        private mutating func index(of expression: ExprSyntax) throws -> Int {
            guard let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
                let base = member.base
            else {
                throw DiagnosticsError(diagnostics: [
                    Diagnostic(
                        node: expression, message: MacroDiagnostic.dependencyGraphNotAType(expression: expression.trimmedDescription))
                ])
            }
            let name = base.trimmedDescription
            if let index = names.firstIndex(of: name) {
                return index
            }
            names.append(name)
            edges.append([])
            return names.count - 1
        }
    }
}
