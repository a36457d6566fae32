/// A named unit of registration with dependencies on other units, hooks
/// around its registration and a condition: upstream 3.3's "enhanced module
/// system", run by ``ModuleGroup`` and ``ModuleRegistry`` in dependency
/// order.
public protocol AdvancedModule: Sendable {
    /// The module's unique name.
    var identifier: String { get }
    /// The identifiers of the modules that must be registered first.
    var dependencies: [String] { get }
    /// Whether the module registers at all.
    var shouldRegister: @Sendable () -> Bool { get }
    /// Runs before ``register()``.
    func beforeRegister() async throws
    /// Makes the module's registrations.
    func register() async throws
    /// Runs after ``register()``.
    func afterRegister() async throws
    /// Checks the module's registrations.
    func validate() async throws
}

/// A ``Module`` with an identifier, dependencies, a condition and hooks.
///
/// ```swift
/// let analytics = ConditionalModule(
///     identifier: "analytics",
///     dependencies: ["network"],
///     condition: { !isRunningPreviews },
///     module: Module(Analytics.self) { LiveAnalytics() }
/// )
/// ```
public struct ConditionalModule: AdvancedModule {
    /// The module's unique name.
    public let identifier: String
    /// The identifiers of the modules that must be registered first.
    public let dependencies: [String]
    /// Whether the module registers at all.
    public let shouldRegister: @Sendable () -> Bool

    private let module: Module
    private let before: (@Sendable () async throws -> Void)?
    private let after: (@Sendable () async throws -> Void)?
    private let validator: (@Sendable () async throws -> Void)?

    /// A module registering `module` when `condition` holds.
    ///
    /// - Parameters:
    ///   - identifier: The module's unique name.
    ///   - dependencies: The identifiers of the modules registered first.
    ///   - condition: Whether the module registers.
    ///   - module: The registration.
    ///   - beforeRegister: Runs before the registration.
    ///   - afterRegister: Runs after it.
    ///   - validator: Checks it; a throw fails the module.
    public init(
        identifier: String,
        dependencies: [String] = [],
        condition: @escaping @Sendable () -> Bool,
        module: Module,
        beforeRegister: (@Sendable () async throws -> Void)? = nil,
        afterRegister: (@Sendable () async throws -> Void)? = nil,
        validator: (@Sendable () async throws -> Void)? = nil
    ) {
        self.identifier = identifier
        self.dependencies = dependencies
        self.shouldRegister = condition
        self.module = module
        self.before = beforeRegister
        self.after = afterRegister
        self.validator = validator
    }

    /// Runs the `beforeRegister` hook.
    public func beforeRegister() async throws { try await before?() }
    /// Registers the module into `DIContainer/live`.
    public func register() async throws { await module.register() }
    /// Runs the `afterRegister` hook.
    public func afterRegister() async throws { try await after?() }
    /// Runs the validator.
    public func validate() async throws { try await validator?() }

    /// A module registering when the environment variable `envKey` equals
    /// `expectedValue`.
    public static func fromEnvironment(
        identifier: String,
        dependencies: [String] = [],
        envKey: String,
        expectedValue: String,
        module: Module
    ) -> ConditionalModule {
        ConditionalModule(
            identifier: identifier,
            dependencies: dependencies,
            condition: { ProcessEnvironment.value(envKey) == expectedValue },
            module: module
        )
    }
}

extension Module {
    /// This module as a ``ConditionalModule``.
    public func asAdvanced(
        identifier: String,
        dependencies: [String] = [],
        condition: @escaping @Sendable () -> Bool = { true }
    ) -> ConditionalModule {
        ConditionalModule(identifier: identifier, dependencies: dependencies, condition: condition, module: self)
    }
}

/// Modules registered together: in dependency order, or all at once when
/// `parallelRegistration` is set (dependencies are then not waited for).
public struct ModuleGroup: AdvancedModule {
    /// The group's unique name.
    public let identifier: String
    /// The identifiers of the modules that must be registered first.
    public let dependencies: [String]
    /// Whether the group registers at all.
    public let shouldRegister: @Sendable () -> Bool

    private let modules: [any AdvancedModule]
    private let parallelRegistration: Bool

    /// A group of `modules`.
    public init(
        identifier: String,
        dependencies: [String] = [],
        condition: @escaping @Sendable () -> Bool = { true },
        modules: [any AdvancedModule],
        parallelRegistration: Bool = false
    ) {
        self.identifier = identifier
        self.dependencies = dependencies
        self.shouldRegister = condition
        self.modules = modules
        self.parallelRegistration = parallelRegistration
    }

    /// Runs the `beforeRegister` of each module whose condition holds, in
    /// order: a module that does not register runs none of its hooks.
    public func beforeRegister() async throws {
        for module in modules where module.shouldRegister() { try await module.beforeRegister() }
    }

    /// Registers the modules whose condition holds. Throws
    /// ``ModuleSystemError`` for a dependency cycle or an unknown dependency
    /// (outside the group's parallel mode).
    public func register() async throws {
        if parallelRegistration {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for module in modules where module.shouldRegister() {
                    group.addTask { try await module.register() }
                }
                try await group.waitForAll()
            }
            return
        }
        for module in try ModuleOrder.sorted(modules, known: []) where module.shouldRegister() {
            try await module.register()
        }
    }

    /// Runs the `afterRegister` of each module whose condition holds, in
    /// order.
    public func afterRegister() async throws {
        for module in modules where module.shouldRegister() { try await module.afterRegister() }
    }

    /// Validates each module whose condition holds, concurrently: a module
    /// that did not register has nothing to validate.
    public func validate() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for module in modules where module.shouldRegister() {
                group.addTask { try await module.validate() }
            }
            try await group.waitForAll()
        }
    }
}

