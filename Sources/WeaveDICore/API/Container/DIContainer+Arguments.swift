/// Registrations that take arguments at resolve time (Swinject's
/// `resolve(_:argument:)`, Factory's `ParameterFactory`): a view model for an
/// id, a value built per request. Each resolve runs the factory with the
/// arguments given and returns a new value. The argument types are part of
/// the key, so a resolve with other types is a miss that names the
/// signatures registered, never a crash.
///
/// ```swift
/// container.register(ItemViewModel.self) { (id: Int) in ItemViewModel(id: id) }
/// let model = container.resolve(ItemViewModel.self, argument: 42)
/// ```
///
/// A lifetime that keeps an instance cannot take arguments (which call's
/// arguments would the one instance have?): `scope:` with an argument
/// factory does not compile, and says so.
extension DIContainer {
    /// Registers a factory taking one argument; every
    /// ``resolve(_:argument:)`` of `type` with an argument of type `A` runs
    /// it. Replaces an earlier factory of `type` taking an `A` here; a
    /// registration of `type` without arguments, or with other argument
    /// types, is another registration.
    ///
    /// ```swift
    /// container.register(ItemViewModel.self) { (id: Int) in ItemViewModel(id: id) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds a value from the argument, on each resolve.
    @_disfavoredOverload  // a `() -> T` value converts to `(()) -> T`: the form without arguments wins
    public func register<T: Sendable, A>(_ type: T.Type, factory: @escaping @Sendable (A) -> T) {
        registerTakingArguments(T.self, factory)
    }

    /// Registers a factory taking two arguments; see
    /// `register(_:factory:)` for one.
    ///
    /// ```swift
    /// container.register(Pair.self) { (a: Int, b: String) in Pair(a, b) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds a value from the arguments, on each resolve.
    public func register<T: Sendable, A, B>(_ type: T.Type, factory: @escaping @Sendable (A, B) -> T) {
        registerTakingArguments(T.self) { (arguments: (A, B)) in factory(arguments.0, arguments.1) }
    }

    /// Registers a factory taking three arguments; see
    /// `register(_:factory:)` for one.
    ///
    /// ```swift
    /// container.register(Report.self) { (id: Int, from: Date, to: Date) in Report(id, from, to) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds a value from the arguments, on each resolve.
    public func register<T: Sendable, A, B, C>(_ type: T.Type, factory: @escaping @Sendable (A, B, C) -> T) {
        registerTakingArguments(T.self) { (arguments: (A, B, C)) in factory(arguments.0, arguments.1, arguments.2) }
    }

    /// A singleton, weak or task-scoped instance is kept and shared, so it
    /// cannot be built from one caller's arguments.
    @available(
        *, unavailable,
        message: "a factory taking arguments builds a new value on each resolve: drop scope:"
    )
    @_disfavoredOverload  // a `() -> T` value converts to `(()) -> T`: the form without arguments wins
    public func register<T: Sendable, A>(_ type: T.Type, scope: ProvideScope, factory: @escaping @Sendable (A) -> T) {
        registerTakingArguments(T.self, factory)
    }

    /// A factory of `(A, B)` with a lifetime: see the one-argument form.
    @available(
        *, unavailable,
        message: "a factory taking arguments builds a new value on each resolve: drop scope:"
    )
    public func register<T: Sendable, A, B>(
        _ type: T.Type, scope: ProvideScope, factory: @escaping @Sendable (A, B) -> T
    ) {
        register(T.self, factory: factory)
    }

    /// A factory of `(A, B, C)` with a lifetime: see the one-argument form.
    @available(
        *, unavailable,
        message: "a factory taking arguments builds a new value on each resolve: drop scope:"
    )
    public func register<T: Sendable, A, B, C>(
        _ type: T.Type, scope: ProvideScope, factory: @escaping @Sendable (A, B, C) -> T
    ) {
        register(T.self, factory: factory)
    }

    /// The value the factory registered for `type` taking an `A` builds from
    /// `argument`, or nil when there is none (here or in a parent).
    ///
    /// ```swift
    /// let model = container.resolve(ItemViewModel.self, argument: 42)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - argument: Passed to the factory.
    /// - Returns: A new value, or nil.
    @inlinable
    public func resolve<T: Sendable, A>(_ type: T.Type, argument: A) -> T? {
        argumentFactory(T.self, taking: A.self)?.buildLogging(argument)
    }

    /// The value the factory registered for `type` taking `(A, B)` builds.
    ///
    /// ```swift
    /// let pair = container.resolve(Pair.self, arguments: 1, "x")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - first: The factory's first argument.
    ///   - second: Its second argument.
    /// - Returns: A new value, or nil.
    @inlinable
    public func resolve<T: Sendable, A, B>(_ type: T.Type, arguments first: A, _ second: B) -> T? {
        argumentFactory(T.self, taking: (A, B).self)?.buildLogging((first, second))
    }

