// Upstream 3.4's configuration switches and the hooks its add-on modules
// install (`OptimizationHooks`, `OptimizerLogLevel`, `WeaveDIConfiguration`).
// The three tracking hooks upstream's core called (registration, resolve,
// miss) are the core's `RegistryObservers`, called where those events
// happen and free while nil; the others are slots for an add-on.

/// How much an installed optimizer reports, as upstream's optimizer module
/// takes it through ``OptimizationHooks/setOptimizerLogLevel``.
public enum OptimizerLogLevel: String, Sendable, CaseIterable {
    /// Everything.
    case all
    /// Errors only.
    case errors
    /// Optimization decisions.
    case optimization
    /// Registrations.
    case registration
    /// Nothing.
    case off
}

/// Slots for an optimizer or monitor to install callbacks in, with
/// upstream's names and types. Reading and assigning are thread-safe.
///
/// WeaveDI calls each hook where upstream's core did: ``trackRegistration``
/// on every registration, ``trackResolution`` on every resolve and
/// ``handleNilResolution`` on every miss; ``beginResolution`` and
/// ``endResolution`` around ``DIActor``'s resolves; ``onModuleRegistered``
/// after a module registers; ``setAutoMonitorEnabled``,
/// ``setOptimizationEnabled``, ``resetStats`` and ``setOptimizerLogLevel``
/// when the setting they carry changes. The three graph hooks are never
/// called and deprecated. For counts of resolutions use
/// `UnifiedDI.setAutoOptimization(_:)` and `UnifiedDI.stats()`.
///
/// ```swift
/// OptimizationHooks.setOptimizerLogLevel = { level in
///     optimizer.logLevel = level
/// }
/// OptimizationHooks.setOptimizerLogLevel?(.errors)
/// ```
public enum OptimizationHooks {
    private struct Hooks {
        var setOptimizationEnabled: (@Sendable (Bool) -> Void)?
        var resetStats: (@Sendable () -> Void)?
        var setOptimizerLogLevel: (@Sendable (OptimizerLogLevel) -> Void)?
        var setAutoMonitorEnabled: (@Sendable (Bool) -> Void)?
        var onModuleRegistered: (@Sendable (Any.Type) async -> Void)?
        var recordAutoEdgeIfEnabled: (@Sendable (Any.Type) async -> Void)?
        var beginResolution: (@Sendable (Any.Type) async throws -> Void)?
        var endResolution: (@Sendable (Any.Type) async -> Void)?
        var addGraphNode: (@Sendable (Any.Type) async -> Void)?
        var addGraphEdge: (@Sendable (Any.Type, Any.Type, String?) async -> Void)?
    }

    private static let hooks = Locked(Hooks())

    /// Called with the registered type on every registration, in any
    /// container. Costs nothing while nil.
    public static var trackRegistration: (@Sendable (Any.Type) -> Void)? {
        get { RegistryObservers.current.registered }
        set { RegistryObservers.update { $0.registered = newValue } }
    }

    /// Called with the requested type on every resolve through `UnifiedDI`,
    /// `@Injected` and the live container's other routes that `stats()`
    /// counts. While it is installed, reads skip the shared cache (as with
    /// `UnifiedDI.setAutoOptimization(true)`); while nil they pay nothing.
    public static var trackResolution: (@Sendable (Any.Type) -> Void)? {
        get { RegistryObservers.current.resolved }
        set {
            RegistryObservers.update { $0.resolved = newValue }
            ResolveStatistics.refreshReadMode()
        }
    }

    /// Called with the requested type on every resolve that found no
    /// registration. Costs nothing while nil.
    public static var handleNilResolution: (@Sendable (Any.Type) -> Void)? {
        get { RegistryObservers.current.missed }
        set { RegistryObservers.update { $0.missed = newValue } }
    }

    /// Called with the new value by `UnifiedDI.setAutoOptimization(_:)`.
    public static var setOptimizationEnabled: (@Sendable (Bool) -> Void)? {
        get { hooks[\.setOptimizationEnabled] }
        set { hooks[\.setOptimizationEnabled] = newValue }
    }

