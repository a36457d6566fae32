import CWeaveRegistry
import Synchronization

/// Namespace kept for source compatibility: `WeaveDI.Container` is `DIContainer`.
public enum WeaveDI {
    public typealias Container = DIContainer
}

/// The actor the guides' bootstrap closures run on.
@globalActor
public actor DIContainerActor {
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
    /// The container `UnifiedDI`, `@Inject` and `@Injected` read. Assigning a
    /// fresh one (`WeaveDI.Container.live = WeaveDI.Container()`) resets
    /// everything those see.
    ///
    /// Inside `withContainerOverlay` this is the overlay: reading gives it,
    /// and assigning replaces its contents, never the process-wide container.
    public static var live: DIContainer {
        get {
            if !ContainerOverlays.noneActive, let overlay = ContainerOverlays.current {
                return overlay.container
            }
            return LiveContainer.current
        }
        set {
            if !ContainerOverlays.noneActive, let overlay = ContainerOverlays.current {
                overlay.container.replaceContents(with: newValue)
                return
            }
            LiveContainer.replace(with: newValue)
        }
    }

    public static var shared: DIContainer {
        get { live }
        set { live = newValue }
    }

    /// Registers into `live`. Calling it again (one call per feature module)
    /// adds to what is there; it never discards earlier registrations.
    public static func bootstrap(_ configure: @Sendable (DIContainer) async -> Void) async {
        await configure(live)
    }

    /// As `bootstrap`; returns true once the registrations are in place.
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

    /// Fire-and-forget bootstrap from synchronous code, e.g. an app's `init`.
    public static func bootstrapInTask(_ configure: @escaping @Sendable (DIContainer) async -> Void) {
        Task { await configure(live) }
    }

    /// Replaces `live` with an empty container.
    public static func resetForTesting() {
        live = DIContainer()
    }
}
