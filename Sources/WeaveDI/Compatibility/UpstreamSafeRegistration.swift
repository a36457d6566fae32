// Upstream 3.3's key-path registration helpers and "safe" resolution
// spellings (SafeDependencyKey.swift, SimpleKeyPathRegistry.swift,
// SafeDIError.swift, RegistrationAPI.swift, RegistrationExtensions.swift).
// Each registers through the live container and reads through resolve;
// none keeps state. A key path only names its value type, as everywhere
// else in WeaveDI, and is never read.

// MARK: - Key path registration

/// Upstream's key-path registration helpers, over the live container.
///
/// ```swift
/// SimpleKeyPathRegistry.register(\.userService) { UserServiceImpl() }
/// SimpleKeyPathRegistry.registerIf(\.analytics, condition: !isDebug) { FirebaseAnalytics() }
/// ```
public enum SimpleKeyPathRegistry {
    /// Eager registration under `T`: runs `factory` now and keeps its
    /// instance, as `UnifiedDI.register(_:factory:)` does.
    public static func register<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        factory: @escaping @Sendable () -> T
    ) where T: Sendable {
        UnifiedDI.register(T.self, factory: factory)
    }

    /// As `register(_:factory:)` when `condition` holds; otherwise
    /// nothing is registered and `factory` does not run.
    public static func registerIf<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        condition: Bool,
        factory: @escaping @Sendable () -> T
    ) where T: Sendable {
        guard condition else { return }
        register(keyPath, factory: factory)
    }

    /// Registers `instance` under `T`.
    public static func registerInstance<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        instance: T
    ) where T: Sendable {
        DIContainer.live.register(T.self, instance: instance)
    }

    /// As `register(_:factory:)` in builds with `DEBUG` defined (WeaveDI's
    /// own build setting, as upstream); otherwise nothing.
    public static func registerForDebug<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        factory: @escaping @Sendable () -> T
    ) where T: Sendable {
        #if DEBUG
        register(keyPath, factory: factory)
        #endif
    }

    /// As `register(_:factory:)` in builds without `DEBUG`; otherwise
    /// nothing.
    public static func registerForRelease<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        factory: @escaping @Sendable () -> T
    ) where T: Sendable {
        #if !DEBUG
        register(keyPath, factory: factory)
        #endif
    }

    /// Whether `T` has a registration. Builds nothing (upstream resolved
    /// it to find out).
    public static func isRegistered<T>(_ keyPath: KeyPath<DIContainer, T?>) -> Bool where T: Sendable {
        DIContainer.live.isRegistered(T.self)
    }

    /// The last component of the key path's description (`userService`
    /// for `\WeaveDI.Container.userService`), for log lines. Where the
    /// runtime does not name the property, the whole description.
    public static func extractKeyPathName<T>(_ keyPath: KeyPath<DIContainer, T?>) -> String {
        keyPathName(keyPath)
    }
}

/// The property name a key path's description ends with.
func keyPathName<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> String {
    let text = String(describing: keyPath)
    guard let dot = text.lastIndex(of: ".") else { return text }
    return String(text[text.index(after: dot)...])
}

/// Upstream's register-and-return helpers: each registers an instance
/// under `T` and returns it.
///
/// ```swift
/// let service = RegisterAndReturn.register(\.userService) { UserServiceImpl() }
/// ```
public enum RegisterAndReturn {
    /// Runs `factory` now, registers its instance under `T` and returns
    /// it. `file`, `function` and `line` are accepted for upstream's
    /// signature and unused.
    @discardableResult
    public static func register<T: Sendable>(
        _ keyPath: KeyPath<DIContainer, T?>,
        factory: @escaping @Sendable () -> T,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) -> T {
        UnifiedDI.register(T.self, factory: factory)
    }

