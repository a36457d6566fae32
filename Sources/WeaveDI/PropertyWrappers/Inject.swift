/// Resolves from the live container on every access; nil when missing.
/// `@Inject(\.userService)` reads a container property instead (see
/// `UnifiedDI.register(_:factory:)` with a key path).
@available(*, deprecated, message: "Use @Injected(\\.key) or @Injected var value: T?")
@propertyWrapper
public struct Inject<T: Sendable>: @unchecked Sendable {
    /// A `KeyPath<DIContainer, T?>`, stored type-erased: a property of the
    /// generic existential type would make every access build its metadata.
    /// Key paths are immutable, hence the unchecked `Sendable`.
    @usableFromInline let keyPath: AnyKeyPath?

    public init() {
        self.keyPath = nil
    }

    public init(_ type: T.Type) {
        self.keyPath = nil
    }

    public init(_ keyPath: KeyPath<DIContainer, T?> & Sendable) {
        self.keyPath = keyPath
    }

    @inlinable
    public var wrappedValue: T? {
        if let keyPath {
            return Self.read(keyPath)
        }
        return UnifiedDI.resolve(T.self)
    }

    /// Apart, so that the common path never touches the key path's metadata.
    @usableFromInline @inline(never)
    static func read(_ keyPath: AnyKeyPath) -> T? {
        DIContainer.live[keyPath: unsafeDowncast(keyPath, to: KeyPath<DIContainer, T?>.self)]
    }
}
