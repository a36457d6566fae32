import Synchronization
import WeaveDI

/// Many distinct types from one recursive generic: Nest<T>, Nest<Nest<T>>, ...
public struct Nest<T>: Sendable {
    public let id: Int
    public init(id: Int) { self.id = id }
}

/// Type-erased operations on one generated type.
public protocol NestKey: Sendable {
    func register(id: Int)
    func registerLazy()
    func release()
    func resolve() -> Int?
    func resolve(in container: DIContainer) -> Int?
    /// Calls `action` with this key's type (lets peers register the same types).
    func apply<A: NestAction>(_ action: A)
}

/// Something to do with one generated type.
public protocol NestAction {
    func callAsFunction<T>(_ type: Nest<T>.Type)
}

struct NestKeyOf<T>: NestKey {
    func register(id: Int) { UnifiedDI.register(Nest<T>.self) { Nest<T>(id: id) } }
    func registerLazy() { UnifiedDI.register(Nest<T>.self, scope: .singleton) { Nest<T>(id: 1) } }
    func release() { UnifiedDI.release(Nest<T>.self) }
    func resolve() -> Int? { UnifiedDI.resolve(Nest<T>.self)?.id }
    func resolve(in container: DIContainer) -> Int? { container.resolve(Nest<T>.self)?.id }
    func apply<A: NestAction>(_ action: A) { action(Nest<T>.self) }
}

/// Up to `depth` more keys, starting at `T`; returns the next type to start
/// from. Bounded recursion: 100,000 nested generic frames at once would
/// overflow the stack, so `makeNestKeys` trampolines in chunks.
private func appendNestKeys<T>(_ type: T.Type, depth: Int, into keys: inout [any NestKey]) -> Any.Type {
    guard depth > 0 else { return T.self }
    keys.append(NestKeyOf<T>())
    return appendNestKeys(Nest<T>.self, depth: depth - 1, into: &keys)
}

private func continueNest<T>(_ type: T.Type, depth: Int, into keys: inout [any NestKey]) -> Any.Type {
    appendNestKeys(type, depth: depth, into: &keys)
}

/// `count` distinct types (Nest<Marker>, Nest<Nest<Marker>>, ...).
/// The keys are cached: the same index is always the same type.
public func makeNestKeys(count: Int, chain: Int = 0) -> [any NestKey] {
    nestCaches.withLock { caches in
        while caches[chain].keys.count < count {
            let chunk = min(2_000, count - caches[chain].keys.count)
            caches[chain].next = continueNest(caches[chain].next, depth: chunk, into: &caches[chain].keys)
        }
        return Array(caches[chain].keys.prefix(count))
    }
}

public enum NestMarker {}
public enum FreshNestMarker {}
public enum StartupNestMarker {}

private struct NestCache: @unchecked Sendable {
    var keys: [any NestKey] = []
    var next: Any.Type
}

private let nestCaches = Mutex([
    NestCache(next: Nest<NestMarker>.self),
    NestCache(next: Nest<FreshNestMarker>.self),
    NestCache(next: Nest<StartupNestMarker>.self),
])
