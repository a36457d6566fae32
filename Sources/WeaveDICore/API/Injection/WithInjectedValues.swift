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

extension InjectedValues {
    /// The values visible to the current task, including the overrides of
    /// every enclosing `withInjectedValues` scope.
    ///
    /// Assigning registers the overrides set on the new value since it was
    /// read from `current` into the live container (as an instance of the
    /// key's value type), so code outside any `withInjectedValues` scope sees
    /// them too. Overrides it carries from the enclosing `withInjectedValues`
    /// scopes are not registered: they end with their scope. It does not
    /// change the task's own scope, and it cannot remove anything.
    ///
    /// ```swift
    /// let service = InjectedValues.current.userService
    ///
    /// var values = InjectedValues.current
    /// values.userService = MockUserService()
    /// InjectedValues.current = values   // now registered in the live container
    /// ```
    public static var current: InjectedValues {
        get { task }
        set {
            let inherited = task.byKey
            for (key, override) in newValue.byKey where inherited[key]?.serial != override.serial {
                let registration = override.registration()
                DIContainer.live.storeRegistration(registration.entry, key: registration.key, scope: nil)
            }
        }
    }
}
