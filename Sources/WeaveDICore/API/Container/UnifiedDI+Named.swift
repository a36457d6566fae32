/// Named registrations in the live container (or the task's overlay): as
/// ``DIContainer``'s named members, through ``DIContainer/live``.
///
/// ```swift
/// UnifiedDI.register(Database.self, name: "primary", scope: .singleton) { PrimaryDatabase() }
/// UnifiedDI.register(Database.self, name: "replica", scope: .singleton) { ReplicaDatabase() }
/// let replica = UnifiedDI.resolve(Database.self, name: "replica")
/// ```
extension UnifiedDI {
    /// Eager named registration; see ``DIContainer/register(_:name:factory:)``.
    ///
    /// ```swift
    /// UnifiedDI.register(HTTPClient.self, name: "payments") { HTTPClient(host: paymentsHost) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - name: The registration's name.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult
    public static func register<T: Sendable>(_ type: T.Type, name: String, factory: @escaping @Sendable () -> T) -> T {
        DIContainer.live.register(type, name: name, factory: factory)
    }

    /// Lazy named registration with a lifetime; see
    /// `DIContainer.register(_:name:scope:factory:)`.
    ///
    /// ```swift
    /// UnifiedDI.register(Database.self, name: "replica", scope: .singleton) { ReplicaDatabase() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - name: The registration's name.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed.
    public static func register<T: Sendable>(
        _ type: T.Type, name: String, scope: ProvideScope, factory: @escaping @Sendable () -> T
    ) {
        DIContainer.live.register(type, name: name, scope: scope, factory: factory)
    }

    /// Lazy named registration of a factory that can fail; see
    /// `DIContainer.register(_:name:scope:factory:)`.
    ///
    /// ```swift
    /// UnifiedDI.register(Credentials.self, name: "billing", scope: .singleton) {
    ///     try Credentials(contentsOf: billingCredentials)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - name: The registration's name.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed, or throws.
    public static func register<T: Sendable>(
        _ type: T.Type, name: String, scope: ProvideScope, factory: @escaping @Sendable () throws -> T
    ) {
        DIContainer.live.register(type, name: name, scope: scope, factory: factory)
    }

    /// Lazy named registration of an async factory that can fail; see
    /// `DIContainer.register(_:name:scope:factory:)`.
    ///
    /// ```swift
    /// UnifiedDI.register(ConnectionPool.self, name: "replica", scope: .singleton) {
    ///     try await ConnectionPool.connect(to: replicaURL)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - name: The registration's name.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed, or throws.
    public static func register<T: Sendable>(
        _ type: T.Type, name: String, scope: ProvideScope, factory: @escaping @Sendable () async throws -> T
    ) {
        DIContainer.live.register(type, name: name, scope: scope, factory: factory)
    }

    /// The instance registered for `type` under `name`, building an async
    /// registration on first use; see ``DIContainer/resolveAsyncThrowing(_:name:)``.
    ///
    /// ```swift
    /// let replica = try await UnifiedDI.resolveAsyncThrowing(ConnectionPool.self, name: "replica")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - name: The registration's name.
    /// - Returns: The instance.
    /// - Throws: A ``DIError``, or `CancellationError`.
    public static func resolveAsyncThrowing<T: Sendable>(_ type: T.Type, name: String) async throws -> T {
        try await DIContainer.live.resolveAsyncThrowing(type, name: name)
    }

    /// The instance registered for `type` under `name`, or nil (a failure
    /// other than a miss is logged). One lock-free walk of the names of
    /// `type`'s bucket, then the read an unnamed resolve makes: outside every
    /// overlay and override scope, the cached value of the name's slot.
    ///
    /// ```swift
    /// guard let replica = UnifiedDI.resolve(Database.self, name: "replica") else { return }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - name: The registration's name.
    /// - Returns: The instance, or nil.
    @inlinable
    public static func resolve<T: Sendable>(_ type: T.Type, name: String) -> T? {
        guard let key = RegistrationName.existingKey(T.self, name) else { return nil }
        do throws(DIError) {
            return try Resolver.resolveLive(T.self, named: key)
        } catch {
            DILog.failure(error)
            return nil
        }
    }

    /// The instance registered for `type` under `name`, or the reason there
    /// is none; a miss names the names `type` is registered under.
    ///
    /// ```swift
    /// let replica = try UnifiedDI.resolveThrowing(Database.self, name: "replica")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - name: The registration's name.
    /// - Returns: The instance.
    /// - Throws: A ``DIError``.
    public static func resolveThrowing<T: Sendable>(_ type: T.Type, name: String) throws(DIError) -> T {
        try DIContainer.live.resolveThrowing(type, name: name)
    }

    /// Removes the live container's registration of `type` under `name`.
    ///
    /// ```swift
    /// UnifiedDI.release(Database.self, name: "replica")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - name: The registration's name.
    public static func release<T>(_ type: T.Type, name: String) {
        DIContainer.live.release(type, name: name)
    }

    /// The names `type` is registered under in the live container, sorted.
    ///
    /// ```swift
    /// UnifiedDI.registeredNames(of: Database.self)  // ["primary", "replica"]
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The names, sorted.
    public static func registeredNames<T>(of type: T.Type) -> [String] {
        DIContainer.live.registeredNames(of: type)
    }
}
