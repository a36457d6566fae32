/// Resolves from the live container on every access; nil when missing.
/// `@Inject(\.userService)` reads a container property instead (see
/// `UnifiedDI.register(_:factory:)` with a key path).
@available(*, deprecated, message: "Use @Injected(\\.key) or @Injected var value: T?")
@propertyWrapper
public struct Inject<T: Sendable>: Sendable {
    private let keyPath: (KeyPath<DIContainer, T?> & Sendable)?

    public init() {
        self.keyPath = nil
    }

    public init(_ type: T.Type) {
        self.keyPath = nil
    }

    public init(_ keyPath: KeyPath<DIContainer, T?> & Sendable) {
        self.keyPath = keyPath
    }

    public var wrappedValue: T? {
        if let keyPath {
            return DIContainer.live[keyPath: keyPath]
        }
        return UnifiedDI.resolve(T.self)
    }
}
