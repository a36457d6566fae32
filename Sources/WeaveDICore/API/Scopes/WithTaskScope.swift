/// Runs `operation` as one request: every ``ProvideScope/task``
/// registration resolved inside it, by it or its child tasks, is built once
/// and shared, and is released when the scope ends (once no task that
/// inherited it is still running).
///
/// Concurrent scopes never share an instance, and a scope nested in another
/// starts empty. Registrations of other scopes are unaffected.
///
/// ```swift
/// UnifiedDI.register(RequestLog.self, scope: .task) { RequestLog() }
///
/// try await withTaskScope {
///     let log = UnifiedDI.requireResolve(RequestLog.self) // built here
///     try await router.handle(request)                    // resolves the same `log`
/// }
/// ```
///
/// - Parameters:
///   - isolation: The actor `operation` runs on; the caller's by default.
///   - operation: The request's work.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws.
public func withTaskScope<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ operation: () async throws -> R
) async rethrows -> R {
    try await TaskScope.binding.withValue(ScopedInstances(), operation: operation, isolation: isolation)
}

/// The synchronous form of `withTaskScope(isolation:_:)`: every
/// ``ProvideScope/task`` registration resolved inside `operation` is built
/// once and released when the scope ends.
///
/// ```swift
/// let report = withTaskScope {
///     ReportBuilder(log: UnifiedDI.resolve(RequestLog.self)).build()
/// }
/// ```
///
/// - Parameter operation: The work that shares the scope.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws.
public func withTaskScope<R>(_ operation: () throws -> R) rethrows -> R {
    try TaskScope.binding.withValue(ScopedInstances(), operation: operation)
}
