import CWeaveRegistry

/// The namespace upstream WeaveDI code spells its container with:
/// `WeaveDI.Container` is ``DIContainer``.
///
/// ```swift
/// let container = WeaveDI.Container()
/// WeaveDI.Container.live = container
/// ```
public enum WeaveDI {
    /// Upstream's name for ``DIContainer``; the two are the same type.
    public typealias Container = DIContainer
}

/// The global actor the guides' bootstrap closures are isolated to.
///
/// WeaveDI itself never requires it: registration and resolution are
/// thread-safe from any context. It exists so upstream code annotated
/// `@DIContainerActor` keeps compiling.
///
/// ```swift
/// @DIContainerActor
/// func registerServices() {
///     UnifiedDI.register(Logger.self) { ConsoleLogger() }
/// }
/// ```
@globalActor
public actor DIContainerActor {
    /// The actor instance behind `@DIContainerActor`.
    public static let shared = DIContainerActor()
}

/// The container object behind `WeaveDI.Container.live`, for registration.
/// Reads never come here: `Resolver` reads the C side's live pointer, which
/// `replace` swaps (waiting for a grace period, so the old registry can go).
enum LiveContainer {
    private static let storage: Locked<DIContainer> = {
        let initial = DIContainer()
        weave_live_set(initial.registry.handle)
        return Locked(initial)
    }()

    static var current: DIContainer {
        storage.withLock { $0 }
    }

    static func replace(with container: DIContainer) {
        let previous = storage.withLock { live -> DIContainer in
            let previous = live
            live = container
            weave_live_set(container.registry.handle)
            return previous
        }
        // The old container (and its instances) may deinit here, unlocked.
        _ = previous
    }
}

extension DIContainer {
    /// The container that ``UnifiedDI``, `@Inject`, ``Injected`` and
    /// ``Factory`` read.
    ///
    /// Assigning a fresh one resets everything those see. Reads switch to
    /// the new container at once; the previous one, with its registrations
    /// and built instances, is released when nothing else holds it.
    /// Key defaults of ``InjectedKey`` types are not part of a container and
    /// are not reset.
    ///
    /// Inside `withContainerOverlay` this is the overlay: reading gives it,
    /// and assigning replaces its contents, never the process-wide container.
    ///
    /// ```swift
    /// WeaveDI.Container.live = WeaveDI.Container()
    /// WeaveDI.Container.live.register(Clock.self) { SystemClock() }
    /// ```
    public static var live: DIContainer {
        get {
            if !ContainerOverlays.noneActive, let overlay = ContainerOverlays.currentContainer {
                return overlay
            }
            return LiveContainer.current
        }
        set {
            if !ContainerOverlays.noneActive, let overlay = ContainerOverlays.currentContainer {
                overlay.replaceContents(with: newValue)
                return
            }
            LiveContainer.replace(with: newValue)
        }
    }

    /// Another name for ``live``, as upstream spells it. Reading and
    /// assigning behave exactly as they do for ``live``.
    public static var shared: DIContainer {
        get { live }
        set { live = newValue }
    }

    /// Runs `configure` against ``live``, now. Calling it again (one call
    /// per feature module) adds to what is there; it never discards earlier
    /// registrations.
    ///
    /// ```swift
    /// await WeaveDI.Container.bootstrap { container in
    ///     container.register(UserService.self, scope: .singleton) { UserServiceImpl() }
    /// }
    /// ```
    ///
    /// - Parameter configure: The registrations to make.
    public static func bootstrap(_ configure: @Sendable (DIContainer) async -> Void) async {
        await configure(live)
    }

    /// As ``bootstrap(_:)``, for a throwing `configure`. An error is logged
    /// at `.error` level and not rethrown; registrations made before it stay.
    ///
    /// ```swift
    /// let ready = await WeaveDI.Container.bootstrapAsync { container in
    ///     let config = try await Config.load()
    ///     container.register(Config.self, instance: config)
    /// }
    /// ```
    ///
    /// - Parameter configure: The registrations to make.
    /// - Returns: `true` when `configure` returned, `false` when it threw.
    @discardableResult
    public static func bootstrapAsync(_ configure: @Sendable (DIContainer) async throws -> Void) async -> Bool {
        do {
            try await configure(live)
            return true
        } catch {
            DILog.logger.error("bootstrap failed: \(error)")
            return false
        }
    }

