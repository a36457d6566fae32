import SwiftSyntax

/// The lifetimes `@Provide(scope:)` accepts, one for one with `WeaveDI.ProvideScope`.
enum ProviderScope: String, CaseIterable {
    case transient
    case singleton
    case weak
    case task
    case graph

    /// What `@Provide` without arguments means.
    static let defaultScope = ProviderScope.transient

    /// Only literal cases are accepted, so that the scope is known while the macro
    /// expands and a typo fails here rather than in generated code.
    init?(expression: ExprSyntax) {
        guard let access = expression.as(MemberAccessExprSyntax.self),
            access.declName.argumentNames == nil,
            Self.isProvideScopeType(access.base)
        else { return nil }
        self.init(rawValue: access.declName.baseName.text)
    }

    /// `.singleton` as an expression that the expected `ProvideScope` parameter type completes.
    var expression: ExprSyntax {
        ExprSyntax(MemberAccessExprSyntax(name: .identifier(rawValue)))
    }

    private static func isProvideScopeType(_ base: ExprSyntax?) -> Bool {
        guard let base else { return true }
        if let reference = base.as(DeclReferenceExprSyntax.self) {
            return reference.baseName.text == "ProvideScope"
        }
        if let member = base.as(MemberAccessExprSyntax.self) {
            return member.declName.baseName.text == "ProvideScope"
        }
        return false
    }
}
