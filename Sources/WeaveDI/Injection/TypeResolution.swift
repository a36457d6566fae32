/// Resolution by value type alone, for `@Injected var x: T` and `T?`:
/// an override of that type, then the live container, then a key default of
/// that type already evaluated.
enum TypeResolution {
    static func resolve<T>(_ type: T.Type) -> T? {
        if let overridden = InjectedValues.task.overriddenValue(ofType: type) {
            return overridden
        }
        if let value = try? LiveContainer.resolve(type) {
            return value
        }
        return DefaultValues.value(ofType: type)
    }

    /// `T` itself, or for `Optional<W>` the resolution of `W`: an optional
    /// property asks for the service, never for an `Optional` registration.
    static func resolveUnwrappingOptional<T>(_ type: T.Type) -> T? {
        if let optional = type as? any OptionalResolvable.Type {
            return (optional.resolveWrapped() as! T)
        }
        return resolve(type)
    }
}

protocol OptionalResolvable {
    static func resolveWrapped() -> Self
}

extension Optional: OptionalResolvable {
    static func resolveWrapped() -> Self {
        TypeResolution.resolve(Wrapped.self)
    }
}