    /// Fire-and-forget bootstrap from synchronous code, e.g. an app's `init`:
    /// starts an unstructured task that runs `configure` against ``live``.
    ///
    /// Nothing waits for it, so a resolve made right after this returns may
    /// run before the registrations exist. Prefer ``bootstrap(_:)`` where
    /// you can await.
    ///
    /// ```swift
    /// WeaveDI.Container.bootstrapInTask { container in
    ///     container.register(Analytics.self) { NoOpAnalytics() }
    /// }
    /// ```
    ///
    /// - Parameter configure: The registrations to make.
    public static func bootstrapInTask(_ configure: @escaping @Sendable (DIContainer) async throws -> Void) {
        Task { await bootstrapAsync(configure) }
    }

    /// Runs `sync`, then `async`, against ``live``: core registrations
    /// first, then those that must await something.
    ///
    /// ```swift
    /// await WeaveDI.Container.bootstrapMixed(
    ///     sync: { $0.register(Clock.self) { SystemClock() } },
    ///     async: { $0.register(Config.self, instance: await Config.load()) }
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - sync: Registrations made first.
    ///   - async: Registrations made after them.
    public static func bootstrapMixed(
        sync: @Sendable (DIContainer) -> Void,
        async: @Sendable (DIContainer) async -> Void
    ) async {
        let container = live
        sync(container)
        await async(container)
    }

    /// Runs ``bootstrap(_:)`` only when ``live`` has no registration yet
    /// (``isBootstrapped`` is false).
    ///
    /// ```swift
    /// await WeaveDI.Container.bootstrapIfNeeded { $0.register(Clock.self) { SystemClock() } }
    /// ```
    ///
    /// - Parameter configure: The registrations to make.
    /// - Returns: Whether `configure` ran.
    @discardableResult
    public static func bootstrapIfNeeded(_ configure: @Sendable (DIContainer) -> Void) async -> Bool {
        guard !isBootstrapped else { return false }
        configure(live)
        return true
    }

    /// Runs ``bootstrapAsync(_:)`` only when ``live`` has no registration
    /// yet (``isBootstrapped`` is false).
    ///
    /// - Parameter configure: The registrations to make.
    /// - Returns: Whether `configure` ran and returned.
    @discardableResult
    public static func bootstrapAsyncIfNeeded(_ configure: @Sendable (DIContainer) async throws -> Void) async -> Bool {
        guard !isBootstrapped else { return false }
        return await bootstrapAsync(configure)
    }

    /// Runs `configure` against ``live``.
    ///
    /// - Parameter configure: The registrations to make.
    public static func update(_ configure: @Sendable (DIContainer) -> Void) async {
        configure(live)
    }

    /// Runs `configure` against ``live``.
    ///
    /// - Parameter configure: The registrations to make.
    public static func updateAsync(_ configure: @Sendable (DIContainer) async -> Void) async {
        await configure(live)
    }

    /// Whether ``live`` holds any registration an app made. A read of a
    /// synced swift-dependencies key installs a bridge there, which is not
    /// one: reading registers nothing.
    public static var isBootstrapped: Bool {
        live.registry.entries.contains { !$0.isForwarder }
    }

    /// Stops the program, naming the caller, when ``live`` holds no
    /// registration.
    ///
    /// ```swift
    /// WeaveDI.Container.ensureBootstrapped()
    /// ```
    public static func ensureBootstrapped(file: StaticString = #fileID, line: UInt = #line) {
        precondition(
            isBootstrapped,
            "WeaveDI: nothing is registered in WeaveDI.Container.live; call WeaveDI.Container.bootstrap { ... } at launch first",
            file: file,
            line: line
        )
    }

    /// Returns at once: registrations complete before `register` returns,
    /// so none is pending.
    public static func flushPendingRegistryTasks() async {}

    /// Replaces ``live`` with an empty container, as
    /// `WeaveDI.Container.live = WeaveDI.Container()` does (inside an
    /// overlay, empties the overlay).
    ///
    /// ```swift
    /// override func tearDown() {
    ///     WeaveDI.Container.resetForTesting()
    /// }
    /// ```
    public static func resetForTesting() {
        live = DIContainer()
    }
}
