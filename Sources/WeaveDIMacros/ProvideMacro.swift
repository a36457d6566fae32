import SwiftSyntax
import SwiftSyntaxMacros

/// `@Provide` marks a property for `@Component` and adds nothing itself. It
/// validates its property here, once, so that a mistake is reported even on a
/// property outside a component and `@Component` can skip invalid ones quietly.
public struct ProvideMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            context.diagnose(.init(node: node, message: MacroDiagnostic.provideNotOnVariable))
            return []
        }
        _ = try Provider(variable: variable, attribute: node)
        return []
    }
}
