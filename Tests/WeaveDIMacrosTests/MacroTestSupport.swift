// Needs the `Macros` trait (on by default): without it this target has no
// dependencies on swift-syntax and nothing to test.
#if Macros
import Foundation
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import WeaveDIMacroExpansions

/// The macros under the names the WeaveDI module declares them with.
let weaveDIMacros: [String: any Macro.Type] = [
    "Component": ComponentMacro.self,
    "Provide": ProvideMacro.self,
    "DependencyGraph": DependencyGraphMacro.self,
]

/// The result of expanding `source` with the WeaveDI macros, for tests that check
/// one property of a long expansion rather than all of it.
struct Expansion {
    let source: String
    let diagnostics: [String]

    init(_ source: String) {
        let file = Parser.parse(source: source)
        let context = BasicMacroExpansionContext(
            sourceFiles: [file: .init(moduleName: "TestModule", fullFilePath: "test.swift")]
        )
        let expanded = file.expand(
            macros: weaveDIMacros,
            contextGenerator: { node in
                BasicMacroExpansionContext(sharingWith: context, lexicalContext: node.allMacroLexicalContexts())
            },
            indentationWidth: .spaces(4)
        )
        self.source = expanded.description
        self.diagnostics = context.diagnostics.map(\.message)
    }

    /// The `container.register(…)` calls of `registerAll(into:)`, in order, without
    /// their trailing closures: `container.register(A.self, scope: .transient)`.
    var registrations: [String] {
        source.split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("container.register(") }
            .map { $0.hasSuffix(" {") ? String($0.dropLast(2)) : $0 }
    }

    /// The body of the generated `_weaveDIMake_<name>(in:)`, the provider's factory,
    /// each line trimmed.
    func factoryBody(of name: String) -> String? {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(where: { $0.contains("func _weaveDIMake_\(name)(") }) else {
            return nil
        }
        let closingBrace = lines[header].prefix { $0 == " " } + "}"
        let body = lines[(header + 1)...].prefix { $0 != closingBrace }
        return body.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n")
    }
}
#endif
