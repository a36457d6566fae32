import Logging

// Upstream 3.4's declarative registration: `WeaveDI.register`,
// `WeaveDI.builder`, `WeaveDI.registerForEnvironment`, the
// `DependencyBuilder` result builder and the types it builds. Every
// registration made here is an ordinary registration of the live container
// (or the current task's overlay), so `UnifiedDI.resolve`, `@Injected` and
// `@Factory` see it like any other.

extension WeaveDI {
    /// Eager registration under the type the closure returns: runs
    /// `factory` now, registers its result in `DIContainer/live` and
    /// returns it. Write `as SomeProtocol` to register under a protocol.
    ///
    /// ```swift
    /// WeaveDI.register { ConsoleLogger() as Logger }
    /// ```
    ///
    /// - Parameter factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult
    public static func register<T: Sendable>(_ factory: @escaping @Sendable () -> T) -> T {
        UnifiedDI.register(T.self, factory: factory)
    }

    /// Eager registration under `type`: as `UnifiedDI.register(_:factory:)`.
    ///
    /// ```swift
    /// WeaveDI.register(UserService.self) { UserServiceImpl() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under, usually a protocol.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: The instance just built.
    @discardableResult
    public static func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> T {
        UnifiedDI.register(type, factory: factory)
    }

    /// A chain of eager registrations; each `register` call registers at
    /// once, and `configure()` ends the chain.
    ///
    /// ```swift
    /// WeaveDI.builder
    ///     .register { UserServiceImpl() as UserService }
    ///     .register { ConsoleLogger() as Logger }
    ///     .configure()
    /// ```
    public static var builder: RegistrationBuilder {
        RegistrationBuilder()
    }

    /// Runs `configure` with an ``EnvironmentBuilder`` that says whether
    /// this is a debug build or a test run, so one closure can register
    /// different implementations for each.
    ///
    /// ```swift
    /// WeaveDI.registerForEnvironment { env in
    ///     if env.isTesting {
    ///         env.register { MockUserService() as UserService }
    ///     } else {
    ///         env.register { UserServiceImpl() as UserService }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter configure: Makes the registrations.
    public static func registerForEnvironment(_ configure: (EnvironmentBuilder) -> Void) {
        configure(EnvironmentBuilder())
    }
}

/// Notes the types one batch of registrations has registered, so a second
/// registration of the same type in that batch (almost always a mistake:
/// the later one silently replaces the earlier) is logged.
final class RegistrationBatch: Sendable {
    private let seen = Locked<Set<ObjectIdentifier>>([])

    func note(_ type: Any.Type) {
        let repeated = seen.withLock { !$0.insert(ObjectIdentifier(type)).inserted }
        if repeated {
            DILog.logger.warning(
                "\(qualifiedTypeName(type)) registered twice in one batch; the later registration replaces the earlier"
            )
        }
    }

    /// Notes `type`, then registers what `factory` returns under it in
    /// `DIContainer/live` now: each `register` of ``RegistrationBuilder``
    /// and ``EnvironmentBuilder``.
    func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) {
        note(type)
        UnifiedDI.register(type, factory: factory)
    }
}

/// The chain `WeaveDI/builder` starts. Each `register` registers in
/// `DIContainer/live` at once and returns the builder for the next call;
/// registering one type twice in a chain logs a warning (the later one
/// wins).
///
/// ```swift
/// WeaveDI.builder
///     .register { AuthRepositoryImpl() as AuthRepository }
///     .register(SignUpRepository.self) { SignUpRepositoryImpl() }
///     .configure()
/// ```
public struct RegistrationBuilder: Sendable {
    private let batch = RegistrationBatch()

    init() {}

    /// Registers what `factory` returns under its own type, now.
    ///
    /// - Parameter factory: Builds the instance, once, before this returns.
    /// - Returns: This builder, for the next registration.
    @discardableResult
    public func register<T: Sendable>(_ factory: @escaping @Sendable () -> T) -> RegistrationBuilder {
        register(T.self, factory: factory)
    }

