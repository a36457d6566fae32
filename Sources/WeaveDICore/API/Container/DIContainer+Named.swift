import CWeaveRegistry

/// Named registrations: several registrations of one type, told apart by a
/// name (Swinject's `register(_:name:)`, Factory's several factories of one
/// type). A name is part of the registration's key in the one table, so a
/// named registration is resolved, replaced, released, validated, started
/// and shut down as an unnamed one is, and the unnamed registration of the
/// type is a separate one.
///
/// ```swift
/// container.register(Database.self, name: "primary", scope: .singleton) { PrimaryDatabase() }
/// container.register(Database.self, name: "replica", scope: .singleton) { ReplicaDatabase() }
/// let replica = container.resolve(Database.self, name: "replica")
/// ```
extension DIContainer {
    /// Eager named registration: runs `factory` now and keeps its result as
    /// the instance every resolve of `type` named `name` returns. Replaces
    /// any earlier registration of that type and name here.
    ///
    /// ```swift
    /// container.register(HTTPClient.self, name: "payments") { HTTPClient(host: paymentsHost) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - name: The registration's name; any string, compared exactly.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult
    public func register<T: Sendable>(_ type: T.Type, name: String, factory: @escaping @Sendable () -> T) -> T {
        let instance = factory()
        storeRegistration(PrebuiltEntry(instance, factory: factory), key: RegistrationName.key(T.self, name), scope: nil)
        return instance
    }

    /// Registers an instance built elsewhere under `name`.
    ///
    /// ```swift
    /// container.register(Config.self, name: "staging", instance: Config(environment: .staging))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - name: The registration's name.
    ///   - instance: The value to return.
    public func register<T: Sendable>(_ type: T.Type, name: String, instance: T) {
        storeRegistration(PrebuiltEntry(instance, factory: nil), key: RegistrationName.key(T.self, name), scope: nil)
    }

    /// Lazy named registration with a lifetime, as
    /// `register(_:scope:factory:)` for an unnamed one.
    ///
    /// ```swift
    /// container.register(Database.self, name: "replica", scope: .singleton) { ReplicaDatabase() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - name: The registration's name.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed.
    public func register<T: Sendable>(
        _ type: T.Type, name: String, scope: ProvideScope, factory: @escaping @Sendable () -> T
    ) {
        storeRegistration(LazyEntry(scope: scope, factory: factory), key: RegistrationName.key(T.self, name), scope: scope)
    }

    /// Lazy named registration of a factory that can fail: when it throws,
    /// ``resolveThrowing(_:name:)`` throws
    /// ``DIError/factoryFailed(type:chain:error:)`` and ``resolve(_:name:)``
    /// returns nil (logged).
    ///
    /// ```swift
    /// container.register(Credentials.self, name: "billing", scope: .singleton) {
    ///     try Credentials(contentsOf: billingCredentials)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - name: The registration's name.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed, or throws.
    public func register<T: Sendable>(
        _ type: T.Type, name: String, scope: ProvideScope, factory: @escaping @Sendable () throws -> T
    ) {
        storeRegistration(LazyEntry(scope: scope, factory: factory), key: RegistrationName.key(T.self, name), scope: scope)
    }

    /// Lazy named registration of an async factory that can fail; nothing
    /// runs now. ``resolveAsyncThrowing(_:name:)`` or ``start(timeout:)``
    /// builds it, once however many tasks ask, as for an unnamed one (see
    /// <doc:AsyncServices>).
    ///
    /// ```swift
    /// container.register(ConnectionPool.self, name: "replica", scope: .singleton) {
    ///     try await ConnectionPool.connect(to: replicaURL)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - name: The registration's name.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed, or throws.
    public func register<T: Sendable>(
        _ type: T.Type, name: String, scope: ProvideScope, factory: @escaping @Sendable () async throws -> T
    ) {
        storeRegistration(
            LazyEntry(scope: scope, asyncFactory: factory), key: RegistrationName.key(T.self, name), scope: scope)
    }

