import CWeaveRegistry

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

/// The overlays. Those alive anywhere are counted in the read-mode word
/// (`weave_read_mode`, its high half): while it says none, a read of the
/// live container skips the task-local lookup entirely.
@usableFromInline
enum ContainerOverlays {
    /// The innermost overlay of the current task.
    @TaskLocal static var current: ContainerOverlayBinding?

    @inlinable @inline(__always)
    static var noneActive: Bool { weave_read_mode() & ~WEAVE_READ_MODE_COUNTING < WEAVE_READ_MODE_ONE_OVERLAY }

    /// The registry a live read of the current task goes to: its overlay's,
    /// or nil for the live container itself.
    @usableFromInline @inline(never)
    static func currentRegistry() -> Registry? {
        current?.container.registry
    }

    static func enter(_ configure: (DIContainer) -> Void) -> ContainerOverlayBinding {
        let container = DIContainer(parent: current?.container ?? LiveContainer.current)
        configure(container)
        return ContainerOverlayBinding(container)
    }
}

/// What the task-local holds: the overlay, the instances built inside it,
/// and the count of overlays alive, which stays up while any task that
/// inherited the binding can still read through it (not just until the
/// operation returns). Counting it as an override scope too keeps
/// `@Injected`'s shared cache out of the way of reads made inside it.
final class ContainerOverlayBinding: ScopedInstances, @unchecked Sendable {
    let container: DIContainer

    init(_ container: DIContainer) {
        self.container = container
        super.init(owning: container.registry, enclosingOverride: InjectedValues.task.innermostScope)
        weave_read_mode_overlay_began()
    }

    deinit {
        weave_read_mode_overlay_ended()
    }
}