    /// Called by `UnifiedDI.resetStats()`.
    public static var resetStats: (@Sendable () -> Void)? {
        get { hooks[\.resetStats] }
        set { hooks[\.resetStats] = newValue }
    }

    /// Called by `UnifiedDI.setLogLevel(_:)` with the matching
    /// ``OptimizerLogLevel``, as upstream's did.
    public static var setOptimizerLogLevel: (@Sendable (OptimizerLogLevel) -> Void)? {
        get { hooks[\.setOptimizerLogLevel] }
        set { hooks[\.setOptimizerLogLevel] = newValue }
    }

    /// Called with the new value each time
    /// ``WeaveDIConfiguration/enableAutoMonitor`` changes.
    public static var setAutoMonitorEnabled: (@Sendable (Bool) -> Void)? {
        get { hooks[\.setAutoMonitorEnabled] }
        set { hooks[\.setAutoMonitorEnabled] = newValue }
    }

    /// Called with a module's type after `Module.register()` or
    /// `registerThrowing()` registers it, while
    /// ``WeaveDIConfiguration/enableAutoMonitor`` is on.
    public static var onModuleRegistered: (@Sendable (Any.Type) async -> Void)? {
        get { hooks[\.onModuleRegistered] }
        set { hooks[\.onModuleRegistered] = newValue }
    }

    /// Never called: upstream's registry called it on each async resolve
    /// to build a graph; here `UnifiedDI/validate()` records the graph.
    @available(
        *, deprecated,
        message: "never called: WeaveDI records no graph as it resolves; UnifiedDI.validate().graph gives the dependency graph"
    )
    public static var recordAutoEdgeIfEnabled: (@Sendable (Any.Type) async -> Void)? {
        get { hooks[\.recordAutoEdgeIfEnabled] }
        set { hooks[\.recordAutoEdgeIfEnabled] = newValue }
    }

    /// Called by ``DIActor``'s resolves before resolving; throwing aborts
    /// the resolve (a cycle detector's use).
    public static var beginResolution: (@Sendable (Any.Type) async throws -> Void)? {
        get { hooks[\.beginResolution] }
        set { hooks[\.beginResolution] = newValue }
    }

    /// Called by ``DIActor``'s resolves after resolving, found or not.
    public static var endResolution: (@Sendable (Any.Type) async -> Void)? {
        get { hooks[\.endResolution] }
        set { hooks[\.endResolution] = newValue }
    }

    /// Never called (upstream 3.4's core did not call it either).
    @available(
        *, deprecated,
        message: "never called: WeaveDI records no graph as it resolves; UnifiedDI.validate().graph gives the dependency graph"
    )
    public static var addGraphNode: (@Sendable (Any.Type) async -> Void)? {
        get { hooks[\.addGraphNode] }
        set { hooks[\.addGraphNode] = newValue }
    }

    /// Never called (upstream 3.4's core did not call it either).
    @available(
        *, deprecated,
        message: "never called: WeaveDI records no graph as it resolves; UnifiedDI.validate().graph gives the dependency graph"
    )
    public static var addGraphEdge: (@Sendable (Any.Type, Any.Type, String?) async -> Void)? {
        get { hooks[\.addGraphEdge] }
        set { hooks[\.addGraphEdge] = newValue }
    }
}

/// Process-wide switches, with upstream's names and defaults. Reading and
/// assigning are thread-safe.
///
/// ``defaultInjectedEnvironment`` sets `InjectedValues/context`,
/// ``enableOptimizerTracking`` gates the tracking hooks, and
/// ``enableAutoMonitor`` calls the monitor toggle handler and
/// ``OptimizationHooks/setAutoMonitorEnabled``. The other switches are
/// kept for code that reads them; WeaveDI's own logging follows
/// `DILog/logger`, and its registry needs no health checks or repairs.
///
/// ```swift
/// WeaveDIConfiguration.setMonitorToggleHandler { enabled in
///     enabled ? monitor.start() : monitor.stop()
/// }
/// WeaveDIConfiguration.applyFromEnvironment()   // WEAVEDI_ENABLE_MONITOR=1 ...
/// ```
public enum WeaveDIConfiguration {
    /// Which `InjectedKey` default applies: ``automatic`` detects it at
    /// launch (see `InjectionContext`), the others force one.
    public enum InjectedEnvironment: Sendable, Hashable {
        /// Detected: tests, previews or a running app.
        case automatic
        /// `InjectionContext/live`.
        case live
        /// `InjectionContext/test`.
        case test
        /// `InjectionContext/preview`.
        case preview
    }

