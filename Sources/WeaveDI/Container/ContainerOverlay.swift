import Synchronization

/// Runs `operation` with a container of its own in front of the live one.
/// Inside it, and in its child tasks, every read (`UnifiedDI`,
/// `WeaveDI.Container.live`, `@Inject`, `@Injected`, `@Factory`) sees the
/// overlay's registrations first, then the live container's; and
/// `UnifiedDI.register`, `release` and `releaseAll` change only the overlay.
/// Other tasks never see it, and it is gone when `operation` returns.
///
///     @Test func checkout() async {
///         await withContainerOverlay { container in
///             container.register(PaymentService.self) { PaymentMock() }
///         } operation: {
///             #expect(await Checkout().run() == .paid)
///         }
///     }
///
/// Tests that run in parallel can each register their own mock of the same
/// type this way (WeaveDITesting wraps it as a test trait). Overlays nest: an
/// inner one sits in front of the outer one. Assigning
/// `WeaveDI.Container.live` inside an overlay replaces the overlay's
/// contents with the assigned container's registrations, so the reset idiom
/// `WeaveDI.Container.live = WeaveDI.Container()` stays inside the test.
@discardableResult
public func withContainerOverlay<R>(
    _ configure: (DIContainer) -> Void = { _ in },
    operation: () throws -> R
) rethrows -> R {
    var values = InjectedValues.task
    let overlay = ContainerOverlays.make(over: values.overlay ?? LiveContainer.current)
    configure(overlay)
    values.enterOverlay(overlay)
    return try InjectedValues.$task.withValue(values, operation: operation)
}

/// The `async` form of `withContainerOverlay`.
@discardableResult
public func withContainerOverlay<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ configure: (DIContainer) -> Void = { _ in },
    operation: () async throws -> R
) async rethrows -> R {
    var values = InjectedValues.task
    let overlay = ContainerOverlays.make(over: values.overlay ?? LiveContainer.current)
    configure(overlay)
    values.enterOverlay(overlay)
    return try await InjectedValues.$task.withValue(values, operation: operation, isolation: isolation)
}

/// Counts the overlays alive anywhere. While it is zero, a read of the live
/// container skips the task-local lookup entirely.
@usableFromInline
enum ContainerOverlays {
    @usableFromInline
    static let alive = Atomic<Int>(0)

    @inlinable @inline(__always)
    static var noneActive: Bool { alive.load(ordering: .acquiring) == 0 }

    /// The registry a live read of the current task goes to: its overlay's,
    /// or nil for the live container itself.
    @usableFromInline @inline(never)
    static func currentRegistry() -> Registry? {
        InjectedValues.task.overlay?.registry
    }

    static func make(over parent: DIContainer) -> DIContainer {
        DIContainer(parent: parent)
    }
}

/// Held by every `InjectedValues` made inside `withContainerOverlay`, like
/// `OverrideScopeToken`: the counts stay up while any task that inherited
/// the overlay can still read through it. Counting as an override scope too
/// keeps `@Injected`'s shared cache out of the way while an overlay exists.
final class ContainerOverlayToken: Sendable {
    init() {
        ContainerOverlays.alive.add(1, ordering: .sequentiallyConsistent)
        OverrideScopes.alive.add(1, ordering: .sequentiallyConsistent)
    }

    deinit {
        OverrideScopes.alive.subtract(1, ordering: .sequentiallyConsistent)
        ContainerOverlays.alive.subtract(1, ordering: .sequentiallyConsistent)
    }
}
