/// What `$property` of a `@LazyInjected` or `@WeakLazyInjected` property says.
public struct LazyInjectionState: Sendable, Equatable {
    /// True once the property's first access has read its dependency.
    public let isResolved: Bool
}
