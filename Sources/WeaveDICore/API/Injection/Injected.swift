/// Reads a dependency on every access.
///
/// Four forms (five with the swift-dependencies bridge):
///
/// ```swift
/// final class ProfileModel {
///     @Injected(\.userService) var userService        // a key path into InjectedValues
///     @Injected(UserServiceKey.self) var byKey        // an InjectedKey type
///     @Injected var database: any Database            // by type; stops when missing
///     @Injected var analytics: (any Analytics)?       // by type; nil when missing
/// }
/// ```
///
/// - The key-path and key forms read ``InjectedValues``: a
///   `withInjectedValues` override, then a registration of the key's value
///   type, then the key's default. They never fail.
/// - `@Injected var x: T` reads an override of type `T`, then a
///   registration of `T` in the live container, then the default of the
///   ``InjectedKey`` whose `Value` is `T`, whether or not anything read
///   that key before (when several keys have that `Value`, none is picked
///   and the message names them; a generic key is found only once read).
///   When none has it,
///   or its registration is part of a cycle or is a `.task` registration
///   read outside `withTaskScope`, the program stops with a message saying
///   so; `validate()` cannot report this route.
/// - `@Injected var x: T?` resolves `T` the same way and is nil instead of
///   stopping (a cycle is logged).
///
/// The property stores one pointer to the key's shared slot: no allocation
/// per property or per object, and nothing it holds keeps an instance alive.
/// For a task outside every `withInjectedValues` scope and container
/// overlay, once a key has been read and until the next registration or
/// release anywhere, a read is a cached load: no task-local read, no table
/// lookup, no cast. Values of ``ProvideScope/transient``,
/// ``ProvideScope/weak``, ``ProvideScope/task`` and ``ProvideScope/graph``
/// registrations are never cached. Reads are thread-safe.
@propertyWrapper
public struct Injected<Value: Sendable>: @unchecked Sendable {
    @usableFromInline package let slot: Unmanaged<InjectionSlot<Value>>

    /// A property read through `slot`: the entry point for compatibility
    /// initialisers in another module (a struct's stored property can only be
    /// set by its own module's initialisers).
    package init(slot: Unmanaged<InjectionSlot<Value>>) {
        self.slot = slot
    }

    /// Reads the ``InjectedValues`` property `keyPath` names.
    ///
    /// ```swift
    /// @Injected(\.userService) var userService
    /// ```
    ///
    /// The key path need not be `Sendable`: in a module whose declarations
    /// are main-actor isolated by default, a key path to its own
    /// `InjectedValues` property is not.
    ///
    /// - Parameter keyPath: A property of ``InjectedValues``.
    @inlinable
    public init(_ keyPath: KeyPath<InjectedValues, Value>) {
        self.slot = InjectionSlots.slot(forKeyPath: keyPath)
    }

    /// Reads the ``InjectedKey`` `key` directly, without an
    /// ``InjectedValues`` property for it.
    ///
    /// ```swift
    /// @Injected(UserServiceKey.self) var userService
    /// ```
    ///
    /// - Parameter key: The key type.
    @inlinable
    public init<K: InjectedKey>(_ key: K.Type) where K.Value == Value {
        self.slot = InjectionSlots.slot(forKey: K.self)
    }

    /// Reads by the property's type: `@Injected var service: Service` and
    /// `@Injected var service: Service?`. Swift picks this initializer for
    /// both, so optionality is handled where the type is resolved: an
    /// `Optional<W>` property resolves `W`, never an `Optional`
    /// registration.
    ///
    /// ```swift
    /// @Injected var database: any Database
    /// @Injected var analytics: (any Analytics)?
    /// ```
    @inlinable
    public init() {
        self.slot = InjectionSlots.slot(forType: Value.self)
    }

    /// Reads the registration of the property's type under `name`
    /// (see `DIContainer.register(_:name:scope:factory:)`):
    /// `@Injected(name: "replica") var db: Database` stops with a message
    /// naming the registered names when there is none; `Database?` is nil.
    ///
    /// ```swift
    /// @Injected(name: "replica") var replica: any Database
    /// ```
    ///
    /// - Parameter name: The registration's name.
    public init(name: String) {
        self.slot = InjectionSlots.slot(forType: Value.self, named: name)
    }

    /// The dependency, read now (from the cache when it may be).
    public var wrappedValue: Value {
        @inlinable get { slot._withUnsafeGuaranteedRef { $0.value() } }
    }
}

extension Optional {
    /// The guide's `try userService.getValue()` on an optional injected
    /// property: the value, or an error naming the type.
    ///
    /// ```swift
    /// @Injected var userService: UserService?
    ///
    /// func load() throws {
    ///     let service = try userService.getValue()
    ///     service.refresh()
    /// }
    /// ```
    ///
    /// - Returns: The wrapped value.
    /// - Throws: ``DIError/dependencyNotFound(type:)`` naming `Wrapped` when
    ///   the optional is nil.
    public func getValue() throws(DIError) -> Wrapped {
        guard let self else {
            throw DIError.dependencyNotFound(type: typeName(Wrapped.self))
        }
        return self
    }
}