    /// Awaits `factory` now, registers its instance under `T` and returns
    /// it.
    @discardableResult
    public static func registerAsync<T: Sendable>(
        _ keyPath: KeyPath<DIContainer, T?>,
        factory: @escaping @Sendable () async -> T,
        file: String = #fileID,
        function: String = #function,
        line: Int = #line
    ) async -> T {
        let instance = await factory()
        DIContainer.live.register(T.self, instance: instance)
        return instance
    }

    /// As ``SimpleKeyPathRegistry/extractKeyPathName(_:)``.
    public static func extractKeyPathName<T>(_ keyPath: KeyPath<DIContainer, T?>) -> String {
        keyPathName(keyPath)
    }

    /// Whether `T` has a registration. Builds nothing.
    public static func isRegistered<T>(_ keyPath: KeyPath<DIContainer, T?>) -> Bool where T: Sendable {
        DIContainer.live.isRegistered(T.self)
    }
}

// MARK: - Safe resolution

/// Why a "safe" resolution failed, as upstream's safe helpers report it.
/// Descriptions are in English; `LocalizedError` is not adopted (WeaveDI
/// links no Foundation), but `errorDescription` is provided.
public enum SafeDIError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Nothing is registered for `type`.
    case dependencyNotFound(type: String, keyPath: String?)
    /// A dependency the caller requires is not registered.
    case requiredDependencyMissing(type: String, context: String?)
    /// No factory for the key path.
    case factoryNotFound(keyPath: String)
    /// Resolving met a cycle; `path` lists the types in order.
    case circularDependency(path: [String])
    /// Resolution did not finish within `timeout` seconds.
    case resolutionTimeout(type: String, timeout: Double)
    /// Anything else the container reported (a factory's failure, a
    /// task-scoped type outside its scope), with the container's message.
    case invalidConfiguration(reason: String)
    /// Kept for code that matches on it; the live container always exists.
    case containerNotInitialized

    /// The error as the container reports it: a miss, a cycle, or the
    /// message of any other `DIError`.
    init(_ error: DIError, keyPath: String? = nil) {
        switch error {
        case .dependencyNotFound(let type):
            self = .dependencyNotFound(type: type, keyPath: keyPath)
        case .circularDependency(let chain):
            self = .circularDependency(path: chain.split(separator: " -> ").map(String.init))
        default:
            self = .invalidConfiguration(reason: error.description)
        }
    }

    /// One line saying what failed.
    public var errorDescription: String? {
        switch self {
        case .dependencyNotFound(let type, let keyPath):
            return "dependency not found: \(type)" + (keyPath.map { " (key path: \($0))" } ?? "")
        case .requiredDependencyMissing(let type, let context):
            return "required dependency not registered: \(type)" + (context.map { " (\($0))" } ?? "")
        case .factoryNotFound(let keyPath):
            return "no factory for \(keyPath)"
        case .circularDependency(let path):
            return "circular dependency: \(path.joined(separator: " -> "))"
        case .resolutionTimeout(let type, let timeout):
            return "resolving \(type) timed out after \(timeout)s"
        case .invalidConfiguration(let reason):
            return "invalid configuration: \(reason)"
        case .containerNotInitialized:
            return "the DI container is not initialized"
        }
    }

    /// `errorDescription`.
    public var description: String { errorDescription ?? "unknown DI error" }

    /// `description`, with what to check for a miss or a cycle.
    public var debugDescription: String {
        switch self {
        case .dependencyNotFound:
            return description + ". Check that the type is registered, under this exact type, before it is resolved."
        case .circularDependency:
            return description + ". Break the cycle: resolve one side lazily or depend on an abstraction."
        default:
            return description
        }
    }

    /// Whether a retry or a fallback can help: true for a miss and a
    /// missing factory.
    public var isRecoverable: Bool {
        switch self {
        case .dependencyNotFound, .factoryNotFound:
            return true
        case .requiredDependencyMissing, .circularDependency, .resolutionTimeout, .invalidConfiguration,
            .containerNotInitialized:
            return false
        }
    }
}

