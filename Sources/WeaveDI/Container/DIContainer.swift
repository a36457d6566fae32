import CWeaveRegistry
import Synchronization

/// A set of registrations. `WeaveDI.Container.live` is the one that
/// `UnifiedDI`, `@Inject` and `@Injected` read; a child container resolves
/// its own entries first, then its parent's.
public final class DIContainer: @unchecked Sendable {
    @usableFromInline let registry: Registry
    public let parent: DIContainer?

    public init() {
        self.parent = nil
        self.registry = Registry(parent: nil)
    }

    public init(parent: DIContainer) {
        self.parent = parent
        self.registry = Registry(parent: parent.registry)
    }

    public func createChild() -> DIContainer {
        DIContainer(parent: self)
    }

    /// Runs the factory now and keeps its result as the instance for `type`;
    /// the factory is kept too, for `@Factory`. Replaces any earlier entry.
    @discardableResult
    public func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
        let instance = factory()
        registry.set(FixedEntry<T>(instance, factory: factory), forKey: typeKey(type))
        DILog.registered(type, scope: nil)
        return instance
    }

    public func register<T: Sendable>(_ type: T.Type, instance: T) {
        registry.set(FixedEntry<T>(instance, factory: nil), forKey: typeKey(type))
        DILog.registered(type, scope: nil)
    }

    /// Lazy registration: the factory runs on first resolve (`.singleton`,
    /// `.weak`, `.task`) or on every resolve (`.transient`).
    public func register<T: Sendable>(
        _ type: T.Type,
        scope: ProvideScope,
        factory: @escaping @Sendable () -> T
    ) {
        registry.set(LazyEntry<T>(scope: scope, factory: factory), forKey: typeKey(type))
        DILog.registered(type, scope: scope)
    }

    /// Nil when `type` is not registered here or in a parent, or when
    /// building it met a dependency cycle.
    @inlinable
    public func resolve<T: Sendable>(_ type: T.Type) -> T? {
        do {
            if let resolution = try Resolver.resolve(type, in: registry) {
                return resolution.value
            }
        } catch {
            return nil
        }
        ValidationRun.noteMissing(type)
        return nil
    }

    public func resolveThrowing<T: Sendable>(_ type: T.Type) throws(DIError) -> T {
        do throws(DIError) {
            guard let resolution = try Resolver.resolve(type, in: registry) else {
                throw DIError.missing(type)
            }
            return resolution.value
        } catch {
            DILog.failure(error)
            throw error
        }
    }

    public func release<T>(_ type: T.Type) {
        registry.remove(typeKey(type))
    }

    public func releaseAll() {
        registry.removeAll()
    }

    /// Drops this container's registrations and takes `other`'s own
    /// (sharing their entries, so a singleton built in one is the other's).
    func replaceContents(with other: DIContainer) {
        guard other !== self else { return }
        registry.removeAll()
        for (key, entry) in other.registry.keyedEntries {
            registry.set(entry, forKey: key)
        }
    }

    /// Whether `type` has a registration here or in a parent.
    public func isRegistered<T>(_ type: T.Type) -> Bool {
        Resolver.entry(type, in: registry) != nil
    }

    /// The number of types registered in this container (not its parents).
    public var registrationCount: Int { registry.count }
}
