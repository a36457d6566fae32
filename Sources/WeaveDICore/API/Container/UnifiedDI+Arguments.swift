/// Registrations that take arguments, in the live container (or the task's
/// overlay): as ``DIContainer``'s, through ``DIContainer/live``.
///
/// ```swift
/// UnifiedDI.register(ItemViewModel.self) { (id: Int) in ItemViewModel(id: id) }
/// let model = UnifiedDI.resolve(ItemViewModel.self, argument: 42)
/// ```
extension UnifiedDI {
    /// Registers a factory taking one argument; see
    /// `DIContainer.register(_:factory:)`.
    ///
    /// ```swift
    /// UnifiedDI.register(ItemViewModel.self) { (id: Int) in ItemViewModel(id: id) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds a value from the argument, on each resolve.
    @_disfavoredOverload  // a `() -> T` value converts to `(()) -> T`: the form without arguments wins
    public static func register<T: Sendable, A>(_ type: T.Type, factory: @escaping @Sendable (A) -> T) {
        DIContainer.live.register(type, factory: factory)
    }

    /// Registers a factory taking two arguments.
    ///
    /// ```swift
    /// UnifiedDI.register(Pair.self) { (a: Int, b: String) in Pair(a, b) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds a value from the arguments, on each resolve.
    public static func register<T: Sendable, A, B>(_ type: T.Type, factory: @escaping @Sendable (A, B) -> T) {
        DIContainer.live.register(type, factory: factory)
    }

    /// Registers a factory taking three arguments.
    ///
    /// ```swift
    /// UnifiedDI.register(Report.self) { (id: Int, from: Day, to: Day) in Report(id, from, to) }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds a value from the arguments, on each resolve.
    public static func register<T: Sendable, A, B, C>(_ type: T.Type, factory: @escaping @Sendable (A, B, C) -> T) {
        DIContainer.live.register(type, factory: factory)
    }

    /// A kept instance cannot be built from one caller's arguments.
    @available(
        *, unavailable,
        message: "a factory taking arguments builds a new value on each resolve: drop scope:"
    )
    @_disfavoredOverload  // a `() -> T` value converts to `(()) -> T`: the form without arguments wins
    public static func register<T: Sendable, A>(
        _ type: T.Type, scope: ProvideScope, factory: @escaping @Sendable (A) -> T
    ) {
        DIContainer.live.register(type, factory: factory)
    }

    /// A factory of `(A, B)` with a lifetime: see the one-argument form.
    @available(
        *, unavailable,
        message: "a factory taking arguments builds a new value on each resolve: drop scope:"
    )
    public static func register<T: Sendable, A, B>(
        _ type: T.Type, scope: ProvideScope, factory: @escaping @Sendable (A, B) -> T
    ) {
        DIContainer.live.register(type, factory: factory)
    }

    /// A factory of `(A, B, C)` with a lifetime: see the one-argument form.
    @available(
        *, unavailable,
        message: "a factory taking arguments builds a new value on each resolve: drop scope:"
    )
    public static func register<T: Sendable, A, B, C>(
        _ type: T.Type, scope: ProvideScope, factory: @escaping @Sendable (A, B, C) -> T
    ) {
        DIContainer.live.register(type, factory: factory)
    }

    /// The value the factory registered for `type` taking an `A` builds from
    /// `argument`, or nil. Outside every overlay and override scope, the
    /// factory is the cached value of its type's slot, read as an unnamed
    /// resolve reads one.
    ///
    /// ```swift
    /// guard let model = UnifiedDI.resolve(ItemViewModel.self, argument: 42) else { return }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - argument: Passed to the factory.
    /// - Returns: A new value, or nil.
    @inlinable
    public static func resolve<T: Sendable, A>(_ type: T.Type, argument: A) -> T? {
        liveArgumentFactory(T.self, taking: A.self)?.buildLogging(argument)
    }

