/// Runs `operation` with the values `update` sets; the overrides are seen by
/// this task and its child tasks only, stack under enclosing scopes
/// (innermost wins) and are gone when `operation` returns or throws.
@discardableResult
public func withInjectedValues<R>(
    _ update: (inout InjectedValues) throws -> Void,
    operation: () throws -> R
) rethrows -> R {
    var values = InjectedValues.task
    try update(&values)
    values.enterScope()
    return try InjectedValues.$task.withValue(values) {
        try InjectionScopes.$active.withValue(true, operation: operation)
    }
}

/// The `async` form of `withInjectedValues`.
@discardableResult
public func withInjectedValues<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ update: (inout InjectedValues) throws -> Void,
    operation: () async throws -> R
) async rethrows -> R {
    var values = InjectedValues.task
    try update(&values)
    values.enterScope()
    return try await InjectedValues.$task.withValue(values, operation: {
        try await InjectionScopes.$active.withValue(true, operation: operation, isolation: isolation)
    }, isolation: isolation)
}
