/// Why a dependency could not be provided.
///
/// Thrown by the throwing routes (`UnifiedDI.resolveThrowing(_:)`,
/// ``DIContainer/resolveThrowing(_:)``, `@SafeInject`'s `getValue()`);
/// the optional routes turn it into nil. The payloads spell type names as
/// `String(describing:)` does (upstream WeaveDI's spelling, which code
/// matches on); ``description`` prints them in full (`String(reflecting:)`,
/// module and nesting included), so two types of the same name read apart.
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
    /// The description names registrations that look close (the type as an
    /// Optional, a type of the same name, similar names) and why each did
    /// not answer.
    case dependencyNotFound(type: String)
    /// The chain of types that led back to one already being built, e.g.
    /// "A -> B -> A" (or a chain deeper than any real graph, marked so).
    case circularDependency(chain: String)
    /// Kept for upstream code that matches on it; registration cannot
    /// fail, and a factory that throws is ``factoryFailed(type:chain:error:)``.
    @available(*, deprecated, message: "never thrown: a factory that throws gives factoryFailed(type:chain:error:)")
    case registrationFailed(type: String, reason: String)
    /// A ``ProvideScope/task`` dependency was resolved outside any
    /// `withTaskScope`.
    case noActiveScope(type: String)
    /// The factory of `type` threw `error`. `chain` is the resolution chain
    /// that reached it, outermost first and ending with `type`, e.g.
    /// "OrderService -> Database". Not cached: the next resolve runs the
    /// factory again.
    case factoryFailed(type: String, chain: String, error: UnderlyingError)
    /// A synchronous resolve reached an async registration that is not built
    /// yet. `try await UnifiedDI.resolveAsyncThrowing(_:)` (or the container's)
    /// builds it; ``DIContainer/start(timeout:)`` builds every singleton at
    /// startup.
    case asyncRegistration(type: String)
    /// ``DIContainer/start(timeout:)`` could not build these singletons:
    /// each failed or did not finish within the timeout.
    case startFailed(failures: [StartFailure])
    /// Kept for upstream code that builds or matches it; a factory that
    /// throws gives ``factoryFailed(type:chain:error:)``.
    @available(*, deprecated, message: "never thrown: a factory that throws gives factoryFailed(type:chain:error:)")
    case creationFailed(String, underlying: (any Error)?)
    /// Kept for upstream code that builds or matches it; nothing here throws it.
    @available(*, deprecated, message: "never thrown: validate() reports configuration problems")
    case configurationError(String)
    /// Kept for upstream code that builds or matches it; nothing here throws
    /// it, since resolving before bootstrap reads the live container.
    @available(*, deprecated, message: "never thrown: a resolve before bootstrap gives dependencyNotFound(type:)")
    case containerNotBootstrapped(String)
    /// Kept for upstream code that builds or matches it; nothing here throws it.
    @available(*, deprecated, message: "never thrown")
    case internalError(String)

    /// Upstream's unlabelled spelling of ``dependencyNotFound(type:)``:
    /// `throw DIError.dependencyNotFound("UserService")`. A pattern needs no
    /// such overload: `catch DIError.dependencyNotFound(let name)` matches
    /// the labelled case.
    public static func dependencyNotFound(_ type: String) -> DIError {
        .dependencyNotFound(type: type)
    }

    /// Upstream's unlabelled spelling of ``circularDependency(chain:)``.
    public static func circularDependency(_ chain: String) -> DIError {
        .circularDependency(chain: chain)
    }

    /// Upstream's unlabelled spelling of
    /// ``registrationFailed(type:reason:)``: upstream's one string is the
    /// reason, with no type.
    @available(*, deprecated, message: "never thrown: a factory that throws gives factoryFailed(type:chain:error:)")
    public static func registrationFailed(_ reason: String) -> DIError {
        .registrationFailed(type: "", reason: reason)
    }

    /// Logs the miss (at debug level, built only when enabled) and reports
    /// it to a `validate()` running on this thread.
    @usableFromInline
    static func missing<T>(_ type: T.Type) -> DIError {
        noteMissing(type)
        return .dependencyNotFound(type: typeName(type))
    }

    /// A miss of a named registration. The payload reads as the message
    /// does, `Database named "replica" (registered: "primary")`, so code that
    /// prints or matches the payload sees the name; `qualifiedMiss` reads it back.
    static func missing<T>(_ type: T.Type, named name: String, registered: [String]) -> DIError {
        DILog.miss(type)
        let names = RegistrationName.quoted(registered)
        return .dependencyNotFound(type: "\(typeName(type))\(namedMissMarker)\"\(name)\" (registered: \(names))")
    }

    /// A miss of a registration taking arguments, read as the message does:
    /// `ItemViewModel taking (String) (registered: (Int))`.
    static func missing<T>(_ type: T.Type, arguments: String, registered: [String]) -> DIError {
        DILog.miss(type)
        return .dependencyNotFound(
            type: "\(typeName(type))\(argumentsMissMarker)\(arguments) (registered: \(ArgumentSignatures.listed(registered)))")
    }

    /// What separates the type's short name from the rest in a named miss's
    /// payload: a type's name never holds it.
    private static let namedMissMarker = " named "
    /// The same in an argument miss's payload.
    private static let argumentsMissMarker = " taking "

    /// The short type name, the rest (the name or arguments asked, and what
    /// is registered) and how to register one, of a named or argument miss's
    /// payload; nil for a type's miss.
    private static func qualifiedMiss(_ payload: String) -> (type: String, rest: String, example: String)? {
        if let marker = payload.firstOccurrence(of: namedMissMarker + "\"") {
            let type = String(payload[..<marker.lowerBound])
            return (type, String(payload[marker.lowerBound...]), "UnifiedDI.register(\(type).self, name: ...) { ... }")
        }
        if let marker = payload.firstOccurrence(of: argumentsMissMarker + "(") {
            let type = String(payload[..<marker.lowerBound])
            return (type, String(payload[marker.lowerBound...]), "UnifiedDI.register(\(type).self) { (argument: ...) in ... }")
        }
        return nil
    }

    /// What a miss records however it is reported: the log line, and the
    /// miss for a `validate()` run on this thread.
    @usableFromInline @inline(never)
    static func noteMissing<T>(_ type: T.Type) {
        DILog.miss(type)
        BuildRecording.noteMissing(type)
    }

    /// A message that names the type in full and says what to do.
    public var description: String {
        switch self {
        case .dependencyNotFound(let short):
            if let miss = DIError.qualifiedMiss(short) {
                return "WeaveDI: no registration of '\(TypeNames.qualified(miss.type))'\(miss.rest). "
                    + "Register it first, e.g. \(miss.example)"
            }
            let type = TypeNames.qualified(short)
            let close = MissSuggestions.suggestions(forName: short)
            return "WeaveDI: no registration for '\(type)'. "
                + (close.isEmpty ? "" : "Registered that looks close: \(close.joined(separator: "; ")). ")
                + "Register it first, e.g. UnifiedDI.register(\(short).self) { ... }"
        case .circularDependency(let chain):
            return "WeaveDI: circular dependency: \(TypeNames.qualifiedChain(chain))"
        case .registrationFailed(let type, let reason):
            return "WeaveDI: registering '\(TypeNames.qualified(type))' failed: \(reason)"
        case .noActiveScope(let type):
            return "WeaveDI: '\(TypeNames.qualified(type))' is task-scoped but was resolved outside "
                + "withTaskScope { ... }"
        case .factoryFailed(let type, let chain, let error):
            return "WeaveDI: the factory of '\(TypeNames.qualified(type))' threw \(error) "
                + "(resolving \(TypeNames.qualifiedChain(chain)))"
        case .asyncRegistration(let type):
            return "WeaveDI: '\(TypeNames.qualified(type))' has an async factory and is not built yet: resolve it with "
                + "try await UnifiedDI.resolveAsyncThrowing(\(type).self), or build it at startup "
                + "with try await UnifiedDI.start(timeout:)"
        case .startFailed(let failures):
            return "WeaveDI: start failed for \(failures.count) service\(failures.count == 1 ? "" : "s"):\n"
                + failures.map { "  " + $0.description }.joined(separator: "\n")
        case .creationFailed(let type, let underlying):
            return "WeaveDI: creating '\(TypeNames.qualified(type))' failed"
                + (underlying.map { ": \($0)" } ?? "")
        case .configurationError(let message):
            return "WeaveDI: configuration error: \(message)"
        case .containerNotBootstrapped(let message):
            return "WeaveDI: container not bootstrapped: \(message)"
        case .internalError(let message):
            return "WeaveDI: internal error: \(message)"
        }
    }

    /// The description, as upstream's `LocalizedError.errorDescription`
    /// gave it (WeaveDI links no Foundation, so the conformance is not
    /// declared; the three members are).
    public var errorDescription: String? { description }

    /// Why it failed, in one phrase.
    public var failureReason: String? {
        switch self {
        case .dependencyNotFound: "the dependency is not registered"
        case .circularDependency: "the dependencies form a cycle"
        case .registrationFailed: "registration failed"
        case .noActiveScope: "no request scope is active"
        case .factoryFailed: "the factory threw"
        case .asyncRegistration: "the factory is async and has not been built"
        case .startFailed: "startup could not build every singleton"
        case .creationFailed: "the instance could not be created"
        case .configurationError: "the configuration is invalid"
        case .containerNotBootstrapped: "the container is not bootstrapped"
        case .internalError: "an internal error occurred"
        }
    }

    /// What to do about it.
    public var recoverySuggestion: String? {
        switch self {
        case .dependencyNotFound(let type): "Register it first, e.g. UnifiedDI.register(\(type).self) { ... }"
        case .circularDependency: "Break the cycle, e.g. resolve one side lazily."
        case .noActiveScope: "Resolve task-scoped types inside withTaskScope { ... }."
        case .factoryFailed: "Fix the cause the factory reported; the next resolve runs it again."
        case .asyncRegistration(let type):
            "Resolve it with try await UnifiedDI.resolveAsyncThrowing(\(type).self), or build it at startup with start(timeout:)."
        case .startFailed: "Fix or register the services named; each failure says why."
        case .registrationFailed, .creationFailed, .configurationError, .containerNotBootstrapped, .internalError: nil
        }
    }

    public static func == (lhs: DIError, rhs: DIError) -> Bool {
        switch (lhs, rhs) {
        case (.dependencyNotFound(let a), .dependencyNotFound(let b)): a == b
        case (.circularDependency(let a), .circularDependency(let b)): a == b
        case (.registrationFailed(let a, let r), .registrationFailed(let b, let s)): a == b && r == s
        case (.noActiveScope(let a), .noActiveScope(let b)): a == b
        case (.factoryFailed(let a, let c, let e), .factoryFailed(let b, let d, let f)): a == b && c == d && e == f
        case (.asyncRegistration(let a), .asyncRegistration(let b)): a == b
        case (.startFailed(let a), .startFailed(let b)): a == b
        // Two underlying errors are equal when they print the same, as
        // UnderlyingError compares them.
        case (.creationFailed(let a, let e), .creationFailed(let b, let f)):
            a == b && e.map { String(reflecting: $0) } == f.map { String(reflecting: $0) }
        case (.configurationError(let a), .configurationError(let b)): a == b
        case (.containerNotBootstrapped(let a), .containerNotBootstrapped(let b)): a == b
        case (.internalError(let a), .internalError(let b)): a == b
        default: false
        }
    }

    /// A factory's error as a `DIError`: a `DIError` it passed on (a
    /// dependency's failure, a cycle) stays what it is, so the innermost
    /// failure is the one reported; any other error is wrapped with the
    /// chain that reached `type`.
    static func factoryError(_ error: any Error, building type: Any.Type, chain: [String]) -> DIError {
        if let error = error as? DIError {
            return error
        }
        let wrapped = DIError.factoryFailed(
            type: typeName(type), chain: (chain + [typeName(type)]).joined(separator: " -> "),
            error: UnderlyingError(error))
        DILog.logger.error("\(wrapped.description)")
        return wrapped
    }
}