    /// Registers what `factory` returns under `type`, now.
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: This builder, for the next registration.
    @discardableResult
    public func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> RegistrationBuilder {
        batch.register(type, factory: factory)
        return self
    }

    /// Ends the chain. The registrations were made by each `register`
    /// call, so there is nothing left to do; it exists so chains written
    /// for upstream read the same.
    public func configure() {}
}

/// What `WeaveDI/registerForEnvironment(_:)` hands its closure: the
/// build and run environment, and registration into `DIContainer/live`.
///
/// ```swift
/// WeaveDI.registerForEnvironment { env in
///     env.register { env.isDebug ? DebugLogger() as Logger : ReleaseLogger() as Logger }
/// }
/// ```
public struct EnvironmentBuilder: Sendable {
    private let batch = RegistrationBatch()

    init() {}

    /// Whether WeaveDI was compiled with `DEBUG` defined. SwiftPM and Xcode
    /// build a package in the configuration of the app that uses it, so
    /// this matches the app's debug or release build.
    public var isDebug: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// Whether `InjectedValues/context` is `InjectionContext/test`:
    /// detected for XCTest and Swift Testing runs on every platform
    /// (`swift test` on Linux included), unless assigned otherwise.
    public var isTesting: Bool {
        InjectedValues.context == .test
    }

    /// Registers what `factory` returns under its own type, now.
    ///
    /// - Parameter factory: Builds the instance, once, before this returns.
    /// - Returns: This builder, for the next registration.
    @discardableResult
    public func register<T: Sendable>(_ factory: @escaping @Sendable () -> T) -> EnvironmentBuilder {
        register(T.self, factory: factory)
    }

    /// Registers what `factory` returns under `type`, now.
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - factory: Builds the instance, once, before this returns.
    /// - Returns: This builder, for the next registration.
    @discardableResult
    public func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) -> EnvironmentBuilder {
        batch.register(type, factory: factory)
        return self
    }
}

// MARK: - Result builder

/// One registration a ``DependencyBuilder`` block lists; `register()` makes
/// it in `DIContainer/live`.
///
/// ```swift
/// struct AnalyticsRegistration: DependencyRegistration {
///     func register() {
///         UnifiedDI.register(Analytics.self, scope: .singleton) { LiveAnalytics() }
///     }
/// }
/// ```
public protocol DependencyRegistration: Sendable {
    /// Makes the registration.
    func register()
}

/// A registration under `T`: of an instance (what a ``DependencyBuilder``
/// block makes of each value it lists, `T` being the value's static type),
/// or of a factory with a lifetime.
///
/// ```swift
/// let configuration = DependencyConfiguration {
///     ConsoleLogger() as Logger                                           // TypedDependency<any Logger>
///     TypedDependency(Database.self, scope: .singleton) { PostgresDatabase() }
/// }
/// ```
public struct TypedDependency<T: Sendable>: DependencyRegistration, Sendable {
    private enum Source: Sendable {
        case instance(T)
        case factory(@Sendable () -> T)
    }

    private let source: Source
    private let defaultScope: ProvideScope?

    /// Registers `instance` under `T`: every resolve of `T` returns it.
    ///
    /// - Parameter instance: The value to register.
    public init(_ instance: T) {
        self.source = .instance(instance)
        self.defaultScope = nil
    }

    /// Registers `factory` under `type`, run as `scope` says (see
    /// `ProvideScope`); nothing is built when it is registered.
    ///
    /// ```swift
    /// TypedDependency(RequestLog.self, scope: .task) { RequestLog() }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to register under.
    ///   - scope: How long an instance lives.
    ///   - factory: Builds an instance when one is needed.
    public init(_ type: T.Type = T.self, scope: ProvideScope, factory: @escaping @Sendable () -> T) {
        self.source = .factory(factory)
        self.defaultScope = scope
    }

    /// Registers in `DIContainer/live`, replacing any registration of `T`
    /// there.
    public func register() {
        register(scope: defaultScope)
    }

