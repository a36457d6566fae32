import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct WeaveDIMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ComponentMacro.self,
        ProvideMacro.self,
        AutoSyncExtensionMacro.self, GenerateAutoSyncMacro.self,
        DependencyGraphMacro.self,
    ]
}