    private struct State {
        var autoMonitor = false
        var monitorToggleHandler: (@Sendable (Bool) -> Void)?
        var verboseLogging = false
        var registryAutoHealthCheck = true
        var registryAutoFix = true
        var registryHealthLogging = false
        var injectedEnvironment = InjectedEnvironment.automatic
    }

    private static let state = Locked(State())

    /// Whether ``OptimizationHooks/trackRegistration`` and
    /// ``OptimizationHooks/trackResolution`` are called, as upstream's core
    /// gated them. On by default.
    public static var enableOptimizerTracking: Bool {
        get { RegistryObservers.current.tracking }
        set {
            RegistryObservers.update { $0.tracking = newValue }
            ResolveStatistics.refreshReadMode()
        }
    }

    /// Whether an installed monitor runs. Off by default. A change calls
    /// ``OptimizationHooks/setAutoMonitorEnabled`` and the handler given to
    /// ``setMonitorToggleHandler(_:)``, outside the lock, with the new value.
    public static var enableAutoMonitor: Bool {
        get { state[\.autoMonitor] }
        set {
            let (changed, handler) = state.withLock { state in
                let changed = state.autoMonitor != newValue
                state.autoMonitor = newValue
                return (changed, state.monitorToggleHandler)
            }
            guard changed else { return }
            OptimizationHooks.setAutoMonitorEnabled?(newValue)
            handler?(newValue)
        }
    }

    /// Sets the closure called each time ``enableAutoMonitor`` changes;
    /// nil removes it.
    ///
    /// - Parameter handler: Called with the new value.
    public static func setMonitorToggleHandler(_ handler: (@Sendable (Bool) -> Void)?) {
        state[\.monitorToggleHandler] = handler
    }

    /// Whether code that logs more when asked to should. Off by default.
    @available(*, deprecated, message: "no-op: UnifiedDI.setLogLevel(.all) turns on WeaveDI's debug log")
    public static var enableVerboseLogging: Bool {
        get { state[\.verboseLogging] }
        set { state[\.verboseLogging] = newValue }
    }

    /// Upstream's switch for checking its registry copies against each
    /// other. WeaveDI keeps one registry, so there is nothing to check. On
    /// by default.
    @available(
        *, deprecated,
        message: "no-op: WeaveDI keeps one registry, with nothing to check or repair; UnifiedDI.validate() checks the registrations"
    )
    public static var enableRegistryAutoHealthCheck: Bool {
        get { state[\.registryAutoHealthCheck] }
        set { state[\.registryAutoHealthCheck] = newValue }
    }

    /// Upstream's switch for repairing its registry copies. WeaveDI keeps
    /// one registry, so there is nothing to repair. On by default.
    @available(
        *, deprecated,
        message: "no-op: WeaveDI keeps one registry, with nothing to check or repair; UnifiedDI.validate() checks the registrations"
    )
    public static var enableRegistryAutoFix: Bool {
        get { state[\.registryAutoFix] }
        set { state[\.registryAutoFix] = newValue }
    }

    /// Upstream's switch for logging registry health. Off by default.
    @available(
        *, deprecated,
        message: "no-op: WeaveDI keeps one registry, with nothing to check or repair; UnifiedDI.validate() checks the registrations"
    )
    public static var enableRegistryHealthLogging: Bool {
        get { state[\.registryHealthLogging] }
        set { state[\.registryHealthLogging] = newValue }
    }

