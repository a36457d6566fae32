/// A dependency with built-in defaults, read through ``InjectedValues``.
///
/// Declare a key, then a computed property on ``InjectedValues`` that reads
/// it; ``Injected`` reads the property:
///
/// ```swift
/// struct UserServiceKey: InjectedKey {
///     static var liveValue: any UserService { UserServiceImpl() }
///     static var testValue: any UserService { MockUserService() }
/// }
///
/// extension InjectedValues {
///     var userService: any UserService {
///         get { self[UserServiceKey.self] }
///         set { self[UserServiceKey.self] = newValue }
///     }
/// }
///
/// final class ProfileModel {
///     @Injected(\.userService) var userService
/// }
/// ```
///
/// A registration of `Value` in the live container wins over the defaults,
/// and a `withInjectedValues` override wins over both. The default for the
/// current ``InjectionContext`` is evaluated once and then shared: a
/// computed `liveValue` does not hand out a new instance per read. A default
/// must not read a key whose default reads it back; that stops the program
/// naming the keys.
public protocol InjectedKey: SendableMetatype {
    /// The type of the dependency the key provides.
    associatedtype Value: Sendable
    /// The default in a running app (the ``InjectionContext/live`` context).
    static var liveValue: Value { get }
    /// The default under `swift test` (or when the context is forced to
    /// ``InjectionContext/test``). ``liveValue`` unless the key declares one.
    static var testValue: Value { get }
    /// The default in Xcode previews (or when the context is forced to
    /// ``InjectionContext/preview``). ``liveValue`` unless the key declares one.
    static var previewValue: Value { get }
}

extension InjectedKey {
    /// ``liveValue``: tests use the live default unless the key declares
    /// its own.
    public static var testValue: Value { liveValue }
    /// ``liveValue``: previews use the live default unless the key declares
    /// its own.
    public static var previewValue: Value { liveValue }
}
