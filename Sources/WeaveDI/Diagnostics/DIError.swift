/// Why a dependency could not be provided.
///
/// Thrown by the throwing routes (`UnifiedDI.resolveThrowing(_:)`,
/// ``DIContainer/resolveThrowing(_:)``, `@SafeInject`'s `getValue()`);
/// the optional routes turn it into nil. Type names are spelled as
/// `String(describing:)` spells them.
///
/// ```swift
/// do {
///     let database = try UnifiedDI.resolveThrowing(Database.self)
///     try await database.migrate()
/// } catch let error as DIError {
///     switch error {
///     case .dependencyNotFound(let type): print("register \(type)")
///     case .circularDependency(let chain): print("cycle: \(chain)")
///     default: print(error.description)
///     }
/// }
/// ```
public enum DIError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Nothing registers the type named, in the container or its parents.
    case dependencyNotFound(type: String)
    /// The chain of types that led back to one already being built, e.g.
    /// "A -> B -> A" (or a chain deeper than any real graph, marked so).
    case circularDependency(chain: String)
    /// Kept for upstream code that matches on it; WeaveDI's registration
    /// cannot fail, so nothing throws it.
    case registrationFailed(type: String, reason: String)
    /// A ``ProvideScope/task`` dependency was resolved outside any
    /// `withTaskScope`.
    case noActiveScope(type: String)

    /// Logs the miss (at debug level, built only when enabled) and reports
    /// it to a `validate()` running on this thread.
    @usableFromInline
    static func missing<T>(_ type: T.Type) -> DIError {
        DILog.miss(type)
        ValidationRun.noteMissing(type)
        return .dependencyNotFound(type: typeName(type))
    }

    /// A message that names the type and says what to do.
    public var description: String {
        switch self {
        case .dependencyNotFound(let type):
            return "WeaveDI: no registration for '\(type)'. Register it first, e.g. "
                + "UnifiedDI.register(\(type).self) { ... }"
        case .circularDependency(let chain):
            return "WeaveDI: circular dependency: \(chain)"
        case .registrationFailed(let type, let reason):
            return "WeaveDI: registering '\(type)' failed: \(reason)"
        case .noActiveScope(let type):
            return "WeaveDI: '\(type)' is task-scoped but was resolved outside "
                + "withTaskScope { ... }"
        }
    }
}
