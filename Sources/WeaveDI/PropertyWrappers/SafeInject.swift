/// Like `@Inject`, and `try $value.getValue()` throws
/// `DIError.dependencyNotFound` naming the type instead of giving nil.
@available(*, deprecated, message: "Use @Injected(\\.key) or UnifiedDI.resolveThrowing")
@propertyWrapper
public struct SafeInject<T: Sendable>: Sendable {
    public init() {}

    public init(_ type: T.Type) {}

    public var wrappedValue: T? {
        UnifiedDI.resolve(T.self)
    }

    public var projectedValue: SafeInject<T> { self }

    public func getValue() throws(DIError) -> T {
        try UnifiedDI.resolveThrowing(T.self)
    }
}
