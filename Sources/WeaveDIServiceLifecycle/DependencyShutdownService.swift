import ServiceLifecycle
import WeaveDI

/// Starts a container when its service group runs (`DIContainer.start(timeout:)`:
/// every singleton built, async ones included, dependencies first) and
/// shuts it down (`DIContainer.shutdown()`, which awaits each built
/// service's `AsyncShutdown.shutdown()`) when the group shuts down
/// gracefully, so dependencies open and close with the server.
///
/// A failed start (a factory threw, or a service did not finish within
/// `startTimeout`) shuts down what was built and throws
/// `DIError.startFailed`, naming every such service: the group then stops
/// with that error instead of serving without them.
///
/// A service group runs its services concurrently and shuts them down in
/// reverse order of the list, each after the one behind it has finished:
/// list this one first, so the server stops taking requests before the
/// services it uses are released. A server whose first request must not
/// come before the start finishes awaits `UnifiedDI.start(timeout:)` (or
/// the container's) before it runs, as the examples do, and passes
/// `startTimeout: nil` here.
///
/// ```swift
/// let group = ServiceGroup(
///     services: [DependencyLifecycleService(startTimeout: .seconds(10)), app],
///     gracefulShutdownSignals: [.sigterm],
///     logger: logger)
/// try await group.run()
/// ```
///
/// The container is also shut down when the service is cancelled without
/// a graceful shutdown (the group going away).
@available(iOS 16, tvOS 16, watchOS 9, macCatalyst 16, *)  // Duration, DIContainer.start(timeout:)
public struct DependencyLifecycleService: Service {
    private let container: @Sendable () -> DIContainer
    private let startTimeout: Duration?

    /// A service that starts `container` and later shuts it down.
    ///
    /// ```swift
    /// let service = DependencyLifecycleService(container: appContainer, startTimeout: .seconds(10))
    /// ```
    ///
    /// - Parameters:
    ///   - container: The container, read when the service runs (so a
    ///     later `WeaveDI.Container.live = ...` is the one started and shut
    ///     down); the live container by default.
    ///   - startTimeout: How long each singleton may take to build; nil
    ///     to skip the start (shut down only).
    public init(
        container: @autoclosure @escaping @Sendable () -> DIContainer = .live,
        startTimeout: Duration? = .seconds(30)
    ) {
        self.container = container
        self.startTimeout = startTimeout
    }

    /// Starts the container, waits for the group's graceful shutdown (or
    /// cancellation), then awaits the container's `shutdown()`.
    ///
    /// - Throws: `DIError.startFailed` when the start fails, after shutting
    ///   down what was built.
    public func run() async throws {
        let container = container()
        if let startTimeout {
            do {
                try await container.start(timeout: startTimeout)
            } catch {
                await container.shutdown()
                throw error
            }
        }
        // Returns when graceful shutdown starts; throws on cancellation,
        // when the group is going away without one: release anyway.
        try? await gracefulShutdown()
        await container.shutdown()
    }
}

/// Shuts a container down when its service group shuts down gracefully:
/// ``DependencyLifecycleService`` without the start, under its earlier name.
///
/// ```swift
/// let group = ServiceGroup(
///     services: [DependencyShutdownService(), app],
///     gracefulShutdownSignals: [.sigterm],
///     logger: logger)
/// try await group.run()
/// ```
public struct DependencyShutdownService: Service {
    // Not a DependencyLifecycleService: that one takes a Duration and needs
    // iOS 16 / tvOS 16 / watchOS 9; this one stays on the package's minimums.
    private let container: @Sendable () -> DIContainer

    /// A service that will shut `container` down.
    ///
    /// ```swift
    /// let service = DependencyShutdownService(container: appContainer)
    /// ```
    ///
    /// - Parameter container: The container to shut down, read when the
    ///   service runs; the live container by default.
    public init(container: @autoclosure @escaping @Sendable () -> DIContainer = .live) {
        self.container = container
    }

    /// Waits for the group's graceful shutdown (or cancellation), then
    /// awaits the container's `shutdown()`. Never throws.
    public func run() async throws {
        // Returns when graceful shutdown starts; throws on cancellation,
        // when the group is going away without one: release anyway.
        try? await gracefulShutdown()
        await container().shutdown()
    }
}
