import ServiceLifecycle
import WeaveDI

/// Shuts a container down (`DIContainer.shutdown()`) when its service group
/// shuts down gracefully, so dependencies close with the server.
///
/// A service group shuts its services down in reverse order of the list,
/// each after the one behind it has finished: list this one first so the
/// server stops taking requests before the services it uses are released.
///
///     let group = ServiceGroup(
///         services: [DependencyShutdownService(), app],
///         gracefulShutdownSignals: [.sigterm],
///         logger: logger)
///     try await group.run()
public struct DependencyShutdownService: Service {
    private let container: DIContainer

    /// `container`: the live container by default.
    public init(container: DIContainer = .live) {
        self.container = container
    }

    public func run() async throws {
        // Returns when graceful shutdown starts; throws on cancellation,
        // when the group is going away without one: release anyway.
        try? await gracefulShutdown()
        await container.shutdown()
    }
}
