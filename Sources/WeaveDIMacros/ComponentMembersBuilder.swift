import SwiftSyntax
import SwiftSyntaxBuilder

/// Builds the members `@Component` adds. For a provider `repository: UserRepository`:
///
/// - `static var repository: UserRepository`, so that another provider's
///   initializer may name `repository`: Swift rejects an instance member there but
///   accepts a static one of the same name. It reads the live container.
/// - `_weaveDIResolve_repository(from:)`: the registered instance, or one built
///   from the initializer when the container has none (before `registerAll`).
/// - `_weaveDIMake_repository(in:)`: the initializer, with mentions of other
///   providers rewritten to `_weaveDIResolve_…(from: container)`, so that a
///   factory reads the container it was registered into, not the live one.
/// - `registerAll()` and `registerAll(into:)`, registering in dependency order.
struct ComponentMembersBuilder {
    let providers: [Provider]
    /// Each provider's initializer with mentions of other providers rewritten.
    let factoryBodies: [ExprSyntax]
    let registrationOrder: [Int]
    /// `public` or `package` when the component is, so `registerAll` is callable
    /// wherever the component is visible.
    let componentAccess: DeclModifierListSyntax

    static let containerType: TypeSyntax = "WeaveDI.Container"

    static func resolveFunctionName(for provider: Provider) -> TokenSyntax {
        .identifier("_weaveDIResolve_\(provider.name)")
    }

    static func makeFunctionName(for provider: Provider) -> TokenSyntax {
        .identifier("_weaveDIMake_\(provider.name)")
    }

    /// The call that a mention of `provider` inside another initializer becomes.
    static func resolveCall(for provider: Provider) -> ExprSyntax {
        "\(resolveFunctionName(for: provider))(from: container)"
    }

    func members() throws -> [DeclSyntax] {
        var members: [DeclSyntax] = []
        for provider in providers {
            members.append(DeclSyntax(try staticAccessor(for: provider)))
        }
        for (provider, body) in zip(providers, factoryBodies) {
            members.append(DeclSyntax(try resolveFunction(for: provider)))
            members.append(DeclSyntax(try makeFunction(for: provider, body: body)))
        }
        members.append(DeclSyntax(try registerAllIntoLive()))
        members.append(DeclSyntax(try registerAllIntoContainer()))
        return members
    }

    private func staticAccessor(for provider: Provider) throws -> VariableDeclSyntax {
        let modifiers = spaced(provider.accessModifiers)
        return try VariableDeclSyntax("\(modifiers)static var \(provider.nameToken): \(provider.type)") {
            ExprSyntax("\(Self.resolveFunctionName(for: provider))(from: \(Self.containerType).live)")
        }
    }

    private func resolveFunction(for provider: Provider) throws -> FunctionDeclSyntax {
        let name = Self.resolveFunctionName(for: provider)
        return try FunctionDeclSyntax("private static func \(name)(from container: \(Self.containerType)) -> \(provider.type)") {
            ExprSyntax(
                "container.resolve(\(metatype(of: provider.type))\(nameArgument(of: provider))) ?? \(Self.makeFunctionName(for: provider))(in: container)"
            )
        }
    }

    private func makeFunction(for provider: Provider, body: ExprSyntax) throws -> FunctionDeclSyntax {
        let name = Self.makeFunctionName(for: provider)
        return try FunctionDeclSyntax("private static func \(name)(in container: \(Self.containerType)) -> \(provider.type)") {
            body
        }
    }

    private func registerAllIntoLive() throws -> FunctionDeclSyntax {
        try FunctionDeclSyntax("\(spaced(componentAccess))static func registerAll()") {
            ExprSyntax("registerAll(into: \(Self.containerType).live)")
        }
    }

    private func registerAllIntoContainer() throws -> FunctionDeclSyntax {
        try FunctionDeclSyntax("\(spaced(componentAccess))static func registerAll(into container: \(Self.containerType))") {
            for index in registrationOrder {
                let provider = providers[index]
                ExprSyntax(
                    """
                    container.register(\(metatype(of: provider.type))\(nameArgument(of: provider)), scope: \(provider.scope.expression)) {
                        \(Self.makeFunctionName(for: provider))(in: container)
                    }
                    """
                )
            }
        }
    }

    /// `, name: "replica"` for a named provider, else nothing.
    private func nameArgument(of provider: Provider) -> ExprSyntax {
        guard let name = provider.registrationName else { return "" }
        return ", name: \(name)"
    }

    /// `T.self`, parenthesised where the type would otherwise bind looser than `.self`
    /// (`(any P).self`, `(() -> Int).self`).
    private func metatype(of type: TypeSyntax) -> ExprSyntax {
        let needsParentheses =
            !(type.is(IdentifierTypeSyntax.self)
            || type.is(MemberTypeSyntax.self)
            || type.is(OptionalTypeSyntax.self)
            || type.is(ArrayTypeSyntax.self)
            || type.is(DictionaryTypeSyntax.self)
            || type.is(TupleTypeSyntax.self))
        let base: TypeSyntax =
            needsParentheses
            ? TypeSyntax(TupleTypeSyntax(elements: [TupleTypeElementSyntax(type: type)]))
            : type
        return "\(base).self"
    }

    /// Modifiers ready to precede a keyword in a header string.
    private func spaced(_ modifiers: DeclModifierListSyntax) -> DeclModifierListSyntax {
        DeclModifierListSyntax(modifiers.map { $0.with(\.trailingTrivia, .space) })
    }
}
