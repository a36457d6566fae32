import ServiceLifecycle
import WeaveDI

/// Shuts a container down (`DIContainer.shutdown()`, which awaits each
/// built service's `AsyncShutdown.shutdown()`) when its service group shuts
/// down gracefully, so dependencies close with the server.
///
/// A service group shuts its services down in reverse order of the list,
/// each after the one behind it has finished: list this one first so the
/// server stops taking requests before the services it uses are released.
///
/// ```swift
/// let group = ServiceGroup(
///     services: [DependencyShutdownService(), app],
///     gracefulShutdownSignals: [.sigterm],
///     logger: logger)
/// try await group.run()
/// ```
///
/// The container is also shut down when the service is cancelled without
/// a graceful shutdown (the group going away).
public struct DependencyShutdownService: Service {
    private let container: DIContainer

    /// A service that will shut `container` down.
    ///
    /// ```swift
    /// let service = DependencyShutdownService(container: appContainer)
    /// ```
    ///
    /// - Parameter container: The container to shut down; the live
    ///   container (as read now, so inside an overlay, the overlay) by
    ///   default.
    public init(container: DIContainer = .live) {
        self.container = container
    }

    /// Waits for the group's graceful shutdown (or cancellation), then
    /// awaits the container's `shutdown()`. Never throws.
    public func run() async throws {
        // Returns when graceful shutdown starts; throws on cancellation,
        // when the group is going away without one: release anyway.
        try? await gracefulShutdown()
        await container.shutdown()
    }
}
