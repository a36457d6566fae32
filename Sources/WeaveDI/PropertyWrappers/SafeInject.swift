/// Never crashes, in the two shapes code in the wild uses:
///
///     @SafeInject var api: APIClient?                      // the guides
///     let client = try $api.getValue()                     // or: try api.getValue()
///
///     @SafeInject var api: SafeInjectResult<APIClient>     // upstream 3.1
///     let client = try api.get()                           // throws SafeInjectError
///
/// Resolves on every access (upstream cached the first success in a
/// `mutating get`; resolving each time keeps the wrapper usable in
/// non-mutating contexts and lets it see re-registrations).
@available(*, deprecated, message: "Use @Injected(\\.key) or UnifiedDI.resolveThrowing")
@propertyWrapper
public struct SafeInject<Value: SafeInjectable>: @unchecked Sendable where Value.Dependency: Sendable {
    /// Type-erased, as in `Inject`.
    @usableFromInline let keyPath: AnyKeyPath?

    public init() {
        self.keyPath = nil
    }

    public init(_ type: Value.Dependency.Type) {
        self.keyPath = nil
    }

    public init(_ keyPath: KeyPath<DIContainer, Value.Dependency?> & Sendable) {
        self.keyPath = keyPath
    }

    @inlinable
    public var wrappedValue: Value {
        Value(resolving: { () throws(DIError) in try getValue() })
    }

    public var projectedValue: SafeInject<Value> { self }

    /// The dependency, or `DIError.dependencyNotFound` naming its type.
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
/// `SafeInjectResult<Dependency>`.
public protocol SafeInjectable {
    associatedtype Dependency
    init(resolving: () throws(DIError) -> Dependency)
}

extension Optional: SafeInjectable {
    public typealias Dependency = Wrapped

    @inlinable
    public init(resolving: () throws(DIError) -> Wrapped) {
        self = try? resolving()
    }
}

/// What `@SafeInject var x: SafeInjectResult<T>` holds: the dependency or
/// why it is missing.
public enum SafeInjectResult<T>: SafeInjectable {
    case success(T)
    case failure(SafeInjectError)

    public init(resolving: () throws(DIError) -> T) {
        do {
            self = .success(try resolving())
        } catch {
            self = .failure(SafeInjectError(error))
        }
    }

    public func get() throws(SafeInjectError) -> T {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }

    /// Nil on failure.
    public var value: T? {
        if case .success(let value) = self { return value }
        return nil
    }

    public func onSuccess(_ action: (T) throws -> Void) rethrows {
        if case .success(let value) = self { try action(value) }
    }

    public func onFailure(_ action: (SafeInjectError) throws -> Void) rethrows {
        if case .failure(let error) = self { try action(error) }
    }

    public func map<U>(_ transform: (T) throws -> U) rethrows -> SafeInjectResult<U> {
        switch self {
        case .success(let value): return .success(try transform(value))
        case .failure(let error): return .failure(error)
        }
    }
}

public enum SafeInjectError: Error, Sendable, Equatable, CustomStringConvertible {
    case dependencyNotFound(type: String)
    /// Building the dependency met a cycle (upstream's catch-all `unknown`
    /// carried any other error; here the only other failure is this one).
    case circularDependency(chain: String)
    case unknown(String)

    init(_ error: DIError) {
        switch error {
        case .dependencyNotFound(let type): self = .dependencyNotFound(type: type)
        case .circularDependency(let chain): self = .circularDependency(chain: chain)
        default: self = .unknown(error.description)
        }
    }

    public var description: String {
        switch self {
        case .dependencyNotFound(let type): return DIError.dependencyNotFound(type: type).description
        case .circularDependency(let chain): return DIError.circularDependency(chain: chain).description
        case .unknown(let message): return message
        }
    }
}

extension Optional {
    /// The guide's `try userService.getValue()` on an optional injected
    /// property: the value, or `DIError.dependencyNotFound` naming the type.
    public func getValue() throws(DIError) -> Wrapped {
        guard let self else {
            throw DIError.dependencyNotFound(type: typeName(Wrapped.self))
        }
        return self
    }
}

extension SafeInjectResult: Sendable where T: Sendable {}
