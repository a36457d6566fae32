/// A registration that lasts as long as its token (upstream 3.3's
/// `registerWithToken`): ``cancel()`` or the token's release removes it.
///
/// The token holds the registration's own entry, not a copy of it, so
/// cancelling removes exactly that registration: a later registration of
/// the same type stays. ``isValid`` asks the registry, so a `release`,
/// `releaseAll` or re-registration made elsewhere shows there too.
///
/// ```swift
/// final class Feature {
///     private let token = UnifiedDI.registerWithToken(Analytics.self) { ConsoleAnalytics() }
/// }
/// ```
public final class RegistrationToken: Sendable {
    /// The registered type's name.
    public let registeredTypeName: String
    private let registry: Registry
    private let key: TypeKey
    private let entry: AnyRegistryEntry

    init<T: Sendable>(registering type: T.Type, in container: DIContainer, factory: @escaping @Sendable () -> T) {
        let entry = LazyEntry(scope: .transient, factory: factory)
        registeredTypeName = typeName(type)
        registry = container.registry
        key = typeKey(type)
        self.entry = entry
        container.storeRegistration(entry, key: key, scope: .transient)
    }

    /// Whether the registration this token made is still in its container:
    /// false after ``cancel()``, a `release` of the type, `releaseAll`, or
    /// another registration of the type there.
    public var isValid: Bool {
        registry.holds(entry, forKey: key)
    }

    /// Removes the registration this token made, if it is still there.
    /// Calling it again does nothing.
    public func cancel() {
        registry.remove(key, ifStill: entry)
    }

    deinit {
        cancel()
    }
}

extension WeaveDI {
    /// Registers `factory` in the live container (a new instance per
    /// resolve) for as long as the returned token lives (upstream 3.3).
    ///
    /// ```swift
    /// let token = WeaveDI.registerWithToken(Analytics.self) { ConsoleAnalytics() }
    /// token.cancel()
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register.
    ///   - factory: Builds an instance per resolve.
    /// - Returns: The token; releasing it removes the registration.
    public static func registerWithToken<T: Sendable>(
        _ type: T.Type, factory: @escaping @Sendable () -> T
    ) -> RegistrationToken {
        RegistrationToken(registering: type, in: DIContainer.live, factory: factory)
    }
}

extension UnifiedDI {
    /// ``WeaveDI/registerWithToken(_:factory:)`` (upstream 3.4's spelling).
    ///
    /// ```swift
    /// let token = UnifiedDI.registerWithToken(Analytics.self) { ConsoleAnalytics() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register.
    ///   - factory: Builds an instance per resolve.
    /// - Returns: The token; releasing it removes the registration.
    public static func registerWithToken<T: Sendable>(
        _ type: T.Type, factory: @escaping @Sendable () -> T
    ) -> RegistrationToken {
        RegistrationToken(registering: type, in: DIContainer.live, factory: factory)
    }
}
