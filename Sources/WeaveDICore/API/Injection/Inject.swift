/// Resolves from the live container on every access; nil when missing.
///
/// Deprecated: use ``Injected`` instead, `@Injected(\.key)` for a key with
/// defaults or `@Injected var value: T?` for a registered type; both are
/// cached where `@Inject` resolves every time.
///
/// ```swift
/// @Inject var userService: UserService?                 // by type
/// @Inject(UserService.self) var named: UserService?     // the same, type spelled out
/// @Inject(\.userService) var viaProperty: UserService?  // a container property
/// ```
///
/// `@Inject(\.userService)` reads a computed property of the container (see
/// the key-path `UnifiedDI.register` overloads), so whatever that property
/// does is what the wrapper returns. A miss, a dependency cycle and a `.task`
/// registration outside `withTaskScope` all read as nil.
@available(*, deprecated, message: "Use @Injected(\\.key) or @Injected var value: T?")
@propertyWrapper
public struct Inject<T: Sendable>: @unchecked Sendable {
    /// A `KeyPath<DIContainer, T?>`, stored type-erased: a property of the
    /// generic existential type would make every access build its metadata.
    /// Key paths are immutable, hence the unchecked `Sendable`.
    @usableFromInline let keyPath: AnyKeyPath?

    /// Resolves the property's wrapped type `T`.
    ///
    /// ```swift
    /// @Inject var userService: UserService?
    /// ```
    public init() {
        self.keyPath = nil
    }

    /// Resolves `type`, which must be the property's wrapped type.
    ///
    /// ```swift
    /// @Inject(UserService.self) var userService: UserService?
    /// ```
    ///
    /// - Parameter type: The registered type.
    public init(_ type: T.Type) {
        self.keyPath = nil
    }

    /// Reads the container property `keyPath` names, on the live container.
    ///
    /// ```swift
    /// extension WeaveDI.Container {
    ///     var userService: UserService? { resolve(UserService.self) }
    /// }
    ///
    /// @Inject(\.userService) var userService: UserService?
    /// ```
    ///
    /// - Parameter keyPath: A container property of type `T?`.
    public init(_ keyPath: KeyPath<DIContainer, T?>) {
        self.keyPath = keyPath
    }

    /// The dependency, resolved now, or nil.
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