    func register(scope: ProvideScope?) {
        switch source {
        case .instance(let instance):
            // An instance exists already; a scope cannot make another.
            DIContainer.live.register(T.self, instance: instance)
        case .factory(let factory):
            if let scope {
                DIContainer.live.register(T.self, scope: scope, factory: factory)
            } else {
                UnifiedDI.register(T.self, factory: factory)
            }
        }
    }
}

/// The registrations whose type is known before they run: a batch notes
/// them, and ``DependencyRegistration/scoped(_:)`` can change their scope.
protocol TypedRegistration: DependencyRegistration {
    /// The type registered under, when known before registering.
    var registeredType: Any.Type? { get }
    func register(scope: ProvideScope?)
}

extension TypedDependency: TypedRegistration {
    var registeredType: Any.Type? { T.self }
}

extension DependencyRegistration {
    /// This registration with `scope` as its lifetime.
    ///
    /// For a ``TypedDependency`` made from a factory, the scope replaces its
    /// own. One made from an instance registers that instance whatever the
    /// scope: there is only the one. A registration type of your own
    /// registers as its `register()` does; the scope is not applied, and a
    /// warning says so.
    ///
    /// ```swift
    /// TypedDependency(Database.self, scope: .transient) { PostgresDatabase() }
    ///     .scoped(.singleton)
    /// ```
    ///
    /// - Parameter scope: The lifetime to register with.
    /// - Returns: The scoped registration.
    public func scoped(_ scope: ProvideScope) -> any DependencyRegistration {
        ScopedDependency(base: self, scope: scope)
    }
}

private struct ScopedDependency: DependencyRegistration {
    let base: any DependencyRegistration
    let scope: ProvideScope

    func register() {
        if let typed = base as? any TypedRegistration {
            typed.register(scope: scope)
        } else {
            DILog.logger.warning(
                "scoped(.\(scope.rawValue)) cannot change how \(qualifiedTypeName(type(of: base))) registers; registered without the scope"
            )
            base.register()
        }
    }
}

extension ScopedDependency: TypedRegistration {
    var registeredType: Any.Type? {
        (base as? any TypedRegistration)?.registeredType
    }

    /// An outer `scoped(_:)` wins over this one.
    func register(scope: ProvideScope?) {
        if let typed = base as? any TypedRegistration {
            typed.register(scope: scope ?? self.scope)
        } else {
            register()
        }
    }
}

/// Registers a list in order; a type listed twice is logged (the later
/// registration wins, as it would written out by hand).
func registerBatch(_ registrations: [any DependencyRegistration]) {
    let batch = RegistrationBatch()
    for registration in registrations {
        if let type = (registration as? any TypedRegistration)?.registeredType {
            batch.note(type)
        }
        registration.register()
    }
}

/// Builds a list of ``DependencyRegistration``s from a block of values:
/// each value is registered under its static type (write `as SomeProtocol`
/// to register under a protocol), a ``DependencyRegistration`` is taken as
/// it is, and `if`, `switch`, `for` and `if #available` work as in any
/// result builder. A statement that produces no value registers nothing.
///
/// ```swift
/// let configuration = DependencyConfiguration {
///     UserServiceImpl() as UserService
///     if useMocks {
///         MockNetworkClient() as NetworkClient
///     } else {
///         URLSessionNetworkClient() as NetworkClient
///     }
/// }
/// configuration.configure()
/// ```
@resultBuilder
public struct DependencyBuilder: ArrayResultBuilder {
    /// The collected registrations' type.
    public typealias Element = any DependencyRegistration

    /// A value, registered under its static type.
    public static func buildExpression<T: Sendable>(_ expression: T) -> [any DependencyRegistration] {
        [TypedDependency(expression)]
    }

    /// A registration, taken as it is.
    public static func buildExpression(_ expression: any DependencyRegistration) -> [any DependencyRegistration] {
        [expression]
    }

    /// A list of registrations (another block's result), taken as it is.
    public static func buildExpression(_ expression: [any DependencyRegistration]) -> [any DependencyRegistration] {
        expression
    }

