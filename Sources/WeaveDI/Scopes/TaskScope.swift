import Synchronization

/// Instances of `.task`-scoped registrations for one request. Bound to a task
/// with a task-local, so child tasks share it and concurrent requests never
/// do; the instances go away when the scope's last task is done.
final class TaskScope: Sendable {
    @TaskLocal static var current: TaskScope?

    private let slots = Locked<[TypeKey: SlotBase]>([:])

    func slot<T>(for type: T.Type) -> InstanceSlot<T> {
        let found = slots.withLock { slots in
            if let slot = slots[typeKey(type)] {
                return slot
            }
            let slot = InstanceSlot<T>(weak: false)
            slots[typeKey(type)] = slot
            return slot
        }
        return unsafeDowncast(found, to: InstanceSlot<T>.self)
    }

    static func instance<T>(for entry: LazyEntry<T>) throws(DIError) -> T {
        guard let scope = current else {
            DILog.scopeLeak(T.self)
            throw .noActiveScope(type: typeName(T.self))
        }
        return try scope.slot(for: T.self).getOrBuild { () throws(DIError) in try entry.produceFresh() }
    }
}

/// Runs `operation` as one request: every `.task`-scoped dependency resolved
/// inside it, by it or its child tasks, is created once and shared, and is
/// released when the scope ends.
public func withTaskScope<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ operation: () async throws -> R
) async rethrows -> R {
    try await TaskScope.$current.withValue(TaskScope(), operation: operation, isolation: isolation)
}

/// The synchronous form of `withTaskScope`.
public func withTaskScope<R>(_ operation: () throws -> R) rethrows -> R {
    try TaskScope.$current.withValue(TaskScope(), operation: operation)
}