/// The outcome of ``SafeDependencyResolver/safeResolve(_:)``.
public enum SafeResolutionResult<T> {
    /// The resolved instance.
    case success(T)
    /// Why there is none.
    case failure(SafeDIError)

    /// The instance, or nil.
    public var value: T? {
        if case .success(let value) = self { return value }
        return nil
    }

    /// The error, or nil.
    public var error: SafeDIError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension SafeResolutionResult: Sendable where T: Sendable {}

/// What ``SafeDependencyResolver/safeResolve(_:strategy:)`` does when
/// resolution fails.
public enum RecoveryStrategy<T> {
    /// Return this value.
    case useDefault(T)
    /// Resolve again, up to `maxAttempts` attempts in all (a throwing
    /// factory's failure is not kept, so a later attempt can succeed).
    case retry(maxAttempts: Int)
    /// Return what the closure gives, or nil when it throws.
    case fallback(() throws -> T)
    /// Return nil.
    case ignore
}

/// Upstream's resolution with an error value instead of an optional.
public enum SafeDependencyResolver {
    /// The instance registered for `type`, or why there is none.
    ///
    /// ```swift
    /// switch SafeDependencyResolver.safeResolve(UserService.self) {
    /// case .success(let service): service.refresh()
    /// case .failure(let error): print(error.debugDescription)
    /// }
    /// ```
    public static func safeResolve<T>(_ type: T.Type) -> SafeResolutionResult<T> where T: Sendable {
        do throws(DIError) {
            return .success(try UnifiedDI.resolveThrowing(type))
        } catch {
            return .failure(SafeDIError(error))
        }
    }

    /// The instance registered for `type`, or what `strategy` gives.
    /// `.retry(maxAttempts:)` makes at least one attempt (upstream
    /// trapped below one).
    public static func safeResolve<T>(_ type: T.Type, strategy: RecoveryStrategy<T>) -> T? where T: Sendable {
        if let value = safeResolve(type).value { return value }
        switch strategy {
        case .useDefault(let value):
            return value
        case .retry(let maxAttempts):
            for _ in 1..<max(maxAttempts, 1) {
                if let value = safeResolve(type).value { return value }
            }
            return nil
        case .fallback(let make):
            return try? make()
        case .ignore:
            return nil
        }
    }
}

/// Upstream's helpers for `DependencyKey.liveValue` bodies: read what was
/// registered at startup, never register from inside the key.
///
/// Upstream had two enums of these helpers, this one and
/// ``SimpleSafeDependencyRegister``; here the second is another name for
/// this one, so each name has both upstream spellings of the fallback read
/// (``resolveWithFallback(_:fallback:)`` and
/// ``safeResolveWithFallback(_:fallback:)``).
public enum SafeDependencyRegister {
    /// Does nothing, as upstream's did (its body was a commented example):
    /// register dependencies at startup with `UnifiedDI.register`.
    public static func setupForDependencyKeys() {}

    /// The instance registered for `T`, or nil.
    public static func safeResolve<T>(_ keyPath: KeyPath<DIContainer, T?>) -> T? where T: Sendable {
        UnifiedDI.resolve(T.self)
    }

    /// The instance registered for `T`, or `fallback()` (not registered).
    ///
    /// ```swift
    /// static let liveValue: BookList = SafeDependencyRegister.resolveWithFallback(
    ///     \.bookList, fallback: DefaultBookList())
    /// ```
    public static func resolveWithFallback<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        fallback: @autoclosure () -> T
    ) -> T where T: Sendable {
        UnifiedDI.resolve(T.self) ?? fallback()
    }

    /// ``resolveWithFallback(_:fallback:)`` under the name upstream's
    /// `SimpleSafeDependencyRegister` gave it.
    public static func safeResolveWithFallback<T>(
        _ keyPath: KeyPath<DIContainer, T?>,
        fallback: @autoclosure () -> T
    ) -> T where T: Sendable {
        resolveWithFallback(keyPath, fallback: fallback())
    }
}

