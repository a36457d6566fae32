/// Where a lazy singleton or weak instance lives once built. Every field is
/// guarded by `BuildMonitor.shared`; a built singleton is also published as
/// a fixed registry entry, so steady-state reads never come here.
final class InstanceSlot<T>: SlotBase, @unchecked Sendable {
    private let holdsWeakly: Bool
    private var strong: T?
    private weak var weakObject: AnyObject?

    init(weak: Bool) {
        self.holdsWeakly = weak
        super.init(type: T.self)
    }

    private var current: T? {
        if holdsWeakly {
            return weakObject.flatMap { $0 as? T }
        }
        return strong
    }

    /// Returns the shared instance, building it exactly once even when many
    /// threads ask at the same moment. The factory runs with no lock held.
    func getOrBuild(_ build: () throws(DIError) -> T) throws(DIError) -> T {
        let monitor = BuildMonitor.shared
        let context = ResolutionContext.current
        let me = context.identity
        monitor.lock()
        while true {
            if let value = current {
                monitor.unlock()
                return value
            }
            guard let owner = builder, owner != me else { break }
            if let chain = monitor.deadlockChain(waiter: me, on: self, waiterStack: context.types) {
                monitor.unlock()
                if context.cycle == nil { context.cycle = chain }
                throw .circularDependency(chain: chain)
            }
            monitor.wait(for: self, as: me)
        }
        let reentered = builder == me
        builder = me
        monitor.unlock()

        let result: Result<T, DIError>
        do throws(DIError) {
            result = .success(try build())
        } catch {
            result = .failure(error)
        }

        monitor.lock()
        if !reentered {
            builder = nil
            if case .success(let value) = result {
                if holdsWeakly {
                    weakObject = value as AnyObject
                } else {
                    strong = value
                }
            }
        }
        monitor.broadcast()
        monitor.unlock()
        return try result.get()
    }
}
