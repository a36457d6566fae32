import SwiftSyntax
import SwiftSyntaxMacros

/// A member macro that reads only its attribute and the declaration it is
/// attached to: it writes `members(of:in:context:)` and this extension
/// gives `MemberMacro`'s entry point.
public protocol MembersMacro: MemberMacro {
    /// The members to add to `declaration`.
    static func members(
        of node: AttributeSyntax, in declaration: some DeclGroupSyntax, context: some MacroExpansionContext
    ) throws -> [DeclSyntax]
}

extension MembersMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try members(of: node, in: declaration, context: context)
    }
}
