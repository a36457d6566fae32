import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@AutoSyncExtension` on an extension of `DependencyValues` or
/// `InjectedValues`: for each computed property whose getter reads
/// `self[SomeKey.self]`, a property of the same type named with a `Sync`
/// suffix that reads and writes `self[autoSync: SomeKey.self]`.
public struct AutoSyncExtensionMacro: MembersMacro {
    public static func members(
        of node: AttributeSyntax, in declaration: some DeclGroupSyntax, context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let extensionDecl = try AutoSyncTarget.extensionOfValues(declaration, node: node, macro: "AutoSyncExtension")
        var members: [DeclSyntax] = []
        for member in extensionDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                !variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) }),
                variable.bindings.count == 1, let binding = variable.bindings.first,
                let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                let type = binding.typeAnnotation?.type, let accessors = binding.accessorBlock
            else { continue }
            guard let key = AutoSyncTarget.keyRead(in: accessors) else {
                context.diagnose(Diagnostic(node: binding.pattern, message: AutoSyncDiagnostic.noKeyRead(property: name)))
                continue
            }
            let access = variable.modifiers.filter { AutoSyncTarget.accessLevels.contains($0.name.text) }
                .map { "\($0.name.text) " }.joined()
            members.append(
                AutoSyncTarget.property(
                    access: access, name: "\(name)Sync", type: type.trimmedDescription, key: key,
                    settable: AutoSyncTarget.hasSetter(accessors)))
        }
        return members
    }
}

/// `@GenerateAutoSync(key: SomeKey.self, type: Service.self)` on an
/// extension of `DependencyValues` or `InjectedValues`: one property, named
/// after the key without its `Key` suffix, that reads and writes
/// `self[autoSync: SomeKey.self]`.
public struct GenerateAutoSyncMacro: MembersMacro {
    public static func members(
        of node: AttributeSyntax, in declaration: some DeclGroupSyntax, context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        _ = try AutoSyncTarget.extensionOfValues(declaration, node: node, macro: "GenerateAutoSync")
        let arguments = node.arguments?.as(LabeledExprListSyntax.self) ?? []
        var problems: [Diagnostic] = []
        func typeArgument(_ label: String) -> String? {
            guard let argument = arguments.first(where: { $0.label?.text == label }) else { return nil }
            guard let member = argument.expression.as(MemberAccessExprSyntax.self),
                member.declName.baseName.text == "self", let base = member.base
            else {
                problems.append(
                    Diagnostic(node: argument.expression, message: AutoSyncDiagnostic.notAType(argument: label)))
                return nil
            }
            return base.trimmedDescription
        }
        let key = typeArgument("key")
        let type = typeArgument("type")
        if !problems.isEmpty {
            throw DiagnosticsError(diagnostics: problems)
        }
        guard let key, let type else { return [] }
        return [
            AutoSyncTarget.property(
                access: "", name: AutoSyncTarget.propertyName(forKey: key), type: type, key: key, settable: true)
        ]
    }
}

enum AutoSyncTarget {
    static let accessLevels: Set<String> = ["public", "package", "internal", "fileprivate", "private"]

    /// The extension the macro is attached to, if it extends
    /// `DependencyValues` or `InjectedValues` (qualified or not).
    static func extensionOfValues(
        _ declaration: some DeclGroupSyntax, node: AttributeSyntax, macro: String
    ) throws(DiagnosticsError) -> ExtensionDeclSyntax {
        guard let extensionDecl = declaration.as(ExtensionDeclSyntax.self) else {
            throw DiagnosticsError(diagnostics: [
                Diagnostic(
                    node: node,
                    message: AutoSyncDiagnostic.notAnExtension(macro: macro, introducer: declaration.introducer.text))
            ])
        }
        let extended = extensionDecl.extendedType.trimmedDescription
        let name = extended.split(separator: ".").last.map(String.init) ?? extended
        guard name == "DependencyValues" || name == "InjectedValues" else {
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: node, message: AutoSyncDiagnostic.wrongExtendedType(macro: macro, type: extended))
            ])
        }
        return extensionDecl
    }

    /// The key type of the first `self[SomeKey.self]` in the getter.
    static func keyRead(in accessors: AccessorBlockSyntax) -> String? {
        let getter: Syntax
        switch accessors.accessors {
        case .getter(let body):
            getter = Syntax(body)
        case .accessors(let list):
            guard let get = list.first(where: { $0.accessorSpecifier.tokenKind == .keyword(.get) }),
                let body = get.body
            else { return nil }
            getter = Syntax(body)
        }
        let finder = KeyReadFinder(viewMode: .sourceAccurate)
        finder.walk(getter)
        return finder.key
    }

    static func hasSetter(_ accessors: AccessorBlockSyntax) -> Bool {
        guard case .accessors(let list) = accessors.accessors else { return false }
        return list.contains { $0.accessorSpecifier.tokenKind == .keyword(.set) }
    }

    /// `UserServiceKey` gives `userService`; a name without the suffix is
    /// only lowercased at its start.
    static func propertyName(forKey key: String) -> String {
        var name = key.split(separator: ".").last.map(String.init) ?? key
        if name.hasSuffix("Key") && name.count > 3 {
            name.removeLast(3)
        }
        return name.prefix(1).lowercased() + name.dropFirst()
    }

    static func property(access: String, name: String, type: String, key: String, settable: Bool) -> DeclSyntax {
        if settable {
            return """
                \(raw: access)var \(raw: name): \(raw: type) {
                    get {
                        self[autoSync: \(raw: key).self]
                    }
                    set {
                        self[autoSync: \(raw: key).self] = newValue
                    }
                }
                """
        }
        return """
            \(raw: access)var \(raw: name): \(raw: type) {
                self[autoSync: \(raw: key).self]
            }
            """
    }
}

/// Finds `self[SomeKey.self]`.
private final class KeyReadFinder: SyntaxVisitor {
    var key: String?

    override func visit(_ node: SubscriptCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard key == nil else { return .skipChildren }
        if node.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.tokenKind == .keyword(.self),
            node.arguments.count == 1, let argument = node.arguments.first, argument.label == nil,
            let member = argument.expression.as(MemberAccessExprSyntax.self),
            member.declName.baseName.text == "self", let base = member.base
        {
            key = base.trimmedDescription
            return .skipChildren
        }
        return .visitChildren
    }
}

enum AutoSyncDiagnostic: DiagnosticMessage {
    case notAnExtension(macro: String, introducer: String)
    case wrongExtendedType(macro: String, type: String)
    case noKeyRead(property: String)
    case notAType(argument: String)

    var message: String {
        switch self {
        case .notAnExtension(let macro, let introducer):
            return "@\(macro) can only be applied to an extension of DependencyValues or InjectedValues, "
                + "not to \(introducer.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(introducer)"
        case .wrongExtendedType(let macro, let type):
            return "@\(macro) can only be applied to an extension of DependencyValues or InjectedValues, "
                + "not of '\(type)'"
        case .noKeyRead(let property):
            return "'\(property)' reads no 'self[SomeKey.self]' in its getter, so @AutoSyncExtension "
                + "generates no '\(property)Sync' for it"
        case .notAType(let argument):
            return "'\(argument):' takes a type, such as 'UserServiceKey.self'"
        }
    }

    var diagnosticID: MessageID {
        switch self {
        case .notAnExtension: MessageID(domain: "WeaveDIMacros", id: "autoSyncNotAnExtension")
        case .wrongExtendedType: MessageID(domain: "WeaveDIMacros", id: "autoSyncWrongExtendedType")
        case .noKeyRead: MessageID(domain: "WeaveDIMacros", id: "autoSyncNoKeyRead")
        case .notAType: MessageID(domain: "WeaveDIMacros", id: "autoSyncNotAType")
        }
    }

    var severity: DiagnosticSeverity {
        switch self {
        case .noKeyRead: .warning
        default: .error
        }
    }
}
