#if Macros
/// Generates `registerAll()` and `registerAll(into:)` for the `@Provide`
/// properties of a struct or class, registering them in dependency order.
///
/// ```swift
/// @Component
/// struct UserComponent {
///     @Provide var repository: UserRepository = UserRepositoryImpl()
///     @Provide(scope: .singleton) var service: UserService = UserServiceImpl(repository: repository)
/// }
///
/// UserComponent.registerAll()                      // into WeaveDI.Container.live
/// UserComponent.registerAll(into: WeaveDI.Container())
/// ```
///
/// Both generated functions are `static`, and as visible as the component.
/// It also adds a static property of the same name and type for each
/// provider, which lets one provider's initializer name another
/// (`UserServiceImpl(repository: repository)`); in a registered factory,
/// that name reads the container the component was registered into.
/// Providers that depend on each other in a cycle are a compile-time error.
/// The type also conforms to ``ComponentProtocol`` (so it must be `Sendable`
/// and have an `init()`), as upstream's `@Component` declares.
/// Needs the `Macros` trait (on by default).
@attached(member, names: named(registerAll), arbitrary)
@attached(extension, conformances: ComponentProtocol)
public macro Component() = #externalMacro(module: "WeaveDIMacroExpansions", type: "ComponentMacro")

/// Marks a stored property of a `@Component` type as a provider. The declared
/// type is the key it is registered under; the initializer is its factory,
/// run as the scope says (see ``ProvideScope``).
///
/// ```swift
/// @Component
/// struct AppComponent {
///     @Provide var clock: Clock = SystemClock()                     // .transient
///     @Provide(scope: .singleton) var database: Database = PostgresDatabase()
///     @Provide(scope: .singleton, name: "replica") var replica: Database = PostgresDatabase(url: replicaURL)
/// }
/// ```
///
/// - Parameters:
///   - scope: How long an instance lives; `.transient` by default.
///   - name: A string literal: the provider registers under `(type, name)`
///     (see <doc:NamedRegistrations>), so two providers of one type can sit
///     in one component. Nil registers the type itself.
@attached(peer)
public macro Provide(scope: ProvideScope = .transient, name: String? = nil) =
    #externalMacro(module: "WeaveDIMacroExpansions", type: "ProvideMacro")

/// ``Provide(scope:name:)`` with the scope unlabelled, as upstream WeaveDI
/// writes it: `@Provide(.singleton) var database: Database = PostgresDatabase()`.
///
/// - Parameters:
///   - scope: How long an instance lives.
///   - name: A string literal naming the registration, or nil.
@attached(peer)
public macro Provide(_ scope: ProvideScope, name: String? = nil) = #externalMacro(module: "WeaveDIMacroExpansions", type: "ProvideMacro")
#endif
