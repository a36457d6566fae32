// Upstream 3.4's ComponentProtocol: unconditional, as a component may be
// written by hand without the Macros trait.

/// A type that registers a group of dependencies: what `@Component`
/// generates (`registerAll()` and `registerAll(into:)`), as a protocol
/// generic code can require.
///
/// ```swift
/// @Component
/// struct AppComponent {
///     @Provide(scope: .singleton) var database: Database = PostgresDatabase()
/// }
///
/// func install<C: ComponentProtocol>(_ component: C.Type) {
///     component.registerAll()
/// }
/// ```
///
/// `@Component` generates the members and declares the conformance.
public protocol ComponentProtocol: Sendable {
    /// A component value.
    init()
    /// Registers the component's dependencies in `container`.
    ///
    /// - Parameter container: The container to register in.
    static func registerAll(into container: DIContainer)
    /// Registers the component's dependencies in ``DIContainer/live``.
    static func registerAll()
}

extension ComponentProtocol {
    /// Registers into ``DIContainer/live``.
    public static func registerAll() {
        registerAll(into: .live)
    }
}