/// The same helpers under upstream's other name.
public typealias SimpleSafeDependencyRegister = SafeDependencyRegister

/// Upstream's example snippets for `DependencyKey` bodies, as text.
public enum SafeDependencyKeyPatterns {
    /// Register at startup, resolve with a fallback in the key.
    public static let preRegistrationPattern = """
        // At startup
        UnifiedDI.register(BookList.self) { BookListRepository() }

        // In the key
        extension BookListKey: DependencyKey {
            static let liveValue: BookList = UnifiedDI.resolve(BookList.self) ?? DefaultBookList()
        }
        """

    /// Build the value in a factory function that resolves what it needs.
    public static let factoryPattern = """
        extension BookListKey: DependencyKey {
            static let liveValue: BookList = makeBookList()
        }

        private func makeBookList() -> BookList {
            SafeDependencyRegister.resolveWithFallback(\\.bookList, fallback: DefaultBookList())
        }
        """

    /// Register in the background and use a default until then.
    public static let asyncPattern = """
        extension BookListKey: DependencyKey {
            static let liveValue: BookList = {
                Task { await RegisterAndReturn.registerAsync(\\.bookList) { await BookListRepository.load() } }
                return DefaultBookList()
            }()
        }
        """
}

/// What an `InjectedValues` property for a component's provided value is
/// named and typed, and the extension that declares it.
public struct KeyPathInfo: Sendable, Equatable {
    /// The property's name, e.g. `userService`.
    public let propertyName: String
    /// The key type's name, e.g. `UserServiceKey`.
    public let keyName: String
    /// The value type's name.
    public let valueTypeName: String
    /// The provided value's scope.
    public let scope: ProvideScope

    /// The description of one property.
    public init(propertyName: String, keyName: String, valueTypeName: String, scope: ProvideScope) {
        self.propertyName = propertyName
        self.keyName = keyName
        self.valueTypeName = valueTypeName
        self.scope = scope
    }

    /// Swift source for the `InjectedValues` property reading and writing
    /// `keyName`.
    public func generateExtensionCode() -> String {
        """
        extension InjectedValues {
            var \(propertyName): \(valueTypeName) {
                get { self[\(keyName).self] }
                set { self[\(keyName).self] = newValue }
            }
        }
        """
    }
}

// MARK: - Bulk and easy-scope module DSLs

extension RegisterModule {
    /// As ``RegisterModule/interface(_:repository:useCase:fallback:)``: a
    /// module registering the repository, then one registering the use
    /// case wrapping a new repository under the same type. Upstream
    /// resolved the interface from inside its own factory (a cycle), so
    /// `repositoryFallback` is never needed.
    public func registerInterfacePattern<Interface>(
        _ interfaceType: Interface.Type,
        repositoryFactory: @Sendable @escaping () -> Interface,
        useCaseFactory: @Sendable @escaping (Interface) -> Interface,
        repositoryFallback: @Sendable @escaping () -> Interface
    ) -> [() -> Module] where Interface: Sendable {
        interface(interfaceType, repository: repositoryFactory, useCase: useCaseFactory, fallback: repositoryFallback)
    }

    /// The module makers of every entry, in order.
    ///
    /// ```swift
    /// let makers = RegisterModule().bulkInterfaces {
    ///     Auth.self => (repository: { AuthRepository() }, useCase: { AuthUseCase(repository: $0) },
    ///                   fallback: { DefaultAuth() })
    /// }
    /// ```
    public func bulkInterfaces(@BulkRegistrationBuilder _ builder: () -> [BulkRegistrationEntry]) -> [() -> Module] {
        builder().flatMap { $0.makeModules(self) }
    }

    /// One module maker per entry, in order.
    ///
    /// ```swift
    /// let makers = RegisterModule().easyScopes {
    ///     register(Clock.self) { SystemClock() }
    /// }
    /// ```
    public func easyScopes(@EasyScopeBuilder _ builder: () -> [RegisterEasyScopeEntry]) -> [() -> Module] {
        builder().map { entry in { entry.createModule() } }
    }
}

