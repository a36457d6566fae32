import SwiftDiagnostics
import SwiftSyntax

/// One `@Provide` property of a component, as the generated code needs it.
struct Provider {
    /// The name without backticks, used to derive helper names and in messages.
    let name: String
    /// The name as written, reused for the generated static property.
    let nameToken: TokenSyntax
    /// The declared type; it is the key the provider is registered under.
    let type: TypeSyntax
    let initializer: ExprSyntax
    let scope: ProviderScope
    /// The registration's name as written (a string literal), for
    /// `@Provide(name: "replica")`; nil registers the type unnamed.
    let registrationName: ExprSyntax?
    /// Access-level keywords copied onto the generated static property, so that it
    /// is visible wherever the user's own property is.
    let accessModifiers: DeclModifierListSyntax
    let declaration: VariableDeclSyntax
}

extension Provider {
    /// The `@Provide` attribute on `variable`, if it carries one.
    static func provideAttribute(of variable: VariableDeclSyntax) -> AttributeSyntax? {
        for element in variable.attributes {
            if case .attribute(let attribute) = element, isProvideAttribute(attribute) {
                return attribute
            }
        }
        return nil
    }

    /// Reads a `@Provide` property, collecting every problem at once so that a user
    /// fixes them in one pass.
    init(variable: VariableDeclSyntax, attribute: AttributeSyntax) throws(DiagnosticsError) {
        var problems: [Diagnostic] = []
        func report(_ node: some SyntaxProtocol, _ message: MacroDiagnostic) {
            problems.append(Diagnostic(node: node, message: message))
        }

        let arguments = Self.arguments(from: attribute, report: report)

        let typeLevelKeywords: [TokenKind] = [.keyword(.static), .keyword(.class)]
        if variable.modifiers.contains(where: { typeLevelKeywords.contains($0.name.tokenKind) }) {
            report(variable, .provideOnStaticProperty)
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first else {
            report(variable.bindings, .provideMultipleBindings)
            throw DiagnosticsError(diagnostics: problems)
        }
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self),
            let identifier = pattern.identifier.identifier
        else {
            report(binding.pattern, .provideMissingName)
            throw DiagnosticsError(diagnostics: problems)
        }
        let name = identifier.name
        if binding.typeAnnotation == nil {
            report(binding.pattern, .provideMissingTypeAnnotation(name: name))
        }
        if binding.initializer == nil {
            report(binding.pattern, .provideMissingInitializer(name: name))
        }
        guard problems.isEmpty,
            let arguments,
            let type = binding.typeAnnotation?.type,
            let initializer = binding.initializer?.value
        else {
            throw DiagnosticsError(diagnostics: problems)
        }

        self.init(
            name: name,
            nameToken: pattern.identifier.trimmed,
            type: type.trimmed,
            initializer: initializer.trimmed,
            scope: arguments.scope,
            registrationName: arguments.name,
            accessModifiers: Self.accessModifiers(of: variable),
            declaration: variable
        )
    }

    private static func isProvideAttribute(_ attribute: AttributeSyntax) -> Bool {
        if let name = attribute.attributeName.as(IdentifierTypeSyntax.self) {
            return name.name.text == "Provide"
        }
        if let member = attribute.attributeName.as(MemberTypeSyntax.self),
            let base = member.baseType.as(IdentifierTypeSyntax.self)
        {
            return base.name.text == "WeaveDI" && member.name.text == "Provide"
        }
        return false
    }

    /// The scope and the name; nil when the arguments are malformed (the
    /// problem has been reported then).
    private static func arguments(
        from attribute: AttributeSyntax,
        report: (LabeledExprSyntax, MacroDiagnostic) -> Void
    ) -> (scope: ProviderScope, name: ExprSyntax?)? {
        guard case .argumentList(let arguments) = attribute.arguments else {
            return (.defaultScope, nil)
        }
        var scope = ProviderScope.defaultScope
        var name: ExprSyntax?
        var valid = true
        for argument in arguments {
            if argument.label?.text == "name" {
                if argument.expression.is(NilLiteralExprSyntax.self) {
                    name = nil  // the default: the type's own registration
                    continue
                }
                // A literal, so the generated registration and resolve use
                // one name that the compiler sees, not an expression evaluated twice.
                guard let literal = argument.expression.as(StringLiteralExprSyntax.self),
                    !literal.segments.contains(where: { $0.is(ExpressionSegmentSyntax.self) })
                else {
                    report(argument, .provideInvalidName(expression: argument.expression.trimmedDescription))
                    valid = false
                    continue
                }
                name = ExprSyntax(literal.trimmed)
                continue
            }
            // `scope:` or unlabelled, as upstream writes it: `@Provide(.singleton)`.
            guard argument.label == nil || argument.label?.text == "scope" else {
                report(argument, .provideUnknownArgument(label: argument.label?.text ?? "_"))
                valid = false
                continue
            }
            guard let parsed = ProviderScope(expression: argument.expression) else {
                report(argument, .provideInvalidScope(expression: argument.expression.trimmedDescription))
                valid = false
                continue
            }
            scope = parsed
        }
        return valid ? (scope, name) : nil
    }

    private static func accessModifiers(of variable: VariableDeclSyntax) -> DeclModifierListSyntax {
        let accessKeywords: [Keyword] = [.public, .package, .internal, .fileprivate, .private]
        return DeclModifierListSyntax(
            variable.modifiers.compactMap { modifier -> DeclModifierSyntax? in
                // `private(set)` restricts a setter the static property does not have.
                guard modifier.detail == nil else { return nil }
                if modifier.name.tokenKind == .keyword(.open) {
                    return DeclModifierSyntax(name: .keyword(.public))
                }
                guard case .keyword(let keyword) = modifier.name.tokenKind, accessKeywords.contains(keyword) else {
                    return nil
                }
                return modifier.trimmed
            }
        )
    }
}
