/// Why a dependency could not be provided.
public enum DIError: Error, CustomStringConvertible, Equatable, Sendable {
    case dependencyNotFound(type: String)
    /// The chain of types that led back to one already being built, e.g. "A -> B -> A".
    case circularDependency(chain: String)
    case registrationFailed(type: String, reason: String)
    /// A `.task`-scoped dependency was resolved outside any request scope.
    case noActiveScope(type: String)

    /// Logs the miss (at debug level, built only when enabled).
    @usableFromInline
    static func missing<T>(_ type: T.Type) -> DIError {
        DILog.miss(type)
        ValidationRun.noteMissing(type)
        return .dependencyNotFound(type: typeName(type))
    }

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