/// Collects ``BulkRegistrationEntry``s for `RegisterModule.bulkInterfaces(_:)`.
@resultBuilder
public struct BulkRegistrationBuilder {
    /// The entries, in order.
    public static func buildBlock(_ components: BulkRegistrationEntry...) -> [BulkRegistrationEntry] {
        components
    }
}

/// One interface for `RegisterModule.bulkInterfaces(_:)`: its repository
/// and the use case wrapping it.
public struct BulkRegistrationEntry: Sendable {
    fileprivate let makeModules: @Sendable (RegisterModule) -> [() -> Module]

    /// The interface, as ``RegisterModule/interface(_:repository:useCase:fallback:)``
    /// takes it.
    public init<Interface>(
        interfaceType: Interface.Type,
        repository: @Sendable @escaping () -> Interface,
        useCase: @Sendable @escaping (Interface) -> Interface,
        fallback: @Sendable @escaping () -> Interface
    ) where Interface: Sendable {
        makeModules = { module in
            module.interface(interfaceType, repository: repository, useCase: useCase, fallback: fallback)
        }
    }
}

/// Collects ``RegisterEasyScopeEntry``s for `RegisterModule.easyScopes(_:)`.
/// Entries may sit inside `if`, `if`/`else` and `for` (upstream declared
/// `buildOptional` and `buildArray` with types its `buildBlock` could not
/// take, so neither compiled).
@resultBuilder
public struct EasyScopeBuilder: ArrayResultBuilder {
    /// The collected entries' type.
    public typealias Element = RegisterEasyScopeEntry

    /// One entry.
    public static func buildExpression(_ expression: RegisterEasyScopeEntry) -> [RegisterEasyScopeEntry] {
        [expression]
    }
}

/// One type and its factory for `RegisterModule.easyScopes(_:)`.
public struct RegisterEasyScopeEntry: Sendable {
    private let makeModule: @Sendable () -> Module

    /// `factory` for `type`.
    public init<T>(type: T.Type, factory: @Sendable @escaping () -> T) where T: Sendable {
        makeModule = { Module(type, factory: factory) }
    }

    /// The module registering the factory.
    public func createModule() -> Module {
        makeModule()
    }
}

infix operator => : AssignmentPrecedence

/// A ``BulkRegistrationEntry`` for `lhs`: `Auth.self => (repository:useCase:fallback:)`.
public func => <Interface>(
    lhs: Interface.Type,
    rhs: (
        repository: @Sendable () -> Interface,
        useCase: @Sendable (Interface) -> Interface,
        fallback: @Sendable () -> Interface
    )
) -> BulkRegistrationEntry where Interface: Sendable {
    BulkRegistrationEntry(interfaceType: lhs, repository: rhs.repository, useCase: rhs.useCase, fallback: rhs.fallback)
}

/// A ``RegisterEasyScopeEntry`` for `RegisterModule.easyScopes(_:)`.
/// Registers nothing by itself. Disfavoured, so an app's own global
/// `register` of the same shape wins.
@_disfavoredOverload
public func register<T>(_ type: T.Type, factory: @Sendable @escaping () -> T) -> RegisterEasyScopeEntry
where T: Sendable {
    RegisterEasyScopeEntry(type: type, factory: factory)
}

/// As ``RegisterModule/interface(_:repository:useCase:fallback:)`` on a
/// new ``RegisterModule``.
@_disfavoredOverload
public func registerInterface<Interface>(
    _ interfaceType: Interface.Type,
    repository: @Sendable @escaping () -> Interface,
    useCase: @Sendable @escaping (Interface) -> Interface,
    fallback: @Sendable @escaping () -> Interface
) -> [() -> Module] where Interface: Sendable {
    RegisterModule().interface(interfaceType, repository: repository, useCase: useCase, fallback: fallback)
}
