/// Runs `operation` with the values `update` sets.
///
/// The overrides are seen by this task and its child tasks only (through
/// ``Injected``, ``InjectedValues/current`` and, for values read by type,
/// `@Injected var x: T`), stack on enclosing scopes (innermost wins) and are
/// gone when `operation` returns or throws. The live container is not
/// changed, so tests that run in parallel can each override the same key.
/// A `.singleton` or `.weak` instance first built inside the scope (its
/// factory may read the overrides) is the scope's own: shared inside it,
/// released with it, never kept by its registration.
///
/// ```swift
/// let name = withInjectedValues {
///     $0.userService = MockUserService(name: "Ada")
/// } operation: {
///     ProfileModel().displayName
/// }
/// ```
///
/// - Parameters:
///   - update: Sets the overrides, on a copy of the current values.
///   - operation: The code that sees them.
/// - Returns: What `operation` returns.
/// - Throws: What `update` or `operation` throws.
@discardableResult
public func withInjectedValues<R>(
    _ update: (inout InjectedValues) throws -> Void,
    operation: () throws -> R
) rethrows -> R {
    var values = InjectedValues.task
    try update(&values)
    values.enterScope()
    return try InjectedValues.$task.withValue(values) {
        try OverrideScopes.$active.withValue(true, operation: operation)
    }
}

/// The `async` form of `withInjectedValues(_:operation:)`: `operation` and
/// its child tasks see the values `update` sets.
///
/// ```swift
/// await withInjectedValues {
///     $0.clock = TestClock()
/// } operation: {
///     await SessionModel().expire()
/// }
/// ```
///
/// - Parameters:
///   - isolation: The actor `operation` runs on; the caller's by default.
///   - update: Sets the overrides, on a copy of the current values.
///   - operation: The code that sees them.
/// - Returns: What `operation` returns.
/// - Throws: What `update` or `operation` throws.
@discardableResult
public func withInjectedValues<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ update: (inout InjectedValues) throws -> Void,
    operation: () async throws -> R
) async rethrows -> R {
    var values = InjectedValues.task
    try update(&values)
    values.enterScope()
    return try await InjectedValues.$task.withValue(
        values,
        operation: {
            try await OverrideScopes.$active.withValue(true, operation: operation, isolation: isolation)
        }, isolation: isolation)
}