    /// The value the factory registered for `type` taking `(A, B, C)` builds.
    ///
    /// ```swift
    /// let report = container.resolve(Report.self, arguments: 7, start, end)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - first: The factory's first argument.
    ///   - second: Its second argument.
    ///   - third: Its third argument.
    /// - Returns: A new value, or nil.
    @inlinable
    public func resolve<T: Sendable, A, B, C>(_ type: T.Type, arguments first: A, _ second: B, _ third: C) -> T? {
        argumentFactory(T.self, taking: (A, B, C).self)?.buildLogging((first, second, third))
    }

    /// The value the factory registered for `type` taking an `A` builds, or
    /// ``DIError/dependencyNotFound(type:)`` whose message names the
    /// signatures registered for `type`:
    /// `no registration of 'App.ItemViewModel' taking (String) (registered: (Int))`.
    ///
    /// ```swift
    /// let model = try container.resolveThrowing(ItemViewModel.self, argument: 42)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - argument: Passed to the factory.
    /// - Returns: A new value.
    /// - Throws: A ``DIError``.
    public func resolveThrowing<T: Sendable, A>(_ type: T.Type, argument: A) throws(DIError) -> T {
        try requireArgumentFactory(T.self, taking: A.self).build(argument)
    }

    /// The value the factory registered for `type` taking `(A, B)` builds,
    /// or a miss naming the signatures registered.
    ///
    /// ```swift
    /// let pair = try container.resolveThrowing(Pair.self, arguments: 1, "x")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - first: The factory's first argument.
    ///   - second: Its second argument.
    /// - Returns: A new value.
    /// - Throws: A ``DIError``.
    public func resolveThrowing<T: Sendable, A, B>(_ type: T.Type, arguments first: A, _ second: B) throws(DIError) -> T {
        try requireArgumentFactory(T.self, taking: (A, B).self).build((first, second))
    }

    /// The value the factory registered for `type` taking `(A, B, C)`
    /// builds, or a miss naming the signatures registered.
    ///
    /// ```swift
    /// let report = try container.resolveThrowing(Report.self, arguments: 7, start, end)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - first: The factory's first argument.
    ///   - second: Its second argument.
    ///   - third: Its third argument.
    /// - Returns: A new value.
    /// - Throws: A ``DIError``.
    public func resolveThrowing<T: Sendable, A, B, C>(
        _ type: T.Type, arguments first: A, _ second: B, _ third: C
    ) throws(DIError) -> T {
        try requireArgumentFactory(T.self, taking: (A, B, C).self).build((first, second, third))
    }

    /// The signatures `type`'s argument factories take here and in the
    /// parents, sorted.
    ///
    /// ```swift
    /// container.registeredArguments(of: Pair.self)  // ["(Int, String)"]
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: Each signature, as `(Int, String)`.
    public func registeredArguments<T>(of type: T.Type) -> [String] {
        ArgumentSignatures.registered(of: T.self, in: registry)
    }

    package func registerTakingArguments<Arguments, T: Sendable>(
        _ type: T.Type, _ make: @escaping @Sendable (Arguments) -> T
    ) {
        let key = ArgumentSignatures.key(ArgumentFactory<Arguments, T>.self)
        storeRegistration(PrebuiltEntry(ArgumentFactory(make), factory: nil), key: key, scope: .transient)
    }

    /// The factory of `type` taking `Arguments`, here or in a parent: an
    /// instance registration of the factory's own type.
    @usableFromInline
    package func argumentFactory<Arguments, T>(
        _ type: T.Type, taking arguments: Arguments.Type
    ) -> ArgumentFactory<Arguments, T>? {
        do throws(DIError) {
            var cacheable = false
            return try Resolver.resolve(
                ArgumentFactory<Arguments, T>.self, key: typeKey(ArgumentFactory<Arguments, T>.self), in: registry,
                cacheable: &cacheable)
        } catch {
            DILog.failure(error)
            return nil
        }
    }

    func requireArgumentFactory<Arguments, T>(
        _ type: T.Type, taking arguments: Arguments.Type
    ) throws(DIError) -> ArgumentFactory<Arguments, T> {
        if let factory = argumentFactory(T.self, taking: Arguments.self) { return factory }
        let error = DIError.missing(
            T.self, arguments: ArgumentFactory<Arguments, T>.argumentsLabel,
            registered: ArgumentSignatures.registered(of: T.self, in: registry))
        DILog.failure(error)
        throw error
    }
}
