#if Macros
/// Upstream's compile-time dependency graph: a dictionary literal from each
/// type to the types it depends on. A cycle is a compile error naming it;
/// the macro adds `validateDependencyGraph()` beside the declaration, which
/// returns the types of the graph the live container has no registration
/// for (empty when every one is registered). Needs the `Macros` trait (on
/// by default). `UnifiedDI.validate()` checks the registrations
/// themselves, with the edges their factories actually take.
///
/// ```swift
/// @DependencyGraph([
///     UserService.self: [UserRepository.self, Logger.self],
///     UserRepository.self: [Logger.self],
///     Logger.self: [],
/// ])
/// final class ApplicationDependencyGraph {}
/// ```
///
/// Upstream declared the parameter as any `T`, with which Swift rejects
/// such a literal (a metatype is not `Hashable`); `KeyValuePairs` takes it.
@attached(peer, names: named(validateDependencyGraph))
public macro DependencyGraph(_ dependencies: KeyValuePairs<Any.Type, [Any.Type]>) =
    #externalMacro(module: "WeaveDIMacroExpansions", type: "DependencyGraphMacro")
#endif