/// The error a factory threw, carried by ``DIError/factoryFailed(type:chain:error:)``.
/// Two are equal when they print the same (`String(reflecting:)`, which
/// names the error's type in full), so `DIError` stays `Equatable`.
///
/// ```swift
/// if case .factoryFailed(_, _, let failure) = error, failure.error is ConnectionError {
///     scheduleRetry()
/// }
/// ```
public struct UnderlyingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error the factory threw.
    public let error: any Error

    /// Wraps `error`.
    ///
    /// - Parameter error: The factory's error.
    public init(_ error: any Error) {
        self.error = error
    }

    /// The error as `String(describing:)` prints it.
    public var description: String { String(describing: error) }

    public static func == (lhs: UnderlyingError, rhs: UnderlyingError) -> Bool {
        String(reflecting: lhs.error) == String(reflecting: rhs.error)
    }
}

/// One singleton ``DIContainer/start(timeout:)`` could not build.
///
/// ```swift
/// catch DIError.startFailed(let failures) {
///     for failure in failures { logger.critical("\(failure)") }
/// }
/// ```
public struct StartFailure: Sendable, Equatable, CustomStringConvertible {
    /// The service's type name.
    public let type: String
    /// What it was waiting for when the timeout ran out, outermost first
    /// and starting with `type` ("Repository -> ConnectionPool"), or the
    /// failing resolution's chain.
    public let chain: String
    /// Why: the factory's error, or nil when the build did not finish
    /// within the timeout.
    public let error: DIError?

    /// Whether the build was still running when the timeout ran out.
    public var timedOut: Bool { error == nil }

    /// One line: the type, what happened, and the chain, names in full.
    public var description: String {
        let name = TypeNames.qualified(type)
        let chain = TypeNames.qualifiedChain(chain)
        if let error {
            return "\(name): failed (\(chain)): \(error.description)"
        }
        return "\(name): not built within the timeout (waiting on \(chain))"
    }
}
