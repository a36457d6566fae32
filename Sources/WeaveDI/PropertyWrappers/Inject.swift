/// Resolves from the live container on every access; nil when missing.
@available(*, deprecated, message: "Use @Injected(\\.key) or @Injected var value: T?")
@propertyWrapper
public struct Inject<T: Sendable>: Sendable {
    public init() {}

    public init(_ type: T.Type) {}

    public var wrappedValue: T? {
        UnifiedDI.resolve(T.self)
    }
}
