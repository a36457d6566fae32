/// Resolves from the live container without ever crashing, in the two
/// shapes code in the wild uses.
///
/// Deprecated: use ``Injected`` (`@Injected(\.key)`, or
/// `@Injected var value: T?`) or `UnifiedDI.resolveThrowing(_:)` when the
/// reason for a miss matters.
///
/// ```swift
/// @SafeInject var api: APIClient?                      // the guides
/// let client = try $api.getValue()                     // or: try api.getValue()
///
/// @SafeInject var result: SafeInjectResult<APIClient>  // upstream 3.1
/// let other = try result.get()                         // throws SafeInjectError
/// ```
///
/// Resolves on every access (upstream cached the first success in a
/// `mutating get`; resolving each time keeps the wrapper usable in
/// non-mutating contexts and lets it see re-registrations).
@available(*, deprecated, message: "Use @Injected(\\.key) or UnifiedDI.resolveThrowing")
@propertyWrapper
public struct SafeInject<Value: SafeInjectable>: @unchecked Sendable where Value.Dependency: Sendable {
    /// Type-erased, as in `Inject`.
    @usableFromInline let keyPath: AnyKeyPath?

    /// Resolves the dependency type of the property (`T` of `T?` or of
    /// `SafeInjectResult<T>`).
    ///
    /// ```swift
    /// @SafeInject var api: APIClient?
    /// ```
    public init() {
        self.keyPath = nil
    }

    /// Resolves `type`, which must be the property's dependency type.
    ///
    /// ```swift
    /// @SafeInject(APIClient.self) var api: APIClient?
    /// ```
    ///
    /// - Parameter type: The registered type.
    public init(_ type: Value.Dependency.Type) {
        self.keyPath = nil
    }

    /// Reads the container property `keyPath` names, on the live container.
    ///
    /// ```swift
    /// extension WeaveDI.Container {
    ///     var api: APIClient? { resolve(APIClient.self) }
    /// }
    ///
    /// @SafeInject(\.api) var api: APIClient?
    /// ```
    ///
    /// - Parameter keyPath: A container property of the dependency's
    ///   optional type.
    public init(_ keyPath: KeyPath<DIContainer, Value.Dependency?>) {
        self.keyPath = keyPath
    }

    /// The dependency resolved now, as the property's type: nil or
    /// `.failure` when it cannot be had.
    @inlinable
    public var wrappedValue: Value {
        Value(resolving: { () throws(DIError) in try getValue() })
    }

    /// The wrapper itself, for `$api.getValue()`.
    public var projectedValue: SafeInject<Value> { self }

    /// The dependency, resolved now.
    ///
    /// ```swift
    /// let client = try $api.getValue()
    /// ```
    ///
    /// - Returns: The dependency.
    /// - Throws: ``DIError/dependencyNotFound(type:)`` naming its type, or
    ///   another ``DIError`` (a cycle, a `.task` registration outside a
    ///   scope) from `UnifiedDI.resolveThrowing(_:)`.
    @inlinable
    public func getValue() throws(DIError) -> Value.Dependency {
        guard let keyPath else {
            return try UnifiedDI.resolveThrowing(Value.Dependency.self)
        }
        return try Self.read(keyPath)
    }

    @usableFromInline @inline(never)
    static func read(_ keyPath: AnyKeyPath) throws(DIError) -> Value.Dependency {
        let typed = unsafeDowncast(keyPath, to: KeyPath<DIContainer, Value.Dependency?>.self)
        guard let found = DIContainer.live[keyPath: typed] else {
            throw DIError.dependencyNotFound(type: typeName(Value.Dependency.self))
        }
        return found
    }
}

/// The property types `@SafeInject` can fill: `Dependency?` and
/// ``SafeInjectResult``.
///
/// ```swift
/// @SafeInject var api: APIClient?                     // Optional conforms
/// @SafeInject var result: SafeInjectResult<APIClient> // and so does this
/// ```
public protocol SafeInjectable {
    /// The type that is resolved.
    associatedtype Dependency
    /// Builds the property's value from one resolution attempt.
    ///
    /// - Parameter resolving: Resolves the dependency or throws why not.
    init(resolving: () throws(DIError) -> Dependency)
}

