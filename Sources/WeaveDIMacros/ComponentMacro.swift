import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Component` turns the `@Provide` properties of a struct or class into
/// registrations: see `ComponentMembersBuilder` for what it generates.
public struct ComponentMacro: MembersMacro {
    public static func members(
        of node: AttributeSyntax, in declaration: some DeclGroupSyntax, context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let componentName: String
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            componentName = structDecl.name.text
        } else if let classDecl = declaration.as(ClassDeclSyntax.self) {
            componentName = classDecl.name.text
        } else {
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: node, message: MacroDiagnostic.componentNotStructOrClass(introducer: declaration.introducer.text))
            ])
        }

        let providers = declaration.memberBlock.members.compactMap { member -> Provider? in
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                let attribute = Provider.provideAttribute(of: variable)
            else { return nil }
            // `@Provide` reports what is wrong with the property itself.
            return try? Provider(variable: variable, attribute: attribute)
        }

        var providerIndices: [String: Int] = [:]
        for (index, provider) in providers.enumerated() {
            providerIndices[provider.name] = index
        }

        var factoryBodies: [ExprSyntax] = []
        var dependencies: [[Int]] = []
        for provider in providers {
            let rewriter = ProviderReferenceRewriter(providerIndices: providerIndices, componentName: componentName) {
                ComponentMembersBuilder.resolveCall(for: providers[$0])
            }
            factoryBodies.append(rewriter.rewrite(provider.initializer).cast(ExprSyntax.self))
            dependencies.append(rewriter.referencedProviders)
        }

        let ordering = ProviderDependencyOrder(names: providers.map(\.name), dependencies: dependencies)
        for cycle in ordering.cycles {
            guard let first = cycle.first, let index = providerIndices[first] else { continue }
            let anchor = providers[index].declaration.bindings.first.map(Syntax.init) ?? Syntax(providers[index].declaration)
            context.diagnose(Diagnostic(node: anchor, message: MacroDiagnostic.providerCycle(chain: cycle)))
        }

        // The members are generated even with a cycle: the cycle's error is then the
        // only one the user sees, instead of one more per property initializer.
        return try ComponentMembersBuilder(
            providers: providers,
            factoryBodies: factoryBodies,
            registrationOrder: ordering.order,
            componentAccess: componentAccess(of: declaration)
        ).members()
    }

    private static func componentAccess(of declaration: some DeclGroupSyntax) -> DeclModifierListSyntax {
        for modifier in declaration.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open):
                return [DeclModifierSyntax(name: .keyword(.public))]
            case .keyword(.package):
                return [DeclModifierSyntax(name: .keyword(.package))]
            default:
                continue
            }
        }
        return []
    }
}

/// `@Component` also declares the type's `ComponentProtocol` conformance,
/// as upstream's does, when the type does not declare it itself.
extension ComponentMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard !protocols.isEmpty, declaration.is(StructDeclSyntax.self) || declaration.is(ClassDeclSyntax.self) else {
            return []
        }
        let conformances = protocols.map(\.trimmedDescription).joined(separator: ", ")
        return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: conformances) {}")]
    }
}
