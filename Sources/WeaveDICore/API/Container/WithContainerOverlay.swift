/// Runs `operation` with a container of its own in front of the live one.
///
/// Inside `operation`, and in its child tasks, every read (``UnifiedDI``,
/// ``DIContainer/live``, `@Inject`, ``Injected``, ``Factory``) sees the
/// overlay's registrations first, then the live container's; and
/// `UnifiedDI.register`, `release`, `releaseAll` and `shutdown` change only
/// the overlay. Other tasks never see it, and it is gone when `operation`
/// returns or throws.
///
/// ```swift
/// @Test func checkout() async {
///     await withContainerOverlay { container in
///         container.register(PaymentService.self) { PaymentMock() }
///     } operation: {
///         #expect(await Checkout().run() == .paid)
///     }
/// }
/// ```
///
/// Tests that run in parallel can each register their own mock of the same
/// type this way (WeaveDITesting wraps it as a test trait). Overlays nest: an
/// inner one sits in front of the outer one. Assigning
/// ``DIContainer/live`` inside an overlay replaces the overlay's contents
/// with the assigned container's registrations, so the reset idiom
/// `WeaveDI.Container.live = WeaveDI.Container()` stays inside the test.
///
/// A `.singleton` or `.weak` registration of the live container (or of any
/// container but the overlay's own) that is not built yet when a read
/// inside the overlay reaches it is built for the overlay and kept by it:
/// its factory sees the overlay's registrations, so the instance is shared
/// inside the overlay and released with it, never kept by the live
/// container nor seen by another overlay. One built before, outside every
/// overlay, is the one read inside, unless the overlay has its own by then.
///
/// While any overlay is alive, reads made inside one bypass the shared cache
/// of `@Injected`; reads in tasks outside every overlay keep using it.
///
/// - Parameters:
///   - configure: Registrations to make in the overlay before `operation`
///     runs. Empty by default.
///   - operation: The code that sees the overlay.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws.
@discardableResult
public func withContainerOverlay<R>(
    _ configure: (DIContainer) -> Void = { _ in },
    operation: () throws -> R
) rethrows -> R {
    let binding = ContainerOverlays.enter(configure)
    return try ContainerOverlays.$current.withValue(binding) {
        try OverrideScopes.$active.withValue(true, operation: operation)
    }
}

/// The `async` form of `withContainerOverlay(_:operation:)`: `operation` and
/// its child tasks see a container of their own in front of the live one.
///
/// ```swift
/// let total = await withContainerOverlay { container in
///     container.register(PriceService.self) { FixedPrices() }
/// } operation: {
///     await Cart().total()
/// }
/// ```
///
/// - Parameters:
///   - isolation: The actor `operation` runs on; the caller's by default.
///   - configure: Registrations to make in the overlay before `operation`
///     runs. Empty by default.
///   - operation: The code that sees the overlay.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws.
@discardableResult
public func withContainerOverlay<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ configure: (DIContainer) -> Void = { _ in },
    operation: () async throws -> R
) async rethrows -> R {
    let binding = ContainerOverlays.enter(configure)
    return try await ContainerOverlays.$current.withValue(
        binding,
        operation: {
            try await OverrideScopes.$active.withValue(true, operation: operation, isolation: isolation)
        }, isolation: isolation)
}

/// An overlay as the API sees it: a child container bound to a task.
final class ContainerOverlay: ContainerOverlayBinding, @unchecked Sendable {
    let container: DIContainer

    init(_ container: DIContainer) {
        self.container = container
        super.init(registry: container.registry)
    }
}

extension ContainerOverlays {
    /// The container of the current task's innermost overlay, if any.
    static var currentContainer: DIContainer? {
        (current as? ContainerOverlay)?.container
    }

    static func enter(_ configure: (DIContainer) -> Void) -> ContainerOverlay {
        let container = DIContainer(parent: currentContainer ?? LiveContainer.current)
        configure(container)
        return ContainerOverlay(container)
    }
}