/// Dependency order of modules, each after the ones it names.
enum ModuleOrder {
    static func sorted(_ modules: [any AdvancedModule], known: Set<String>) throws(ModuleSystemError) -> [any AdvancedModule] {
        var byID: [String: any AdvancedModule] = [:]
        for module in modules {
            guard byID.updateValue(module, forKey: module.identifier) == nil else {
                throw .duplicateModule(module.identifier)
            }
        }
        var done = Set<String>()
        var visiting = Set<String>()
        var order: [any AdvancedModule] = []
        func visit(_ id: String, from parent: String?) throws(ModuleSystemError) {
            if done.contains(id) { return }
            guard let module = byID[id] else {
                if known.contains(id) { return }
                if let parent { throw .missingDependency(parent, id) }
                throw .moduleNotFound(id)
            }
            guard visiting.insert(id).inserted else { throw .circularDependency(id) }
            for dependency in module.dependencies {
                try visit(dependency, from: id)
            }
            visiting.remove(id)
            done.insert(id)
            order.append(module)
        }
        for module in modules {
            try visit(module.identifier, from: nil)
        }
        return order
    }
}

/// Collects ``AdvancedModule``s. Modules may sit inside `if`, `if`/`else`,
/// `switch` and `for` (``ArrayResultBuilder``).
@resultBuilder
public struct ModuleBuilder: ArrayResultBuilder {
    /// The collected modules' type.
    public typealias Element = any AdvancedModule

    /// One module.
    public static func buildExpression(_ expression: any AdvancedModule) -> [any AdvancedModule] {
        [expression]
    }
}

/// Where a module registered by ``ModuleRegistry`` stands.
public enum ModuleRegistrationStatus: Sendable {
    /// Its hooks or registration are running.
    case registering
    /// Registered and validated.
    case registered
    /// A hook, the registration or the validation threw.
    case failed(any Error)

    /// Whether the module is registered.
    public var isRegistered: Bool {
        if case .registered = self { return true }
        return false
    }

    /// The error the module failed with, if it failed.
    public var error: (any Error)? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

/// Why ``ModuleRegistry`` or ``ModuleGroup`` refused a set of modules.
public enum ModuleSystemError: Error, CustomStringConvertible {
    /// Two modules share an identifier, or one is already registered.
    case duplicateModule(String)
    /// No module has this identifier.
    case moduleNotFound(String)
    /// The first module depends on the second, which is not there.
    case missingDependency(String, String)
    /// The module is part of a dependency cycle.
    case circularDependency(String)
    /// The module's validation threw.
    case validationFailed(String, any Error)

    /// What went wrong, in English.
    public var errorDescription: String? { description }

    /// What went wrong, in English.
    public var description: String {
        switch self {
        case .duplicateModule(let id): "duplicate module identifier '\(id)'"
        case .moduleNotFound(let id): "no module with identifier '\(id)'"
        case .missingDependency(let module, let dependency):
            "module '\(module)' depends on '\(dependency)', which is neither in the set nor registered"
        case .circularDependency(let id): "module '\(id)' is part of a dependency cycle"
        case .validationFailed(let id, let error): "module '\(id)' failed validation: \(error)"
        }
    }
}

/// Registers ``AdvancedModule``s in dependency order and remembers how each
/// went.
///
/// ```swift
/// try await ModuleRegistry.shared.registerModules {
///     ConditionalModule(identifier: "network", condition: { true }, module: networkModule)
///     ConditionalModule(identifier: "feed", dependencies: ["network"], condition: { true }, module: feedModule)
/// }
/// ```
@MainActor
public final class ModuleRegistry {
    /// The process-wide registry.
    public static let shared = ModuleRegistry()

    /// The modules registered so far, by identifier.
    public private(set) var registeredModules: [String: any AdvancedModule] = [:]
    /// How each module's registration went, by identifier.
    public private(set) var registrationStatus: [String: ModuleRegistrationStatus] = [:]

    private init() {}

    /// Registers the modules `builder` lists; see ``registerModules(_:)``.
    public func registerModules(@ModuleBuilder builder: () -> [any AdvancedModule]) async throws {
        try await registerModules(builder())
    }

    /// Checks the set (no duplicate, every dependency present or already
    /// registered, no cycle), then registers each module whose condition
    /// holds, in dependency order, with its hooks; a module that throws is
    /// marked failed and the others go on. Last, every registered module is
    /// validated again.
    ///
    /// - Throws: ``ModuleSystemError``.
    public func registerModules(_ modules: [any AdvancedModule]) async throws {
        let registered = Set(registeredModules.keys)
        for module in modules where registered.contains(module.identifier) {
            throw ModuleSystemError.duplicateModule(module.identifier)
        }
        for module in try ModuleOrder.sorted(modules, known: registered) where module.shouldRegister() {
            registrationStatus[module.identifier] = .registering
            do {
                try await module.beforeRegister()
                try await module.register()
                try await module.afterRegister()
                try await module.validate()
                registeredModules[module.identifier] = module
                registrationStatus[module.identifier] = .registered
            } catch {
                registrationStatus[module.identifier] = .failed(error)
                DILog.logger.error("module '\(module.identifier)' failed to register: \(error)")
            }
        }
        for (identifier, module) in registeredModules {
            do {
                try await module.validate()
            } catch {
                throw ModuleSystemError.validationFailed(identifier, error)
            }
        }
    }

    /// How the module `moduleId` went, if it was registered here.
    public func status(for moduleId: String) -> ModuleRegistrationStatus? {
        registrationStatus[moduleId]
    }

    /// Forgets every module (their registrations stay in the container).
    public func removeAllModules() {
        registeredModules.removeAll()
        registrationStatus.removeAll()
    }
}