    /// The value the factory registered for `type` taking `(A, B)` builds.
    ///
    /// ```swift
    /// let pair = UnifiedDI.resolve(Pair.self, arguments: 1, "x")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - first: The factory's first argument.
    ///   - second: Its second argument.
    /// - Returns: A new value, or nil.
    @inlinable
    public static func resolve<T: Sendable, A, B>(_ type: T.Type, arguments first: A, _ second: B) -> T? {
        liveArgumentFactory(T.self, taking: (A, B).self)?.buildLogging((first, second))
    }

    /// The value the factory registered for `type` taking `(A, B, C)` builds.
    ///
    /// ```swift
    /// let report = UnifiedDI.resolve(Report.self, arguments: 7, start, end)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - first: The factory's first argument.
    ///   - second: Its second argument.
    ///   - third: Its third argument.
    /// - Returns: A new value, or nil.
    @inlinable
    public static func resolve<T: Sendable, A, B, C>(_ type: T.Type, arguments first: A, _ second: B, _ third: C) -> T? {
        liveArgumentFactory(T.self, taking: (A, B, C).self)?.buildLogging((first, second, third))
    }

    /// The value built from `argument`, or a miss naming the signatures
    /// registered for `type`; see `DIContainer.resolveThrowing(_:argument:)`.
    ///
    /// ```swift
    /// let model = try UnifiedDI.resolveThrowing(ItemViewModel.self, argument: 42)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - argument: Passed to the factory.
    /// - Returns: A new value.
    /// - Throws: A ``DIError``.
    public static func resolveThrowing<T: Sendable, A>(_ type: T.Type, argument: A) throws(DIError) -> T {
        try DIContainer.live.resolveThrowing(type, argument: argument)
    }

    /// The value built from `(first, second)`, or a miss naming the
    /// signatures registered.
    ///
    /// ```swift
    /// let pair = try UnifiedDI.resolveThrowing(Pair.self, arguments: 1, "x")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - first: The factory's first argument.
    ///   - second: Its second argument.
    /// - Returns: A new value.
    /// - Throws: A ``DIError``.
    public static func resolveThrowing<T: Sendable, A, B>(
        _ type: T.Type, arguments first: A, _ second: B
    ) throws(DIError) -> T {
        try DIContainer.live.resolveThrowing(type, arguments: first, second)
    }

    /// The value built from `(first, second, third)`, or a miss naming the
    /// signatures registered.
    ///
    /// ```swift
    /// let report = try UnifiedDI.resolveThrowing(Report.self, arguments: 7, start, end)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The registered type.
    ///   - first: The factory's first argument.
    ///   - second: Its second argument.
    ///   - third: Its third argument.
    /// - Returns: A new value.
    /// - Throws: A ``DIError``.
    public static func resolveThrowing<T: Sendable, A, B, C>(
        _ type: T.Type, arguments first: A, _ second: B, _ third: C
    ) throws(DIError) -> T {
        try DIContainer.live.resolveThrowing(type, arguments: first, second, third)
    }

    /// The signatures `type`'s argument factories take in the live
    /// container, sorted.
    ///
    /// ```swift
    /// UnifiedDI.registeredArguments(of: Pair.self)  // ["(Int, String)"]
    /// ```
    ///
    /// - Parameter type: The registered type.
    /// - Returns: Each signature, as `(Int, String)`.
    public static func registeredArguments<T>(of type: T.Type) -> [String] {
        DIContainer.live.registeredArguments(of: type)
    }

    /// The live factory of `type` taking `Arguments`: its type's slot.
    @inlinable @inline(__always)
    static func liveArgumentFactory<Arguments, T>(
        _ type: T.Type, taking arguments: Arguments.Type
    ) -> ArgumentFactory<Arguments, T>? {
        do throws(DIError) {
            return try Resolver.resolveLive(ArgumentFactory<Arguments, T>.self)
        } catch {
            DILog.failure(error)
            return nil
        }
    }
}
