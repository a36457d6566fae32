/// A dependency with built-in defaults, read through `InjectedValues`.
public protocol InjectedKey: SendableMetatype {
    associatedtype Value: Sendable
    static var liveValue: Value { get }
    /// Used under `swift test` (or when the context is forced to `.test`).
    static var testValue: Value { get }
    /// Used in Xcode previews (or when the context is forced to `.preview`).
    static var previewValue: Value { get }
}

extension InjectedKey {
    public static var testValue: Value { liveValue }
    public static var previewValue: Value { liveValue }
}
