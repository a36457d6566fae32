#if Macros
/// Generates `registerAll()` and `registerAll(into:)` for the `@Provide` properties
/// of a struct or class, registering them in dependency order. It also adds a
/// static property of the same name and type for each provider, which lets one
/// provider's initializer name another (`UserServiceImpl(repository: repository)`).
/// Providers that depend on each other in a cycle are a compile-time error.
@attached(member, names: named(registerAll), arbitrary)
public macro Component() = #externalMacro(module: "WeaveDIMacros", type: "ComponentMacro")

/// Marks a stored property of a `@Component` type as a provider. The declared type
/// is the key it is registered under; the initializer is its factory.
@attached(peer)
public macro Provide(scope: ProvideScope = .transient) = #externalMacro(module: "WeaveDIMacros", type: "ProvideMacro")
#endif