extension Optional: SafeInjectable {
    /// The wrapped type is what `@SafeInject` resolves.
    public typealias Dependency = Wrapped

    /// The resolved value, or nil when `resolving` throws.
    ///
    /// - Parameter resolving: Resolves the dependency or throws why not.
    @inlinable
    public init(resolving: () throws(DIError) -> Wrapped) {
        self = try? resolving()
    }
}

/// What `@SafeInject var x: SafeInjectResult<T>` holds: the dependency or
/// why it is missing (upstream 3.1's shape).
///
/// ```swift
/// @SafeInject var api: SafeInjectResult<APIClient>
///
/// api.onSuccess { $0.start() }
/// api.onFailure { print($0.description) }
/// let client = try api.get()
/// ```
///
/// New code uses ``Injected`` or `UnifiedDI.resolveThrowing(_:)`.
public enum SafeInjectResult<T>: SafeInjectable {
    /// The dependency was resolved.
    case success(T)
    /// It could not be: why.
    case failure(SafeInjectError)

    /// `.success` with the resolved value, or `.failure` with the error
    /// `resolving` threw.
    ///
    /// - Parameter resolving: Resolves the dependency or throws why not.
    public init(resolving: () throws(DIError) -> T) {
        do {
            self = .success(try resolving())
        } catch {
            self = .failure(SafeInjectError(error))
        }
    }

    /// The dependency.
    ///
    /// - Returns: The value of `.success`.
    /// - Throws: The ``SafeInjectError`` of `.failure`.
    public func get() throws(SafeInjectError) -> T {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }

    /// The dependency, or nil on failure.
    public var value: T? {
        if case .success(let value) = self { return value }
        return nil
    }

    /// Runs `action` with the dependency when there is one.
    ///
    /// - Parameter action: What to do with it.
    /// - Throws: What `action` throws.
    public func onSuccess(_ action: (T) throws -> Void) rethrows {
        if case .success(let value) = self { try action(value) }
    }

    /// Runs `action` with the error when there is no dependency.
    ///
    /// - Parameter action: What to do with the error.
    /// - Throws: What `action` throws.
    public func onFailure(_ action: (SafeInjectError) throws -> Void) rethrows {
        if case .failure(let error) = self { try action(error) }
    }

    /// The dependency transformed, or the same failure.
    ///
    /// ```swift
    /// let name = api.map { $0.baseURL.host ?? "" }.value
    /// ```
    ///
    /// - Parameter transform: Applied to the value of `.success`.
    /// - Returns: `.success` of the transformed value, or the failure.
    /// - Throws: What `transform` throws.
    public func map<U>(_ transform: (T) throws -> U) rethrows -> SafeInjectResult<U> {
        switch self {
        case .success(let value): return .success(try transform(value))
        case .failure(let error): return .failure(error)
        }
    }
}

/// Why `@SafeInject` found no dependency: upstream 3.1's error type, made
/// from a ``DIError``.
///
/// ```swift
/// do {
///     let client = try api.get()
/// } catch .dependencyNotFound(let type) {
///     print("register \(type) first")
/// } catch {
///     print(error.description)
/// }
/// ```
public enum SafeInjectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing is registered for the type named.
    case dependencyNotFound(type: String)
    /// Building the dependency met a cycle; `chain` lists the types, as
    /// ``DIError/circularDependency(chain:)`` does.
    case circularDependency(chain: String)
    /// Any other failure (a `.task` registration resolved outside
    /// `withTaskScope`), with its message.
    case unknown(String)

    init(_ error: DIError) {
        switch error {
        case .dependencyNotFound(let type): self = .dependencyNotFound(type: type)
        case .circularDependency(let chain): self = .circularDependency(chain: chain)
        default: self = .unknown(error.description)
        }
    }

    /// The message, worded as ``DIError``'s.
    public var description: String {
        switch self {
        case .dependencyNotFound(let type): return DIError.dependencyNotFound(type: type).description
        case .circularDependency(let chain): return DIError.circularDependency(chain: chain).description
        case .unknown(let message): return message
        }
    }
}

extension SafeInjectResult: Sendable where T: Sendable {}
