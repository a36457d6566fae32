import Synchronization

/// Instances of `.task`-scoped registrations for one request. Bound to a task
/// with a task-local, so child tasks share it and concurrent requests never
/// do; the instances go away when the scope's last task is done.
///
/// Entering a scope allocates this one object. Its instances hang off a
/// lock-free list (a request has a handful), pushed with a compare-and-swap
/// and never removed before the scope dies.
@usableFromInline
final class TaskScope: @unchecked Sendable {
    @usableFromInline @TaskLocal static var current: TaskScope?

    /// The newest slot, retained; each links to the one before.
    @usableFromInline let head = Atomic<UnsafeRawPointer?>(nil)

    deinit {
        var node = head.load(ordering: .acquiring)
        while let raw = node {
            let slot = Unmanaged<SlotBase>.fromOpaque(raw)
            node = slot._withUnsafeGuaranteedRef { $0.scopeNext }
            slot.release()
        }
    }

    /// The slot of one registration, not of one type: a registration that
    /// replaced another mid-request, or another container's registration of
    /// the same type, gets its own instance.
    @inlinable
    func slot(for registration: AnyRegistryEntry) -> ScopedInstance {
        let key = UInt(bitPattern: ObjectIdentifier(registration))
        var newest = head.load(ordering: .acquiring)
        var searchedUpTo: UnsafeRawPointer?
        while true {
            var node = newest
            while let raw = node, raw != searchedUpTo {
                let slot = Unmanaged<SlotBase>.fromOpaque(raw).takeUnretainedValue()
                if slot.scopeKey == key {
                    return unsafeDowncast(slot, to: ScopedInstance.self)
                }
                node = slot.scopeNext
            }
            let slot = ScopedInstance(registration: registration)
            slot.scopeKey = key
            slot.scopeNext = newest
            let raw = UnsafeRawPointer(Unmanaged.passRetained(slot).toOpaque())
            let (pushed, found) = head.compareExchange(
                expected: newest, desired: raw, ordering: .acquiringAndReleasing)
            if pushed {
                return slot
            }
            Unmanaged<SlotBase>.fromOpaque(raw).release()
            searchedUpTo = newest
            newest = found
        }
    }

    @inlinable
    static func instance<T>(for entry: LazyEntry<T>) throws(DIError) -> T {
        guard let scope = current else {
            DILog.scopeLeak(T.self)
            throw .noActiveScope(type: typeName(T.self))
        }
        return try scope.slot(for: entry).getOrBuild { () throws(DIError) in try entry.produceFresh() }
    }
}

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
    try await TaskScope.$current.withValue(TaskScope(), operation: operation, isolation: isolation)
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
    try TaskScope.$current.withValue(TaskScope(), operation: operation)
}