    /// A statement without a value, such as a call returning nothing:
    /// registers nothing.
    public static func buildExpression(_ expression: Void) -> [any DependencyRegistration] {
        []
    }
}

extension Array where Element == any DependencyRegistration {
    /// Makes every registration in the list, in order: what
    /// `appDependencies.configure()` does for a property declared with
    /// ``DependencyConfiguration``.
    public func configure() {
        registerBatch(self)
    }
}

/// A block of registrations, kept to run later: each
/// ``DependencyConfiguration/configure()`` runs
/// the block again and registers what it lists in `DIContainer/live`.
///
/// As a value:
///
/// ```swift
/// let appDependencies = DependencyConfiguration {
///     UserServiceImpl() as UserService
///     ConsoleLogger() as Logger
/// }
/// appDependencies.configure()
/// ```
///
/// As a property wrapper, whose value is the list the block builds:
///
/// ```swift
/// @DependencyConfiguration({
///     UserServiceImpl() as UserService
/// })
/// var appDependencies: [any DependencyRegistration]
///
/// appDependencies.configure()
/// ```
///
/// Registering a type twice in one block logs a warning; the later
/// registration wins.
@propertyWrapper
public struct DependencyConfiguration {
    private let builder: () -> [any DependencyRegistration]

    /// Keeps `builder` to run on each read and each
    /// ``DependencyConfiguration/configure()``.
    ///
    /// - Parameter builder: The registrations.
    public init(@DependencyBuilder _ builder: @escaping () -> [any DependencyRegistration]) {
        self.builder = builder
    }

    /// The registrations the block lists, built now (each read builds the
    /// values again).
    public var wrappedValue: [any DependencyRegistration] {
        builder()
    }

    /// Builds the block's values and registers them, in order.
    public func configure() {
        registerBatch(builder())
    }
}

/// A set of registrations built once, for one environment, registered when
/// ``DependencyEnvironment/configure()`` is called. Choosing which environment's set to
/// configure is the caller's (with `#if DEBUG`, ``EnvironmentBuilder``, a
/// launch argument); the named constructors only say which one a set is.
///
/// ```swift
/// let live = DependencyEnvironment.production {
///     URLSessionNetworkClient() as NetworkClient
/// }
/// let mocks = DependencyEnvironment.testing {
///     MockNetworkClient() as NetworkClient
/// }
/// (InjectedValues.context == .test ? mocks : live).configure()
/// ```
public struct DependencyEnvironment: Sendable {
    private let dependencies: [any DependencyRegistration]

    /// Builds the block's registrations now; nothing is registered yet.
    ///
    /// - Parameter builder: The registrations.
    public init(@DependencyBuilder _ builder: () -> [any DependencyRegistration]) {
        self.dependencies = builder()
    }

    /// Registers the set in `DIContainer/live`, in order. Calling it again
    /// registers the same instances again.
    public func configure() {
        registerBatch(dependencies)
    }

    /// The set for production.
    ///
    /// - Parameter builder: The registrations.
    /// - Returns: The set, not yet registered.
    public static func production(@DependencyBuilder _ builder: () -> [any DependencyRegistration])
        -> DependencyEnvironment
    {
        DependencyEnvironment(builder)
    }

    /// The set for development builds.
    ///
    /// - Parameter builder: The registrations.
    /// - Returns: The set, not yet registered.
    public static func development(@DependencyBuilder _ builder: () -> [any DependencyRegistration])
        -> DependencyEnvironment
    {
        DependencyEnvironment(builder)
    }

    /// The set for tests.
    ///
    /// - Parameter builder: The registrations.
    /// - Returns: The set, not yet registered.
    public static func testing(@DependencyBuilder _ builder: () -> [any DependencyRegistration])
        -> DependencyEnvironment
    {
        DependencyEnvironment(builder)
    }

    /// The set for SwiftUI previews.
    ///
    /// - Parameter builder: The registrations.
    /// - Returns: The set, not yet registered.
    public static func preview(@DependencyBuilder _ builder: () -> [any DependencyRegistration])
        -> DependencyEnvironment
    {
        DependencyEnvironment(builder)
    }
}