    /// The instance registered for `type` under `name`, building an async
    /// registration on first use (once, however many tasks await it).
    ///
    /// ```swift
    /// let replica = try await container.resolveAsyncThrowing(ConnectionPool.self, name: "replica")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - name: The registration's name.
    /// - Returns: The instance.
    /// - Throws: A ``DIError``, or `CancellationError` when this task was
    ///   cancelled while waiting.
    public func resolveAsyncThrowing<T: Sendable>(_ type: T.Type, name: String) async throws -> T {
        guard let key = RegistrationName.existingKey(T.self, name) else {
            throw DIError.missing(T.self, named: name, registered: registeredNames(of: T.self))
        }
        do throws(DIError) {
            var cacheable = false
            if let resolved = try Resolver.resolve(T.self, key: key, in: registry, cacheable: &cacheable) {
                return resolved
            }
            throw DIError.missing(T.self, named: name, registered: registeredNames(of: T.self))
        } catch .asyncRegistration(let typeName) {
            guard let raw = weave_registry_get(registry.handle, key) else {
                throw DIError.asyncRegistration(type: typeName)
            }
            let entry = Unmanaged<AnyRegistryEntry>.fromOpaque(raw).takeRetainedValue()
            guard entry.isAsync else { throw DIError.asyncRegistration(type: typeName) }
            return try await Resolver.buildAsync(entry.lazy, as: T.self)
        }
    }

    /// The instance registered for `type` under `name`, here or in a
    /// parent, or nil. Never crashes: a miss, a cycle and a `.task`
    /// registration outside `withTaskScope` all give nil
    /// (``resolveThrowing(_:name:)`` says which).
    ///
    /// ```swift
    /// let replica = container.resolve(Database.self, name: "replica")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - name: The registration's name.
    /// - Returns: The instance, or nil.
    @inlinable
    public func resolve<T: Sendable>(_ type: T.Type, name: String) -> T? {
        guard let key = RegistrationName.existingKey(T.self, name) else { return nil }
        do throws(DIError) {
            var cacheable = false
            return try Resolver.resolve(T.self, key: key, in: registry, cacheable: &cacheable)
        } catch {
            DILog.failure(error)
            return nil
        }
    }

    /// The instance registered for `type` under `name`, or the reason there
    /// is none. A miss throws ``DIError/dependencyNotFound(type:)`` whose
    /// message names the names `type` is registered under here.
    ///
    /// ```swift
    /// let replica = try container.resolveThrowing(Database.self, name: "replica")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - name: The registration's name.
    /// - Returns: The instance.
    /// - Throws: A ``DIError``: a miss, a cycle, a failed factory, or a
    ///   `.task` registration outside `withTaskScope`.
    public func resolveThrowing<T: Sendable>(_ type: T.Type, name: String) throws(DIError) -> T {
        do throws(DIError) {
            if let key = RegistrationName.existingKey(T.self, name) {
                var cacheable = false
                if let resolved = try Resolver.resolve(T.self, key: key, in: registry, cacheable: &cacheable) {
                    return resolved
                }
            }
            throw DIError.missing(T.self, named: name, registered: registeredNames(of: T.self))
        } catch {
            DILog.failure(error)
            throw error
        }
    }

    /// Removes this container's registration of `type` under `name` (a
    /// parent's stays visible). Nothing happens when there is none.
    ///
    /// ```swift
    /// container.release(Database.self, name: "replica")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - name: The registration's name.
    public func release<T>(_ type: T.Type, name: String) {
        guard let key = RegistrationName.existingKey(T.self, name) else { return }
        registry.remove(key)
    }

    /// Whether a resolve of `type` named `name` would find a registration,
    /// here or in a parent. Builds nothing.
    ///
    /// ```swift
    /// if !container.isRegistered(Database.self, name: "replica") { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to look for.
    ///   - name: The registration's name.
    /// - Returns: `true` when there is one.
    public func isRegistered<T>(_ type: T.Type, name: String) -> Bool {
        guard let key = RegistrationName.existingKey(T.self, name) else { return false }
        return registry.reaches(key)
    }

    /// The names `type` is registered under here and in the parents,
    /// sorted; the unnamed registration is not one of them.
    ///
    /// ```swift
    /// container.registeredNames(of: Database.self)  // ["primary", "replica"]
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: The names, sorted.
    public func registeredNames<T>(of type: T.Type) -> [String] {
        registeredNames(of: ObjectIdentifier(T.self))
    }

    func registeredNames(of type: ObjectIdentifier) -> [String] {
        RegistrationName.registeredNames(of: type, in: registry)
    }
}