    /// The context `InjectedKey` defaults come from. Assigning
    /// `InjectedEnvironment/live`, ``InjectedEnvironment/test`` or
    /// ``InjectedEnvironment/preview`` sets `InjectedValues/context`;
    /// ``InjectedEnvironment/automatic`` sets it to what launch detection
    /// finds. Reads give the last value assigned.
    public static var defaultInjectedEnvironment: InjectedEnvironment {
        get { state[\.injectedEnvironment] }
        set {
            state[\.injectedEnvironment] = newValue
            switch newValue {
            case .automatic: InjectedValues.context = InjectionContext.detect()
            case .live: InjectedValues.context = .live
            case .test: InjectedValues.context = .test
            case .preview: InjectedValues.context = .preview
            }
        }
    }

    /// Sets the switches from environment variables that are present:
    /// booleans accept `1`/`true`/`yes`/`on` and `0`/`false`/`no`/`off`
    /// (any case, surrounding spaces ignored; anything else leaves the
    /// switch as it is), and the injected environment takes `automatic`,
    /// `live`, `test` or `preview`.
    ///
    /// - Parameters:
    ///   - optimizerKey: The variable for ``enableOptimizerTracking``.
    ///   - monitorKey: The variable for ``enableAutoMonitor``.
    ///   - verboseKey: The variable for ``enableVerboseLogging``.
    ///   - registryHealthKey: The variable for ``enableRegistryAutoHealthCheck``.
    ///   - registryFixKey: The variable for ``enableRegistryAutoFix``.
    ///   - registryLogKey: The variable for ``enableRegistryHealthLogging``.
    ///   - injectedEnvKey: The variable for ``defaultInjectedEnvironment``.
    public static func applyFromEnvironment(
        optimizerKey: String = "WEAVEDI_ENABLE_OPTIMIZER",
        monitorKey: String = "WEAVEDI_ENABLE_MONITOR",
        verboseKey: String = "WEAVEDI_VERBOSE_LOGGING",
        registryHealthKey: String = "WEAVEDI_REGISTRY_AUTO_HEALTH",
        registryFixKey: String = "WEAVEDI_REGISTRY_AUTO_FIX",
        registryLogKey: String = "WEAVEDI_REGISTRY_HEALTH_LOGGING",
        injectedEnvKey: String = "WEAVEDI_INJECTED_ENV"
    ) {
        if let value = flag(optimizerKey) { enableOptimizerTracking = value }
        if let value = flag(monitorKey) { enableAutoMonitor = value }
        // The four no-op switches are stored directly: assigning through
        // their deprecated properties would warn here.
        if let value = flag(verboseKey) { state[\.verboseLogging] = value }
        if let value = flag(registryHealthKey) { state[\.registryAutoHealthCheck] = value }
        if let value = flag(registryFixKey) { state[\.registryAutoFix] = value }
        if let value = flag(registryLogKey) { state[\.registryHealthLogging] = value }
        switch variable(injectedEnvKey)?.lowercased() {
        case "automatic": defaultInjectedEnvironment = .automatic
        case "live": defaultInjectedEnvironment = .live
        case "test": defaultInjectedEnvironment = .test
        case "preview": defaultInjectedEnvironment = .preview
        default: break
        }
    }

    private static func variable(_ name: String) -> String? {
        guard let value = ProcessEnvironment.value(name) else { return nil }
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let start = value.firstIndex(where: { !isSpace($0) }), let end = value.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(value[start...end])
    }

    private static func flag(_ name: String) -> Bool? {
        switch variable(name)?.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: return nil
        }
    }
}

extension Locked {
    /// One field of the locked value, read or assigned under the lock: how
    /// each hook of ``OptimizationHooks`` and each switch of
    /// ``WeaveDIConfiguration`` is read and assigned.
    fileprivate subscript<Field>(field: WritableKeyPath<Value, Field>) -> Field {
        get { withLock { $0[keyPath: field] } }
        set { withLock { $0[keyPath: field] = newValue } }
    }
}
