import SwiftSyntax

/// Rewrites a provider's initializer so that every mention of another provider
/// reads that provider from a container instead, and records which providers
/// were mentioned; those are the provider's dependencies.
///
/// A mention is a bare name (`repository`) or the name qualified by the static
/// scope the macro generates it into (`Self.repository`, `UserComponent.repository`).
/// Member names of other values (`config.repository`) and argument labels are left
/// alone. A closure parameter that shadows a provider name is still taken for the
/// provider; the macro sees syntax only and cannot resolve scopes.
final class ProviderReferenceRewriter: SyntaxRewriter {
    private let providerIndices: [String: Int]
    private let componentName: String?
    private let replacement: (Int) -> ExprSyntax
    private(set) var referencedProviders: [Int] = []

    /// - Parameter replacement: the expression that stands for provider `index`.
    init(providerIndices: [String: Int], componentName: String?, replacement: @escaping (Int) -> ExprSyntax) {
        self.providerIndices = providerIndices
        self.componentName = componentName
        self.replacement = replacement
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> ExprSyntax {
        // A key path component names a member, and its slot takes only a name, so
        // replacing it with a call would also break the tree. Member accesses never
        // get here: `visit(MemberAccessExprSyntax)` does not descend into `declName`.
        let namesKeyPathMember = node.keyPathInParent == \KeyPathPropertyComponentSyntax.declName
        guard !namesKeyPathMember, let index = providerIndex(named: node) else {
            return ExprSyntax(node)
        }
        return replace(node, with: index)
    }

    override func visit(_ node: MemberAccessExprSyntax) -> ExprSyntax {
        if let base = node.base, isComponentScope(base), let index = providerIndex(named: node.declName) {
            return replace(node, with: index)
        }
        guard let base = node.base else {
            return ExprSyntax(node)
        }
        return ExprSyntax(node.with(\.base, visit(base)))
    }

    private func providerIndex(named reference: DeclReferenceExprSyntax) -> Int? {
        guard reference.argumentNames == nil, let name = reference.baseName.identifier?.name else {
            return nil
        }
        return providerIndices[name]
    }

    private func isComponentScope(_ base: ExprSyntax) -> Bool {
        guard let reference = base.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil else {
            return false
        }
        if reference.baseName.tokenKind == .keyword(.Self) {
            return true
        }
        return componentName != nil && reference.baseName.identifier?.name == componentName
    }

    private func replace(_ node: some ExprSyntaxProtocol, with index: Int) -> ExprSyntax {
        if !referencedProviders.contains(index) {
            referencedProviders.append(index)
        }
        return replacement(index)
            .with(\.leadingTrivia, node.leadingTrivia)
            .with(\.trailingTrivia, node.trailingTrivia)
    }
}
