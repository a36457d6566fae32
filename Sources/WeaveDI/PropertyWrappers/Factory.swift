/// A new instance on every access: from the factory registered for `T`
/// (every registration keeps its factory, eager ones too), or from the
/// closure given as `@Factory(factory: { ... })`.
@propertyWrapper
public struct Factory<T: Sendable>: Sendable {
    private let factory: (@Sendable () -> T)?

    public init() {
        self.factory = nil
    }

    /// Upstream's `@Factory(\.service)`: the key path names the type whose
    /// registered factory runs on each access.
    public init(_ keyPath: KeyPath<DIContainer, T?> & Sendable) {
        self.factory = nil
    }

    public init(factory: @escaping @Sendable () -> T) {
        self.factory = factory
    }

    public var wrappedValue: T {
        if let factory {
            return factory()
        }
        do {
            guard let entry = Resolver.entry(T.self, in: nil) else {
                throw DIError.dependencyNotFound(type: typeName(T.self))
            }
            return try entry.fresh(T.self)
        } catch {
            fatalError("@Factory var: \(typeName(T.self)): \(error)")
        }
    }
}
